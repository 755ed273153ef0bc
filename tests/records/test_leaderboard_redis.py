"""The Redis leaderboard keeps the contract, against the real Redis."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.errors import StoreUnavailable
from server.records.leaderboard_redis import RedisLeaderboardStore
from server.records.leaderboard_store import encode_score

from .leaderboard_contract import LeaderboardContract

URL = "redis://127.0.0.1:6379/0"
pytestmark = pytest.mark.redis


class TestRedisLeaderboard(LeaderboardContract):
    @pytest.fixture
    async def lb(self) -> AsyncIterator[RedisLeaderboardStore]:
        prefix = f"test:{secrets.token_hex(6)}:"
        store = RedisLeaderboardStore.from_url(URL, prefix=prefix)
        yield store
        await store.close()
        client = aioredis.Redis.from_url(URL)
        keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_keys_are_sorted_sets_under_the_prefix() -> None:
    prefix = f"test:{secrets.token_hex(6)}:"
    store = RedisLeaderboardStore.from_url(URL, prefix=prefix)
    client = aioredis.Redis.from_url(URL)
    try:
        await store.submit("all:belle-lucie", "ada", encode_score(52, 1, 2), {"x": 1})
        key = f"{prefix}{{lb:all:belle-lucie}}:z"
        assert await client.type(key) == b"zset"
        assert await client.zscore(key, "ada") == encode_score(52, 1, 2)
    finally:
        await store.close()
        keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
        await client.delete(*keys)
        await client.aclose()


async def test_unreachable_redis_is_store_unavailable() -> None:
    store = RedisLeaderboardStore.from_url("redis://127.0.0.1:1/0")
    try:
        with pytest.raises(StoreUnavailable):
            await store.submit("b", "ada", 1, {})
        with pytest.raises(StoreUnavailable):
            await store.top("b", 3)
    finally:
        await store.close()


async def test_url_options_like_the_room_store() -> None:
    prefix = f"test:{secrets.token_hex(6)}:"
    store = RedisLeaderboardStore.from_url(f"{URL}?prefix={prefix}&retention=50")
    client = aioredis.Redis.from_url(URL)
    try:
        await store.submit("all:x", "ada", 5, {})
        assert await client.exists(f"{prefix}{{lb:all:x}}:z") == 1
    finally:
        await store.close()
        keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
        await client.delete(*keys)
        await client.aclose()
