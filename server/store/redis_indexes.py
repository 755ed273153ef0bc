"""The room indexes of the Redis store: the lobby and the room timers.

Two sorted sets under the key prefix ``P``: ``Plobby`` (public waiting room →
until when the lobby lists it, Unix ms) and ``Ptimers`` (room → its next
timer deadline, Unix ms). Both live outside the rooms' hash-tag slots; a
timer is cleared with a compare-and-delete script
(:data:`~server.store.redis_scripts.CLEAR_TIMER`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .redis_context import RedisContext, unavailable
from .redis_scripts import CLEAR_TIMER

__all__ = ["RedisIndexes"]


class RedisIndexes:
    """:class:`~server.store.base.RoomIndexes` on a :class:`RedisContext`."""

    def __init__(self, ctx: RedisContext) -> None:
        self._ctx = ctx
        self._clear_timer = ctx.script(CLEAR_TIMER)

    async def add_to_lobby(self, room_id: str, until_ms: int) -> None:
        with unavailable():
            await self._ctx.redis.zadd(self._ctx.lobby_key, {room_id: until_ms})

    async def lobby_room_ids(self) -> list[str]:
        return await self._ctx.live_members(self._ctx.lobby_key, latest_first=True)

    async def remove_from_lobby(self, room_ids: Sequence[str]) -> None:
        if room_ids:
            with unavailable():
                await self._ctx.redis.zrem(self._ctx.lobby_key, *room_ids)

    async def set_timer(self, room_id: str, at_ms: int) -> None:
        with unavailable():
            await self._ctx.redis.zadd(self._ctx.timers_key, {room_id: at_ms})

    async def clear_timer(self, room_id: str, at_ms: int | None = None) -> None:
        with unavailable():
            if at_ms is None:
                await self._ctx.redis.zrem(self._ctx.timers_key, room_id)
            else:
                await self._clear_timer(keys=[self._ctx.timers_key], args=[room_id, at_ms])

    async def due_timers(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        ctx = self._ctx
        with unavailable():
            pipe = ctx.redis.pipeline(transaction=False)
            # the sweep calls this every tick: also drop expired rooms from the
            # room index (as room_ids does) and the lobby, so a room leaves no key
            now = await ctx.clock.now_ms()
            pipe.zremrangebyscore(ctx.index_key, "-inf", now)
            pipe.zremrangebyscore(ctx.lobby_key, "-inf", now)
            pipe.zrangebyscore(ctx.timers_key, "-inf", now_ms, start=0, num=limit,
                               withscores=True)
            _, _, rows = await pipe.execute()
        return [(rid.decode(), int(at)) for rid, at in rows]

    async def room_counts(self) -> dict[str, int]:
        ctx = self._ctx
        now = await ctx.clock.now_ms()
        with unavailable():
            pipe = ctx.redis.pipeline(transaction=False)
            pipe.zcount(ctx.index_key, f"({now}", "+inf")
            pipe.zcount(ctx.lobby_key, f"({now}", "+inf")
            pipe.zcard(ctx.timers_key)
            live, lobby, running = await pipe.execute()
        return {"live": int(live), "lobby": int(lobby), "running": int(running)}
