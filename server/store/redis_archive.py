"""Finished races waiting for the archive, on Redis (contract point 8).

``Parchive`` is a sorted set of room ids scored by until when their archive
claim holds (Unix ms of the service clock; 0: unclaimed). The write that ends
a race adds the room to it (:data:`~server.store.redis_scripts.END_ROOM`);
:meth:`RedisPendingArchive.claim` leases the free ones in one script;
:meth:`RedisPendingArchive.archived` takes the room off and lets its keys
expire (:data:`~server.store.redis_scripts.ARCHIVED`), in one script too.

On a Redis Cluster (``P{ix}archive``; no script spans two slots) each step is
split, idempotent, and :meth:`RedisPendingArchive.claim` first sweeps what a
killed process left half done: a race-end intent (``P{ix}ending``) past its
hold whose room did end is made pending (else dropped: the ending write was
refused or never ran); a claimed room that exists without its ``archive``
mark was archived already and leaves the set. So no ended race is lost, and
none is archived twice by this store (the archive's writes are idempotent
anyway).
"""

from __future__ import annotations

from .redis_context import RedisContext, unavailable
from .redis_rooms import RedisRoomRecords
from .redis_scripts import ARCHIVED, CLAIM_ARCHIVE

__all__ = ["RedisPendingArchive"]


class RedisPendingArchive:
    """:class:`~server.store.base.PendingArchive` on a :class:`RedisContext`."""

    def __init__(self, ctx: RedisContext, rooms: RedisRoomRecords) -> None:
        self._ctx = ctx
        self._rooms = rooms
        self._claim = ctx.script(CLAIM_ARCHIVE)
        self._archived = ctx.script(ARCHIVED)

    async def claim(self, limit: int, lease_ms: int) -> list[str]:
        ctx = self._ctx
        if limit <= 0:
            return []
        now = await ctx.clock.now_ms()
        if ctx.cluster:
            await self._recover(now)
        with unavailable():
            ids = await ctx.eval(self._claim, [ctx.archive_key], [now, now + lease_ms, limit])
        out = [i.decode() if isinstance(i, bytes) else str(i) for i in ids]
        if ctx.cluster and out:
            out = await self._skip_archived(out)
        return out

    async def _recover(self, now: int) -> None:
        """Cluster mode: race-end intents past their hold (module docstring)."""
        ctx = self._ctx
        with unavailable():
            raw = await ctx.redis.zrangebyscore(ctx.ending_key, "-inf", now, start=0, num=100)
            if not raw:
                return
            ids = [i.decode() if isinstance(i, bytes) else str(i) for i in raw]
            pipe = ctx.redis.pipeline(transaction=False)
            for rid in ids:
                pipe.hget(ctx.room_hash(rid), "archive")
                pipe.hget(ctx.room_hash(rid), "code")
            got = await pipe.execute()
            for rid, mark, code in zip(ids, got[::2], got[1::2], strict=True):
                if mark is not None:
                    await self._rooms.finish_end(rid, code.decode() if code else "")
            await ctx.redis.zrem(ctx.ending_key, *ids)

    async def _skip_archived(self, ids: list[str]) -> list[str]:
        """Cluster mode: the claimed ids minus those archived already."""
        ctx = self._ctx
        with unavailable():
            pipe = ctx.redis.pipeline(transaction=False)
            for rid in ids:
                pipe.exists(ctx.room_hash(rid))
                pipe.hexists(ctx.room_hash(rid), "archive")
            got = await pipe.execute()
            done = [rid for rid, there, mark in zip(ids, got[::2], got[1::2], strict=True)
                    if there and not mark]
            if done:
                await ctx.redis.zrem(ctx.archive_key, *done)
        return [rid for rid in ids if rid not in done]

    async def archived(self, room_id: str, after_ms: int) -> None:
        ctx = self._ctx
        keys = list(ctx.room_keys(room_id))
        with unavailable():
            found = await ctx.eval(self._archived, keys if ctx.cluster else [*keys,
                                   ctx.archive_key], [room_id, after_ms])
            if ctx.cluster:  # after the room's script: a kill between is swept (claim)
                await ctx.redis.zrem(ctx.archive_key, room_id)
        if found[0] == 1:
            await self._rooms.expire_rest(room_id, after_ms, found[1])

    async def pending(self) -> list[str]:
        with unavailable():
            ids = await self._ctx.redis.zrange(self._ctx.archive_key, 0, -1)
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]
