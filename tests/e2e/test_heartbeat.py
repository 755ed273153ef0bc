"""End to end: the server's WebSocket pings find a peer that stopped answering."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from .wire import Api, open_socket, recv

pytestmark = pytest.mark.timeout(30)


async def test_a_dead_peer_is_dropped(server_factory: Any) -> None:
    url = str(server_factory(LUCIE_PING_INTERVAL="0.3", LUCIE_PING_TIMEOUT="0.3"))
    api = Api(url)
    room, _ = await api.create(deal=4)
    async with open_socket(url, room["id"]) as alive, open_socket(url, room["id"]) as dead:
        await recv(alive)
        await recv(dead)
        dead.transport.pause_reading()  # a peer that stopped reading answers no ping
        await asyncio.sleep(2.0)
        await api.join(room["id"], "ada")  # the live socket still gets events
        assert (await recv(alive))["d"]["type"] == "joined"
        dead.transport.resume_reading()
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(5):
                while True:
                    await dead.recv()
    await api.aclose()
