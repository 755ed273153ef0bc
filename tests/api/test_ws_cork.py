"""The room socket's transport sends the frames of one loop turn as one write
(``server.runtime.ws_protocol.CorkedTransport``, issue 23): in order, a close
sends what is buffered first, an abort or a lost connection drops it."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
import websockets
from websockets.protocol import State

from server.runtime.ws_protocol import CorkedTransport, _text_frame

from .live import live_server


class _Wire:
    """A transport that records its writes."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_write_buffer_size(self) -> int:
        return 7

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1)}.get(name, default)


def _corked() -> tuple[CorkedTransport, _Wire]:
    wire = _Wire()
    return CorkedTransport(wire, asyncio.get_running_loop()), wire  # type: ignore[arg-type]


async def test_one_turn_is_one_write_in_order() -> None:
    corked, wire = _corked()
    for part in (b"a", b"bc", b"d"):
        corked.write(part)
    assert wire.writes == []
    assert corked.get_write_buffer_size() == 7 + 4
    await asyncio.sleep(0)
    assert wire.writes == [b"abcd"]
    corked.write(b"e")
    await asyncio.sleep(0)
    assert wire.writes == [b"abcd", b"e"]
    assert corked.get_extra_info("peername") == ("127.0.0.1", 1)  # the rest is the wire's


async def test_close_sends_the_buffer_first_abort_drops_it() -> None:
    corked, wire = _corked()
    corked.write(b"last frame")
    corked.write(b"close frame")
    corked.close()
    assert wire.writes == [b"last frameclose frame"] and wire.closed
    await asyncio.sleep(0)  # the scheduled flush finds nothing left
    assert len(wire.writes) == 1

    corked, wire = _corked()
    corked.write(b"never sent")
    corked.abort()
    await asyncio.sleep(0)
    assert wire.writes == [] and wire.aborted


@pytest.mark.parametrize("size", [0, 125, 126, 300, 65_535, 65_536, 70_000])
def test_a_shared_frame_is_the_frame_websockets_writes(size: int) -> None:
    from websockets.server import ServerProtocol

    conn = ServerProtocol()
    conn.state = State.OPEN
    text = ("é" + "x" * size)[:size]
    conn.send_text(text.encode())
    assert _text_frame(text) == b"".join(conn.data_to_send())


async def test_nothing_is_written_to_a_closing_transport() -> None:
    corked, wire = _corked()
    corked.write(b"frame")
    wire.closed = True  # the connection was lost meanwhile
    await asyncio.sleep(0)
    assert wire.writes == []


@pytest.mark.uvicorn_private
async def test_a_burst_is_answered_in_full_on_a_real_socket() -> None:
    """Fifty pings sent at once (answered within a few turns, so in a few
    writes): fifty pongs, then the welcome of an ``auth`` sent after them."""
    async with live_server() as live:
        url = f"ws://127.0.0.1:{live.port}/api/v1/rooms/{live.room}/ws"
        async with websockets.connect(url, compression=None) as ws:
            assert orjson.loads(await ws.recv())["t"] == "welcome"
            ping = orjson.dumps({"t": "ping"}).decode()
            for _ in range(50):
                await ws.send(ping)
            await ws.send(orjson.dumps({"t": "ready", "d": {"ready": True}}).decode())
            answers = [orjson.loads(await ws.recv()) for _ in range(51)]
            assert [a["t"] for a in answers] == ["pong"] * 50 + ["error"]
            assert answers[-1]["d"]["code"] == "auth/missing"


async def test_the_light_inbox_and_writable_flag() -> None:
    """uvicorn's receive queue and ``writable`` event, made lighter per socket."""
    from server.runtime.ws_protocol import _Inbox, _Writable

    inbox = _Inbox()
    assert inbox.empty()
    getter = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    inbox.put_nowait("a")
    inbox.put_nowait("b")
    assert await getter == "a" and not inbox.empty()
    assert await inbox.get() == "b" and inbox.empty()

    flag = _Writable()
    assert flag.is_set() and await flag.wait()
    flag.clear()
    waiters = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    waiters[0].cancel()  # a cancelled wait leaves nothing behind
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters[1:])
    flag.set()
    assert await asyncio.gather(*waiters[1:]) == [True, True]
    assert flag._waiters is None
