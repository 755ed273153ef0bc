"""Room sockets opened and closed by the thousand leave nothing behind.

This case found a leak (fixed): room feeds that ``Hub.detach`` cancelled
kept their Redis subscription, because ``asyncio.wait_for`` on Python 3.11
can swallow a cancellation (CPython gh-86296) inside redis-py's send.

Public report: encode/broadcaster #55 — subscriptions of closed WebSockets
left behind in the pub/sub layer, growing without bound. Here one real
``lucie-server`` per store (memory, and Redis with its own key prefix) gets
1,000 room sockets over 50 rooms, opened in waves of 100 and closed, twice.

Promise: afterwards no pub/sub channel of the server's prefix is subscribed
(``PUBSUB CHANNELS <prefix>*``, within 2 s of the last close), and the
process's resident memory (``VmRSS``), measured warm — after a first round,
before and after a second — grows by at most 5 % or 5 MB, whichever is
larger. The ``chaos`` variant does 10,000 sockets a round, three rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from tests.conftest import start_lucie_server
from tests.e2e.wire import Api
from tests.redis.cluster import REDIS_URL, Cluster

from .parts import pubsub_channels, rss_kb

pytestmark = pytest.mark.timeout(120)

ROOMS = 50
WAVE = 100


@contextlib.contextmanager
def _server(store: str) -> Iterator[tuple[str, int, str | None]]:
    """A server on ``store`` (memory or redis): its URL, pid and Redis prefix."""
    if store == "redis":
        cluster = Cluster(1)
        try:
            yield cluster.urls[0], cluster.procs[0].pid, cluster.prefix
        finally:
            cluster.stop()
        return
    from tests.conftest import run_dir
    proc, url = start_lucie_server({"LUCIE_TICK_MS": "50"}, run_dir("churn-") / "server.log")
    try:
        yield url, proc.pid, None
    finally:
        proc.terminate()
        proc.wait(10)


async def _round(url: str, rooms: list[str], sockets: int) -> None:
    """Open ``sockets`` room sockets, :data:`WAVE` at a time over ``rooms``; close each."""
    base = url.replace("http", "ws", 1) + "/api/v1/rooms/"

    async def one(i: int) -> None:
        async with connect(f"{base}{rooms[i % len(rooms)]}/ws", open_timeout=10) as ws:
            assert '"welcome"' in str(await ws.recv())

    for start in range(0, sockets, WAVE):
        await asyncio.gather(*(one(i) for i in range(start, min(sockets, start + WAVE))))


async def _channels_gone(prefix: str, within_s: float = 2.0) -> float:
    """Wait until no channel of ``prefix`` is subscribed (the fan-out leaves a
    room's channel shortly after its last socket, not at once); how long it took."""
    started = time.monotonic()
    while channels := pubsub_channels(REDIS_URL, prefix):
        assert time.monotonic() - started < within_s, channels[:5]
        await asyncio.sleep(0.02)
    return time.monotonic() - started


async def _churn(store: str, sockets: int, rounds: int) -> None:
    with _server(store) as (url, pid, prefix):
        api = Api(url)
        try:
            rooms = [(await api.create(deal=i + 1))[0]["id"] for i in range(ROOMS)]
            await _round(url, rooms, sockets)  # warm: imports, caches, allocator arenas
            if prefix is not None:  # one socket open: its room's channel alone
                await _channels_gone(prefix)
                async with connect(url.replace("http", "ws", 1)
                                   + f"/api/v1/rooms/{rooms[0]}/ws") as ws:
                    await ws.recv()
                    assert len(pubsub_channels(REDIS_URL, prefix)) == 1
            before = rss_kb(pid)
            started = time.monotonic()
            for _ in range(rounds - 1):
                await _round(url, rooms, sockets)
            took = time.monotonic() - started
            gone_s = 0.0 if prefix is None else await _channels_gone(prefix)
            after = rss_kb(pid)
            assert after <= max(before * 1.05, before + 5 * 1024), (before, after)
            for room in rooms[:3]:  # the rooms still answer
                assert (await api.get(f"/rooms/{room}"))["id"] == room
            print(f"fault-figure: churn {store}: {sockets} sockets x {rounds - 1} measured "
                  f"rounds in {took:.1f} s, RSS {before} -> {after} kB "
                  f"({(after - before) / 1024:+.1f} MB), channels gone {gone_s:.2f} s after")
        finally:
            await api.aclose()


@pytest.mark.parametrize("store", ["memory",
                                   pytest.param("redis", marks=pytest.mark.redis)])
async def test_thousand_sockets_leave_no_channel_and_no_growth(store: str) -> None:
    await _churn(store, 1000, 2)


@pytest.mark.chaos
@pytest.mark.timeout(900)
@pytest.mark.parametrize("store", ["memory",
                                   pytest.param("redis", marks=pytest.mark.redis)])
async def test_soak_ten_thousand_sockets_a_round(store: str) -> None:
    await _churn(store, 10_000, 3)
