"""The Redis store on a real local Redis Cluster (3 masters, 3 replicas): the
whole store contract, plus the cluster's own points — the mode is detected
from the URL alone, every key of a room shares one slot, cross-room keys share
``{ix}``, room events go through sharded pub/sub, a race end whose index
writes were lost is recovered by the archive sweep."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from infra.redis_cluster import LocalRedisCluster
from server.records.leaderboard_redis import RedisLeaderboardStore
from server.store import open_store
from server.store.base import StoreUnavailable, VersionConflict
from server.store.redis import RedisStore

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


class ClusterTwin:
    """The ``store`` fixture of the contract classes: a store on the session's
    Redis Cluster, under its own prefix, found to be a cluster by itself."""

    @pytest.fixture
    async def store(self, redis_cluster: LocalRedisCluster) -> AsyncIterator[RedisStore]:
        prefix = f"t{secrets.token_hex(4)}:"
        store = RedisStore.from_url(f"{redis_cluster.url}?prefix={prefix}&retention={RETENTION}")
        assert store.cluster and store.events.event_retention == RETENTION
        yield store
        await store.close()


class TestClusterRoomRecords(ClusterTwin, RoomRecordsContract):
    pass


class TestClusterRacerGames(ClusterTwin, RacerGamesContract):
    pass


class TestClusterEventLog(ClusterTwin, RoomEventLogContract):
    pass


class TestClusterIndexes(ClusterTwin, RoomIndexesContract):
    pass


class TestClusterClock(ClusterTwin, ServiceClockContract):
    pass


class TestClusterAtomicity(ClusterTwin, AtomicityContract):
    pass


class TestClusterPendingArchive(ClusterTwin, PendingArchiveContract):
    pass


async def _all_keys(cluster: LocalRedisCluster, prefix: str) -> list[str]:
    client = RedisCluster.from_url(cluster.url)
    try:
        return sorted([k.decode() async for k in client.scan_iter(match=f"{prefix}*")])
    finally:
        await client.aclose()


async def test_the_url_alone_finds_the_cluster_and_keys_share_slots(
        redis_cluster: LocalRedisCluster) -> None:
    prefix = f"k{secrets.token_hex(4)}:"
    store = open_store(redis_cluster.url, default_prefix=prefix)
    assert isinstance(store, RedisStore) and store.cluster
    try:
        await store.rooms.save_room("r1", {"code": "ABCD"}, 0, [{"type": "created"}])
        await store.rooms.claim_code("ABCD", "r1")
        await store.racers.save_racer("r1", "x", {}, 0, answer=("m", {}), events=[{"type": "p"}])
        await store.indexes.add_to_lobby("r1", 2**40)
        await store.indexes.set_timer("r1", 2**40)
        await store.rooms.save_room("r1", {"code": "ABCD"}, 1, [{"type": "over"}], archive=True)
        keys = await _all_keys(redis_cluster, prefix)
        assert [k for k in keys if "{room:r1}" in k] == [
            f"{prefix}{{room:r1}}", f"{prefix}{{room:r1}}:a", f"{prefix}{{room:r1}}:e"]
        assert {k for k in keys if "{room:" not in k} == {
            f"{prefix}{{code:ABCD}}", f"{prefix}{{ix}}rooms", f"{prefix}{{ix}}lobby",
            f"{prefix}{{ix}}timers", f"{prefix}{{ix}}archive"}
        assert await store.archive.pending() == ["r1"]
    finally:
        await store.close()


async def test_events_fan_out_by_sharded_pubsub_across_processes(
        redis_cluster: LocalRedisCluster) -> None:
    prefix = f"f{secrets.token_hex(4)}:"
    a = RedisStore.from_url(redis_cluster.url, prefix=prefix)
    b = RedisStore.from_url(redis_cluster.url, prefix=prefix)
    rooms = [f"room{i}" for i in range(12)]  # spread over the three masters
    try:
        for rid in rooms:
            await a.rooms.save_room(rid, {}, 0, [{"type": "created"}])

        async def follow(rid: str) -> list[str]:
            seen: list[str] = []
            async with contextlib.aclosing(a.events.subscribe(rid, 0)) as it:
                async for event in it:
                    seen.append(event["type"])
                    if event["type"] == "created":
                        await b.events.append_events(rid, [{"type": "x"}])
                    elif event["type"] == "x":
                        return seen
            return seen

        async with asyncio.timeout(10):
            got = await asyncio.gather(*(follow(rid) for rid in rooms))
        assert got == [["created", "x"]] * len(rooms)
        assert a.follower.channels == 0
        # followed by SSUBSCRIBE on the master owning the room's slot, not SUBSCRIBE
        channel = f"{prefix}{{room:{rooms[0]}}}:ch"
        sub = await a.follower.join(channel)
        owner = aioredis.Redis(port=redis_cluster.master_of_slot(key_slot(channel.encode())),
                               password=redis_cluster.password)
        try:
            assert await owner.execute_command("PUBSUB", "SHARDNUMSUB", channel) == [
                channel.encode(), 1]
            assert await owner.execute_command("PUBSUB", "NUMSUB", channel) == [
                channel.encode(), 0]
        finally:
            a.follower.leave(channel, sub)
            await owner.aclose()
    finally:
        await a.close()
        await b.close()


async def test_a_race_end_whose_index_writes_were_lost_is_archived(
        redis_cluster: LocalRedisCluster) -> None:
    """A process killed between the room's ending script and the index writes
    (simulated: the writes are skipped) leaves an intent; the archive sweep
    makes the room pending once the intent's hold has passed."""
    prefix = f"e{secrets.token_hex(4)}:"
    store = RedisStore.from_url(redis_cluster.url, prefix=prefix)
    try:
        async def lost(room_id: str, code: str) -> None:
            return None

        store.rooms.ended = lost  # type: ignore[method-assign]
        await store.rooms.save_room("gone", {"code": "LOST"}, 0, archive=True)
        assert await store.archive.pending() == []
        ctx = store._ctx
        await ctx.redis.zadd(ctx.ending_key, {"gone": 1})  # the hold has passed
        # an intent whose ending write never ran is dropped, not archived
        await store.rooms.save_room("alive", {}, 0)
        await ctx.redis.zadd(ctx.ending_key, {"alive": 1})
        assert await store.archive.claim(10, 60_000) == ["gone"]
        assert await ctx.redis.zcard(ctx.ending_key) == 0
        await store.archive.archived("gone", 0)
        assert await store.archive.pending() == []
    finally:
        await store.close()


