"""The race page reports focus losses in real headless Chromium (docs/fair-play.md,
"Focus"; docs/protocol.md, the ``focus`` message): while Ada races, the window's
``blur`` or the page turning hidden sends ``{"t":"focus","d":{"lost":true}}``
on her room socket once per loss — a blur then the page hidden is one loss,
and nothing more is sent until the page is back. Nothing is sent before the
start, after her result is final, after the race, or from the watch page.

The frames the page sends are read by wrapping ``WebSocket.prototype.send``
(the page's socket calls it for every frame); the events are dispatched by
script (a headless window has no focus to lose), the page's visibility made
``hidden`` by overriding ``document.visibilityState``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import board_status, board_version, room_state
from .test_browser_race import css, js, until

pytestmark = pytest.mark.timeout(120)

Driver = Any

RECORD = """
    window.__sent = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      window.__sent.push(data);
      return send.call(this, data);
    };
"""
BLUR = "window.dispatchEvent(new Event('blur'));"
FOCUS = "window.dispatchEvent(new Event('focus'));"
HIDDEN = """
    Object.defineProperty(document, 'visibilityState',
                          { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
"""
VISIBLE = """
    delete document.visibilityState;
    document.dispatchEvent(new Event('visibilitychange'));
"""


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Driver]:
    browser = chromium(1280, 900, profile_root=tmp_path)
    yield browser
    browser.quit()


@pytest.fixture
def url(server_factory: ServerFactory) -> str:
    return server_factory()


@pytest.fixture
def api(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as client:
        yield client


def focus_sent(driver: Driver) -> int:
    """The ``focus`` frames the page sent since :data:`RECORD`, each checked whole."""
    frames = [json.loads(f) for f in js(driver, "return window.__sent")]
    focus = [f for f in frames if f["t"] == "focus"]
    assert all(f == {"t": "focus", "d": {"lost": True}} for f in focus), focus
    return len(focus)


def test_the_race_page_reports_focus_losses(url: str, api: httpx.Client,
                                           driver: Driver) -> None:
    made = api.post("/rooms", json={"deal": 7, "countdown_s": 0, "visibility": "private"}).json()
    code, host = made["room"]["code"], made["host_token"]
    driver.get(f"{url}/r/{code}")
    name = until(lambda: driver.find_elements("css selector", "#join-name"), message="join form")
    name[0].send_keys("Ada")
    css(driver, "form.join button[type=submit]").click()
    until(lambda: room_state(driver) == "waiting", message="ada waits")
    bob = api.post(f"/rooms/{code}/racers", json={"name": "Bob"}).json()
    js(driver, RECORD)

    js(driver, BLUR)  # before the start: nothing
    js(driver, FOCUS)
    assert focus_sent(driver) == 0

    assert api.post(f"/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200
    until(lambda: room_state(driver) == "racing", message="racing")
    until(lambda: board_version(driver) == 0, message="ada's board")

    js(driver, BLUR)
    assert focus_sent(driver) == 1
    js(driver, HIDDEN)  # blurred, then hidden: the same loss
    js(driver, BLUR)
    assert focus_sent(driver) == 1
    js(driver, VISIBLE)
    js(driver, FOCUS)
    time.sleep(1.1)  # a second on (the server counts at most one a second)
    js(driver, HIDDEN)  # a new loss: hidden first
    assert focus_sent(driver) == 2
    js(driver, BLUR)
    assert focus_sent(driver) == 2
    js(driver, VISIBLE)
    js(driver, FOCUS)
    time.sleep(0.3)  # the server answers a focus message with nothing, not an error
    assert js(driver, "return document.querySelector('.msg').textContent") == ""

    saved = js(driver, "return JSON.parse(localStorage.getItem(arguments[0]))",
               f"lucie.v1.racer.{code}")
    assert api.post(f"/rooms/{code}/racers/{saved['racer']}/resign",
                    headers={"Authorization": f"Bearer {saved['token']}"}).status_code == 200
    until(lambda: board_status(driver) == "resigned", message="final")
    time.sleep(1.1)
    js(driver, BLUR)  # her result is final: nothing
    js(driver, FOCUS)
    assert api.post(f"/rooms/{code}/racers/{bob['racer']['id']}/resign",
                    headers={"Authorization": f"Bearer {bob['token']}"}).status_code == 200
    until(lambda: room_state(driver) == "over", message="over")
    js(driver, BLUR)  # after the race: nothing
    js(driver, FOCUS)
    assert focus_sent(driver) == 2
    assert console_errors(driver) == []


def test_the_watch_page_reports_nothing(url: str, api: httpx.Client, driver: Driver) -> None:
    made = api.post("/rooms", json={"deal": 7, "countdown_s": 0, "visibility": "private"}).json()
    code, host = made["room"]["code"], made["host_token"]
    api.post(f"/rooms/{code}/racers", json={"name": "Bob"})
    assert api.post(f"/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200
    driver.get(f"{url}/r/{code}/watch")
    until(lambda: room_state(driver) == "racing", message="watching")
    js(driver, RECORD)
    js(driver, BLUR)
    js(driver, HIDDEN)
    js(driver, VISIBLE)
    assert focus_sent(driver) == 0
    assert console_errors(driver) == []
