"""Room records of the Redis store: the room hash, short codes, expiry.

A room record is the field ``room`` of the room hash ``P{room:R}``
(``"<rev>\\n<record JSON>"``); :meth:`RedisRoomRecords.save_room` is one Lua
script (compare-and-set + events + publish, one round trip). Short codes are
``P{code:C}`` → room id. The live rooms are the sorted set ``Prooms``, scored
by their expiry (``+inf`` until :meth:`RedisRoomRecords.expire_room` sets one).

The write that ends a race (``archive=True``) is one script on one Redis. On a
Redis Cluster it is three steps, each idempotent: the intent
(``P{ix}ending``: room → now + :data:`ENDING_HOLD_MS`), the room's script
(its own slot only), then the index writes (``P{ix}archive``, ``P{ix}rooms``,
the code's expiry) and the intent's removal. A process killed between them
leaves the intent: the archive sweep finds the room ended and finishes the
index writes (:meth:`~server.store.redis_archive.RedisPendingArchive.claim`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, cast

from .base import Event, Record, StoreUnavailable, VersionConflict, Versioned, encode_record
from .redis_context import RedisContext, read_versioned, unavailable
from .redis_events import encode_events, stored_events
from .redis_scripts import CLAIM_CODE, END_ROOM, EXPIRE_CODE, EXPIRE_ROOM, PERSIST_CODE, SAVE_ROOM

__all__ = ["ENDING_HOLD_MS", "RedisRoomRecords"]

log = logging.getLogger("server.store.redis")

ENDING_HOLD_MS = 30_000
"""Cluster mode: how long a race-end intent waits for its process before the
archive sweep takes it over (far above a command's 2 s timeout)."""

_CODE_TTL_MS = 24 * 3_600_000
"""A claimed short code vanishes after this unless its room's expiry is set."""


class RedisRoomRecords:
    """:class:`~server.store.base.RoomRecords` on a :class:`RedisContext`."""

    def __init__(self, ctx: RedisContext) -> None:
        self._ctx = ctx
        self._save_room = ctx.script(SAVE_ROOM, "save_room")
        self._end_room = ctx.script(END_ROOM, "end_room")
        self._expire = ctx.script(EXPIRE_ROOM)
        self._claim = ctx.script(CLAIM_CODE)
        self._expire_code = ctx.script(EXPIRE_CODE)
        self._persist_code = ctx.script(PERSIST_CODE)

    async def claim_code(self, code: str, room_id: str) -> bool:
        ctx = self._ctx
        with unavailable():
            won = await self._claim(keys=[ctx.code_key(code)], args=[room_id, _CODE_TTL_MS])
            if won:
                await ctx.redis.hset(ctx.room_hash(room_id), "code", code)
        return bool(won)

    async def find_room_by_code(self, code: str) -> str | None:
        with unavailable():
            raw = await self._ctx.redis.get(self._ctx.code_key(code))
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    async def get_room(self, room_id: str) -> Versioned | None:
        with unavailable():
            raw = await self._ctx.batch.call("HGET", self._ctx.room_hash(room_id), "room")
        return None if raw is None else read_versioned(raw)

    async def save_room(
        self, room_id: str, data: Record, expected_rev: int, events: Sequence[Event] = (),
        *, archive: bool = False,
    ) -> tuple[int, list[Event]]:
        ctx = self._ctx
        h, a, e = ctx.room_keys(room_id)
        args: list[bytes | str | int] = [
            expected_rev, encode_record(data), ctx.event_retention, ctx.channel(room_id)]
        code = str(data.get("code", ""))
        if archive and ctx.cluster:  # the race's end, in steps (module docstring)
            keys, script, args = [h, e, a], self._end_room, [*args, room_id]
            with unavailable():
                await ctx.redis.zadd(ctx.ending_key,
                                     {room_id: await ctx.clock.now_ms() + ENDING_HOLD_MS})
        elif archive:  # the race's end: pending for the archive in the same script
            keys = [h, e, a, ctx.archive_key, ctx.code_key(code), ctx.index_key]
            script, args = self._end_room, [*args, room_id]
        else:
            keys, script = [h, e], self._save_room
        args += encode_events(events)
        with unavailable():
            rev, first = await ctx.eval(script, keys, args)
        if rev < 0:
            raise VersionConflict(f"room {room_id}: rev {first}, expected {expected_rev}")
        if archive and ctx.cluster:
            await self.ended(room_id, code)
        if expected_rev == 0:
            with unavailable():
                await ctx.redis.zadd(ctx.index_key, {room_id: "+inf"}, nx=True)
        return rev, stored_events(events, first)

    async def ended(self, room_id: str, code: str) -> None:
        """Cluster mode: the index writes of a race that ended (idempotent);
        a failure is left to the archive sweep (module docstring)."""
        try:
            await self.finish_end(room_id, code)
        except StoreUnavailable as exc:
            log.warning("race end of room %s: index writes left to the sweep (%s)",
                        room_id, exc)

    async def finish_end(self, room_id: str, code: str) -> None:
        """Cluster mode: the index writes of an ended race, then its intent goes.

        :raises StoreUnavailable:
        """
        ctx = self._ctx
        with unavailable():
            pipe = ctx.redis.pipeline(transaction=False)
            pipe.zadd(ctx.archive_key, {room_id: 0}, nx=True)
            pipe.zadd(ctx.index_key, {room_id: "+inf"}, xx=True)
            await pipe.execute()
            if code:
                await ctx.eval(self._persist_code, [ctx.code_key(code)], [room_id])
            await ctx.redis.zrem(ctx.ending_key, room_id)

    async def room_ids(self) -> list[str]:
        return await self._ctx.live_members(self._ctx.index_key)

    async def expire_room(self, room_id: str, after_ms: int) -> None:
        ctx = self._ctx
        with unavailable():
            found = await self._expire(keys=list(ctx.room_keys(room_id)), args=[after_ms])
            if found[0] != 1:  # gone, or kept for the archive (contract point 8)
                return
            await self.expire_rest(room_id, after_ms, found[1])

    async def expire_rest(self, room_id: str, after_ms: int, code: bytes) -> None:
        """The room's entry in the live-room index and its short code follow
        its keys' expiry (``after_ms``; 0: at once)."""
        ctx = self._ctx
        with unavailable():
            deadline = await ctx.clock.now_ms() + after_ms
            pipe = ctx.redis.pipeline(transaction=False)
            if after_ms <= 0:
                pipe.zrem(ctx.index_key, room_id)
            else:
                pipe.zadd(ctx.index_key, {room_id: deadline}, xx=True)
            if code and ctx.cluster:  # a script in a cluster pipeline is not loaded
                await asyncio.gather(pipe.execute(), ctx.eval(
                    self._expire_code, [ctx.code_key(code.decode())], [room_id, after_ms]))
                return
            if code:
                await self._expire_code(keys=[ctx.code_key(code.decode())],
                                        args=[room_id, after_ms], client=cast(Any, pipe))
            await pipe.execute()
