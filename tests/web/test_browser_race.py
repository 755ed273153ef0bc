"""The browser client in real headless Chromium (Debian's ``chromium`` through
``chromedriver``, driven by Selenium) against a live ``lucie-server``.

One race, three browsers: Ada (desktop, 1440×900) hosts a Trefoil room on
deal 1 — a deal the solver wins from the first layout, so the winning line
does not depend on the room's secret redeal key — and plays it to the win
with taps, double-taps, drags and the keyboard; Bob (a phone, 390×844,
touch) joins by the room's link, moves by tap, is refused an illegal move
(the server's reason shows, nothing moves), reloads mid-race and loses his
socket once (both resume without a lost or repeated event), then resigns;
Sam watches at ``/r/CODE/watch``. The end screen shows the standings, the
comparison chart (SVG), the replay viewer, the replay file download and
"race this ghost". Every page is screenshotted into the test's folder and
checked not blank; the consoles hold no error; the phone never scrolls
sideways.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors, not_blank
from server.rules import deal, deal_order, get_variant
from server.solver import solve

from ..conftest import ServerFactory
from .page import (
    board_position,
    board_status,
    board_version,
    events_seen,
    install_probes,
    legal_moves,
    said,
    until,
)

pytestmark = pytest.mark.timeout(240)

Driver = Any


def winning_line() -> list[str]:
    rules = get_variant("trefoil")
    result = solve(rules, deal(rules, 1), mode="one-layout")
    assert result.verdict == "won"
    return [str(m) for m in result.moves]


def js(driver: Driver, script: str, *args: Any) -> Any:
    return driver.execute_script(script, *args)


def css(driver: Driver, selector: str) -> Any:
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, selector)


def text_of(driver: Driver, selector: str) -> str:
    return str(js(driver, "const e = document.querySelector(arguments[0]); "
                          "return e ? e.textContent : ''", selector))


DOC_SHOTS = {"home-desktop", "home-phone", "race-desktop", "race-phone", "end-desktop",
             "end-phone"}
"""The screenshots README shows (docs/images/web-NAME.png)."""


class Shots:
    """Screenshots of every page, into the test's folder, each checked not blank.
    With ``LUCIE_SCREENSHOTS_DIR`` set, the :data:`DOC_SHOTS` are also written
    there, at one CSS pixel per pixel and in 256 colours (how docs/images is made)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.taken: list[Path] = []
        self.docs = os.environ.get("LUCIE_SCREENSHOTS_DIR")

    def __call__(self, driver: Driver, name: str) -> None:
        path = self.folder / f"{len(self.taken):02d}-{name}.png"
        data = driver.get_screenshot_as_png()
        path.write_bytes(data)
        assert not_blank(data), f"blank screenshot {path}"
        self.taken.append(path)
        if self.docs and name in DOC_SHOTS:
            from PIL import Image

            width = js(driver, "return window.innerWidth")
            with Image.open(path) as image:
                small = image.convert("RGB").resize(
                    (width, round(image.height * width / image.width)), Image.LANCZOS)
                small.quantize(256).save(Path(self.docs) / f"web-{name}.png", optimize=True)


