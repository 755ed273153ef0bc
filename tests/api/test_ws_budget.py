"""The connection's message budget is spent by every frame the protocol parses
(``server.runtime.ws_protocol``; issue 33, item 4), under both protocol
implementations: ping frames, pong frames and messages alike; past the
budget the socket is closed 1008 ``rate/limited``, the flood's pongs are not
all answered, and the messages not handled yet are dropped — no move is
applied that the client had no answer for."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.e2e.raw_ws import (
    OP_CLOSE,
    OP_PING,
    OP_PONG,
    Opened,
    close_of,
    frame,
    open_raw,
    read_frame,
    text_frame,
)

from .live import live_server

BURST = 20


async def _frames_until_close(sock: Opened) -> tuple[list[int], tuple[int, str] | None]:
    """The opcodes the server sent until its close frame (and that close)."""
    seen: list[int] = []
    async with asyncio.timeout(5):
        while (got := await read_frame(sock)) is not None:
            if got[0] == OP_CLOSE:
                return seen, close_of(got[1])
            seen.append(got[0])
    return seen, None


@pytest.mark.parametrize("ws_impl", ["auto", "wsproto"])
@pytest.mark.parametrize("flood", [OP_PING, OP_PONG], ids=["ping", "pong"])
async def test_control_frames_spend_the_budget(ws_impl: str, flood: int) -> None:
    if ws_impl == "wsproto":
        pytest.importorskip("wsproto")
    async with live_server(ws_impl=ws_impl, ws_rate=1.0, ws_burst=BURST) as live:
        sock = await open_raw(live.port, f"/api/v1/rooms/{live.room}/ws")
        assert sock.status == 101
        sock.writer.write(frame(flood) * 50_000)  # 300 kB: a flood in one go
        seen, close = await _frames_until_close(sock)
        await sock.close()
        assert close is not None and close[0] == 1008, (close, len(seen))
        assert close[1] == "rate/limited: too many messages"
        pongs = seen.count(OP_PONG)
        # the budget's worth, and (sans-I/O) what the library answered in the
        # same 4 KiB slice before the budget ran out: never the whole flood
        assert pongs <= (BURST + 700 if flood == OP_PING else 0), pongs
        # the server serves on
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{live.port}") as http:
            assert (await http.get(f"/api/v1/rooms/{live.room}")).status_code == 200


@pytest.mark.parametrize("ws_impl", ["auto", "wsproto"])
async def test_messages_past_the_budget_are_dropped_unanswered(ws_impl: str) -> None:
    if ws_impl == "wsproto":
        pytest.importorskip("wsproto")
    async with live_server(ws_impl=ws_impl, ws_rate=1.0, ws_burst=BURST) as live:
        base = f"http://127.0.0.1:{live.port}/api/v1"
        async with httpx.AsyncClient(base_url=base) as http:
            room = (await http.post("/rooms", json={"deal": 7, "countdown_s": 0})).json()
            code, host = room["room"]["code"], room["host_token"]
            joined = (await http.post(f"/rooms/{code}/racers", json={"name": "ada"})).json()
            auth = {"Authorization": f"Bearer {joined['token']}"}
            await http.post(f"/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"})
            sock = await open_raw(live.port, f"/api/v1/rooms/{code}/ws", auth)
            assert sock.status == 101
            # the same move again and again (a repeat is answered, applied once):
            # one write, past the budget
            game = (await http.get(f"/rooms/{code}/racers/{joined['racer']['id']}/game",
                                   headers=auth)).json()
            move = {"t": "move", "d": {"move": game["legal_moves"][0], "expected_version": 0,
                                       "client_move_id": "m-1"}}
            sock.writer.write(text_frame(move) * (BURST + 5))
            seen, close = await _frames_until_close(sock)
            await sock.close()
            assert close == (1008, "rate/limited: too many messages"), close
            after = (await http.get(f"/rooms/{code}/racers/{joined['racer']['id']}/game",
                                    headers=auth)).json()
    # the frames came in one read (2.6 kB), past the budget: none was handled
    # (neither answered nor applied), where before the first ones were applied,
    # and answered or not as the close overtook them
    answered = seen.count(1) - 1  # text frames but the welcome
    assert (answered, after["version"]) == (0, 0)


@pytest.mark.parametrize("ws_impl", ["auto", "wsproto"])
async def test_a_flooder_that_sends_on_is_cut_off(ws_impl: str) -> None:
    """Past the budget the server reads on and drops what comes (no kernel
    buffers pinned), and cuts off a peer that keeps sending."""
    if ws_impl == "wsproto":
        pytest.importorskip("wsproto")
    async with live_server(ws_impl=ws_impl, ws_rate=1.0, ws_burst=BURST) as live:
        sock = await open_raw(live.port, f"/api/v1/rooms/{live.room}/ws")
        assert sock.status == 101
        chunk = frame(OP_PING) * 10_000
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(OSError):  # reset: a write fails (never read, never hung up)
            async with asyncio.timeout(3):
                while True:
                    sock.writer.write(chunk)
                    await sock.writer.drain()
        assert loop.time() - started < 1.0  # after 8 MiB, not at the 2 s linger
        sock.writer.transport.abort()
