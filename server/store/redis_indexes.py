"""The room indexes of the Redis store: the lobby, the room timers and the
quick races' forming lobbies.

Two sorted sets under the key prefix ``P``: ``Plobby`` (public waiting room →
until when the lobby lists it, Unix ms) and ``Ptimers`` (room → its next
timer deadline, Unix ms). Both live outside the rooms' hash-tag slots; a
timer is cleared with a compare-and-delete script
(:data:`~server.store.redis_scripts.CLEAR_TIMER`). A forming-lobby pointer is
one string per slot, ``Pquick:<slot>``, changed only by two one-key scripts
(:data:`~server.store.redis_scripts.TAKE_SEAT`,
:data:`~server.store.redis_scripts.RETIRE_LOBBY`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import FormingLobby, LobbySeat
from .redis_context import RedisContext, unavailable
from .redis_scripts import CLEAR_TIMER, RETIRE_LOBBY, TAKE_SEAT

__all__ = ["RedisIndexes"]


class RedisIndexes:
    """:class:`~server.store.base.RoomIndexes` on a :class:`RedisContext`."""

    def __init__(self, ctx: RedisContext) -> None:
        self._ctx = ctx
        self._clear_timer = ctx.script(CLEAR_TIMER)
        self._take_seat = ctx.script(TAKE_SEAT, "take_seat")
        self._retire_lobby = ctx.script(RETIRE_LOBBY, "retire_lobby")

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

    async def forming_lobbies(self, slots: Sequence[str]) -> dict[str, FormingLobby]:
        if not slots:
            return {}
        with unavailable():
            values = await self._ctx.redis.mget([self._ctx.quick_key(s) for s in slots])
        out = {}
        for slot, raw in zip(slots, values, strict=True):
            if raw is not None:
                text = raw.decode() if isinstance(raw, bytes) else str(raw)
                room, opened, seats = text.split("\n")
                out[slot] = FormingLobby(room, int(opened), int(seats))
        return out

    async def take_seat(self, slot: str, capacity: int, *, room_id: str | None = None,
                        open_room: str | None = None, now_ms: int = 0,
                        ttl_ms: int = 0) -> LobbySeat | None:
        with unavailable():
            got = await self._ctx.eval(self._take_seat, [self._ctx.quick_key(slot)], [
                capacity, room_id or "", open_room or "", now_ms, max(1, ttl_ms)])
        if not got:
            return None
        room, opened, seat, mine = got
        return LobbySeat(room.decode() if isinstance(room, bytes) else str(room),
                         int(opened), int(seat), bool(int(mine)))

    async def retire_lobby(self, slot: str, room_id: str) -> bool:
        with unavailable():
            got = await self._ctx.eval(self._retire_lobby, [self._ctx.quick_key(slot)],
                                       [room_id])
        return bool(got)

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
