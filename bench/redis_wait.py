"""The cost of ``WAIT`` on a Redis Cluster (issue 23): a move's store write
(the racer script: record + answer + events + sharded publish) acknowledged
with and without ``LUCIE_REDIS_WAIT_REPLICAS=1``.

A local cluster of 3 masters and 3 replicas (``infra.redis_cluster``, free
ports, no persistence) on this machine's loopback; one store, as one server
process has. Two loads: **one writer** (moves one after another: the latency
of one acknowledgement) and **64 writers** on 64 rooms at once (the
auto-pipeline batches them per node; one ``WAIT`` per node pipeline). Figures:
p50/p99 of the write's latency, ms, and writes/s. ``quick=True``: fewer writes.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time

from infra.redis_cluster import LocalRedisCluster
from server.store.redis import RedisStore

__all__ = ["run"]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _writes(store: RedisStore, room: str, racer: str, n: int,
                  out: list[float]) -> None:
    rev = 0
    for i in range(n):
        started = time.perf_counter()
        rev, _ = await store.racers.save_racer(
            room, racer, {"moves": i}, rev, answer=(f"m{i}", {"ok": True}),
            events=[{"type": "progress", "racer": racer}])
        out.append((time.perf_counter() - started) * 1000)


async def _measure(url: str, wait: int, n: int, writers: int) -> tuple[list[float], float]:
    store = RedisStore.from_url(url, prefix=f"bench:{secrets.token_hex(4)}:",
                                wait_replicas=wait, wait_timeout_ms=1000)
    try:
        rooms = [f"room{i}" for i in range(writers)]
        for rid in rooms:
            await store.rooms.save_room(rid, {}, 0)
        await _writes(store, rooms[0], "warm", 20, [])
        out: list[float] = []
        started = time.perf_counter()
        await asyncio.gather(*(_writes(store, rid, "r", n, out) for rid in rooms))
        return out, len(out) / (time.perf_counter() - started)
    finally:
        await store.close()


def run(quick: bool) -> list[str]:
    """Start the cluster, measure both loads without and with ``WAIT 1``."""
    n_one, n_many = (200, 20) if quick else (2000, 100)
    lines = []
    with LocalRedisCluster() as cluster:
        for writers, n in ((1, n_one), (64, n_many)):
            for wait in (0, 1):
                got, rate = asyncio.run(_measure(cluster.url, wait, n, writers))
                lines.append(
                    f"cluster, {writers:>2} writer(s), WAIT {wait}: p50 {_pct(got, 0.5):.2f} ms, "
                    f"p99 {_pct(got, 0.99):.2f} ms, mean {statistics.fmean(got):.2f} ms, "
                    f"{rate:,.0f} writes/s")
    return lines


if __name__ == "__main__":
    print("\n".join(run(quick=False)))
