"""axe-core (package.json, installed by ``make test``) on the browser client's pages in
real headless Chromium, desktop (1280×800) and phone (390×844): the home page, the
waiting room (the host's on the desktop, a racer's on the phone), the board mid-race,
the board after a pick (its targets lit), the watch page and the end of the race —
0 violations each, axe's rules as they ship (WCAG 2.0–2.2 A and AA and its best
practices) and ``label-content-name-mismatch`` (WCAG 2.5.3, experimental in axe: off
unless asked for) on. axe's script is put into the page by the test, never served.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.support.ui import Select

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import board_version, install_probes, room_state, until
from .test_browser_race import css, js, text_of, top_card

pytestmark = pytest.mark.timeout(240)

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"

Driver = Any

RUN = """
const done = arguments[arguments.length - 1];
(async () => {
  // a glide or a flash in progress is no colour of the page's
  while (document.getAnimations().some((a) => a.playState === 'running')) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const rules = { 'label-content-name-mismatch': { enabled: true } };
  const result = await axe.run(document, { rules });
  done(result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => [n.target.join(' '), n.failureSummary]) })));
})().catch((e) => done([{ id: 'axe failed', nodes: [[String(e), '']] }]));
"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe.min.js of package-lock.json (``npm ci`` when node_modules lacks it)."""
    if not AXE.is_file():
        done = subprocess.run(["scripts/ensure-node.sh"], cwd=REPO, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    return AXE.read_text()


@pytest.fixture
def api(server_factory: ServerFactory) -> Iterator[tuple[str, httpx.Client]]:
    url = server_factory()
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as client:
        yield url, client


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[tuple[Driver, Driver]]:
    desktop = chromium(1280, 800, profile_root=tmp_path)
    phone = chromium(390, 844, mobile=True, profile_root=tmp_path)
    for driver in (desktop, phone):
        driver.set_script_timeout(60)
        install_probes(driver)
    yield desktop, phone
    desktop.quit()
    phone.quit()


def violations(driver: Driver, axe: str) -> list[dict[str, Any]]:
    if not js(driver, "return typeof axe === 'object'"):
        driver.execute_script(axe)
    found: list[dict[str, Any]] = driver.execute_async_script(RUN)
    return found


def long_game(api: httpx.Client, code: str, seat: dict[str, Any], moves: int) -> None:
    """``moves`` more moves of a racer over REST: a move and its undo, in turn."""
    path, auth = f"/rooms/{code}/racers/{seat['racer']}", {
        "Authorization": f"Bearer {seat['token']}"}
    game = api.get(path + "/game", headers=auth).json()
    move = next(m for m in game["legal_moves"] if m not in ("r", "a"))
    for i in range(moves):
        game = api.post(path + "/moves", headers=auth, json={
            "move": "u" if i % 2 else move, "expected_version": game["version"],
            "client_move_id": f"long-{i}"}).json()["game"]


def check(pages: dict[str, list[dict[str, Any]]], name: str, driver: Driver, axe: str) -> None:
    pages[name] = violations(driver, axe)


def test_axe_finds_nothing_on_any_page(api: tuple[str, httpx.Client], axe_source: str,
                                       browsers: tuple[Driver, Driver]) -> None:
    url, client = api
    desktop, phone = browsers
    found: dict[str, list[dict[str, Any]]] = {}

    for who, label in ((desktop, "desktop"), (phone, "phone")):
        who.get(url + "/")
        until(lambda w=who: text_of(w, "#public-rooms"), message="the home page")
        check(found, f"home, {label}", who, axe_source)

    made = client.post("/rooms", json={"deal": 7, "countdown_s": 0, "visibility": "private"}).json()
    code, host = made["room"]["code"], made["host_token"]
    # Ada hosts: the host's token stored for her page, as the home page stores it
    js(desktop, "localStorage.setItem(arguments[0], JSON.stringify(arguments[1]))",
       f"lucie.v1.host.{code}", host)
    for who, name in ((desktop, "Ada"), (phone, "Bob")):
        who.get(f"{url}/r/{code}")
        field = until(lambda w=who: w.find_elements("css selector", "#join-name"),
                      message="the join form")
        if name == "Bob":
            check(found, "join form, phone", who, axe_source)
        field[0].send_keys(name)
        css(who, "form.join button[type=submit]").click()
        until(lambda w=who: room_state(w) == "waiting", message=f"{name} seated")
    until(lambda: "Bob" in text_of(desktop, ".racers"), message="Bob in Ada's room")
    # the host starts (no ready toggle beside Start); a racer says ready (no Start)
    shown = "return ['ready', 'start'].map((id) => !document.getElementById(id).hidden)"
    assert js(desktop, shown) == [False, True] and js(phone, shown) == [True, False]
    check(found, "waiting room (host), desktop", desktop, axe_source)
    check(found, "waiting room, phone", phone, axe_source)

    assert client.post(f"/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200
    for who in (desktop, phone):
        until(lambda w=who: board_version(w) == 0, message="the board")
    # mid-race: a move each, through the move line
    for who in (desktop, phone):
        saved = js(who, "return JSON.parse(localStorage.getItem(arguments[0]))",
                   f"lucie.v1.racer.{code}")
        game = client.get(f"/rooms/{code}/racers/{saved['racer']}/game",
                       headers={"Authorization": f"Bearer {saved['token']}"}).json()
        move = next(m for m in game["legal_moves"] if "-" in m)
        css(who, "#move-input").send_keys(move.replace("-", " ") + "\n")
        until(lambda w=who: board_version(w) == 1, message="the move")
    for who, label in ((desktop, "desktop"), (phone, "phone")):
        check(found, f"board mid-race, {label}", who, axe_source)
        # a pick: the card lifted, its targets lit
        fan = next(n for n in range(1, 19)
                   if js(who, "return !!document.querySelector(arguments[0] + '[data-src]')",
                         top_card(n)))
        css(who, top_card(fan)).click()
        until(lambda w=who: js(w, "return !!document.querySelector('.card.selected')"),
              message="a card picked")
        check(found, f"board after a pick, {label}", who, axe_source)

    # the watch page, in a tab of its own
    for who, label in ((desktop, "desktop"), (phone, "phone")):
        who.switch_to.new_window("tab")
        who.get(f"{url}/r/{code}/watch")
        until(lambda w=who: len(js(w, "return document.querySelectorAll('.board .fan')")) == 18,
              message="the watched board")
        check(found, f"watch page, {label}", who, axe_source)

    for who in (desktop, phone):
        who.switch_to.window(who.window_handles[0])
        saved = js(who, "return JSON.parse(localStorage.getItem(arguments[0]))",
                   f"lucie.v1.racer.{code}")
        if who is desktop:  # a replay longer than its list's box: the list scrolls
            long_game(client, code, saved, 120)
        assert client.post(f"/rooms/{code}/racers/{saved['racer']}/resign",
                        headers={"Authorization": f"Bearer {saved['token']}"}).status_code == 200
    for who, label in ((desktop, "desktop"), (phone, "phone")):
        until(lambda w=who: js(w, "return document.querySelectorAll('#chart svg path.line')"
                                  ".length") == 2 and "press play" in text_of(w, "#replay-now"),
              20, message="the end screen whole")
        # Ada's replay, longer than its list's box: the list scrolls, by keys too
        Select(css(who, "#replay-racer")).select_by_visible_text("Ada")
        until(lambda w=who: text_of(w, "#replay-now").startswith("Ada: 121 moves"),
              message="Ada's replay")
        assert js(who, "const l = document.getElementById('replay-moves');"
                       "return l.scrollHeight > l.clientHeight || l.scrollWidth > l.clientWidth"), \
            "the list does not scroll"
        check(found, f"end of race, {label}", who, axe_source)

    # the celebration's green for the winner only: the 2nd of 2 reads it plainly
    lines = sorted(js(w, "const m = document.querySelector('.msg');"
                         "return [m.textContent.slice(0, 16), m.classList.contains('good')]")
                   for w in (desktop, phone))
    assert lines == [["You finished 1st", True], ["You finished 2nd", False]], lines
    assert len(found) == 13, sorted(found)
    failed = {name: v for name, v in found.items() if v}
    assert failed == {}, "\n".join(f"{name}: {v['id']} ({v['impact']}) {v['help']}: {n[0]} — {n[1]}"
                                   for name, vs in failed.items() for v in vs for n in v["nodes"])
    for who in (desktop, phone):
        assert console_errors(who) == []
