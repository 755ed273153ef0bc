"""``CLIENT KILL`` of every server connection to Redis mid-race.

Public report: redis-py #2089 — after the pub/sub connection is killed
(``CLIENT KILL``, a proxy or Redis dropping it), the subscriber must
reconnect *and resubscribe* its channels, or it silently stops receiving.
Here three real ``lucie-server`` processes share the test Redis; every one
of their connections (commands and pub/sub) is killed twice during a race.
Promise: the processes reconnect and resubscribe by themselves, moves refused
meanwhile are ``store/unavailable`` (a WebSocket ``refused``, never a 5xx
from the socket) and a resend with the same client move id applies once;
spectators on two processes see one gap-free event sequence, with one
``progress`` event per applied move.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.wire import Api, open_socket, recv, recv_until
from tests.redis.cluster import REDIS_URL, Cluster
from tests.redis.racing import Racer, events_of

from .parts import kill_connections, play_through_faults

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]


async def test_client_kill_mid_race_recovers_and_delivers_every_event() -> None:
    cluster = Cluster(3)
    apis = [Api(u) for u in cluster.urls[:2]]
    try:
        room, host = await apis[0].create(deal=99, countdown_s=0, undo=False)
        rid, token = await apis[0].join(room["id"], "Ada")
        ada = Racer(room, rid, token)
        await ada.connect(cluster.urls[0])
        watchers = [await open_socket(u, room["id"]).__aenter__() for u in cluster.urls[:2]]
        for w in watchers:
            await recv(w)
        await apis[1].start(room["id"], host)
        await ada.until("event", "started")
        game = await play_through_faults(ada, await ada.game(), limit=5)
        name = f"lucie-server:{cluster.prefix}"
        assert kill_connections(REDIS_URL, name) >= 4  # commands + pub/sub, per process
        game = await play_through_faults(ada, game, limit=5)
        # again, once the processes have reconnected (they reconnect lazily:
        # wait for their connections to come back rather than guess a delay)
        killed = 0
        async with asyncio.timeout(15):
            while killed < 2:
                killed += kill_connections(REDIS_URL, name)
                if killed < 2:
                    await asyncio.sleep(0.05)
        async with asyncio.timeout(30):
            game = await play_through_faults(ada, game)
            logs = []
            for w in watchers:
                seen: list[dict[str, Any]] = []
                await recv_until(w, "event", type_="race_over", seen=seen)
                logs.append(events_of(seen))
                await w.close()
        await ada.close()
        assert logs[0] == logs[1]
        seqs = [e["seq"] for e in logs[0]]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert [e["type"] for e in logs[0]].count("progress") == game["version"]
        for x in apis:
            r = await x.http.get("/rooms/" + room["id"])
            assert r.status_code == 200 and r.json()["state"] == "over"
        # every acknowledged move is in the log once, at its version
        rep = await apis[0].get(f"/rooms/{room['id']}/racers/{rid}/replay")
        assert [m["version"] for m in rep["moves"]] == list(range(1, game["version"] + 1))
        for ack in ada.acked.values():
            assert rep["moves"][ack["version"] - 1]["move"] == ack["applied"][0]
        assert all(p.poll() is None for p in cluster.procs)
    finally:
        for x in apis:
            await x.aclose()
        cluster.stop()
