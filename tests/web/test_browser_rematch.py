"""The browser client's rematch in real headless Chromium (issue 21, item 2).

Ada joins a room in the browser; Bob races over REST. Both resign: the end
screen shows the Rematch button. Bob offers first (REST): Ada's end screen
turns it into "Join the rematch" with a link (the old room's ``rematch``
event); she presses it and lands in the next room, already seated (her
token was stored for it), with Bob as its host. A spectator's end screen
only links to the next room's watch page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import room_state
from .test_browser_race import css, js, text_of, until

pytestmark = pytest.mark.timeout(180)

Driver = Any


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Callable[..., Driver]]:
    started: list[Driver] = []

    def start() -> Driver:
        driver = chromium(1280, 900, profile_root=tmp_path)
        driver.set_script_timeout(20)
        started.append(driver)
        return driver

    yield start
    for driver in started:
        driver.quit()


def _click(driver: Driver, selector: str) -> bool:
    """Click ``selector``; ``False`` when the page redrew it between the find and
    the click (the end screen redraws on each room event): try again."""
    from selenium.common.exceptions import StaleElementReferenceException
    try:
        css(driver, selector).click()
        return True
    except StaleElementReferenceException:
        return False


def test_rematch_in_chromium(server_factory: ServerFactory,
                             browser: Callable[..., Driver]) -> None:
    url = server_factory()
    api = httpx.Client(base_url=url + "/api/v1", timeout=10)
    created = api.post("/rooms", json={"deal": 7, "countdown_s": 0, "visibility": "private"})
    room, host = created.json()["room"], created.json()["host_token"]
    code = room["code"]
    ada = browser()
    ada.get(f"{url}/r/{code}")
    name = until(lambda: ada.find_elements("css selector", "#join-name"), message="join form")
    name[0].clear()
    name[0].send_keys("Ada")
    css(ada, "form.join button[type=submit]").click()
    until(lambda: room_state(ada) == "waiting", message="ada waits")
    bob = api.post(f"/rooms/{code}/racers", json={"name": "Bob"}).json()
    watcher = browser()
    watcher.get(f"{url}/r/{code}/watch")
    until(lambda: room_state(watcher) == "waiting", message="watching")
    assert api.post(f"/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200
    until(lambda: room_state(ada) == "racing", message="racing")
    saved = js(ada, "return JSON.parse(localStorage.getItem(arguments[0]))",
               f"lucie.v1.racer.{code}")
    for racer, token in ((bob["racer"]["id"], bob["token"]), (saved["racer"], saved["token"])):
        r = api.post(f"/rooms/{code}/racers/{racer}/resign",
                     headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
    until(lambda: ada.find_elements("css selector", "#rematch-button"), message="rematch button")
    assert text_of(ada, "#rematch-button") == "Rematch"
    until(lambda: watcher.find_elements("css selector", "#rematch"), message="watcher's bar")
    assert not watcher.find_elements("css selector", "#rematch-button")  # spectators: a link
    made = api.post(f"/rooms/{code}/rematch",
                    headers={"Authorization": f"Bearer {bob['token']}"}).json()
    nxt = made["room"]["code"]
    until(lambda: text_of(ada, "#rematch-button") == "Join the rematch", message="bob's offer")
    assert nxt in text_of(ada, "#rematch-link")
    until(lambda: nxt in text_of(watcher, "#rematch-link"), message="the watcher's link")
    assert js(watcher, "return document.querySelector('#rematch-link').getAttribute('href')") \
        == f"/r/{nxt}/watch"
    until(lambda: _click(ada, "#rematch-button"), message="rematch click")
    until(lambda: js(ada, "return location.pathname") == f"/r/{nxt}", message="next room")
    until(lambda: room_state(ada) == "waiting", message="seated")
    assert not ada.find_elements("css selector", "#join-name")  # already seated
    racers = [r["name"] for r in api.get(f"/rooms/{nxt}").json()["racers"]]
    assert racers == ["Bob", "Ada"]
    stored = js(ada, "return JSON.parse(localStorage.getItem(arguments[0]))",
                f"lucie.v1.racer.{nxt}")
    assert stored["racer"] == saved["racer"] and stored["token"] == saved["token"]
    for driver in (ada, watcher):
        assert console_errors(driver) == []
    api.close()


def test_a_series_in_chromium(server_factory: ServerFactory,
                              browser: Callable[..., Driver]) -> None:
    """Ada creates a 2-race series on the home page; Bob races over REST. After
    race 1 her end screen shows the series' table and goes on to race 2 by
    itself (she is in it already); after race 2 the table is final."""
    url = server_factory()
    api = httpx.Client(base_url=url + "/api/v1", timeout=10)
    ada = browser()
    ada.get(url + "/")
    name = until(lambda: ada.find_elements("css selector", "#name"), message="home")[0]
    name.clear()
    name.send_keys("Ada")
    js(ada, "document.querySelector('#series').value = '2'; "
            "document.querySelector('#visibility').value = 'private';")
    css(ada, "#create").click()
    until(lambda: js(ada, "return location.pathname").startswith("/r/"), message="the room")
    code = js(ada, "return location.pathname").split("/")[2]
    room = api.get(f"/rooms/{code}").json()
    assert room["series"] == {"id": room["id"], "race": 1, "races": 2}
    bob = api.post(f"/rooms/{code}/racers", json={"name": "Bob"}).json()
    host = js(ada, "return JSON.parse(localStorage.getItem(arguments[0]))", f"lucie.v1.host.{code}")
    assert api.post(f"/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200
    until(lambda: room_state(ada) == "racing", 20, message="racing")
    saved = js(ada, "return JSON.parse(localStorage.getItem(arguments[0]))",
               f"lucie.v1.racer.{code}")

    def resign_all(room_code: str) -> None:
        for racer, token in ((bob["racer"]["id"], bob["token"]),
                             (saved["racer"], saved["token"])):
            r = api.post(f"/rooms/{room_code}/racers/{racer}/resign",
                         headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text

    resign_all(code)
    until(lambda: ada.find_elements("css selector", "#series-table"), message="series table")
    until(lambda: "race 2 of 2" in text_of(ada, "#rematch-link"), message="race 2 offered")
    assert not ada.find_elements("css selector", "#rematch-button")  # the series goes on
    nxt = api.get(f"/rooms/{code}").json()["rematch"]["code"]
    # the default break is 20 s: the page goes on by itself 2 s before the start
    until(lambda: js(ada, "return location.pathname") == f"/r/{nxt}", 40, message="race 2")
    until(lambda: room_state(ada) == "racing", 20, message="race 2 runs")
    assert not ada.find_elements("css selector", "#join-name")
    resign_all(nxt)
    until(lambda: "(final)" in text_of(ada, "#series-table caption"), message="final table")
    assert js(ada, "return document.querySelectorAll('#series-table tbody tr').length") == 2
    assert not ada.find_elements("css selector", "#rematch-link:not([hidden])")
    assert text_of(ada, "#rematch-button") == "Rematch"  # after the last race: a new series
    assert console_errors(ada) == []
    api.close()
