"""Finished races waiting for the archive, on Redis (contract point 8).

``Parchive`` is a sorted set of room ids scored by until when their archive
claim holds (Unix ms of the service clock; 0: unclaimed). The write that ends
a race adds the room to it (:data:`~server.store.redis_scripts.END_ROOM`);
:meth:`RedisPendingArchive.claim` leases the free ones in one script;
:meth:`RedisPendingArchive.archived` takes the room off and lets its keys
expire (:data:`~server.store.redis_scripts.ARCHIVED`), in one script too.
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
        with unavailable():
            ids = await ctx.eval(self._claim, [ctx.archive_key], [now, now + lease_ms, limit])
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def archived(self, room_id: str, after_ms: int) -> None:
        ctx = self._ctx
        with unavailable():
            found = await ctx.eval(self._archived, [ctx.archive_key, *ctx.room_keys(room_id)],
                                   [room_id, after_ms])
        if found[0] == 1:
            await self._rooms.expire_rest(room_id, after_ms, found[1])

    async def pending(self) -> list[str]:
        with unavailable():
            ids = await self._ctx.redis.zrange(self._ctx.archive_key, 0, -1)
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]