def no_sideways_scroll(driver: Driver) -> None:
    width = js(driver, "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"sideways scroll: content {width[0]} px > viewport {width[1]} px"


HIDDEN_RANKS = """(root, most) =>
    [...document.querySelectorAll(root + ' .fan-cards')]
      .filter((row) => row.children.length <= most)
      .flatMap((row) => [...row.children].slice(0, -1))
      .filter((card) => card.querySelector('.rank').getBoundingClientRect().right
                        > card.nextElementSibling.getBoundingClientRect().left)
      .map((card) => card.dataset.card)"""
"""A JavaScript function: the covered cards of the board under ``root``, in fans of at
most ``most`` cards, whose rank the next card hides (part of it or all)."""


def covered_ranks_hidden(driver: Driver, root: str = ".board", most: int = 4) -> list[str]:
    return list(js(driver, f"return ({HIDDEN_RANKS})(arguments[0], arguments[1])", root, most))


def covered_tens_hidden(driver: Driver) -> list[str]:
    """A board drawn in the page's race layout at this window's width, with covered
    10s in fans of 3 and 4 cards: the covered cards whose rank is not whole."""
    return list(driver.execute_async_script("""
        const [hiddenRanks, done] = [""" + HIDDEN_RANKS + """, arguments[arguments.length - 1]];
        import('/static/board.js').then(({ Board }) => {
          const box = document.createElement('div');
          box.className = 'race';
          box.innerHTML = '<div class="play"><div id="tens"></div></div>'
            + '<aside class="side"></aside>';
          document.getElementById('main').append(box);
          const fans = Array.from({ length: 18 },
            (_, i) => (i % 2 ? ['TH', 'TS', 'TD', 'TC'] : ['TC', '9H', 'TS']));
          new Board(box.querySelector('#tens'), { readOnly: true }).set({ legal_moves: [],
            final: true, position: { fans, cells: [],
              foundations: [['C', 0], ['D', 0], ['H', 0], ['S', 0]] } });
          const hidden = hiddenRanks('#tens', 4);
          box.remove();
          done(hidden);
        });"""))


def table_fits(driver: Driver, selector: str) -> Any:
    """Whether a table shows whole in its box (no sideways scroll, last column seen)
    and each of its names stays on one line."""
    return js(driver, """
        const table = document.querySelector(arguments[0]), box = table.parentElement;
        const last = table.querySelector('thead th:last-child').getBoundingClientRect();
        const oneLine = [...table.querySelectorAll('td.nm')].every((td) => {
          const range = document.createRange(); range.selectNodeContents(td);
          const tops = [...range.getClientRects()].map((r) => r.bottom);
          return Math.max(...tops) - Math.min(...tops) < 4; });
        return box.scrollWidth <= box.clientWidth && last.right <= box.getBoundingClientRect().right
          && last.width > 0 && oneLine;""", selector)


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[Callable[..., Driver]]:
    started: list[Driver] = []

    def start(width: int = 1440, height: int = 900, *, mobile: bool = False) -> Driver:
        driver = chromium(width, height, mobile=mobile, profile_root=tmp_path)
        driver.set_script_timeout(20)
        install_probes(driver)
        started.append(driver)
        return driver

    yield start
    for driver in started:
        driver.quit()


def foundation_top(entry: list[Any]) -> str | None:
    """A foundation of the API (``["H", 7]``) as its top card (``"7H"``), None when empty."""
    suit, rank = entry
    return None if not rank else "A23456789TJQK"[rank - 1] + suit


def top_card(n: int | str) -> str:
    return f'.fan[data-place="fan:{n}"] .fan-cards > :last-child'


def wait_version(driver: Driver, version: int) -> None:
    until(lambda: board_version(driver) == version, 10, f"game version {version}")


def play(driver: Driver, move: str, how: str) -> None:
    """One move of the winning line, the way ``how`` says; waits for its ack."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    before = board_version(driver)
    assert before is not None
    src, _, dst = move.partition("-")
    if how == "keyboard":
        box = css(driver, "#move-input")
        box.send_keys(move.replace("-", " ") + Keys.ENTER)
    elif how == "double-tap":
        assert move.endswith("f")
        # the first tap redraws the board: the second lands where the card still is
        ActionChains(driver).move_to_element(css(driver, top_card(move[:-1]))).click().click() \
            .perform()
    elif how == "tap":
        css(driver, top_card(src)).click()
        until(lambda: js(driver, "return document.querySelectorAll('.target').length"), 5,
              "highlighted targets")
        assert js(driver, "return document.querySelector(arguments[0]).classList"
                          ".contains('target')", f'.fan[data-place="fan:{dst}"]'), \
            f"fan {dst} not highlighted for {move}"
        css(driver, f'.fan[data-place="fan:{dst}"]').click()
    elif how == "drag":
        # the board redraws when the drag starts: aim by coordinates, not elements
        dx, dy = js(driver, """
            const a = document.querySelector(arguments[0]).getBoundingClientRect();
            const b = document.querySelector(arguments[1]).getBoundingClientRect();
            return [Math.round(b.x + b.width / 2 - a.x - a.width / 2),
                    Math.round(b.y + b.height / 2 - a.y - a.height / 2)];""",
                    top_card(src), f'.fan[data-place="fan:{dst}"]')
        ActionChains(driver).move_to_element(css(driver, top_card(src))).click_and_hold() \
            .move_by_offset(10, 10).move_by_offset(dx - 10, dy - 10).release().perform()
    wait_version(driver, before + 1)


def test_two_racers_race_in_chromium(server_factory: ServerFactory, browsers: Callable[..., Driver],
                                     tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    url = server_factory()
    shots = Shots(tmp_path)
    line = winning_line()
    ada = browsers(1440, 900)
    bob = browsers(390, 844, mobile=True)
    sam = browsers(1280, 800)

    # --- Ada creates the room on the home page
    ada.get(url + "/")
    until(lambda: text_of(ada, "#public-rooms"), message="the public rooms list")
    shots(ada, "home-desktop")
    assert covered_tens_hidden(ada) == []  # a covered 10 reads "10", not "1("
    css(ada, "#name").send_keys("Ada")
    Select(css(ada, "#variant")).select_by_value("trefoil")
    Select(css(ada, "#deal-kind")).select_by_value("number")
    css(ada, "#deal-number").send_keys("1")
    css(ada, "#create").click()
    until(lambda: "/r/" in ada.current_url, message="the room page")
    code = ada.current_url.rstrip("/").rsplit("/", 1)[1]
    assert len(code) == 6
    until(lambda: "Ada (you)" in text_of(ada, ".racers"), message="Ada in the waiting room")
    assert "token" not in ada.current_url.lower()
    # the host is told the deal she chose; the others see it at the start (fair play)
    until(lambda: "deal 1 ·" in text_of(ada, ".meta"), message="the host's deal number")

    # --- Bob opens the shared link on his phone and joins; Sam watches
    bob.get(f"{url}/r/{code}")
    until(lambda: js(bob, "return !!document.getElementById('join-name')"), message="join form")
    shots(bob, "join-phone")
    no_sideways_scroll(bob)
    css(bob, "#join-name").send_keys("Bob")
    css(bob, "form.join button[type=submit]").click()
    until(lambda: "Bob (you)" in text_of(bob, ".racers"), message="Bob in the waiting room")
    assert "deal hidden until the start" in text_of(bob, ".meta")
    assert "deal 1 ·" in text_of(ada, ".meta")  # kept through the socket's welcome
    sam.get(f"{url}/r/{code}/watch")
    until(lambda: "Bob" in text_of(sam, ".racers") and "Ada" in text_of(sam, ".racers"),
          message="the spectator's racer list")
    css(bob, "#ready").click()
    until(lambda: "✓ ready" in text_of(ada, ".racers"), message="Bob's ready shown to Ada")
    shots(ada, "waiting-desktop")
    no_sideways_scroll(bob)
    shots(bob, "waiting-phone")
    for who in (ada, bob, sam):
        tokens = js(who, "return Object.keys(localStorage).filter(k => k.includes('racer.'))")
        assert all(code not in who.current_url or "token" not in k for k in tokens)

    # --- Ada starts: the countdown shows on every screen, then the boards
    css(ada, "#start").click()
    for who in (ada, bob, sam):
        until(lambda w=who: js(w, "return window.__countdownShown.length > 0"), 10,
              message="the countdown")
    until(lambda: board_version(ada) == 0 and board_version(bob) == 0, 15, message="both boards")
    for who in (ada, bob, sam):
        # said in the live region once a second, not at each of its redraws (5 a second)
        counted = [t for t in said(who) if t.isdigit() or t == "Go!"]
        assert counted and len(counted) == len(set(counted)), counted
        assert any(t.startswith("The race has started") for t in said(who)), said(who)
    assert len(js(ada, "return document.querySelectorAll('.fan')")) == 16  # Trefoil: 16 fans
    # the spectator sees the leader's board without picking one (as `lucie watch`)
    until(lambda: len(js(sam, "return document.querySelectorAll('.fan')")) == 16, 10,
          message="the spectator's board")
    assert js(sam, "return document.getElementById('watch-racer').selectedOptions[0].text") \
        == "The leader's board"
    # a card's name starts with what it shows: "7♥, seven of hearts, fan 2, top"
    shown = css(ada, top_card(2)).text.replace("\n", "")
    label = css(ada, top_card(2)).get_attribute("aria-label")
    assert label.startswith(shown + ", ") and " of " in label and label.endswith(", fan 2, top")
    shots(ada, "race-start-desktop")

    # --- an illegal move: the server's reason shows and nothing moves
    legal = set(legal_moves(url, ada, code))
    bad = next(f"{a}-{b}" for a in range(1, 17) for b in range(1, 17)
               if a != b and f"{a}-{b}" not in legal)
    board_before = text_of(ada, ".board")
    css(ada, "#move-input").send_keys(bad.replace("-", " ") + "\n")
    # in words, not the code (move/illegal): "K♦ does not go on 7♠"
    until(lambda: "does not go" in text_of(ada, ".msg") or "empty" in text_of(ada, ".msg"),
          message="the server's refusal")
    assert "move/illegal" not in text_of(ada, ".msg") and not text_of(ada, ".msg")[0].islower()
    assert text_of(ada, ".board") == board_before
    assert board_version(ada) == 0

    # --- Bob (phone) makes a move by tap, then an illegal tap
    blegal = legal_moves(url, bob, code)
    bmove = next(m for m in blegal if "-" in m)
    play(bob, bmove, "tap")
    css(bob, "#redeal").click()  # a redeal: the replay viewer must deal it again the same way
    wait_version(bob, 2)
    no_sideways_scroll(bob)

    # --- Ada plays the winning line, every kind of input in turn
    kinds_f = ["double-tap", "keyboard"]
    kinds_play = ["tap", "drag", "keyboard"]
    used: set[str] = set()
    for i, move in enumerate(line):
        how = kinds_f[i % 2] if move.endswith("f") else kinds_play[i % 3]
        used.add(how)
        if i == 2:
            # autoplay with nothing to play: plain words, no error code
            css(ada, "#autoplay").click()
            until(lambda: "Nothing can go to a foundation now" in text_of(ada, ".msg"),
                  message="the autoplay refusal")
            assert "/" not in text_of(ada, ".msg") and board_version(ada) == i
        play(ada, move, how)
        if i == 20:
            # Bob reloads mid-race while Ada moves on: his page resumes from its last event
            seen_before = len(events_seen(bob))
            version_before = board_version(bob)
            bob.refresh()
        if i == 22:
            until(lambda v=version_before: board_version(bob) == v, 15,
                  message="Bob's board after the reload")
            assert len(events_seen(bob)) > seen_before
        if i == 30:
            # Bob's connection drops: the banner shows until the socket is back
            shown = bob.execute_async_script("""
                const done = arguments[arguments.length - 1];
                window.__probeDrop();
                const b = document.getElementById('banner'); const t0 = performance.now();
                (function poll() {
                  if (!b.hidden) return done(b.textContent);
                  if (performance.now() - t0 > 5000) return done(null);
                  setTimeout(poll, 5);
                })();""")
            assert shown and "reconnecting" in shown.lower()
        if i == 35:
            until(lambda: js(bob, "return document.getElementById('banner').hidden"), 10,
                  message="the banner gone after the reconnect")
            shots(sam, "spectating")
            shots(ada, "race-desktop")
            shots(bob, "race-phone")
            no_sideways_scroll(bob)
            for who in (ada, bob):  # every covered card's rank whole, in fans of up to 4
                assert covered_ranks_hidden(who) == []
    assert used == {"double-tap", "keyboard", "tap", "drag"}
    until(lambda: board_status(ada) == "won", message="Ada's win")
    # on the phone the rivals strip (the panel beside the board is the desktop's)
    until(lambda: "52" in text_of(bob, ".strip"), message="Ada's 52 cards on Bob's strip")

    # --- Bob resigns: the race is over on every screen
    css(bob, "#resign").click()
    css(bob, "#resign").click()  # a second press asks nothing more (it stacked a question)
    assert js(bob, "return document.querySelectorAll('.confirm').length") == 1
    css(bob, "#resign-yes").click()
    for who in (ada, bob, sam):
        until(lambda w=who: "Race over" in text_of(w, ".end"), 15, message="the end screen")
        until(lambda w=who: "Points" in text_of(w, ".standings"), message="the standings")
    # once shown, the standings stay: the par (often after them, on a loaded machine
    # nearly always) redraws the table in place, not rebuilding the end screen, whose
    # new table was empty until its standings were fetched again
    js(ada, """window.__endBox = document.querySelector('.end'); window.__emptied = 0;
        new MutationObserver(() => {
          if (!document.querySelector('.standings tbody tr')) window.__emptied += 1;
        }).observe(document.getElementById('main'), { childList: true, subtree: true });""")
    assert "Ada (you)" in text_of(ada, ".standings tbody tr:first-child")
    assert "1st" in text_of(ada, ".msg")
    # "cards to par" reads as the API's to_par (par − cards), labelled as such
    until(lambda: re.search(r"Par: \d+ cards", text_of(ada, ".par")), 60, message="the par")
    assert js(ada, "return [window.__endBox === document.querySelector('.end'), "
                   "window.__emptied]") == [True, 0]
    api = httpx.get(f"{url}/api/v1/rooms/{code}/standings").json()
    shown_par = js(ada, """return [...document.querySelectorAll('.standings tbody tr')].map(
        (tr) => [tr.children[1].textContent, tr.querySelector('.to-par').textContent])""")
    assert shown_par == [[s["name"] + (" (you)" if s["name"] == "Ada" else ""),
                          "0 (par)" if s["to_par"] == 0 else str(s["to_par"])]
                         for s in api["standings"]]
    assert api["standings"][1]["to_par"] > 0  # Bob, short of par: a positive number
    assert "Cards to par" in text_of(ada, ".standings thead")
    assert "par − foundation cards" in text_of(ada, ".par")

    # every event exactly once, in order, across the reload and the drop (the
    # solver's par event may still be on its way to one of them)
    until(lambda: events_seen(bob)[-1] == events_seen(sam)[-1], 10, message="the same last event")
    events = events_seen(bob)
    assert events == list(range(events[0], events[0] + len(events))), events
    sam_events = events_seen(sam)
    assert sam_events == list(range(sam_events[0], sam_events[0] + len(sam_events)))
    assert events[-1] == sam_events[-1]

    # --- the end screen: comparison chart, replay viewer, download, ghost
    until(lambda: js(ada, "return document.querySelectorAll('#chart svg path.line').length") == 2,
          message="the comparison chart")
    assert js(ada, "return document.querySelector('#chart svg .divergence') !== null")
    shots(ada, "end-desktop")
    until(lambda: js(bob, "return document.querySelectorAll('#chart svg path.line').length") == 2,
          message="Bob's chart")
    no_sideways_scroll(bob)
    assert table_fits(bob, ".end table.standings")
    assert "Status" in text_of(bob, ".end .standings thead")
    shots(bob, "end-phone")
    until(lambda: "press play" in text_of(ada, "#replay-now"), message="the replay")
    assert text_of(ada, "#replay-now") == f"Ada: {len(line)} moves — press play"
    controls = js(ada, """return [...document.querySelectorAll('.replay .controls button')]
        .map((b) => [b.textContent, b.getAttribute('aria-label')])""")
    assert controls == [["|◀ First", "First move"], ["◀ Step", "Step back"], ["▶", "play"],
                        ["Step ▶", "Step forward"], ["Last ▶|", "Last move"]]
    css(ada, "#rp-next").click()
    assert text_of(ada, "#replay-now").startswith(f"Move 1 of {len(line)}: {line[0]}")
    # 2×: the 71 steps take 21 s, time enough for the pause to land mid-way on a
    # loaded machine (at 8× the replay was over before the test's click came)
    Select(css(ada, "#rp-speed")).select_by_value("2")
    css(ada, "#rp-play").click()
    def replay_at() -> int:
        found = re.match(r"Move (\d+) of", text_of(ada, "#replay-now"))
        return int(found.group(1)) if found else 0

    until(lambda: replay_at() >= 6, 10, message="the replay playing")
    css(ada, "#rp-play").click()  # pause

    def still() -> str:  # a step already due when the click came may still land
        before = text_of(ada, "#replay-now")
        time.sleep(0.3)
        return before if text_of(ada, "#replay-now") == before else ""

    paused = until(still, 5, message="the replay paused")
    assert replay_at() < len(line)  # paused mid-way, not played out to the end
    css(ada, "#rp-prev").click()
    assert text_of(ada, "#replay-now") != paused
    # the viewer's board after the last move is each racer's final board
    for racer in ("Ada", "Bob"):
        Select(css(ada, "#replay-racer")).select_by_visible_text(racer)

        def at_end(who: str = racer) -> Any:
            css(ada, "#rp-last").click()
            now = re.match(r"Move (\d+) of (\d+):", text_of(ada, "#replay-now"))
            picked = js(ada, "const s = document.getElementById('replay-racer');"
                             "return s.selectedOptions[0].text")
            return board_position(ada, "#replay-board") if picked == who and now \
                and now.group(1) == now.group(2) else None

        shown = until(at_end, message=f"{racer}'s replay at its end")
        room = httpx.get(f"{url}/api/v1/rooms/{code}").json()
        rid = next(r["id"] for r in room["racers"] if r["name"] == racer)
        final = httpx.get(f"{url}/api/v1/rooms/{code}/racers/{rid}/game").json()["position"]
        assert shown["fans"] == final["fans"], racer
        assert shown["foundations"] == [foundation_top(f) for f in final["foundations"]], racer
    Select(css(ada, "#replay-racer")).select_by_visible_text("Ada")
    until(lambda: text_of(ada, "#replay-now").startswith("Ada:"), message="Ada's replay again")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    ada.execute_cdp_cmd("Browser.setDownloadBehavior",
                        {"behavior": "allow", "downloadPath": str(downloads)})
    css(ada, "#rp-download").click()
    files = until(lambda: [p for p in downloads.glob("*.json")], 10, message="the replay file")
    replay = json.loads(files[0].read_text())
    assert replay["format"] == "lucie-replay" and [m["move"] for m in replay["moves"]] == line
    checked = httpx.post(url + "/api/v1/replays/check", json={"replay": replay})
    assert checked.status_code == 200 and checked.json()["valid"] is True
    css(ada, "#rp-ghost").click()
    until(lambda: f"/r/{code}" not in ada.current_url and "/r/" in ada.current_url, 15,
          message="the ghost room")
    until(lambda: js(ada, "return !!document.getElementById('join-name')"), message="ghost join")
    shots(ada, "ghost-room")

    for who in (ada, bob, sam):
        assert console_errors(who) == []
    assert len(shots.taken) >= 10


def test_computer_racers_race_on_after_the_page_closes(
        server_factory: ServerFactory, browsers: Callable[..., Driver], tmp_path: Path) -> None:
    """The home page's computer racers are the server's (``"bots"`` of ``POST /rooms``):
    Ada creates a room with two, starts, resigns and leaves the page; with no page
    open any more the bots still play their games to a final result."""
    from selenium.webdriver.support.ui import Select

    url = server_factory(LUCIE_BOT_THINK_MS="30")
    shots = Shots(tmp_path)
    ada = browsers(1440, 900)
    ada.get(url + "/")
    until(lambda: text_of(ada, "#public-rooms"), message="the home page")
    css(ada, "#name").send_keys("Ada")
    Select(css(ada, "#time-limit")).select_by_value("180")
    css(ada, "#bots").clear()
    css(ada, "#bots").send_keys("2")
    assert "run by the server" in text_of(ada, "#create-form")
    css(ada, "#create").click()
    until(lambda: "/r/" in ada.current_url, message="the room page")
    code = ada.current_url.rstrip("/").rsplit("/", 1)[1]
    # seated by the server with the room, ready once Ada is in
    until(lambda: text_of(ada, ".racers").count("✓ ready") == 2, message="the bots ready")
    assert "bot-Ada" in text_of(ada, ".racers") and "bot-Bix" in text_of(ada, ".racers")
    tagged = """return [...document.querySelectorAll(arguments[0])].filter((e) => e.querySelector(
        '.tag')?.textContent === 'bot').map((e) => e.firstChild.textContent)"""
    # the computer racers carry a "bot" tag (the view's `bot`, else their names)
    assert js(ada, tagged, ".racers .name") == ["bot-Ada", "bot-Bix"]
    shots(ada, "bots-waiting")
    css(ada, "#start").click()
    until(lambda: board_version(ada) == 0, 15, message="the board")
    assert sorted(js(ada, tagged, ".opponents .name")) == ["bot-Ada", "bot-Bix"]
    css(ada, "#resign").click()
    css(ada, "#resign-yes").click()
    until(lambda: board_status(ada) == "resigned", message="resigned")
    assert console_errors(ada) == []
    ada.get("about:blank")  # the creator's page is gone

    deadline = time.monotonic() + 90
    while (room := httpx.get(f"{url}/api/v1/rooms/{code}").json())["state"] != "over":
        assert time.monotonic() < deadline, f"the bots stopped: {room['racers']}"
        time.sleep(0.3)
    bots = [r for r in room["racers"] if r["name"] != "Ada"]
    assert [r["name"] for r in bots] == ["bot-Ada", "bot-Bix"]
    for bot in bots:
        assert bot["final"] and bot["status"] in ("won", "stuck"), bot
        assert bot["moves"] > 0 and bot["finished_ms"] < room["time_limit_ms"]

    # the end screen on a phone: bots tagged, the standings whole in 390 px
    phone = browsers(390, 844, mobile=True)
    phone.get(f"{url}/r/{code}/watch")
    until(lambda: "Status" in text_of(phone, ".end .standings thead"), message="the standings")
    assert sorted(js(phone, tagged, ".end .standings td.nm")) == ["bot-Ada", "bot-Bix"]
    # a computer racer concedes only when it has no move it can use: "stuck", not "resigned"
    statuses = js(phone, """return Object.fromEntries([...document.querySelectorAll(
        '.end .standings tbody tr')].map((tr) => [tr.querySelector('.nm').firstChild.textContent,
                                                  tr.lastChild.textContent]))""")
    for bot in bots:
        assert statuses[bot["name"]] == bot["status"], statuses
    assert table_fits(phone, ".end table.standings")
    no_sideways_scroll(phone)
    shots(phone, "end-bots-phone")
    # the room's own address after the race: the end screen, not "started without you"
    phone.get(f"{url}/r/{code}")
    until(lambda: "Status" in text_of(phone, ".end .standings thead"), message="the end screen")
    assert "without you" not in text_of(phone, "main"), text_of(phone, "main")
    assert console_errors(phone) == []


def rated_race(url: str) -> None:
    """Two players (``Ada Player``, ``Bea Player``) race one rated race over REST:
    Ada puts a card on a foundation (deal 2 has aces on top), both resign."""
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
        keys = [api.post("/players", json={"name": n}).json()["key"]
                for n in ("Ada Player", "Bea Player")]
        made = api.post("/rooms", json={"countdown_s": 0, "deal": 2}).json()
        room = made["room"]["id"]
        seats = [api.post(f"/rooms/{room}/racers", json={},
                          headers={"Authorization": f"Bearer {k}"}).json() for k in keys]
        assert api.post(f"/rooms/{room}/start", headers={
            "Authorization": f"Bearer {made['host_token']}"}).status_code == 200
        for i, seat in enumerate(seats):
            path = f"/rooms/{room}/racers/{seat['racer']['id']}"
            auth = {"Authorization": f"Bearer {seat['token']}"}
            if i == 0:
                game = api.get(path + "/game", headers=auth).json()
                move = next(m for m in game["legal_moves"] if m.endswith("f"))
                assert api.post(path + "/moves", headers=auth, json={
                    "move": move, "expected_version": 0, "client_move_id": "1"}).status_code == 200
            assert api.post(path + "/resign", headers=auth).status_code == 200
        until(lambda: api.get("/leaderboards/belle-lucie/rating").json()["entries"], 30,
              message="the race archived and rated")


def test_pages_render_in_chromium(server_factory: ServerFactory, browsers: Callable[..., Driver],
                                  tmp_path: Path) -> None:
    """Leaderboards (the rating board too), rules (rendered from docs/rules.md), the
    phone home page, a covered 10 on a phone, and "page not found"."""
    from selenium.webdriver.support.ui import Select

    url = server_factory(LUCIE_ARCHIVE_PERIOD_S="0.2")
    rated_race(url)
    shots = Shots(tmp_path)
    phone = browsers(390, 844, mobile=True)
    phone.get(url + "/")
    until(lambda: text_of(phone, "#public-rooms"), message="home")
    no_sideways_scroll(phone)
    shots(phone, "home-phone")
    assert covered_tens_hidden(phone) == []  # a covered 10's "0" is not cut on a phone
    phone.get(url + "/rules")
    until(lambda: js(phone, "return document.querySelectorAll('article.rules h2').length") > 3,
          message="the rules rendered")
    assert js(phone, "return document.querySelector('article.rules h1').textContent") \
        .startswith("La Belle Lucie")
    # players read the rules first: the title, then the game; the rule book's notes for
    # developers (its vocabulary, its sources) come last, folded away
    shown = js(phone, """
        const top = [...document.querySelectorAll('article.rules > h1, article.rules > h2, '
                                                  + 'article.rules > p')];
        return {first: top.slice(0, 2).map((e) => e.tagName + ' ' + e.textContent),
                sections: [...document.querySelectorAll('article.rules > h2')]
                  .map((e) => e.textContent),
                folded: [...document.querySelectorAll('article.rules > details:last-child h2')]
                  .map((e) => e.textContent),
                open: document.querySelector('article.rules > details').open,
                seen: document.querySelector('article.rules > details table')
                  .checkVisibility()};""")
    assert shown["first"][0].startswith("H1 La Belle Lucie")
    # a short how-to-play for players first: the rule book's own text carries
    # implementers' notes (the deal generators' sources, the seeds)
    assert shown["first"][1] == "H2 How to play", shown
    assert shown["sections"] == ["How to play", "Standard game (variant id belle-lucie)",
                                 "Move notation (text "
                                 "form, used by the terminal client and accepted by the API)",
                                 "Variants", "Race ranking"]
    assert shown["folded"] == ["Vocabulary (use these words in code, API and UI)"]
    assert shown["open"] is False and shown["seen"] is False
    # long code in the text wraps on a phone instead of running off the screen
    assert js(phone, "return [...document.querySelectorAll('article.rules li > code')]"
                     ".every((e) => e.getBoundingClientRect().right <= innerWidth)")
    no_sideways_scroll(phone)
    shots(phone, "rules-phone")
    phone.get(url + "/leaderboards")
    until(lambda: js(phone, "return document.querySelectorAll('#leaderboard th').length") == 7,
          message="the leaderboard table")
    # every select has a visible label; no result yet: the message is where the rows go
    labels = js(phone, """return ['lb-variant', 'lb-kind'].map((id) => {
        const l = document.querySelector(`label[for="${id}"]`);
        return l && l.checkVisibility() ? l.textContent : null; })""")
    assert labels == ["Variant", "Board"]
    until(lambda: text_of(phone, "#leaderboard tbody"), message="the empty board's message")
    empty = js(phone, """const t = document.getElementById('leaderboard');
        const cell = t.querySelector('tbody td');
        return [cell.textContent, cell.colSpan, t.querySelectorAll('caption').length,
                cell.getBoundingClientRect().top >= t.tHead.getBoundingClientRect().bottom - 1]""")
    assert empty == ["No result yet.", 7, 0, True]
    # the selects show their longest choice whole ("Today's daily deal", not "…dea")
    assert js(phone, """const ctx = document.createElement('canvas').getContext('2d');
        return ['lb-variant', 'lb-kind'].map((id) => {
          const s = document.getElementById(id), cs = getComputedStyle(s);
          ctx.font = cs.font;
          const text = Math.max(...[...s.options].map((o) => ctx.measureText(o.text).width));
          return text + parseFloat(cs.paddingLeft) + 24 <= s.clientWidth; })""") == [True, True]
    no_sideways_scroll(phone)
    shots(phone, "leaderboards-phone")
    # the rating board: players by rating, provisional ones marked
    Select(css(phone, "#lb-kind")).select_by_value("rating")
    until(lambda: "Ada Player" in text_of(phone, "#leaderboard tbody"), message="the ratings")
    rows = js(phone, """return [...document.querySelectorAll('#leaderboard tr')].map((tr) =>
        [...tr.children].map((c) => c.textContent))""")
    api = httpx.get(f"{url}/api/v1/leaderboards/belle-lucie/rating").json()["entries"]
    assert rows == [["#", "Player", "Rating", "Races", "Wins"]] + [
        [str(e["rank"]), e["player"]["name"],
         f"{e['rating']['rating']:.1f}".replace("-", "−") + "provisional", "1", str(e["wins"])]
        for e in api]
    assert [e["player"]["name"] for e in api] == ["Ada Player", "Bea Player"]
    assert "fewer than 10 rated races" in text_of(phone, "main")
    no_sideways_scroll(phone)
    shots(phone, "leaderboards-rating-phone")
    Select(css(phone, "#lb-variant")).select_by_value("trefoil")
    until(lambda: text_of(phone, "#leaderboard tbody") == "No result yet.", message="no ratings")
    # a mistyped address: a page that says so, with the way home (status 404)
    assert console_errors(phone) == []
    phone.get(url + "/nope")
    until(lambda: text_of(phone, "main h1") == "Page not found", message="page not found")
    assert js(phone, "return performance.getEntriesByType('navigation')[0].responseStatus") == 404
    assert [e for e in console_errors(phone) if "/nope " not in e] == []  # Chromium logs the 404
    shots(phone, "not-found-phone")
    css(phone, "main a[href='/']").click()
    until(lambda: text_of(phone, "#public-rooms"), message="home from the 404 page")
    phone.get(url + "/r/NOPE23")  # a room that is not there: said in words, not by code
    until(lambda: text_of(phone, "main .msg"), message="no such room")
    assert text_of(phone, "main .msg").startswith("No room") \
        and "room/not_found" not in text_of(phone, "main"), text_of(phone, "main")
    phone.get(url + "/api/v1/nope")  # the API answers JSON, even to a browser
    assert json.loads(text_of(phone, "body"))["error"]["code"] == "request/not_found"
    console_errors(phone)
    phone.get(url + "/")
    # the replay viewer's deals are the server's, for every generator and deck count
    cases = [(1, 1), (31999, 1), (32000, 1), (806111773, 1), (2**53 + 1, 1),
             (99999999999999999999, 1), (123456, 2), (5, 2)]
    orders = phone.execute_async_script("""
        const [cases, done] = [arguments[0], arguments[arguments.length - 1]];
        import('/static/engine.js').then((e) => done(cases.map(([n, d]) => e.dealOrder(n, d))));
        """, [[str(n), d] for n, d in cases])
    assert orders == [deal_order(n, d) for n, d in cases]
    # the end screen's "cards to par" is the API's to_par, sign included
    to_par = phone.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/static/end.js').then((e) => done([9, 0, -2, null].map(e.toParText)));""")
    assert to_par == ["9", "0 (par)", "−2", "–"]
    plural = phone.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/static/board.js').then((b) => done([0, 1, 2].map((n) => b.plural(n, 'move'))));""")
    assert plural == ["0 moves", "1 move", "2 moves"]
    assert console_errors(phone) == []
