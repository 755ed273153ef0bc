"""Tokens never appear in the server's logs (uvicorn access log included)."""

from __future__ import annotations

import json
from typing import Any

from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from tests.conftest import SERVER_LOGS

from .wire import Api, open_socket, recv, recv_until


async def test_tokens_are_not_logged(server_factory: Any) -> None:
    url = str(server_factory(LUCIE_LOG_LEVEL="debug"))
    api = Api(url)
    room, host = await api.create(deal=3, countdown_s=0)
    racer, token = await api.join(room["id"], "ada")
    await api.start(room["id"], host)
    async with open_socket(url, room["id"], token) as ws:
        await recv(ws)
        await ws.send(json.dumps({"t": "move", "d": {"move": "a", "expected_version": 0,
                                                     "client_move_id": "1"}}))
        await ws.recv()
    async with open_socket(url, room["id"]) as ws:
        await recv(ws)
        await ws.send(json.dumps({"t": "auth", "d": {"token": token}}))
        await recv_until(ws, "welcome")
    # a browser's way: the token as a subprotocol of the upgrade (issue 33)
    async with connect(url.replace("http", "ws", 1) + f"/api/v1/rooms/{room['id']}/ws",
                       subprotocols=[Subprotocol("lucie.v1"),
                                     Subprotocol(f"lucie.bearer.{token}")]) as ws:
        assert (await recv(ws))["d"]["racer"] == racer and ws.subprotocol == "lucie.v1"
    await api.http.post(f"/rooms/{room['id']}/racers/{racer}/resign",
                        headers={"Authorization": f"Bearer {token}"})
    await api.http.post(f"/rooms/{room['id']}/racers/{racer}/moves",
                        headers={"Authorization": "Bearer wrong-token-xyz"},
                        json={"move": "u", "expected_version": 0, "client_move_id": "2"})
    await api.aclose()
    log = SERVER_LOGS[url].read_text()
    assert "GET /api/v1/rooms/" in log or "POST /api/v1/rooms" in log  # the log is on
    for secret in (token, host, "wrong-token-xyz"):
        assert secret not in log
