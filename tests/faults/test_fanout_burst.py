"""A burst of room sockets while the Redis fan-out connects (issue 25, part 1).

A real ``lucie-server`` process, freshly started on Redis: 50 rooms, then 50
room WebSockets opened at once (what clients do together after a restart or a
deploy). The process must keep **one** pub/sub connection, deliver each
room's first live event within milliseconds, and leave no channel subscribed
once the sockets are gone. The same after a Redis restart (a private
``redis-server``).

The defect: ``Follower.join`` sent ``SUBSCRIBE`` through redis-py's asyncio
``PubSub`` while the reader task was still making its connection, and
``PubSub.connect`` takes a fresh pool connection whenever ``self.connection``
is still ``None`` — one per concurrent caller; each orphan stayed subscribed
for good and its confirmation was never read (join timeout, then a retry).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest
import redis as syncredis
from websockets.asyncio.client import ClientConnection

from tests.e2e.wire import Api, open_socket, recv, recv_until
from tests.faults.parts import PrivateRedis, pubsub_channels
from tests.redis.cluster import REDIS_URL, Cluster

from .latency import LatencyProxy

pytestmark = [pytest.mark.redis, pytest.mark.timeout(60)]

ROOMS = 50
P99_S = 0.100
STAGGER_S = 0.002
"""The sockets of the burst come this far apart (50 in 0.1 s): clients that
reconnect together still arrive a little apart, so their joins fall all along
the fan-out's connect (all in one event-loop turn, before the reader even
started, they would not show the race)."""
DELAY_S = 0.005
"""One-way delay between the server and Redis (:class:`LatencyProxy`): a Redis
on another host, and a connect of several round trips that the burst falls in
every time (on a bare loopback the old code failed about 3 runs in 4)."""
ROUND_TRIPS: list[float] = []
"""Seconds from each triggering REST call's request to its event (for the figures)."""


def _pubsub_clients(url: str, prefix: str) -> list[dict[str, Any]]:
    """The pub/sub connections of the servers on ``prefix`` (they are named
    ``lucie-server:<prefix>``, see ``RedisStore.from_url``). Redis lists a
    connection as ``pubsub`` while it has a subscription only."""
    admin = syncredis.Redis.from_url(url)
    try:
        return [c for c in admin.client_list(_type="pubsub")
                if c.get("name") == f"lucie-server:{prefix}"]
    finally:
        admin.close()


def _subscribed(url: str, prefix: str) -> list[dict[str, Any]]:
    """Every connection of those servers with a subscription, whatever its type."""
    admin = syncredis.Redis.from_url(url)
    try:
        return [c for c in admin.client_list()
                if c.get("name") == f"lucie-server:{prefix}"
                and int(c["sub"]) + int(c["psub"]) > 0]
    finally:
        admin.close()


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


async def _first_event(api: Api, ws: ClientConnection, room: str, i: int) -> float:
    """Make an event in ``room`` (a racer joins); seconds from the REST answer to
    the event on ``ws`` (0 if it came first)."""
    waiter = asyncio.create_task(recv_until(ws, "event", type_="joined"))
    await asyncio.sleep(0)
    asked = time.monotonic()
    await api.join(room, f"r{i}")
    answered = time.monotonic()
    try:
        async with asyncio.timeout(10):
            await waiter
    except TimeoutError:  # never came: counted as 10 s, the figures tell
        pass
    arrived = time.monotonic()
    ROUND_TRIPS.append(arrived - asked)
    return max(0.0, arrived - answered)


