"""The Redis twin of every live-store part keeps its contract, against the real
Redis; plus the Redis store's own faults (unreachable Redis, killed
connections) and key layout."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.store import open_store
from server.store.base import StoreUnavailable
from server.store.redis import RedisStore
from server.store.redis_batch import Batcher

from .contract import (
    RETENTION,
    AtomicityContract,
    PendingArchiveContract,
    RacerGamesContract,
    RoomEventLogContract,
    RoomIndexesContract,
    RoomRecordsContract,
    ServiceClockContract,
)

URL = "redis://127.0.0.1:6379/0"
pytestmark = pytest.mark.redis


async def _drop_prefix(prefix: str) -> None:
    client = aioredis.Redis.from_url(URL)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@pytest.fixture
async def prefix() -> AsyncIterator[str]:
    value = f"test:{secrets.token_hex(6)}:"
    yield value
    await _drop_prefix(value)


class RedisTwin:
    """The ``store`` fixture of the contract classes: a Redis store on its own prefix."""

    @pytest.fixture
    async def store(self, prefix: str) -> AsyncIterator[RedisStore]:
        store = RedisStore.from_url(f"{URL}?prefix={prefix}&retention={RETENTION}")
        assert store.events.event_retention == RETENTION and store.prefix == prefix
        yield store
        await store.close()


class TestRedisRoomRecords(RedisTwin, RoomRecordsContract):
    pass


class TestRedisRacerGames(RedisTwin, RacerGamesContract):
    pass


class TestRedisEventLog(RedisTwin, RoomEventLogContract):
    pass


class TestRedisIndexes(RedisTwin, RoomIndexesContract):
    pass


class TestRedisClock(RedisTwin, ServiceClockContract):
    pass


class TestRedisAtomicity(RedisTwin, AtomicityContract):
    pass


class TestRedisPendingArchive(RedisTwin, PendingArchiveContract):
    pass


def test_open_store_by_url() -> None:
    store = open_store("redis://127.0.0.1:6379/0?prefix=x:&retention=7")
    assert isinstance(store, RedisStore)
    assert store.prefix == "x:" and store.events.event_retention == 7
    with pytest.raises(ValueError, match="retention"):
        open_store("redis://127.0.0.1:6379/0?retention=lots")


async def test_keys_share_the_room_hash_tag_and_expire(prefix: str) -> None:
    store = RedisStore.from_url(URL, prefix=prefix)
    client = aioredis.Redis.from_url(URL)
    try:
        await store.rooms.save_room("r1", {"code": "ABCD"}, 0, [{"type": "created"}])
        await store.rooms.claim_code("ABCD", "r1")
        await store.rooms.expire_room("r1", 60_000)
        # written after expire_room: keeps the deadline
        await store.racers.save_racer("r1", "x", {}, 0, answer=("m", {}), events=[{"type": "p"}])
        keys = sorted([k.decode() async for k in client.scan_iter(match=f"{prefix}*")])
        room_keys = [k for k in keys if "{room:r1}" in k]
        assert room_keys == [f"{prefix}{{room:r1}}", f"{prefix}{{room:r1}}:a",
                             f"{prefix}{{room:r1}}:e"]
        assert set(keys) - set(room_keys) == {f"{prefix}{{code:ABCD}}", f"{prefix}rooms"}
        for key in [*room_keys, f"{prefix}{{code:ABCD}}"]:
            assert 0 < await client.pttl(key) <= 60_000, key
        assert await client.type(f"{prefix}{{room:r1}}:e") == b"stream"
        assert await client.xrange(f"{prefix}{{room:r1}}:e") == [
            (b"1-0", {b"e": b'{"seq":1,"type":"created"}'}),
            (b"2-0", {b"e": b'{"seq":2,"type":"p"}'})]
        await store.rooms.expire_room("r1", 0)
        assert await store.rooms.room_ids() == []
        assert [k async for k in client.scan_iter(match=f"{prefix}*")] == []
    finally:
        await store.close()
        await client.aclose()


async def test_processes_share_one_clock(prefix: str) -> None:
    a = RedisStore.from_url(URL, prefix=prefix)
    b = RedisStore.from_url(URL, prefix=prefix)
    try:
        ta, tb = await a.clock.now_ms(), await b.clock.now_ms()
        assert abs(ta - tb) < 50
    finally:
        await a.close()
        await b.close()


async def test_subscribe_sees_other_processes_and_ends_when_room_vanishes(prefix: str) -> None:
    a = RedisStore.from_url(URL, prefix=prefix)
    b = RedisStore.from_url(URL, prefix=prefix)
    a.follower._check_s = 0.1
    try:
        await a.rooms.save_room("v", {}, 0, [{"type": "created"}])
        seen = []
        async with asyncio.timeout(5), contextlib.aclosing(a.events.subscribe("v", 0)) as it:
            async for event in it:
                seen.append(event["type"])
                if event["type"] == "created":
                    await b.events.append_events("v", [{"type": "x"}])
                elif event["type"] == "x":
                    await b.rooms.expire_room("v", 0)
        assert seen == ["created", "x"]
    finally:
        await a.close()
        await b.close()


async def test_unreachable_redis_is_store_unavailable_fast() -> None:
    store = RedisStore.from_url("redis://127.0.0.1:1/0")
    try:
        async with asyncio.timeout(10):
            for call in (store.ping(), store.rooms.get_room("x"), store.clock.now_ms(),
                         store.rooms.save_room("x", {}, 0)):
                with pytest.raises(StoreUnavailable, match="retry"):
                    await call
            with pytest.raises(StoreUnavailable):
                async with contextlib.aclosing(store.events.subscribe("x", 0)) as it:
                    await it.__anext__()
    finally:
        await store.close()


async def test_killed_connections_recover_and_subscriptions_resume(prefix: str) -> None:
    store = RedisStore.from_url(URL, prefix=prefix)
    writer = RedisStore.from_url(URL, prefix=prefix, client_name="test-writer")
    admin = aioredis.Redis.from_url(URL)
    try:
        await store.rooms.save_room("k", {}, 0, [{"type": "e", "i": 0}])
        seen: list[int] = []
        async with asyncio.timeout(15), contextlib.aclosing(store.events.subscribe("k", 0)) as it:
            async for event in it:
                seen.append(event["i"])
                if event["i"] == 0:
                    killed = 0
                    for c in await admin.client_list():
                        if c.get("name") == f"lucie-server:{prefix}":
                            await admin.client_kill_filter(_id=c["id"])
                            killed += 1
                    assert killed >= 2  # the command and the pub/sub connection
                    # published while the follower is away: recovered from the stream
                    await writer.events.append_events("k", [{"type": "e", "i": 1}])
                if event["i"] == 1:
                    await store.events.append_events("k", [{"type": "e", "i": 2}])
                if event["i"] == 2:
                    break
        assert seen == [0, 1, 2]
        assert store.follower.reconnects >= 1
        assert (await store.rooms.get_room("k")) is not None
    finally:
        await store.close()
        await writer.close()
        await admin.aclose()


async def test_batcher_sends_one_pipeline_per_loop_turn(prefix: str) -> None:
    client = aioredis.Redis.from_url(URL)
    batcher = Batcher(client)
    try:
        await client.set(prefix + "s", "v")
        calls = [batcher.call("SET", f"{prefix}k{i}", i) for i in range(20)]
        calls.append(batcher.call("HGET", prefix + "s", "f"))  # WRONGTYPE: fails alone
        calls.append(batcher.call("GET", prefix + "k3"))
        got = await asyncio.gather(*calls, return_exceptions=True)
        assert batcher.batches == 1
        assert got[:20] == [True] * 20
        assert isinstance(got[20], ResponseError) and "WRONGTYPE" in str(got[20])
        assert got[21] == b"3"
        assert await batcher.call("GET", prefix + "k19") == b"19"
        assert batcher.batches == 2
    finally:
        await batcher.aclose()
        await client.aclose()


async def test_batcher_connection_failure_fails_every_caller() -> None:
    client = aioredis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=1)
    batcher = Batcher(client)
    try:
        got = await asyncio.gather(*(batcher.call("GET", f"k{i}") for i in range(3)),
                                   return_exceptions=True)
        assert all(isinstance(g, RedisConnectionError) for g in got)
    finally:
        await batcher.aclose()
        await client.aclose()


async def test_room_without_code_leaves_the_index_with_its_keys(prefix: str) -> None:
    store = RedisStore.from_url(URL, prefix=prefix)
    client = aioredis.Redis.from_url(URL)
    try:
        await store.rooms.save_room("nocode", {}, 0, [{"type": "created"}])
        assert await store.rooms.room_ids() == ["nocode"]
        await store.rooms.expire_room("nocode", 50)
        await asyncio.sleep(0.2)
        assert await store.rooms.room_ids() == []
        assert [k async for k in client.scan_iter(match=f"{prefix}*")] == []
    finally:
        await store.close()
        await client.aclose()


async def test_follower_lets_other_tasks_run_through_a_backlog(prefix: str) -> None:
    """A burst of published messages is read without suspending; the follower
    must still yield every few messages, or the burst stalls every socket."""
    store = RedisStore.from_url(f"{URL}?prefix={prefix}")
    publisher = aioredis.Redis.from_url(URL)
    turns = 0
    seen: list[int] = []  # the probe's turn count at each message read

    async def probe() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    channel = f"{prefix}burst"
    try:
        await store.follower.join(channel)
        dispatch = store.follower._dispatch

        def counted(msg: dict[str, object]) -> None:
            if msg.get("type") == "message":
                seen.append(turns)
            dispatch(msg)

        store.follower._dispatch = counted  # type: ignore[method-assign]
        task = asyncio.create_task(probe())
        pipe = publisher.pipeline(transaction=False)
        for i in range(400):
            pipe.publish(channel, b"x" * 64 + str(i).encode())
        await pipe.execute()
        async with asyncio.timeout(5):
            while len(seen) < 400:
                await asyncio.sleep(0.01)
        task.cancel()
        longest = run = 1
        for before, after in itertools.pairwise(seen):
            run = run + 1 if after == before else 1
            longest = max(longest, run)
        assert longest <= 40, f"{longest} messages in a row without a yield"
    finally:
        await publisher.aclose()
        await store.close()


async def _published_reaches(store: RedisStore, channel: str, sub: object) -> None:
    publisher = aioredis.Redis.from_url(URL)
    try:
        async with asyncio.timeout(2):
            while True:
                await publisher.publish(channel, b"ping")
                await asyncio.sleep(0.05)
                if sub.queue:  # type: ignore[attr-defined]
                    return
    finally:
        await publisher.aclose()


async def test_rejoining_a_channel_just_left_is_confirmed_at_once(prefix: str) -> None:
    """A room's last socket closes and a new one opens at once: the channel,
    still subscribed, must not leave the new subscriber waiting (it used to
    wait the whole join timeout, 3 s, then fail)."""
    store = RedisStore.from_url(f"{URL}?prefix={prefix}")
    channel = f"{prefix}again"
    try:
        first = await store.follower.join(channel)
        for _ in range(5):
            store.follower.leave(channel, first)
            async with asyncio.timeout(1):
                first = await store.follower.join(channel)
            await _published_reaches(store, channel, first)
            first.queue.clear()
            await asyncio.sleep(0.3)  # and once more after the reader synced
    finally:
        await store.close()


async def test_a_cancelled_join_leaves_nothing_behind(prefix: str) -> None:
    """The hub cancels a room feed waiting for its subscription when the
    room's last listener leaves; the half-made subscription must go with it,
    or the channel is followed (and stuck) forever."""
    store = RedisStore.from_url(f"{URL}?prefix={prefix}")
    channel = f"{prefix}cancel"
    try:
        waiting = asyncio.create_task(store.follower.join(channel))
        await asyncio.sleep(0)  # inside join, before Redis confirmed
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert store.follower.channels == 0
        async with asyncio.timeout(1):
            sub = await store.follower.join(channel)
        await _published_reaches(store, channel, sub)
        store.follower.leave(channel, sub)
        assert store.follower.channels == 0
    finally:
        await store.close()
