"""A WebSocket upgrade pipelined behind a plain request: the socket belongs to
the WebSocket from then on, and the HTTP keep-alive timeout (armed when the
plain request's response completes) no longer cuts it off
(``server.runtime.http_protocol``)."""

from __future__ import annotations

import asyncio

import pytest

from .live import live_server, upgrade_request

# both assert fixes of server.runtime.http_protocol (uvicorn's private class)
pytestmark = pytest.mark.uvicorn_private


async def test_an_upgrade_pipelined_behind_a_request_outlives_the_keep_alive_timeout() -> None:
    async with live_server() as (port, room, server):
        server.config.timeout_keep_alive = 0.2  # uvicorn's is 5 s; new connections read it
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + upgrade_request(room))
        seen = b""
        async with asyncio.timeout(5):
            while b"welcome" not in seen:
                chunk = await reader.read(65536)
                assert chunk, seen
                seen += chunk
        assert seen.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 101" in seen
        await asyncio.sleep(0.6)  # three keep-alive timeouts
        ping = b'{"t":"ping"}'  # masked with a zero key: sent as is
        writer.write(bytes([0x81, 0x80 | len(ping), 0, 0, 0, 0]) + ping)
        async with asyncio.timeout(5):
            answer = await reader.read(65536)
        writer.close()
    assert b'"pong"' in answer, answer


@pytest.mark.parametrize("method", [b"POST", b"PUT", b"DELETE"])
async def test_upgrade_headers_on_another_method_than_get_get_a_plain_answer(
        method: bytes) -> None:
    """The opening handshake is a GET (RFC 6455 §4.1); such a request hung."""
    async with live_server() as (port, room, _):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = upgrade_request(room).replace(b"GET", method, 1)
        writer.write(request.replace(b"\r\n\r\n", b"\r\nContent-Length: 2\r\n\r\n{}"))
        async with asyncio.timeout(5):
            answer = await reader.read(65536)
        writer.close()
    assert answer.startswith(b"HTTP/1.1 405"), answer
