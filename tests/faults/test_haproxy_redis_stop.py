"""One Redis blip behind the shipped HAProxy (issue 33, item 11): a Redis stopped
for 5 s is a store outage, not a process fault — the balancer keeps both
replicas in its pool and every room socket stays open; moves meanwhile are
refused ``store/unavailable`` and, resent once Redis is back, apply once.

Before, HAProxy checked ``/readyz`` (the store answers): a stopped Redis marked
every replica DOWN together (``inter 2s fall 2``) and ``on-marked-down
shutdown-sessions`` closed every socket — ~12 s offline for everyone, then a
reconnect stampede (``rise 2``). The shipped check is ``/healthz`` now (the
process answers); ``/readyz`` stays for orchestrators.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect

from tests.e2e.wire import Api, recv, recv_until
from tests.faults.parts import PrivateRedis
from tests.redis.balancer import Balancer, haproxy_binary
from tests.redis.cluster import Cluster

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]

STOP_S = 5.0


async def test_a_redis_stop_keeps_the_sockets_open_behind_haproxy(
        private_redis: PrivateRedis) -> None:
    assert haproxy_binary() is not None, "haproxy is installed by scripts/ensure-tools.sh"
    cluster = Cluster(2, redis_url=private_redis.url)
    lb = Balancer(cluster.urls)
    api = Api(lb.url)
    try:
        lb.wait_up(["app1", "app2"])
        room, host = await api.create(deal=42, countdown_s=0, undo=False)
        rid, token = await api.join(room["id"], "Ada")
        ws_url = lb.url.replace("http", "ws", 1) + f"/api/v1/rooms/{room['id']}/ws"
        sockets = [await connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}),
                   await connect(ws_url), await connect(ws_url)]
        for ws in sockets:
            await recv(ws)
        await api.start(room["id"], host)
        for ws in sockets:
            await recv_until(ws, "event", type_="started")
        racer = sockets[0]
        game = await api.get(f"/rooms/{room['id']}/racers/{rid}/game", token)

        private_redis.stop()
        stopped = time.monotonic()
        await racer.send(json.dumps({"t": "move", "d": {
            "move": game["legal_moves"][0], "expected_version": game["version"],
            "client_move_id": "during"}}))
        refused = await recv_until(racer, "refused")
        assert refused["d"]["code"] == "store/unavailable"
        while time.monotonic() - stopped < STOP_S:
            await asyncio.sleep(0.25)
            for ws in sockets:
                await ws.ping()  # still open: the balancer kept its sessions
            states = {name: row["status"] for name, row in lb.stats().items()
                      if name in ("app1", "app2")}
            assert set(states.values()) == {"UP"}, states
        private_redis.start()
        async with asyncio.timeout(30):  # the resend, once the store answers again
            while True:
                await racer.send(json.dumps({"t": "move", "d": {
                    "move": game["legal_moves"][0], "expected_version": game["version"],
                    "client_move_id": "during"}}))
                answer = await recv(racer)
                while answer["t"] not in ("ack", "refused"):
                    answer = await recv(racer)
                if answer["t"] == "ack":
                    break
                await asyncio.sleep(0.2)
        assert answer["d"]["version"] == game["version"] + 1
        for ws in sockets[1:]:  # the spectators, on the same sockets, see the move
            await recv_until(ws, "event", type_="progress")
        for ws in sockets:
            await ws.close()
    finally:
        await api.aclose()
        lb.stop()
        if private_redis.proc is None or private_redis.proc.poll() is not None:
            private_redis.start()  # the cluster's keys go with it
        cluster.stop()