async def test_leaderboards_on_the_cluster_under_concurrency(
        redis_cluster: LocalRedisCluster) -> None:
    prefix = f"l{secrets.token_hex(4)}:"
    boards = RedisLeaderboardStore.from_url(redis_cluster.url, prefix=prefix)
    try:
        async with asyncio.timeout(20):
            await asyncio.gather(*(
                boards.submit(f"b{i % 7}", f"m{i}", 1000 - i, {"i": i}) for i in range(300)))
            tops = await asyncio.gather(*(boards.top(f"b{k}", 5) for k in range(7)))
        assert all(len(top) == 5 for top in tops)
        assert sum([await boards.size(f"b{k}") for k in range(7)]) == 300
    finally:
        await boards.close()


async def test_wait_acknowledges_only_what_enough_replicas_have(
        redis_cluster: LocalRedisCluster) -> None:
    """``WAIT 1`` (each master has one replica): writes are acknowledged.
    ``WAIT 2``: fewer replicas than asked — the write is refused
    ``StoreUnavailable`` though the primary applied it, and so is its stored
    answer read again (a resend is acknowledged only as durable as the first
    answer would have been); with ``WAIT 1`` the resend finds its answer
    (applied once)."""
    prefix = f"w{secrets.token_hex(4)}:"
    one = RedisStore.from_url(redis_cluster.url, prefix=prefix, wait_replicas=1,
                              wait_timeout_ms=1000)
    two = RedisStore.from_url(redis_cluster.url, prefix=prefix, wait_replicas=2,
                              wait_timeout_ms=50)
    try:
        await one.rooms.save_room("w", {}, 0)
        rev, _ = await one.racers.save_racer("w", "x", {"n": 1}, 0, answer=("m1", {"v": 1}))
        assert rev == 1
        with pytest.raises(StoreUnavailable):
            await two.racers.save_racer("w", "x", {"n": 2}, 1, answer=("m2", {"v": 2}))
        with pytest.raises(StoreUnavailable):
            await two.racers.get_answer("w", "x", "m2")
        assert await one.racers.get_answer("w", "x", "m2") == {"v": 2}
        assert (await one.racers.get_move_state("w", "x", "m2"))[1] == {"v": 2}
        with pytest.raises(VersionConflict, match="answered"):
            await one.racers.save_racer("w", "x", {"n": 2}, 2, answer=("m2", {"v": 2}))
    finally:
        await one.close()
        await two.close()


async def test_a_burst_of_first_commands_is_served(redis_cluster: LocalRedisCluster) -> None:
    """The first commands of a new client arriving all at once (a process
    starting under load) are all served: redis-py 8.1 routed them with no slot
    map and failed some with AttributeError (``ClusterClient``)."""
    prefix = f"b{secrets.token_hex(4)}:"
    for _ in range(5):
        boards = RedisLeaderboardStore.from_url(redis_cluster.url, prefix=prefix)
        try:
            got = await asyncio.gather(*(boards.size(f"b{i}") for i in range(200)),
                                       return_exceptions=True)
        finally:
            await boards.close()
        assert got == [0] * 200

