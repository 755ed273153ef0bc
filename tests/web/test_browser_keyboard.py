"""A whole race with the keyboard only, in real headless Chromium (issue 34, item 4).

Ada joins Trefoil deal 1 (a deal the solver wins from the first layout:
``winning_line()``) by typing her name, Tabs to "I'm ready" and presses it; Bob,
over REST, is ready too and plays his first moves. Ada then plays the solver's
71-move line with keys alone: ↑ ↓ to a fan (onto its top card), Enter to pick it,
↑ ↓ to the target fan or Ctrl+Home to the foundations, Enter to play; Home and End
along a fan once. After every move the focus is on a card of the board, never on
``<body>``, and the live region says the move, after every pick its targets; a
refused move typed into the move line is said; Undo pressed in the toolbar,
which the undo disables, gives the focus back to the board; Bob's progress is said,
at most once per few seconds. The board is one Tab stop (Tab leaves it, Shift+Tab comes
back to the same card) and the skip link leads to it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import (
    board_status,
    board_version,
    focused,
    install_probes,
    legal_moves,
    room_state,
    said,
    until,
)
from .test_browser_race import js, text_of, winning_line

pytestmark = pytest.mark.timeout(240)

Driver = Any
SUIT = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RIVALS_EVERY_S = 5.0  # announce.js RIVALS_EVERY_MS


def glyph(card: str) -> str:
    rank = {"T": "10"}.get(card[0], card[0])
    return rank + SUIT[card[-1]]


def keys(driver: Driver, *pressed: str) -> None:
    chain = ActionChains(driver)
    for k in pressed:
        chain.send_keys(k)
    chain.perform()


def ctrl(driver: Driver, key: str) -> None:
    ActionChains(driver).key_down(Keys.CONTROL).send_keys(key).key_up(Keys.CONTROL).perform()


def row(driver: Driver) -> int:
    """The grid row of the focused cell (0: the foundations, n: fan n)."""
    at = focused(driver)
    assert at["role"] == "gridcell", at
    return int(at["row"])


def to_row(driver: Driver, target: int) -> dict[str, Any]:
    """↑ or ↓ to grid row ``target``; the focused cell there."""
    now = row(driver)
    step = Keys.ARROW_DOWN if target > now else Keys.ARROW_UP
    keys(driver, *[step] * abs(target - now))
    at = focused(driver)
    assert at["role"] == "gridcell" and int(at["row"]) == target, (target, at)
    return at


def until_said(driver: Driver, start: int, what: Any, message: str) -> str:
    """The first line the live region said from line ``start`` on that ``what`` accepts."""
    found: str = until(lambda: next((t for t in said(driver)[start:] if what(t)), None), 10,
                       message)
    return found


@pytest.fixture
def ada(tmp_path: Path) -> Iterator[Driver]:
    driver = chromium(1280, 800, profile_root=tmp_path)
    driver.set_script_timeout(20)
    install_probes(driver)
    yield driver
    driver.quit()


def test_a_whole_race_with_the_keyboard_only(server_factory: ServerFactory, ada: Driver) -> None:
    url = server_factory()
    line = winning_line()
    api = httpx.Client(base_url=url + "/api/v1", timeout=10)
    made = api.post("/rooms", json={"variant": "trefoil", "deal": 1, "countdown_s": 0,
                                    "visibility": "private"}).json()
    code = made["room"]["code"]

    # --- join and say ready with keys: the name field has the focus, Tab to the button
    ada.get(f"{url}/r/{code}")
    until(lambda: focused(ada)["id"] == "join-name", message="the name field focused")
    keys(ada, "Ada", Keys.ENTER)
    until(lambda: room_state(ada) == "waiting", message="seated")
    bob = api.post(f"/rooms/{code}/racers", json={"name": "Bob"}).json()
    bob_auth = {"Authorization": f"Bearer {bob['token']}"}
    bob_path = f"/rooms/{code}/racers/{bob['racer']['id']}"
    assert api.post(bob_path + "/ready", json={"ready": True}, headers=bob_auth).status_code == 200
    until(lambda: "✓ ready" in text_of(ada, ".racers"), message="Bob ready")
    for _ in range(20):
        if focused(ada)["id"] == "ready":
            break
        keys(ada, Keys.TAB)
    assert focused(ada)["id"] == "ready"
    keys(ada, Keys.ENTER)  # every racer ready: the race starts (no countdown)
    until(lambda: board_version(ada) == 0, 15, message="the board")
    # the button pressed is gone: the focus is on the board, not on <body>
    until(lambda: focused(ada)["role"] == "gridcell", 5, message="the focus on the board")
    assert any(t.startswith("The race has started") for t in said(ada)), said(ada)

    # --- one Tab stop: Tab leaves the board, Shift+Tab comes back to the same card
    start = focused(ada)
    keys(ada, Keys.TAB)
    assert focused(ada)["role"] != "gridcell", focused(ada)
    ActionChains(ada).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert focused(ada) == start
    # --- the skip link: back to it, Enter, and the board has the focus again
    for _ in range(15):
        ActionChains(ada).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        if focused(ada)["text"] == "Skip to the board":
            break
    assert focused(ada)["text"] == "Skip to the board"
    assert js(ada, "const r = document.activeElement.getBoundingClientRect();"
                   "return r.top >= 0 && r.height > 0")  # shown while it has the focus
    keys(ada, Keys.ENTER)
    assert focused(ada) == start

    # --- Bob moves: his progress is said in Ada's live region
    bob_game = api.get(bob_path + "/game", headers=bob_auth).json()
    cards_before = bob_game["position"]["foundation_cards"]
    rival_from = len(said(ada))
    for i, move in enumerate(line):
        bob_game = api.post(bob_path + "/moves", headers=bob_auth, json={
            "move": move, "expected_version": bob_game["version"],
            "client_move_id": f"bob-{i}"}).json()["game"]
        if bob_game["position"]["foundation_cards"] >= cards_before + 2:
            break
    bob_cards = bob_game["position"]["foundation_cards"]
    moved_at = time.monotonic()
    heard = until_said(ada, rival_from, lambda t: t.startswith("Bob"), "Bob's progress said")
    assert time.monotonic() - moved_at <= RIVALS_EVERY_S + 3
    # said at most once per period: the moves of a moment make one line, or two
    assert heard in (f"Bob: {cards_before + 1} cards, 1st.", f"Bob: {bob_cards} cards, 1st."), heard
    until_said(ada, rival_from, lambda t: t == f"Bob: {bob_cards} cards, 1st.", "Bob's last count")
    bob_lines = [t for t in said(ada)[rival_from:] if t.startswith("Bob")]
    assert len(bob_lines) <= 2, bob_lines

    # --- a refusal: typed into the move line (a digit on the board goes there)
    legal = legal_moves(url, ada, code)
    bad = next(f"{a}-{b}" for a in range(1, 17) for b in range(1, 17)
               if a != b and f"{a}-{b}" not in legal)
    refused_from = len(said(ada))
    keys(ada, bad.replace("-", " "), Keys.ENTER)
    refusal = until_said(ada, refused_from, lambda t: t.startswith("Refused: "), "the refusal said")
    assert "does not go" in refusal or "empty" in refusal, refusal
    assert refusal == text_of(ada, ".msg") and board_version(ada) == 0
    # --- a move typed, then Undo from the toolbar: the button, disabled by the undo
    # (nothing left to undo), gives the focus back to the board, not to <body>
    assert focused(ada)["id"] == "move-input"
    keys(ada, line[0].replace("-", " "), Keys.ENTER)
    until(lambda: board_version(ada) == 1, 10, message="the typed move")
    for _ in range(10):
        if focused(ada)["id"] == "undo":
            break
        ActionChains(ada).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert focused(ada)["id"] == "undo"
    undone_from = len(said(ada))
    keys(ada, Keys.ENTER)
    until(lambda: board_version(ada) == 2, 10, message="the undo")
    until(lambda: focused(ada)["role"] == "gridcell", 5, message="the focus back on the board")
    assert focused(ada) == start
    assert js(ada, "return document.getElementById('undo').disabled")
    until_said(ada, undone_from, lambda t: t == "Move undone. 4 of 52 on the foundations.",
               "the undo said")

    # --- the whole line with keys
    for i, move in enumerate(line):
        src, _, dst = move.partition("-")
        src = src.removesuffix("f")
        at = to_row(ada, int(src))
        card = js(ada, "return document.activeElement.dataset.card")
        assert at["label"].startswith(f"{glyph(card)}, ") and f", fan {src}, top" in at["label"]
        if i == 0:  # Home and End along the fan: its bottom card, then its top card again
            keys(ada, Keys.HOME)
            assert int(focused(ada)["col"]) == 0 and "covered" in focused(ada)["label"]
            keys(ada, Keys.END)
            assert focused(ada) == at
        picked_from = len(said(ada))
        keys(ada, Keys.ENTER)
        picked = until_said(ada, picked_from, lambda t: "picked" in t, "the pick said")
        target = "its foundation" if move.endswith("f") else f"fan {dst}"
        assert picked.startswith(f"{glyph(card)} picked: it goes to ") and target in picked, picked
        if move.endswith("f"):
            ctrl(ada, Keys.HOME)
            assert row(ada) == 0
        else:
            to_row(ada, int(dst))
        assert focused(ada)["label"].endswith(", a target"), focused(ada)
        version, moved_from = board_version(ada), len(said(ada))
        keys(ada, Keys.ENTER)
        until(lambda v=version: board_version(ada) == v + 1, 10, f"move {i + 1}: {move}")
        # the focus stays on the board: the card played, where it went
        at = focused(ada)
        assert at["tag"] != "body" and at["role"] == "gridcell", (move, at)
        assert at["label"].startswith(f"{glyph(card)}, "), (move, at)
        expected = (f"{glyph(card)} to its foundation." if move.endswith("f")
                    else f"{glyph(card)} from fan {src} to fan {dst}.")
        shown = glyph(card)
        said_move = until_said(ada, moved_from, lambda t, g=shown: t.startswith(g),
                               "the move said")
        assert said_move.startswith(expected + " ") and said_move.endswith(
            " of 52 on the foundations."), said_move
    until(lambda: board_status(ada) == "won", message="Ada's win")
    assert text_of(ada, ".msg") == "You won! Waiting for the others…"
    assert focused(ada)["tag"] != "body"

    assert api.post(bob_path + "/resign", headers=bob_auth).status_code == 200
    until(lambda: room_state(ada) == "over", message="the race over")
    assert console_errors(ada) == []
    api.close()
