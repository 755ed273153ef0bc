"""A racer in real headless Chromium still races in a room whose spectator
sockets are all taken (issue 33, item 2): the page names its token on the
upgrade (``Sec-WebSocket-Protocol: lucie.v1, lucie.bearer.<token>``; a page
cannot set headers on a WebSocket), so the spectator cap never turns it
away. The cap is lowered to 3 (``LUCIE_SPECTATORS_PER_ROOM``), the 3 taken
by sockets this test holds; Ada joins, the race starts, she moves; a fourth
spectator is then turned away (by the code, lower-case code or id)."""

from __future__ import annotations

import base64
import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import board_version, legal_moves, room_state, type_move
from .test_browser_race import css, js, until

pytestmark = pytest.mark.timeout(120)

CAP = 3


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    browser = chromium(1280, 900, profile_root=tmp_path)
    browser.set_script_timeout(20)
    yield browser
    browser.quit()


def _spectator(port: int, room: str) -> socket.socket:
    """A spectator socket of ``room`` opened by hand (no ``Origin``: not a
    browser), its handshake answered 101; nothing more is read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /api/v1/rooms/{room}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _first_frame(sock: socket.socket) -> tuple[int, bytes]:
    """The first frame the server sends: (opcode, payload)."""
    head = sock.recv(2)
    size = head[1] & 0x7F
    if size == 126:
        size = int.from_bytes(sock.recv(2), "big")
    data = b""
    while len(data) < size:
        data += sock.recv(size - len(data))
    return head[0] & 0x0F, data


def test_a_racer_races_in_a_room_full_of_spectators(server_factory: ServerFactory,
                                                   driver: Any) -> None:
    url = server_factory(LUCIE_SPECTATORS_PER_ROOM=str(CAP), LUCIE_AUTH_GRACE_S="1")
    port = int(url.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as api, contextlib.ExitStack() as stack:
        made = api.post("/rooms", json={"deal": 7, "countdown_s": 0,
                                         "visibility": "private"}).json()
        code, host = made["room"]["code"], made["host_token"]
        for _ in range(CAP):  # the room as the page spells it
            held.append(stack.enter_context(_spectator(port, code)))
            assert _first_frame(held[-1])[0] == 0x1  # the welcome

        driver.get(f"{url}/r/{code}")
        name = until(lambda: driver.find_elements("css selector", "#join-name"),
                     message="join form")
        name[0].send_keys("Ada")
        css(driver, "form.join button[type=submit]").click()
        until(lambda: room_state(driver) == "waiting",
              message="Ada's socket admitted")
        assert api.post(f"/rooms/{code}/start",
                        headers={"Authorization": f"Bearer {host}"}).status_code == 200
        until(lambda: room_state(driver) == "racing", message="racing")
        until(lambda: board_version(driver) == 0, message="Ada's board")
        type_move(driver, legal_moves(url, driver, code)[0])
        until(lambda: board_version(driver) == 1, message="moved")
        assert js(driver, "return document.querySelector('.msg').textContent") == ""
        saved = js(driver, "return JSON.parse(localStorage.getItem(arguments[0]))",
                   f"lucie.v1.racer.{code}")
        game = api.get(f"/rooms/{code}/racers/{saved['racer']}/game",
                       headers={"Authorization": f"Bearer {saved['token']}"}).json()
        assert game["version"] == 1 and game["moves"] == 1
        # the cap was full all along, however the room is spelled: no welcome, a close
        # when the grace to auth ends
        for spelling in (code, code.lower(), made["room"]["id"]):
            extra = stack.enter_context(_spectator(port, spelling))
            opcode, payload = _first_frame(extra)
            assert opcode == 0x8 and int.from_bytes(payload[:2], "big") == 1008, payload
            assert payload[2:].startswith(b"rate/limited"), payload
    assert console_errors(driver) == []
