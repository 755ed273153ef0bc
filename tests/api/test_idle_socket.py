"""What an open room socket holds for its life (issue 23: ≤ 20 KB per idle
socket, ``python -m bench server``): not the handshake's headers once the
token and the request id are read."""

from __future__ import annotations

import asyncio
import gc

import httpx
import orjson
import websockets

from server.api.ws import Connection

from .live import live_server


async def test_an_open_socket_holds_no_handshake_headers() -> None:
    async with live_server() as live:
        base = f"http://127.0.0.1:{live.port}/api/v1"
        async with httpx.AsyncClient(base_url=base) as http:
            joined = (await http.post(f"/rooms/{live.room}/racers", json={"name": "ada"})).json()
        url = f"ws://127.0.0.1:{live.port}/api/v1/rooms/{live.room}/ws"
        padding = {"X-Padding": "p" * 2000, "X-Request-ID": "idle-1"}
        async with websockets.connect(url, additional_headers={
                "Authorization": f"Bearer {joined['token']}", **padding}) as racer, \
                websockets.connect(url, additional_headers=padding) as spectator:
            welcome = orjson.loads(await racer.recv())
            assert welcome["d"]["racer"] == joined["racer"]["id"]  # the token was read
            assert orjson.loads(await spectator.recv())["d"]["racer"] is None
            await racer.send('{"t":"ping"}')
            assert orjson.loads(await racer.recv())["t"] == "pong"
            assert racer.response is not None
            assert racer.response.headers["X-Request-ID"] == "idle-1"
            await asyncio.sleep(0.05)
            held = [o for o in gc.get_objects() if type(o) is Connection]
            assert len(held) == 2
            assert all(c.ws.scope["headers"] == [] for c in held)
            assert all(len(c.ws.headers) == 0 for c in held)
