"""The room-timer sweep visits only rooms with a due timer (countdown end,
time limit), through the store's timer index; idle, waiting and finished
rooms cost nothing (it used to decode every room 4 times a second)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.race.authority import RaceAuthority, RoomOptions
from server.store.base import Versioned
from server.store.redis import RedisStore

from .helpers import ClockStore


class CountingStore(ClockStore):
    """The memory store, counting its room reads (``reads``)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        get_room = self.rooms.get_room

        async def counted(room_id: str) -> Versioned | None:
            self.reads += 1
            return await get_room(room_id)

        self.rooms.get_room = counted  # type: ignore[method-assign]


@pytest.fixture
async def store() -> AsyncIterator[CountingStore]:
    s = CountingStore()
    yield s
    await s.close()


async def test_sweep_reads_only_rooms_with_due_timers(store: CountingStore) -> None:
    race = RaceAuthority(store)
    # finished and waiting rooms: no timer, never read by the sweep
    for _ in range(20):
        room, host = await race.create_room(RoomOptions(deal=3, countdown_s=0))
        racer, token = await race.join(room.id, "ada")
        await race.start(room.id, host)
        await race.resign(room.id, racer.id, token)
        assert (await race.get_room(room.id)).state == "over"
        await race.create_room(RoomOptions(deal=4))
    timed, host = await race.create_room(RoomOptions(deal=5, countdown_s=3, time_limit_s=60))
    await race.join(timed.id, "bob")
    await race.start(timed.id, host)
    store.reads = 0
    assert await race.tick() == 0 and store.reads == 0  # nothing due yet
    store.advance(3_000)
    assert await race.tick() == 1  # the countdown ended: racing, timer moved on
    assert (await race.get_room(timed.id)).state == "racing"
    store.reads = 0
    assert await race.tick() == 0 and store.reads == 0
    store.advance(60_000)
    assert await race.tick() == 1  # the time limit: over, timer gone
    room = await race.get_room(timed.id)
    assert room.state == "over" and room.racers[0].status == "timed_out"
    store.reads = 0
    store.advance(1_000)
    assert await race.tick() == 0 and store.reads == 0
    assert await store.indexes.due_timers(await store.clock.now_ms() + 10**9) == []


async def test_spurious_and_cancelled_timers_are_cleared(store: CountingStore) -> None:
    race = RaceAuthority(store)
    room, host = await race.create_room(RoomOptions(deal=5, countdown_s=5))
    racer, token = await race.join(room.id, "ada")
    await race.start(room.id, host)
    await race.leave(room.id, racer.id, token)  # the last racer left: countdown cancelled
    assert (await race.get_room(room.id)).state == "waiting"
    # e.g. a write that lost its CAS
    await store.indexes.set_timer(room.id, await store.clock.now_ms())
    assert await race.tick() == 1
    assert await store.indexes.due_timers(await store.clock.now_ms() + 10**9) == []
    await store.indexes.set_timer("no-such-room", 1)  # a room that vanished
    assert await race.tick() == 1
    assert await store.indexes.due_timers(await store.clock.now_ms() + 10**9) == []


async def test_close_clears_the_timer(store: CountingStore) -> None:
    race = RaceAuthority(store)
    room, host = await race.create_room(RoomOptions(deal=5, countdown_s=0))
    await race.join(room.id, "ada")
    await race.start(room.id, host)
    assert await store.indexes.due_timers(await store.clock.now_ms() + 10**9) != []
    await race.close(room.id, host)
    assert await store.indexes.due_timers(await store.clock.now_ms() + 10**9) == []


@pytest.mark.redis
async def test_sweep_over_redis_starts_the_race_on_time() -> None:
    prefix = f"test:{secrets.token_hex(6)}:"
    store = RedisStore.from_url(f"redis://127.0.0.1:6379/0?prefix={prefix}")
    try:
        race = RaceAuthority(store)
        idle: list[Any] = [await race.create_room(RoomOptions(deal=2)) for _ in range(5)]
        room, host = await race.create_room(RoomOptions(deal=5, countdown_s=1))
        await race.join(room.id, "ada")
        await race.start(room.id, host)
        assert await race.tick() == 0
        await asyncio.sleep(1.05)
        assert await race.tick() == 1  # only the counting-down room, not the idle ones
        assert len(idle) == 5
        due = await store.indexes.due_timers(await store.clock.now_ms() + 10**9)
        assert [rid for rid, _ in due] == [room.id]  # moved to the time limit
        await race.close(room.id, host)
        assert await store.indexes.due_timers(await store.clock.now_ms() + 10**9) == []
    finally:
        await store.close()
        client = aioredis.Redis.from_url("redis://127.0.0.1:6379/0")
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_sweep_still_purges_expired_rooms_from_memory(store: CountingStore) -> None:
    race = RaceAuthority(store)
    room, _ = await race.create_room(RoomOptions(deal=5))
    assert room.id in store._state.rooms
    store.advance(7 * 3_600_000)  # past the waiting TTL
    await race.tick()
    assert room.id not in store._state.rooms
