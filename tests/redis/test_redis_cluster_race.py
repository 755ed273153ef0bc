"""Races on a real local Redis Cluster (3 masters, 3 replicas): two
``lucie-server`` processes found the cluster from ``REDIS_URL`` alone.

In ``make test``: racers on two processes race one deal to the end; both see
one event sequence; the ended race is archived (its end written in steps on
the cluster, docs/architecture.md). The failover runs are in
``tests/redis/test_redis_cluster_failover.py`` (``make test-cluster``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from infra.redis_cluster import LocalRedisCluster
from server.store.redis import RedisStore
from tests.e2e.wire import Api

from .cluster import Cluster
from .racing import Racer, events_of

pytestmark = [pytest.mark.timeout(120)]


async def test_two_processes_race_on_a_redis_cluster(redis_cluster: LocalRedisCluster) -> None:
    servers = Cluster(2, redis_url=redis_cluster.url, keep_keys=True, LUCIE_LOG_LEVEL="info")
    apis = [Api(u) for u in servers.urls]
    store = RedisStore.from_url(redis_cluster.url, prefix=servers.prefix)
    try:
        assert store.cluster
        room, host = await apis[0].create(undo=False, deal=321, countdown_s=1)
        joined = [await apis[0].join(room["code"], "Ada"), await apis[1].join(room["code"], "Bob")]
        racers = [Racer(room, rid, tok) for rid, tok in joined]
        for racer, url in zip(racers, servers.urls, strict=True):
            await racer.connect(url)
        await apis[1].start(room["id"], host)

        async def race(r: Racer) -> dict[str, Any]:
            await r.until("event", "started")
            game = await r.play(await r.game())
            await r.until("event", "race_over")
            return game

        games = await asyncio.gather(*(race(r) for r in racers))
        for r in racers:
            await r.close()
        logs = [events_of(r.msgs) for r in racers]
        assert logs[0] == logs[1]
        seqs = [e["seq"] for e in logs[0]]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert [e["type"] for e in logs[0]].count("progress") == sum(g["version"] for g in games)
        tables = [await api.get(f"/rooms/{room['id']}/standings") for api in apis]
        # without to_par: the solver's par may land between the two reads (issue 7)
        ranked = [[{k: v for k, v in row.items() if k != "to_par"} for row in t["standings"]]
                  for t in tables]
        assert len(ranked[0]) == 2 and ranked[0] == ranked[1]
        # the end, written in steps on the cluster, reaches the archive
        deadline = time.monotonic() + 20
        while room["id"] in await store.archive.pending():
            assert time.monotonic() < deadline, "the ended race was not archived"
            await asyncio.sleep(0.2)
        # the nodes require a password (the session's cluster): every node's
        # client used it, and no log line shows it
        assert redis_cluster.password and redis_cluster.password in redis_cluster.url
        for i in range(2):
            assert "socket opened" in servers.log(i)  # info lines were logged
            assert redis_cluster.password not in servers.log(i)
    finally:
        for api in apis:
            await api.aclose()
        await store.close()
        servers.stop()
