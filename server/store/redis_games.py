"""Racer games of the Redis store: racer records, answers, the move read.

A racer record is the field ``r:<racer>`` of the room hash ``P{room:R}``
(``"<rev>\\n<record JSON>"``); the answers to client move ids are the hash
``P{room:R}:a`` (``<racer>\\n<client move id>`` → answer JSON).
:meth:`RedisRacerGames.save_racer` is one Lua script — racer compare-and-set,
optional room-rev check, answer, events, publish — so a move is written in one
round trip; :meth:`RedisRacerGames.get_move_state` reads room, answer and
racer through the auto-pipeline, also in one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

from .base import Event, Record, VersionConflict, Versioned, decode_record, encode_record
from .redis_context import RedisContext, read_versioned, unavailable
from .redis_events import encode_events, stored_events
from .redis_scripts import SAVE_RACER, TOUCH

__all__ = ["RedisRacerGames"]


class RedisRacerGames:
    """:class:`~server.store.base.RacerGames` on a :class:`RedisContext`."""

    def __init__(self, ctx: RedisContext) -> None:
        self._ctx = ctx
        self._save_racer = ctx.script(SAVE_RACER, "save_racer")
        self._touch = ctx.script(TOUCH, "touch")

    async def _replicated(self, room_id: str) -> None:
        """With ``WAIT`` on: return once the replicas have every write of the
        room so far — a stored answer read again (a resend) is acknowledged
        only when its write is durable, as the first answer was.

        :raises StoreUnavailable: fewer replicas in time.
        """
        if self._ctx.waits:
            with unavailable():
                await self._ctx.eval(self._touch, [self._ctx.room_hash(room_id)], [])

    async def get_racer(self, room_id: str, racer_id: str) -> Versioned | None:
        with unavailable():
            raw = await self._ctx.batch.call("HGET", self._ctx.room_hash(room_id),
                                             "r:" + racer_id)
        return None if raw is None else read_versioned(raw)

    async def get_racers(self, room_id: str) -> dict[str, Versioned]:
        with unavailable():
            fields = await self._ctx.batch.call("HGETALL", self._ctx.room_hash(room_id))
        return {name[2:].decode(): read_versioned(raw)
                for name, raw in fields.items() if name.startswith(b"r:")}

    async def save_racer(
        self,
        room_id: str,
        racer_id: str,
        data: Record,
        expected_rev: int,
        *,
        answer: tuple[str, Record] | None = None,
        events: Sequence[Event] = (),
        room_rev: int | None = None,
    ) -> tuple[int, list[Event]]:
        ctx = self._ctx
        h, a, e = ctx.room_keys(room_id)
        field, body = ("", b"") if answer is None else (
            f"{racer_id}\n{answer[0]}", encode_record(answer[1]))
        args: list[bytes | str | int] = [
            "r:" + racer_id, expected_rev, encode_record(data), field, body,
            ctx.event_retention, ctx.channel(room_id),
            "" if room_rev is None else room_rev, *encode_events(events)]
        with unavailable():
            rev, first = await ctx.eval(self._save_racer, [h, a, e], args)
        if rev == -1:
            raise VersionConflict(f"racer {racer_id}: rev {first}, expected {expected_rev}")
        if rev == -2:
            raise VersionConflict(f"racer {racer_id}: client move id {field!r} answered")
        if rev == -3:
            raise VersionConflict(f"room {room_id}: rev {first}, expected {room_rev}")
        return rev, stored_events(events, first)

    async def get_answer(self, room_id: str, racer_id: str, client_move_id: str) -> Record | None:
        with unavailable():
            raw = await self._ctx.batch.call("HGET", self._ctx.room_keys(room_id)[1],
                                             f"{racer_id}\n{client_move_id}")
        if raw is None:
            return None
        await self._replicated(room_id)
        return decode_record(raw)

    async def get_move_state(
        self, room_id: str, racer_id: str, client_move_id: str
    ) -> tuple[Versioned | None, Record | None, Versioned | None]:
        """See :meth:`RacerGames.get_move_state`: one pipeline (HMGET + HGET),
        one round trip."""
        h, a, _ = self._ctx.room_keys(room_id)
        batch = self._ctx.batch
        with unavailable():
            both = batch.call("HMGET", h, "room", "r:" + racer_id)
            one = batch.call("HGET", a, f"{racer_id}\n{client_move_id}")
            got = await asyncio.gather(both, one, return_exceptions=True)
            for item in got:
                if isinstance(item, BaseException):
                    raise item
            (room_raw, racer_raw), answer = cast(tuple[list[bytes | None], bytes | None],
                                                 tuple(got))
        if answer is not None:
            await self._replicated(room_id)
        room = None if room_raw is None else read_versioned(room_raw)
        racer = None if racer_raw is None else read_versioned(racer_raw)
        return room, None if answer is None else decode_record(answer), racer
