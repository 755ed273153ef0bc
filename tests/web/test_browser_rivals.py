"""The race in sight on a phone (issue 34, item 2), in real headless Chromium at
390×844: the rivals strip — rank, cards, status of every racer — sits above the
board and stays in sight while the page scrolls; its order is rules.md's ranking as
it stands during the race (foundation cards, then reach time) with racers equal on
both sharing a rank in join order: rivals' moves that bring no card do not reorder
it (before, every move reordered the racers while they all had the same cards). On
a desktop the panel beside the board shows the racers and the strip is not drawn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import board_version, until
from .test_browser_race import js, winning_line

pytestmark = pytest.mark.timeout(180)

Driver = Any

STRIP = """return [...document.querySelectorAll('.strip li')].map((li) =>
    [li.querySelector('.rank').textContent, li.querySelector('.name').textContent,
     li.querySelector('.cards').firstChild.textContent,
     li.querySelector('.state')?.textContent ?? ''])"""
"""The strip's rows: rank, name, cards, status (none while playing)."""
BOXES = """return [document.querySelector('.strip').getBoundingClientRect().toJSON(),
    document.querySelector('.play .board').getBoundingClientRect().toJSON(),
    innerHeight, scrollY]"""
"""The strip's box, the board's, the viewport's height and how far the page scrolled."""


@pytest.fixture
def drivers(tmp_path: Path) -> Iterator[tuple[Driver, Driver]]:
    phone = chromium(390, 844, mobile=True, profile_root=tmp_path)
    desktop = chromium(1280, 800, profile_root=tmp_path)
    yield phone, desktop
    phone.quit()
    desktop.quit()


class Racer:
    """A racer over REST."""

    def __init__(self, api: httpx.Client, code: str, name: str) -> None:
        self.api, self.code = api, code
        seat = api.post(f"/rooms/{code}/racers", json={"name": name}).json()
        self.seat = {"racer": seat["racer"]["id"], "token": seat["token"], "name": name}
        self.path = f"/rooms/{code}/racers/{seat['racer']['id']}"
        self.auth = {"Authorization": f"Bearer {seat['token']}"}
        self.sent = 0

    def game(self) -> dict[str, Any]:
        game: dict[str, Any] = self.api.get(self.path + "/game", headers=self.auth).json()
        return game

    def move(self, move: str) -> dict[str, Any]:
        self.sent += 1
        answer = self.api.post(self.path + "/moves", headers=self.auth, json={
            "move": move, "expected_version": self.game()["version"],
            "client_move_id": f"{self.seat['name']}-{self.sent}"})
        assert answer.status_code == 200, answer.text
        game: dict[str, Any] = answer.json()["game"]
        return game


def test_the_rivals_strip_on_a_phone(server_factory: ServerFactory,
                                     drivers: tuple[Driver, Driver]) -> None:
    phone, desktop = drivers
    url = server_factory()
    line = winning_line()
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
        made = api.post("/rooms", json={"variant": "trefoil", "deal": 1, "countdown_s": 0,
                                        "visibility": "private"}).json()
        code = made["room"]["code"]
        ada, bob, cid = (Racer(api, code, n) for n in ("Ada", "Bob", "Cid"))
        assert api.post(f"/rooms/{code}/start", headers={
            "Authorization": f"Bearer {made['host_token']}"}).status_code == 200
        phone.get(url + "/")
        js(phone, "localStorage.setItem(arguments[0], arguments[1])",
           f"lucie.v1.racer.{code}", json.dumps(ada.seat))
        phone.get(f"{url}/r/{code}")
        until(lambda: board_version(phone) == 0, message="the board")
        assert js(phone, STRIP) == [["1", "Ada (you)", "4", ""], ["1", "Bob", "4", ""],
                                    ["1", "Cid", "4", ""]]  # Trefoil deals the aces home

        # moves that bring no card: nobody is ahead, nobody moves in the strip
        first = next(m for m in line if not m.endswith("f"))
        for who, move in ((bob, first), (cid, first), (bob, "u"), (bob, first), (cid, "u")):
            before = who.game()["moves"]
            who.move(move)
            until(lambda w=who, m=before + 1: js(phone, """return [...document.querySelectorAll(
                '.opponents li')].find((li) => li.dataset.racer === arguments[0])
                ?.querySelector('.figures').textContent.includes(arguments[1])""",
                                                 w.seat["racer"], f"{m} move"), 10,
                  message="the move on the page")
            assert [row[1] for row in js(phone, STRIP)] == ["Ada (you)", "Bob", "Cid"]
            assert [row[0] for row in js(phone, STRIP)] == ["1", "1", "1"]

        # Cid (back at the deal: his move undone) brings a card home: ahead, alone; the
        # others tie behind him, in join order
        for move in line:
            game = cid.move(move)
            if game["position"]["foundation_cards"] > 4:
                break
        cards = str(game["position"]["foundation_cards"])
        until(lambda: js(phone, STRIP)[0][1] == "Cid", 10, message="Cid ahead")
        assert js(phone, STRIP) == [["1", "Cid", cards, ""], ["2", "Ada (you)", "4", ""],
                                    ["2", "Bob", "4", ""]]
        assert api.post(bob.path + "/resign", headers=bob.auth).status_code == 200
        until(lambda: js(phone, STRIP)[2][3] == "resigned", 10, message="Bob's status")

        # above the board, and in sight when the page scrolls (a taller page: the test's
        # block under the toolbar)
        js(phone, """const pad = document.createElement('div'); pad.style.height = '1500px';
            document.querySelector('.play').append(pad);
            scrollTo(0, document.body.scrollHeight);""")
        strip, board, height, scrolled = js(phone, BOXES)
        assert scrolled > 500 and board["bottom"] < 0  # the board scrolled out of sight…
        assert strip["top"] >= 0 and strip["bottom"] <= height and strip["height"] > 10  # …not it
        js(phone, "scrollTo(0, 0)")
        strip, board, height, scrolled = js(phone, BOXES)
        assert scrolled == 0 and strip["top"] >= 0 and strip["bottom"] <= board["top"]
        assert js(phone, "return document.documentElement.scrollWidth <= innerWidth")

        # a desktop: the racers beside the board, no strip
        desktop.get(f"{url}/r/{code}/watch")
        until(lambda: js(desktop, "return document.querySelectorAll('.opponents li').length")
              == 3, message="the desktop's panel")
        assert js(desktop, """return [getComputedStyle(document.querySelector('.strip')).display,
            getComputedStyle(document.querySelector('.side')).display]""") == ["none", "block"]
    assert console_errors(phone) == [] and console_errors(desktop) == []
