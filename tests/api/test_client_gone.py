"""A client that goes away mid-request, or sends a frame its WebSocket
library refuses, is no server error: the server logs no traceback, keeps
serving, and applies nothing."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from .live import live_server, open_room_socket, uvicorn_logs


def _server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """(opcode, payload) of the server's unmasked frames in ``data``."""
    frames, at = [], 0
    while at < len(data):
        opcode, length, at = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
        if length >= 126:
            size = 2 if length == 126 else 8
            length, at = int.from_bytes(data[at:at + size], "big"), at + size
        frames.append((opcode, data[at:at + length]))
        at += length
    return frames


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_client_that_leaves_mid_body_is_no_server_error(
        caplog: pytest.LogCaptureFixture) -> None:
    async with live_server() as (port, room, _):
        with uvicorn_logs(caplog):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"POST /api/v1/rooms/{room}/racers HTTP/1.1\r\nHost: x\r\n"
                         "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                         '{"name": "ad'.encode())
            await writer.drain()
            await asyncio.sleep(0.2)
            writer.close()
            await asyncio.sleep(0.3)
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                racers = (await http.get(f"/api/v1/rooms/{room}")).json()["racers"]
    assert racers == []  # nothing half-applied
    assert _errors(caplog) == []


# RFC 6455 §8.1: the connection is failed, with a 1007 close frame
# (websockets) or without one (wsproto just closes the TCP connection)
# (the websockets case is server.runtime.ws_protocol's: stock uvicorn logs an
# ERROR traceback for it)
@pytest.mark.parametrize(("ws_impl", "ending"), [
    pytest.param("auto", [(0x8, 1007)], marks=pytest.mark.uvicorn_private),
    ("wsproto", [])])
async def test_a_text_frame_of_invalid_utf8_fails_the_socket_without_a_traceback(
        ws_impl: str, ending: list[tuple[int, int]], caplog: pytest.LogCaptureFixture) -> None:
    if ws_impl == "wsproto":
        pytest.importorskip("wsproto")
    async with live_server(ws_impl=ws_impl) as (port, room, _):
        with uvicorn_logs(caplog):
            reader, writer, frames = await open_room_socket(port, room)
            payload = b"\xff\xfe"  # masked with a zero key: sent as is
            writer.write(bytes([0x81, 0x80 | len(payload), 0, 0, 0, 0]) + payload)
            async with asyncio.timeout(5):
                while chunk := await reader.read(65536):
                    frames += chunk
            writer.close()
            await asyncio.sleep(0.2)
    welcome, *after = _server_frames(frames)
    assert b'"welcome"' in welcome[1]
    assert [(opcode, int.from_bytes(payload[:2], "big")) for opcode, payload in after] == ending
    assert _errors(caplog) == []


@pytest.mark.uvicorn_private  # server.runtime.ws_protocol's send
async def test_a_peer_that_never_answers_pings_is_dropped_without_a_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    """The keepalive ping times out while the server is sending the peer its
    room's events: the protocol closes the socket itself (1011), and the next
    send used to fail with an ERROR traceback (a RuntimeError from uvicorn)."""
    async with live_server(ping_interval=0.2, ping_timeout=0.3) as (port, room, _):
        with uvicorn_logs(caplog):
            reader, writer, _ = await open_room_socket(port, room)  # raw: answers no ping
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}/api/v1") as http:
                joined = (await http.post(f"/rooms/{room}/racers", json={"name": "ada"})).json()
                await http.post(f"/rooms/{room}/racers", json={"name": "bo"})
                ready = f"/rooms/{room}/racers/{joined['racer']['id']}/ready"
                auth = {"Authorization": f"Bearer {joined['token']}"}
                async with asyncio.timeout(10):
                    for i in range(10_000):  # events until the socket is dropped
                        await http.post(ready, json={"ready": i % 2 == 0}, headers=auth)
                        chunk = await reader.read(65536)
                        if not chunk:
                            break
            writer.close()
            await asyncio.sleep(0.2)
    assert _errors(caplog) == []
