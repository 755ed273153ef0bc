"""uvicorn in the test's own loop, configured as ``lucie-server`` runs it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any, NamedTuple

import httpx
import pytest
import uvicorn

from server.app import uvicorn_config
from server.runtime.settings import Settings


class Live(NamedTuple):
    """A running server: its port, a new room on deal 7, the uvicorn server."""

    port: int
    room: str
    server: uvicorn.Server


@contextlib.asynccontextmanager
async def live_server(**settings: Any) -> AsyncIterator[Live]:
    """A server on a free port of 127.0.0.1 with ``settings`` (the GC policy
    off unless given: its collections would hide a cycle)."""
    settings.setdefault("gc_freeze_s", 0)
    server = uvicorn.Server(uvicorn_config(Settings(host="127.0.0.1", port=0, **settings)))
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(10):
            while not server.started:
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            room = (await http.post("/api/v1/rooms", json={"deal": 7})).json()["room"]["id"]
        yield Live(port, room, server)
    finally:
        server.should_exit = True
        await serving


def upgrade_request(room: str) -> bytes:
    """The HTTP request that opens ``room``'s socket (a WebSocket handshake)."""
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET /api/v1/rooms/{room}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


async def open_room_socket(
        port: int, room: str,
        rcvbuf: int | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    """A room socket opened by hand (``rcvbuf``: its kernel receive buffer, B):
    its streams and the frames after the handshake up to the welcome."""
    sock = socket.socket()
    if rcvbuf is not None:  # before connecting, so the window is that small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(upgrade_request(room))
    seen = b""
    while b"welcome" not in seen:
        chunk = await reader.read(65536)
        assert chunk, seen
        seen += chunk
    return reader, writer, seen.partition(b"\r\n\r\n")[2]


@contextlib.contextmanager
def uvicorn_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """uvicorn's records in ``caplog`` too: its loggers do not propagate to the
    root, and a server's start replaces their handlers (so enter this after)."""
    uvicorn_log = logging.getLogger("uvicorn")
    uvicorn_log.addHandler(caplog.handler)
    try:
        yield
    finally:
        uvicorn_log.removeHandler(caplog.handler)
