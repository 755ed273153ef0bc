"""A closed room socket is freed by reference counting, not left to the
collector: the server freezes survivors every second and runs a full
collection only every ten minutes (``server.runtime.gcpolicy``), so every closed
socket caught in a reference cycle stayed in memory until then, and made that
collection seconds long under load (issue 8)."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import struct
import time
import uuid
from collections.abc import Iterator

import pytest
import websockets
from starlette.testclient import TestClient
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.api.hub import Listener, RoomFeed
from server.api.ws import Connection as _Connection
from server.app import create_app
from server.runtime.settings import Settings

from .live import live_server, open_room_socket


@pytest.fixture(params=["memory", "redis"])
def client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The app on the embedded store, and on the real Redis (its room feeds
    wait on a pub/sub subscription)."""
    url = None
    if request.param == "redis":
        url = f"redis://127.0.0.1:6379/0?prefix=cycles-{uuid.uuid4().hex[:8]}:"
    # gc_freeze_s=0: no GC policy, whose freezes would hide objects from
    # gc.get_objects()
    app = create_app(Settings(http_rate=1000, http_burst=1000, redis_url=url, gc_freeze_s=0))
    with TestClient(app) as c:
        yield c


def _alive(kind: type) -> int:
    """Instances of ``kind`` the collector tracks (freed ones are not listed).
    By their type: ``isinstance`` would dereference a weak proxy to a dead
    object, which raises ReferenceError."""
    return sum(issubclass(type(o), kind) for o in gc.get_objects())


def test_closed_sockets_leave_no_cycles(client: TestClient, no_collector: None) -> None:
    created = client.post("/api/v1/rooms", json={"deal": 7, "countdown_s": 0}).json()
    room, host = created["room"]["id"], created["host_token"]
    token = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "ada"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    client.post(f"/api/v1/rooms/{room}/start", headers={"Authorization": f"Bearer {host}"})
    for _ in range(3):
        with client.websocket_connect(f"/api/v1/rooms/{room}/ws", headers=auth) as racer, \
                client.websocket_connect(f"/api/v1/rooms/{room}/ws") as spectator:
            assert racer.receive_json()["t"] == "welcome"
            assert spectator.receive_json()["t"] == "welcome"
            racer.send_json({"t": "move", "d": {"move": "autoplay", "client_move_id": "m1"}})
            assert racer.receive_json()["t"] in ("ack", "error", "event")
    # every connection, its listener and the room's feed go (the feed's task
    # ends on the server's loop a moment after its last socket closes); with
    # the collector off, an object held in a cycle would stay forever
    # (the handlers end on the server's thread after the client saw the close:
    # wait for all three, not only the feed, which can go first)
    deadline = time.monotonic() + 5
    while (_alive(_Connection) or _alive(Listener) or _alive(RoomFeed)) \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (_alive(_Connection), _alive(Listener), _alive(RoomFeed)) == (0, 0, 0)


async def _closes_seen() -> None:
    """Wait until the server has seen every socket close."""
    async with asyncio.timeout(5):
        while _alive(_Connection):
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)


@pytest.mark.uvicorn_private
async def test_upgraded_http_protocols_leave_no_cycles(no_collector: None) -> None:
    """The HTTP protocol object of an upgraded socket goes with the socket
    (``server.runtime.http_protocol``)."""
    async with live_server() as (port, room, _):
        for _ in range(3):
            async with websockets.connect(f"ws://127.0.0.1:{port}/api/v1/rooms/{room}/ws") as ws:
                assert json.loads(await ws.recv())["t"] == "welcome"
        await _closes_seen()
        assert (_alive(HttpToolsProtocol), _alive(_Connection)) == (0, 0)


async def _raw_socket(port: int, room: str, ending: str) -> None:
    """Open a room socket by hand, read the welcome, then end it: a clean
    close (close frame), a FIN without one, a reset (RST), or a ping flood the
    server closes."""
    reader, writer, _ = await open_room_socket(port, room)
    if ending == "close":  # a masked close frame, code 1000
        writer.write(bytes([0x88, 0x82, 0, 0, 0, 0]) + (1000).to_bytes(2, "big"))
        await reader.read(65536)
    elif ending == "reset":
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                                   struct.pack("ii", 1, 0))
    elif ending == "flood":  # masked pings past the message budget: closed 1008 (issue 33)
        writer.write(bytes([0x89, 0x80, 0, 0, 0, 0]) * 2000)
        while (chunk := await reader.read(65536)) and b"rate/limited" not in chunk:
            pass
    writer.close()


def _parser_owner(ws_impl: str) -> type:
    """The class whose objects a live parser generator keeps alive."""
    if ws_impl == "wsproto":
        return pytest.importorskip("wsproto.frame_protocol").FrameProtocol  # type: ignore[no-any-return]
    from websockets.server import ServerProtocol
    return ServerProtocol


@pytest.mark.uvicorn_private
@pytest.mark.parametrize("ending", ["close", "fin", "reset", "flood"])
@pytest.mark.parametrize("ws_impl", ["auto", "wsproto"])
async def test_ended_websockets_leave_no_parser_cycles(ws_impl: str, ending: str,
                                                        no_collector: None) -> None:
    """The WebSocket library's frame parser and its protocol go with the
    socket, however the client ends it (``server.runtime.ws_protocol``): before, a
    client resetting sockets in a loop grew the server by ~3.8 KB each."""
    owner = _parser_owner(ws_impl)
    async with live_server(ws_impl=ws_impl) as (port, room, _):
        for _ in range(3):
            await _raw_socket(port, room, ending)
        await _closes_seen()
        assert (_alive(owner), _alive(_Connection)) == (0, 0)
