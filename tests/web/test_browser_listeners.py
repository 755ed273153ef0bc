"""Leaving a page lets go of the window and the document (issue 34, item 5), in real
headless Chromium: the page moves between two racing rooms, their watch pages and the
home page (the client's own navigation, no reload) several times; the listeners on
``window`` and ``document`` (CDP ``DOMDebugger.getEventListeners``) are the same after
each round — before, every board added a ``resize`` listener to the window that
stayed for good — and only the board on screen is in the page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import board_version, room_state, until
from .test_browser_race import js

pytestmark = pytest.mark.timeout(180)

Driver = Any


def listeners(driver: Driver) -> dict[str, list[str]]:
    """The event types listened to on ``window`` and on ``document``, sorted."""
    out = {}
    for name in ("window", "document"):
        handle = driver.execute_cdp_cmd("Runtime.evaluate", {"expression": name})
        found = driver.execute_cdp_cmd("DOMDebugger.getEventListeners",
                                       {"objectId": handle["result"]["objectId"]})
        out[name] = sorted(x["type"] for x in found["listeners"])
    return out


def go(driver: Driver, path: str) -> None:
    """The client's own navigation (a link's), without a reload."""
    driver.execute_async_script("""const [path, done] = arguments;
        import('/static/nav.js').then((nav) => { nav.navigate(path); done(); });""", path)


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Driver]:
    browser = chromium(1280, 800, profile_root=tmp_path)
    browser.set_script_timeout(20)
    yield browser
    browser.quit()


def test_pages_leave_no_listener_behind(server_factory: ServerFactory, driver: Driver) -> None:
    url = server_factory()
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
        seats = {}
        for _ in range(2):
            made = api.post("/rooms", json={"deal": 7, "countdown_s": 0,
                                            "visibility": "private"}).json()
            code = made["room"]["code"]
            joined = api.post(f"/rooms/{code}/racers", json={"name": "Ada"}).json()
            seats[code] = {"racer": joined["racer"]["id"], "token": joined["token"],
                           "name": "Ada"}
            api.post(f"/rooms/{code}/start",
                     headers={"Authorization": f"Bearer {made['host_token']}"})
        driver.get(url + "/")
        for code, seat in seats.items():
            js(driver, "localStorage.setItem(arguments[0], arguments[1])",
               f"lucie.v1.racer.{code}", json.dumps(seat))
        a, b = seats
        rounds = []
        for _ in range(4):
            for path in (f"/r/{a}", f"/r/{b}", f"/r/{a}/watch", "/", f"/r/{b}"):
                go(driver, path)
                if path == "/":
                    until(lambda: js(driver, "return !!document.getElementById('public-rooms')"),
                          message="home")
                    continue
                until(lambda p=path: room_state(driver) == "racing"
                      and js(driver, "return location.pathname") == p, message=path)
                if not path.endswith("/watch"):
                    until(lambda: board_version(driver) == 0, message=f"the board of {path}")
                until(lambda: js(driver, "return document.querySelectorAll('.board .card')"
                                         ".length") > 0, message=f"the cards of {path}")
                # one board on screen, one skip link to it
                assert js(driver, "return [document.querySelectorAll('.board').length, "
                                  "document.querySelectorAll('a.skip').length]") == [1, 1]
            rounds.append(listeners(driver))
        assert rounds[1:] == rounds[:-1], rounds
        # the room page's own: keys, the window's focus and blur, the page hidden
        assert "resize" not in rounds[-1]["window"], rounds[-1]
    assert console_errors(driver) == []
