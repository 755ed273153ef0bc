"""The room event log of the Redis store: one Stream per room, followed live.

A room's events go to the Stream ``P{room:R}:e`` with entry ids ``<seq>-0``
(so the stream id is the sequence number), trimmed to ``event_retention``
entries, by the same Lua script as the write that causes them
(:mod:`server.store.redis_scripts`); the script also publishes them on the
room's channel. :meth:`RedisEventLog.subscribe` takes the published events
through the process's :class:`~server.store.redis_fanout.Follower` and
re-reads the stream whenever the follower asks it to resync, so it never
loses an event.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from server.runtime.cancel import raise_if_cancelled
from server.runtime.event_seq import GAP, OLD, EventCursor

from .base import Event, EventsTooOld, decode_record, encode_record
from .redis_context import RedisContext, unavailable
from .redis_scripts import APPEND

__all__ = ["RedisEventLog", "encode_events", "stored_events"]


def encode_events(events: Sequence[Event]) -> list[bytes]:
    """The script arguments of ``events``: their JSON without ``seq`` (the
    script sets it)."""
    return [encode_record({k: v for k, v in e.items() if k != "seq"}) for e in events]


def stored_events(events: Sequence[Event], first: int) -> list[Event]:
    """``events`` as the script stored them, ``seq`` from ``first`` on."""
    return [{"seq": first + i, **{k: v for k, v in e.items() if k != "seq"}}
            for i, e in enumerate(events)]


class RedisEventLog:
    """:class:`~server.store.base.RoomEventLog` on a :class:`RedisContext`."""

    def __init__(self, ctx: RedisContext) -> None:
        self._ctx = ctx
        self._append = ctx.script(APPEND, "append_events")

    @property
    def event_retention(self) -> int:
        return self._ctx.event_retention

    async def append_events(self, room_id: str, events: Sequence[Event]) -> list[Event]:
        if not events:
            return []
        ctx = self._ctx
        h, _, e = ctx.room_keys(room_id)
        with unavailable():
            _, first = await ctx.eval(self._append, [h, e], [
                ctx.event_retention, ctx.channel(room_id), *encode_events(events)])
        return stored_events(events, first)

    async def last_seq(self, room_id: str) -> int:
        with unavailable():
            raw = await self._ctx.batch.call("HGET", self._ctx.room_hash(room_id), "seq")
        return int(raw or 0)

    async def _read_since(self, room_id: str, since: int) -> tuple[bool, list[Event]]:
        """Whether the room exists, and its retained events after ``since``
        (one pipeline: HGET seq + XRANGE).

        :raises EventsTooOld:
        """
        h, _, e = self._ctx.room_keys(room_id)
        with unavailable():
            pipe = self._ctx.redis.pipeline(transaction=False)
            pipe.hget(h, "seq")
            pipe.xrange(e, f"{since + 1}-0", "+")
            last_raw, entries = await pipe.execute()
        if last_raw is None:
            return False, []
        last = int(last_raw)
        if since >= last:
            return True, []
        events = [decode_record(fields[b"e"]) for _, fields in entries]
        if not events or events[0]["seq"] > since + 1:
            oldest = events[0]["seq"] if events else last + 1
            raise EventsTooOld(f"events after {since} are gone (oldest kept: {oldest})")
        return True, events

    async def events_since(self, room_id: str, since: int) -> list[Event]:
        return (await self._read_since(room_id, since))[1]

    async def subscribe(self, room_id: str, since: int) -> AsyncIterator[Event]:
        follower = self._ctx.follower
        channel = self._ctx.channel(room_id)
        sub = await follower.join(channel)
        seen = EventCursor(since)
        try:
            while not follower.is_closed():
                if sub.resync:
                    sub.resync = False
                    alive, events = await self._read_since(room_id, seen.last)
                    raise_if_cancelled()
                    if not alive and await self._gone(room_id):
                        return
                    for event in events:
                        seen.took(event["seq"])
                        yield event
                while sub.queue and not sub.resync:
                    for line in sub.queue.popleft().split(b"\n"):
                        event = decode_record(line)
                        place = seen.place(event["seq"])
                        if place == OLD:
                            continue
                        if place == GAP:
                            sub.resync = True  # a gap: read it from the stream
                            break
                        seen.took(event["seq"])
                        yield event
                raise_if_cancelled()  # never wait for the next event once cancelled
                await sub.wait()
        finally:
            follower.leave(channel, sub)

    async def _gone(self, room_id: str) -> bool:
        with unavailable():
            return not await self._ctx.redis.exists(self._ctx.room_hash(room_id))
