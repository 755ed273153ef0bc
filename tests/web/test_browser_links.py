"""The page's link to the room in real headless Chromium (issue 33, items 9
and 10), against a live ``lucie-server``:

- a path that drops packets without closing (:class:`BlackholeProxy` between
  the page and the server) is noticed within two ping periods — the
  "Connection lost" banner — and the page recovers when the path returns:
  the move sent into the silence is answered (re-sent with its id) and
  applied once;
- two tabs of one racer moving "at the same millisecond" (``Date.now``
  frozen in both) send two distinct ``client_move_id`` and both moves are
  judged and applied; each tab's board follows the moves made in the other.

The ping period is shortened to :data:`PING_MS` with ``window.LUCIE_PING_MS``
set before the page's scripts run (the page's documented knob)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors
from tests.faults.blackhole import BlackholeProxy

from ..conftest import ServerFactory
from .page import board_version, legal_moves, room_state, type_move
from .test_browser_race import js, until

pytestmark = pytest.mark.timeout(120)

PING_MS = 1000

SENT_MOVE_IDS = """
    window.__sentIds = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      try {
        const m = JSON.parse(data);
        if (m.t === 'move') window.__sentIds.push(m.d.client_move_id);
      }
      catch (e) { /* not JSON */ }
      return send.call(this, data);
    };
    Date.now = () => 1733356800000;"""
"""Records the page's move ids and freezes its millisecond clock."""


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    browser = chromium(1280, 900, profile_root=tmp_path)
    browser.set_script_timeout(30)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                            {"source": f"window.LUCIE_PING_MS = {PING_MS};"})
    yield browser
    browser.quit()


def _join(driver: Any, url: str, code: str) -> None:
    driver.get(f"{url}/r/{code}")
    name = until(lambda: driver.find_elements("css selector", "#join-name"), message="join form")
    name[0].send_keys("Ada")
    driver.find_element("css selector", "form.join button[type=submit]").click()
    until(lambda: room_state(driver) == "waiting", message="seated")


def _room(api: httpx.Client) -> tuple[str, str]:
    made = api.post("/rooms", json={"deal": 7, "countdown_s": 0, "visibility": "private"}).json()
    return made["room"]["code"], made["host_token"]


def _start(api: httpx.Client, code: str, host: str) -> None:
    assert api.post(f"/rooms/{code}/start",
                    headers={"Authorization": f"Bearer {host}"}).status_code == 200


def _server_game(api: httpx.Client, driver: Any, code: str) -> dict[str, Any]:
    saved = js(driver, "return JSON.parse(localStorage.getItem(arguments[0]))",
               f"lucie.v1.racer.{code}")
    game: dict[str, Any] = api.get(f"/rooms/{code}/racers/{saved['racer']}/game",
                                   headers={"Authorization": f"Bearer {saved['token']}"}).json()
    return game


def _banner(driver: Any) -> str:
    return str(js(driver, "const b = document.getElementById('banner');"
                          "return b && !b.hidden ? b.textContent : ''"))


def test_a_silent_path_is_noticed_and_the_page_recovers(server_factory: ServerFactory,
                                                        driver: Any) -> None:
    url = server_factory()
    proxy = BlackholeProxy(int(url.rsplit(":", 1)[1]))
    try:
        with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
            code, host = _room(api)
            _join(driver, proxy.url, code)
            _start(api, code, host)
            until(lambda: board_version(driver) == 0, message="the board")
            time.sleep(PING_MS / 1000 * 1.5)  # a ping answered: the heartbeat runs
            assert _banner(driver) == ""
            move = legal_moves(url, driver, code)[0]

            proxy.cut()
            cut_at = time.monotonic()
            type_move(driver, move)  # sent into the silence
            until(lambda: "Connection lost" in _banner(driver), 2 * PING_MS / 1000 + 3,
                  "the lost connection shown")
            shown_after = time.monotonic() - cut_at
            print(f"banner {shown_after:.2f} s after the cut (pings every {PING_MS} ms)")
            # two ping periods, and the polling's and timers' slack
            assert shown_after <= 2 * PING_MS / 1000 + 1.5
            assert _server_game(api, driver, code)["version"] == 0  # nothing got through

            proxy.mend()
            mended_at = time.monotonic()
            # answered: the board drawn from the ack, with no refusal said
            until(lambda: board_version(driver) == 1, 15, "the move answered")
            print(f"move answered {time.monotonic() - mended_at:.2f} s after the path returned")
            assert js(driver, "return document.querySelector('.msg').textContent") == ''
            until(lambda: _banner(driver) == "", 10, "the banner gone")
            game = _server_game(api, driver, code)
            assert game["version"] == 1 and game["moves"] == 1  # applied once
            assert proxy.connections >= 2  # a new socket, not the old one revived
        assert console_errors(driver) == []
    finally:
        proxy.close()


def test_two_tabs_of_one_racer_at_the_same_millisecond(server_factory: ServerFactory,
                                                       driver: Any) -> None:
    url = server_factory()
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as api:
        code, host = _room(api)
        _join(driver, url, code)
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")  # the same browser: the racer's token is shared
        driver.get(f"{url}/r/{code}")
        until(lambda: room_state(driver) == "waiting", message="tab 2")
        second = driver.current_window_handle
        _start(api, code, host)
        for tab in (first, second):
            driver.switch_to.window(tab)
            js(driver, SENT_MOVE_IDS)
            until(lambda: board_version(driver) == 0, message="a board")

        answers, ids = [], []
        for tab, version in ((first, 0), (second, 1)):
            driver.switch_to.window(tab)
            # the other tab's move is followed: this board is at the server's version
            until(lambda v=version: board_version(driver) == v, 10,
                  f"version {version} in this tab")
            move = legal_moves(url, driver, code)[0]
            type_move(driver, move)
            # answered and applied: this board at the next version, nothing refused
            until(lambda v=version: board_version(driver) == v + 1, 10, "the move answered")
            answers.append(js(driver, "return document.querySelector('.msg').textContent"))
            ids.append(js(driver, "return window.__sentIds[0]"))
        assert answers == ["", ""], answers
        assert ids[0] != ids[1], ids
        game = _server_game(api, driver, code)
        assert game["version"] == 2 and game["moves"] == 2
        driver.switch_to.window(first)
        until(lambda: board_version(driver) == 2, 10, "tab 1 follows")
        for tab in (first, second):
            driver.switch_to.window(tab)
            assert console_errors(driver) == []