async def _burst(url: str, redis_url: str, prefix: str,
                 rooms: list[str] | None = None) -> dict[str, Any]:
    """Create ``ROOMS`` rooms (unless given), open one socket to each at once,
    make one event per room, close them; the figures."""
    api = Api(url)
    try:
        if rooms is None:
            made = await asyncio.gather(*(api.create(deal=i + 1) for i in range(ROOMS)))
            rooms = [room["id"] for room, _ in made]
        async with contextlib.AsyncExitStack() as stack:

            async def opened(i: int, room: str) -> ClientConnection:
                await asyncio.sleep(i * STAGGER_S)
                ws: ClientConnection = await stack.enter_async_context(open_socket(url, room))
                return ws

            sockets = await asyncio.gather(*(opened(i, r) for i, r in enumerate(rooms)))
            for ws in sockets:
                assert (await recv(ws))["t"] == "welcome"
            pairs = enumerate(zip(sockets, rooms, strict=True))
            delays = await asyncio.gather(*(_first_event(api, ws, r, i) for i, (ws, r) in pairs))
            during = _pubsub_clients(redis_url, prefix)
        # every socket is closed: the channels go
        deadline = time.monotonic() + 5
        while pubsub_channels(redis_url, prefix) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # nothing comes back
        channels_after = len(pubsub_channels(redis_url, prefix))
        subscribed_after = _subscribed(redis_url, prefix)
        # and the one connection stays: a new socket is followed on it
        async with open_socket(url, rooms[0]) as ws:
            await recv(ws)
            await _first_event(api, ws, rooms[0], ROOMS)
            again = _pubsub_clients(redis_url, prefix)
        figures = {"connections": len(during), "p99_s": round(_p99(delays), 4),
                   "p99_from_request_s": round(_p99(ROUND_TRIPS[-len(delays):]), 4),
                   "max_s": round(max(delays), 4), "channels_after": channels_after,
                   "subscribed_connections_after": len(subscribed_after),
                   "subscribed_channels_after": sum(int(c["sub"]) for c in subscribed_after),
                   "same_connection_again": [c["id"] for c in again] == [c["id"] for c in during]}
        print(f"\nfan-out burst figures: {figures}")
        return figures
    finally:
        await api.aclose()


def _check(figures: dict[str, Any]) -> None:
    assert figures["connections"] == 1, figures
    assert figures["p99_s"] <= P99_S, figures
    assert figures["channels_after"] == 0, figures
    assert figures["subscribed_connections_after"] == 0, figures
    assert figures["same_connection_again"], figures


async def test_cold_burst_keeps_one_pubsub_connection() -> None:
    """From issue 25 (part 1, this project's tracker): 35 to 50 pub/sub connections
    after a cold burst, 49 still subscribed after the sockets closed, first events
    after ~3.5 s. The redis-py side is its asyncio ``PubSub.connect``: a
    ``PubSub`` whose ``connection`` is still ``None`` takes a new pool connection
    on every concurrent call (check, then await the pool, then assign). No
    upstream report of that exact race was found; the nearest public reports
    are of the same kind, one ``PubSub`` used from two tasks: aio-libs
    aioredis-py #1217 and redis-py #1720 (a ``subscribe`` in one task reads the
    health-check ``PONG`` that ``get_message`` in another task is waiting for)."""
    proxy = LatencyProxy(6379, DELAY_S)
    cluster = Cluster(1, redis_url=proxy.url())
    try:
        _check(await _burst(cluster.urls[0], REDIS_URL, cluster.prefix))
    finally:
        cluster.stop()
        proxy.close()


async def test_burst_right_after_a_redis_restart() -> None:
    """The same burst right after the server's Redis restarted (issue 25, part 1:
    "after any reconnect": Redis restart, ``CLIENT KILL TYPE pubsub``; no upstream
    report number confirmed for this side). The process followed a room before
    the restart, so its follower reconnects around the time the sockets come;
    the race window is then a few round trips wide and this burst does not
    always fall in it: it guards the reconnect path rather than reproducing."""
    private = PrivateRedis()
    proxy = LatencyProxy(private.port, DELAY_S)
    cluster = Cluster(1, redis_url=proxy.url())
    try:
        url = cluster.urls[0]
        api = Api(url)
        try:
            made = await asyncio.gather(*(api.create(deal=i + 1) for i in range(ROOMS)))
            rooms = [room["id"] for room, _ in made]
            async with open_socket(url, rooms[0]) as ws:  # the follower is connected
                await recv(ws)
                await _first_event(api, ws, rooms[0], 99)
        finally:
            await api.aclose()
        private.stop()
        await asyncio.sleep(0.3)
        private.start()
        figures = await _burst(url, private.url, cluster.prefix, rooms)
        _check(figures)
        assert cluster.procs[0].poll() is None
    finally:
        cluster.stop()
        private.remove()
        proxy.close()
