"""The embedded store: everything in this process's memory (``memory://``).

Keeps the :mod:`server.store.base` contract for one process: the event loop
is single-threaded and no method awaits between its check and its write, so
each compare-and-set is atomic. Records and events are kept as the same
bytes a Redis backend stores (:func:`~server.store.base.encode_record`).
Expired rooms are purged lazily on access and by :meth:`MemoryStore.sweep`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from .base import (
    Event,
    EventsTooOld,
    Record,
    Store,
    StoreUnavailable,
    VersionConflict,
    Versioned,
    decode_record,
    encode_record,
)

__all__ = ["MemoryStore"]

_PURGE_EVERY_MS = 1000
"""How often :meth:`MemoryStore.due_timers` (the room-timer sweep) purges expired rooms."""


def _kept(data: Record) -> bytes:
    """:func:`encode_record`'s bytes, copied to their exact size: orjson
    (3.12 and later) returns bytes that keep a 4 KiB buffer, so every stored
    record — a 50-byte answer, a progress event — held ~4.1 KB (issue 8)."""
    return bytes(memoryview(encode_record(data)))


@dataclass(slots=True)
class _Room:
    record: bytes = b""
    rev: int = 0
    code: str | None = None
    racers: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    answers: dict[tuple[str, str], bytes] = field(default_factory=dict)
    events: deque[bytes] = field(default_factory=deque)
    last_seq: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    deadline_ms: int | None = None

    @property
    def first_seq(self) -> int:
        return self.last_seq - len(self.events) + 1


class MemoryStore(Store):
    """In-process :class:`~server.store.base.Store`.

    ``event_retention``: events kept per room (at least 1).
    """

    def __init__(self, *, event_retention: int = 1000) -> None:
        self.event_retention = max(1, event_retention)
        self._rooms: dict[str, _Room] = {}
        self._codes: dict[str, str] = {}
        self._timers: dict[str, int] = {}
        self._lobby: dict[str, int] = {}
        self._swept_ms = 0
        self._last_ms = 0
        self._closed = False

    # -- clock ---------------------------------------------------------------

    async def now_ms(self) -> int:
        return self._now()

    def _now(self) -> int:
        now = max(time.time_ns() // 1_000_000, self._last_ms)
        self._last_ms = now
        return now

    # -- internals -----------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the memory store is closed")

    def _room(self, room_id: str) -> _Room | None:
        self._check_open()
        room = self._rooms.get(room_id)
        if room is not None and room.deadline_ms is not None and self._now() >= room.deadline_ms:
            self._drop(room_id)
            return None
        return room

    def _drop(self, room_id: str) -> None:
        self._timers.pop(room_id, None)
        self._lobby.pop(room_id, None)
        room = self._rooms.pop(room_id, None)
        if room is None:
            return
        if room.code is not None and self._codes.get(room.code) == room_id:
            del self._codes[room.code]
        room.changed.set()

    def _room_or_new(self, room_id: str) -> _Room:
        room = self._room(room_id)
        if room is None:
            room = self._rooms[room_id] = _Room()
        return room

    def _append(self, room: _Room, events: Sequence[Event]) -> list[Event]:
        stored: list[Event] = []
        for event in events:
            room.last_seq += 1
            data = {"seq": room.last_seq, **{k: v for k, v in event.items() if k != "seq"}}
            room.events.append(_kept(data))
            stored.append(data)
        while len(room.events) > self.event_retention:
            room.events.popleft()
        if stored:
            changed, room.changed = room.changed, asyncio.Event()
            changed.set()
        return stored

    def sweep(self) -> int:
        """Purge every expired room now; returns how many were purged."""
        now = self._swept_ms = self._now()
        gone = [rid for rid, r in self._rooms.items()
                if r.deadline_ms is not None and now >= r.deadline_ms]
        for rid in gone:
            self._drop(rid)
        return len(gone)

    # -- rooms ---------------------------------------------------------------

    async def claim_code(self, code: str, room_id: str) -> bool:
        self._check_open()
        owner = self._codes.get(code)
        if owner is not None and self._room(owner) is not None and owner != room_id:
            return False
        self._codes[code] = room_id
        self._room_or_new(room_id).code = code
        return True

    async def find_room_by_code(self, code: str) -> str | None:
        self._check_open()
        owner = self._codes.get(code)
        if owner is None or self._room(owner) is None:
            return None
        return owner

    async def get_room(self, room_id: str) -> Versioned | None:
        room = self._room(room_id)
        if room is None or room.rev == 0:
            return None
        return Versioned(decode_record(room.record), room.rev)

    async def save_room(
        self, room_id: str, data: Record, expected_rev: int, events: Sequence[Event] = ()
    ) -> tuple[int, list[Event]]:
        room = self._room(room_id)
        rev = 0 if room is None else room.rev
        if rev != expected_rev:
            raise VersionConflict(f"room {room_id}: rev {rev}, expected {expected_rev}")
        raw = _kept(data)
        room = self._room_or_new(room_id)
        room.record, room.rev = raw, rev + 1
        return room.rev, self._append(room, events)

    async def room_ids(self) -> list[str]:
        self._check_open()
        self.sweep()
        return [rid for rid, r in self._rooms.items() if r.rev > 0]

    async def add_to_lobby(self, room_id: str, until_ms: int) -> None:
        self._check_open()
        self._lobby[room_id] = until_ms

    async def lobby_room_ids(self) -> list[str]:
        self._check_open()
        self.sweep()
        now = self._now()
        for room_id in [r for r, until in self._lobby.items() if until <= now]:
            del self._lobby[room_id]
        return sorted(self._lobby, key=lambda rid: (self._lobby[rid], rid), reverse=True)

    async def remove_from_lobby(self, room_ids: Sequence[str]) -> None:
        self._check_open()
        for room_id in room_ids:
            self._lobby.pop(room_id, None)

    async def expire_room(self, room_id: str, after_ms: int) -> None:
        room = self._room(room_id)
        if room is None:
            return
        if after_ms <= 0:
            self._drop(room_id)
        else:
            room.deadline_ms = self._now() + after_ms

    # -- room timers -----------------------------------------------------------

    async def set_timer(self, room_id: str, at_ms: int) -> None:
        self._check_open()
        self._timers[room_id] = at_ms

    async def clear_timer(self, room_id: str, at_ms: int | None = None) -> None:
        self._check_open()
        if at_ms is None or self._timers.get(room_id) == at_ms:
            self._timers.pop(room_id, None)

    async def due_timers(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        self._check_open()
        # the sweep calls this every tick: purge expired rooms now and then (a
        # scan of deadlines, no decoding), so ended rooms do not linger in memory
        if self._now() - self._swept_ms >= _PURGE_EVERY_MS:
            self.sweep()
        due = sorted((at, rid) for rid, at in self._timers.items() if at <= now_ms)
        return [(rid, at) for at, rid in due[:limit]]

    # -- racers --------------------------------------------------------------

    async def get_racer(self, room_id: str, racer_id: str) -> Versioned | None:
        room = self._room(room_id)
        if room is None or racer_id not in room.racers:
            return None
        raw, rev = room.racers[racer_id]
        return Versioned(decode_record(raw), rev)

    async def get_racers(self, room_id: str) -> dict[str, Versioned]:
        room = self._room(room_id)
        if room is None:
            return {}
        return {rid: Versioned(decode_record(raw), rev) for rid, (raw, rev) in room.racers.items()}

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
        room = self._room(room_id)
        rev = 0 if room is None or racer_id not in room.racers else room.racers[racer_id][1]
        if rev != expected_rev:
            raise VersionConflict(
                f"racer {racer_id}: rev {rev}, expected {expected_rev}")
        if room_rev is not None and (0 if room is None else room.rev) != room_rev:
            raise VersionConflict(f"room {room_id}: changed since rev {room_rev}")
        if answer is not None and room is not None and (racer_id, answer[0]) in room.answers:
            raise VersionConflict(f"racer {racer_id}: client move id {answer[0]!r} answered")
        raw = _kept(data)
        answer_raw = _kept(answer[1]) if answer is not None else None
        room = self._room_or_new(room_id)
        room.racers[racer_id] = (raw, rev + 1)
        if answer is not None and answer_raw is not None:
            room.answers[(racer_id, answer[0])] = answer_raw
        return rev + 1, self._append(room, events)

    async def get_answer(self, room_id: str, racer_id: str, client_move_id: str) -> Record | None:
        room = self._room(room_id)
        if room is None:
            return None
        raw = room.answers.get((racer_id, client_move_id))
        return None if raw is None else decode_record(raw)

    # -- events --------------------------------------------------------------

    async def append_events(self, room_id: str, events: Sequence[Event]) -> list[Event]:
        return self._append(self._room_or_new(room_id), events)

    async def last_seq(self, room_id: str) -> int:
        room = self._room(room_id)
        return 0 if room is None else room.last_seq

    def _since(self, room: _Room, since: int) -> list[Event]:
        if since >= room.last_seq:
            return []
        if since + 1 < room.first_seq:
            raise EventsTooOld(f"events after {since} are gone (oldest kept: {room.first_seq})")
        start = max(0, since + 1 - room.first_seq)
        return [decode_record(room.events[i]) for i in range(start, len(room.events))]

    async def events_since(self, room_id: str, since: int) -> list[Event]:
        room = self._room(room_id)
        if room is None:
            return []
        return self._since(room, since)

    async def subscribe(self, room_id: str, since: int) -> AsyncIterator[Event]:
        pos = since
        while not self._closed:
            room = self._room(room_id)
            if room is None:
                return
            changed = room.changed
            for event in self._since(room, pos):
                pos = event["seq"]
                yield event
            if pos >= room.last_seq:
                await changed.wait()

    # -- life cycle ----------------------------------------------------------

    async def ping(self) -> None:
        self._check_open()

    async def close(self) -> None:
        self._closed = True
        for room in self._rooms.values():
            room.changed.set()
