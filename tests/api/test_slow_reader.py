"""A peer that stops reading is closed (4000, docs/protocol.md) and cut off,
not left open until the ping timeout: its close used to wait, like any send,
for the peer to read (``server.runtime.ws_protocol``)."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from .live import live_server, open_room_socket

# the fix lives in server.runtime.ws_protocol (uvicorn's private classes)
pytestmark = pytest.mark.uvicorn_private


# the send queue overflows (4000); or, with a queue that never does, the
# peer's own oversize message asks for a close (1009) while the server's
# sender waits on the peer
@pytest.mark.parametrize(("send_queue", "oversize"), [(4, False), (10_000, True)])
@pytest.mark.parametrize("ws_impl", ["auto", "wsproto"])
async def test_a_peer_that_stops_reading_is_cut_off(ws_impl: str, send_queue: int,
                                                     oversize: bool) -> None:
    if ws_impl == "wsproto":
        pytest.importorskip("wsproto")
    async with live_server(ws_impl=ws_impl, send_queue=send_queue) as (port, room, server):
        reader, writer, _ = await open_room_socket(port, room, rcvbuf=2048)
        writer.transport.pause_reading()  # the peer reads nothing more
        (slow,) = [c for c in server.server_state.connections  # the one open WebSocket
                   if hasattr(c, "close_timeout")]
        # the server's buffers for it fill after a few events
        slow.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                                           4096)
        slow.transport.set_write_buffer_limits(high=1024)
        slow.close_timeout = 0.5  # the peer's time to answer the close (uvicorn: 10 s)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            racers = []
            for name in ("ada", "bo"):
                joined = (await http.post(f"/api/v1/rooms/{room}/racers",
                                          json={"name": name})).json()
                racers.append((joined["racer"]["id"], joined["token"]))
            (ada, token), _ = racers
            ready = f"/api/v1/rooms/{room}/racers/{ada}/ready"
            auth = {"Authorization": f"Bearer {token}"}
            for i in range(400):  # ada's ready toggles: an event each; bo never is
                if slow not in server.server_state.connections:
                    break
                answer = await http.post(ready, json={"ready": i % 2 == 0}, headers=auth)
                assert answer.status_code == 200, answer.text
            if oversize:
                assert slow in server.server_state.connections
                text = b"x" * 20_000  # above LUCIE_MAX_MESSAGE; masked with a zero key
                writer.write(bytes([0x81, 0xFE]) + len(text).to_bytes(2, "big")
                             + bytes(4) + text)
            async with asyncio.timeout(8):  # closed, then cut off after the close timeout
                while slow in server.server_state.connections:
                    await asyncio.sleep(0.05)
        writer.close()
        del reader
