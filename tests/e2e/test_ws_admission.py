"""Who gets a room socket (issue 33, item 2), against real ``lucie-server``
processes over real sockets (docs/protocol.md, "WebSocket", "Limits").

* A racer is never refused by the spectator cap: with the room's spectator
  sockets all taken (500, the default), a browser racer that names its token
  on the upgrade (``Sec-WebSocket-Protocol: lucie.v1, lucie.bearer.<token>``)
  is admitted as the racer and moves; one that connects without a token and
  sends ``auth`` (older pages, other clients) is given the grace period to do
  so; a plain spectator past the cap is closed 1008 ``rate/limited``.
* The cap counts the room, however the URL spells it (code, lower-case
  code, id).
* ``Origin``: a foreign page is refused 403 ``request/origin_not_allowed``;
  no ``Origin`` (not a browser) and the server's own origin are admitted;
  ``LUCIE_ALLOWED_ORIGINS`` replaces the default; the own origin's scheme
  follows ``X-Forwarded-Proto`` from trusted proxies only.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.conftest import ServerFactory

from .raw_ws import Opened, next_message, open_raw, text_frame
from .wire import Api

pytestmark = pytest.mark.timeout(90)

GRACE_S = 1.0
"""``LUCIE_AUTH_GRACE_S`` of these servers: how long a socket past the cap has to ``auth``."""
CAP = 8
"""``LUCIE_SPECTATORS_PER_ROOM`` of the small server."""


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _path(room: str) -> str:
    return f"/api/v1/rooms/{room}/ws"


async def _fill(port: int, room: str, n: int) -> list[Opened]:
    """``n`` spectator sockets of ``room`` (no token, no ``Origin``), each welcomed."""
    opened: list[Opened] = []
    for start in range(0, n, 100):
        batch = await asyncio.gather(*(open_raw(port, _path(room))
                                       for _ in range(start, min(n, start + 100))))
        for sock in batch:
            assert sock.status == 101, (sock.status, sock.body)
            welcome = await next_message(sock)
            assert isinstance(welcome, dict) and welcome["t"] == "welcome", welcome
        opened.extend(batch)
    return opened


async def _shut(socks: list[Opened]) -> None:
    await asyncio.gather(*(s.close() for s in socks))


async def _turned_away(port: int, room: str) -> tuple[int, str]:
    """A spectator socket of ``room`` past the cap: accepted, given no welcome,
    closed when the grace period ends; its close ``(code, reason)``."""
    sock = await open_raw(port, _path(room))
    try:
        assert sock.status == 101, (sock.status, sock.body)
        started = time.monotonic()
        got = await next_message(sock, timeout=GRACE_S + 3)
        assert isinstance(got, tuple), f"admitted past the cap: {got}"
        assert time.monotonic() - started < GRACE_S + 2
        return got
    finally:
        await sock.close()


@pytest.fixture(scope="module")
def full_url(server_factory: ServerFactory) -> str:
    """The default cap (500 spectators a room); one address may hold them all."""
    return server_factory(LUCIE_SOCKETS_PER_ADDRESS="1000", LUCIE_AUTH_GRACE_S=str(GRACE_S))


@pytest.fixture(scope="module")
def small_url(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_SPECTATORS_PER_ROOM=str(CAP), LUCIE_AUTH_GRACE_S=str(GRACE_S))


async def test_racers_get_in_past_500_spectators(full_url: str) -> None:
    port = _port(full_url)
    api = Api(full_url)
    room, host = await api.create(deal=9, countdown_s=0, capacity=4)
    code = room["code"]
    ada, ada_token = await api.join(code, "ada")
    bob, bob_token = await api.join(code, "bob")
    started = time.monotonic()
    fill = await _fill(port, code, 500)
    fill_s = time.monotonic() - started
    try:
        # the browser: the token on the upgrade, beside the protocol the server answers
        origin = f"http://127.0.0.1:{port}"
        browser = await open_raw(port, _path(code), {
            "Origin": origin, "Sec-WebSocket-Protocol": f"lucie.v1, lucie.bearer.{ada_token}"})
        assert browser.status == 101, (browser.status, browser.body)
        assert browser.headers["sec-websocket-protocol"] == "lucie.v1"  # never the token
        welcome = await next_message(browser)
        assert isinstance(welcome, dict) and welcome["t"] == "welcome"
        assert welcome["d"]["racer"] == ada
        # an older page (or client): no token on the upgrade, auth at once
        legacy = await open_raw(port, _path(code), {"Origin": origin})
        assert legacy.status == 101, (legacy.status, legacy.body)
        legacy.writer.write(text_frame({"t": "auth", "d": {"token": bob_token}}))
        welcome = await next_message(legacy)
        assert isinstance(welcome, dict) and welcome["t"] == "welcome", welcome
        assert welcome["d"]["racer"] == bob
        # a spectator past the cap is turned away
        code_close = await _turned_away(port, code)
        assert code_close[0] == 1008 and code_close[1].startswith("rate/limited"), code_close
        # both race
        await api.start(code, host)
        for sock, who, token in ((browser, ada, ada_token), (legacy, bob, bob_token)):
            game = await api.get(f"/rooms/{code}/racers/{who}/game", token)
            sock.writer.write(text_frame({"t": "move", "d": {
                "move": game["legal_moves"][0], "expected_version": 0,
                "client_move_id": f"{who}-1"}}))
            while True:
                msg = await next_message(sock)
                assert isinstance(msg, dict), msg
                if msg["t"] in ("ack", "refused"):
                    break
            assert msg["t"] == "ack" and msg["d"]["client_move_id"] == f"{who}-1", msg
        await browser.close()
        await legacy.close()
    finally:
        await _shut(fill)
        await api.aclose()
    print(f"fault-figure: spectator fill: 500 sockets in {fill_s:.2f} s; racers admitted past "
          f"them (token on the upgrade; auth within {GRACE_S} s)")


async def test_the_cap_counts_the_room_however_the_url_spells_it(small_url: str) -> None:
    port = _port(small_url)
    api = Api(small_url)
    room, _ = await api.create(deal=9)
    code = room["code"]
    _, token = await api.join(code, "ada")
    fill = await _fill(port, code, CAP)
    try:
        closes = await asyncio.gather(*(_turned_away(port, spelling) for spelling in
                                        (code, code.lower(), room["id"])))
        assert all(c[0] == 1008 and c[1].startswith("rate/limited") for c in closes), closes
        # a spectator that becomes a racer (auth) gives its spectator slot back
        fill[0].writer.write(text_frame({"t": "auth", "d": {"token": token}}))
        welcome = await next_message(fill[0])
        assert isinstance(welcome, dict) and welcome["d"]["racer"] is not None, welcome
        (more,) = await _fill(port, room["id"], 1)
        fill.append(more)
        code_close = await _turned_away(port, code.lower())
        assert code_close[0] == 1008, code_close
    finally:
        await _shut(fill)
        await api.aclose()


async def _status(port: int, room: str, headers: dict[str, str], **kw: Any) -> int:
    """The status of an upgrade with ``headers`` (101: welcomed; else its JSON
    error is ``request/origin_not_allowed``)."""
    sock = await open_raw(port, _path(room), headers, **kw)
    try:
        if sock.status == 101:
            welcome = await next_message(sock)
            assert isinstance(welcome, dict) and welcome["t"] == "welcome", welcome
        else:
            assert sock.error()["code"] == "request/origin_not_allowed", sock.body
        return sock.status
    finally:
        await sock.close()


async def test_only_the_servers_own_origin_by_default(small_url: str) -> None:
    port = _port(small_url)
    api = Api(small_url)
    room, _ = await api.create(deal=9)
    own = f"http://127.0.0.1:{port}"
    try:
        assert await _status(port, room["id"], {}) == 101  # not a browser
        assert await _status(port, room["id"], {"Origin": own}) == 101
        for foreign in ("https://evil.example", f"http://localhost:{port}", "http://127.0.0.1",
                        f"https://127.0.0.1:{port}", "null", f"http://127.0.0.1:{port + 1}"):
            assert await _status(port, room["id"], {"Origin": foreign}) == 403, foreign
        # X-Forwarded-Proto from a peer that is not a trusted proxy changes nothing
        assert await _status(port, room["id"], {"Origin": "http://race.example",
                                                "X-Forwarded-Proto": "https"},
                             host="race.example") == 101
        assert await _status(port, room["id"], {"Origin": "https://race.example",
                                                "X-Forwarded-Proto": "https"},
                             host="race.example") == 403
    finally:
        await api.aclose()


async def test_allowed_origins_setting(server_factory: ServerFactory) -> None:
    url = server_factory(LUCIE_ALLOWED_ORIGINS="https://race.example, http://partner.example:8080")
    port = _port(url)
    api = Api(url)
    room, _ = await api.create(deal=9)
    try:
        for allowed in ("https://race.example", "HTTPS://Race.Example:443",
                        "http://partner.example:8080"):
            assert await _status(port, room["id"], {"Origin": allowed}) == 101, allowed
        assert await _status(port, room["id"], {}) == 101
        for refused in (f"http://127.0.0.1:{port}", "http://race.example",
                        "http://partner.example", "https://evil.example"):
            assert await _status(port, room["id"], {"Origin": refused}) == 403, refused
    finally:
        await api.aclose()
    url = server_factory(LUCIE_ALLOWED_ORIGINS="self,https://race.example")
    port = _port(url)
    api = Api(url)
    room, _ = await api.create(deal=9)
    try:
        assert await _status(port, room["id"], {"Origin": f"http://127.0.0.1:{port}"}) == 101
        assert await _status(port, room["id"], {"Origin": "https://race.example"}) == 101
        assert await _status(port, room["id"], {"Origin": "https://evil.example"}) == 403
    finally:
        await api.aclose()


async def test_own_origin_behind_a_trusted_proxy(server_factory: ServerFactory) -> None:
    url = server_factory(LUCIE_TRUSTED_PROXIES="127.0.0.1")
    port = _port(url)
    api = Api(url)
    room, _ = await api.create(deal=9)
    proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}
    try:
        assert await _status(port, room["id"], {"Origin": "https://race.example", **proxied},
                             host="race.example") == 101
        assert await _status(port, room["id"], {"Origin": "http://race.example", **proxied},
                             host="race.example") == 403
    finally:
        await api.aclose()
