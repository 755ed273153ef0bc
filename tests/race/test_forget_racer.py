"""A forgotten player's racer in its live room (``RaceAuthority.forget_racer``;
docs/players.md, "Forgetting a player"): renamed and unlinked at once, on the
memory store and on real Redis."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.race import RaceAuthority, RoomOptions
from server.store.base import LiveStore
from server.store.memory import MemoryStore
from server.store.redis import RedisStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[LiveStore]:
    if request.param == "memory":
        memory = MemoryStore()
        yield memory
        await memory.close()
        return
    prefix = f"test:{secrets.token_hex(6)}:"
    redis_store = RedisStore.from_url(f"redis://127.0.0.1:6379/0?prefix={prefix}")
    yield redis_store
    await redis_store.close()
    client = aioredis.Redis.from_url("redis://127.0.0.1:6379/0")
    keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
    if keys:
        await client.delete(*keys)
    await client.aclose()


async def test_a_forgotten_racer_is_renamed_in_its_live_room(store: LiveStore) -> None:
    race = RaceAuthority(store)
    room, host = await race.create_room(RoomOptions(deal=3, countdown_s=0))
    ada, ada_token = await race.join(room.code, "Ada", "pAda000000000")
    bob, bob_token = await race.join(room.code, "Bob")
    await race.start(room.code, host)
    for rid, token in ((ada.id, ada_token), (bob.id, bob_token)):
        await race.resign(room.code, rid, token)
    await race.forget_racer(room.id, ada.id, "anonymous abc")
    view = await race.get_room(room.id)
    names = {r.id: (r.name, r.player) for r in view.racers}
    assert names == {ada.id: ("anonymous abc", None), bob.id: ("Bob", None)}
    standings = await race.standings(room.code)
    assert [s.name for s in standings.standings if s.racer == ada.id] == ["anonymous abc"]
    await race.forget_racer(room.id, ada.id, "anonymous abc")  # again: nothing changes
    await race.forget_racer("NOROOM", ada.id, "x")  # an expired room: nothing to do
