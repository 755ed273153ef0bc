"""The one private state the parts of the memory store share (``memory://``).

:class:`MemoryState` holds every room of the process — record, code, racers,
answers, event log, expiry deadline — and the service-wide indexes (short
codes, room timers, the lobby), read through :class:`MemoryClock`. The parts
of :mod:`server.store.memory` each keep a reference to the same state; none
keeps state of its own. Nothing here awaits, so a part's check-then-write is
atomic on the single-threaded event loop.

Records and events are kept as the bytes a Redis backend stores
(:func:`~server.store.base.encode_record`). Expired rooms are purged lazily
on access and by :meth:`MemoryState.sweep`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from .base import (
    Event,
    EventsTooOld,
    FormingLobby,
    LobbySeat,
    Record,
    StoreUnavailable,
    decode_record,
    encode_record,
)

__all__ = ["MemoryClock", "MemoryRoom", "MemoryState", "kept"]


def kept(data: Record) -> bytes:
    """:func:`encode_record`'s bytes, copied to their exact size: orjson
    (3.12 and later) returns bytes that keep a 4 KiB buffer, so every stored
    record — a 50-byte answer, a progress event — held ~4.1 KB (issue 8)."""
    return bytes(memoryview(encode_record(data)))


class MemoryClock:
    """The :class:`~server.store.base.ServiceClock` of one process: the wall
    clock in Unix ms, never decreasing. Subclass and override :meth:`now` to
    move time in tests; every expiry of the store reads this clock."""

    def __init__(self) -> None:
        self._last_ms = 0

    def now(self) -> int:
        """Unix time in integer ms, never less than the last reading."""
        now = max(time.time_ns() // 1_000_000, self._last_ms)
        self._last_ms = now
        return now

    async def now_ms(self) -> int:
        """:meth:`now`, as :class:`~server.store.base.ServiceClock` gives it."""
        return self.now()


@dataclass(slots=True)
class MemoryRoom:
    """Every key of one room: ``record``/``rev`` (rev 0: no record yet), the
    short ``code``, racers (``racer_id → (record bytes, rev)``), answers
    (``(racer_id, client_move_id) → bytes``), the retained events (oldest
    first) up to ``last_seq``, the ``changed`` event subscribers wait on, and
    the expiry deadline (Unix ms, ``None``: none set)."""

    record: bytes = b""
    rev: int = 0
    code: str | None = None
    racers: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    answers: dict[tuple[str, str], bytes] = field(default_factory=dict)
    events: deque[bytes] = field(default_factory=deque)
    last_seq: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    deadline_ms: int | None = None
    archive_pending: bool = False
    """The race ended and is not archived yet: no expiry applies (contract point 8)."""

    @property
    def first_seq(self) -> int:
        """The ``seq`` of the oldest retained event (``last_seq + 1``: none)."""
        return self.last_seq - len(self.events) + 1


class MemoryState:
    """Rooms by id and the indexes: ``codes`` (code → room id), ``timers``
    (room id → deadline, Unix ms), ``lobby`` (room id → until when listed),
    ``forming`` (quick-race forming-lobby pointers).

    ``event_retention``: events kept per room (at least 1).
    """

    def __init__(self, *, event_retention: int, clock: MemoryClock) -> None:
        self.event_retention = max(1, event_retention)
        self.clock = clock
        self.rooms: dict[str, MemoryRoom] = {}
        self.codes: dict[str, str] = {}
        self.timers: dict[str, int] = {}
        self.lobby: dict[str, int] = {}
        self.pending: dict[str, int] = {}
        """Room id → until when its archive claim holds (Unix ms; 0: unclaimed)."""
        self.forming: dict[str, tuple[str, int, int, int]] = {}
        """Quick-race slot → (room id, opened ms, seats handed out, until when kept)."""
        self.swept_ms = 0
        self.closed = False

    def check_open(self) -> None:
        """:raises StoreUnavailable: the store was closed."""
        if self.closed:
            raise StoreUnavailable("the memory store is closed")

    def room(self, room_id: str) -> MemoryRoom | None:
        """The live room (dropped here if past its deadline), or ``None``.

        :raises StoreUnavailable: the store was closed.
        """
        self.check_open()
        room = self.rooms.get(room_id)
        deadline = None if room is None else room.deadline_ms
        if deadline is not None and self.clock.now() >= deadline:
            self.drop(room_id)
            return None
        return room

    def room_or_new(self, room_id: str) -> MemoryRoom:
        """The live room, created empty (rev 0) if absent."""
        room = self.room(room_id)
        if room is None:
            room = self.rooms[room_id] = MemoryRoom()
        return room

    def drop(self, room_id: str) -> None:
        """Forget every key of the room now and wake its subscribers."""
        self.pending.pop(room_id, None)
        self.timers.pop(room_id, None)
        self.lobby.pop(room_id, None)
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        if room.code is not None and self.codes.get(room.code) == room_id:
            del self.codes[room.code]
        room.changed.set()

    def append(self, room: MemoryRoom, events: Sequence[Event]) -> list[Event]:
        """Give ``events`` the room's next ``seq``\\ s, keep them (trimmed to
        ``event_retention``) and wake subscribers; the events as stored."""
        stored: list[Event] = []
        for event in events:
            room.last_seq += 1
            if "seq" in event:
                data = {"seq": room.last_seq, **{k: v for k, v in event.items() if k != "seq"}}
            else:
                data = {"seq": room.last_seq, **event}
            room.events.append(kept(data))
            stored.append(data)
        while len(room.events) > self.event_retention:
            room.events.popleft()
        if stored:
            changed, room.changed = room.changed, asyncio.Event()
            changed.set()
        return stored

    @staticmethod
    def since(room: MemoryRoom, since: int) -> list[Event]:
        """The room's retained events with ``seq > since``.

        :raises EventsTooOld: one of them was trimmed.
        """
        if since >= room.last_seq:
            return []
        if since + 1 < room.first_seq:
            raise EventsTooOld(f"events after {since} are gone (oldest kept: {room.first_seq})")
        start = max(0, since + 1 - room.first_seq)
        return [decode_record(room.events[i]) for i in range(start, len(room.events))]

    def forming_lobby(self, slot: str) -> FormingLobby | None:
        """The slot's forming-lobby pointer, unless absent or expired."""
        self.check_open()
        got = self.forming.get(slot)
        if got is not None and got[3] <= self.clock.now():
            del self.forming[slot]
            return None
        return None if got is None else FormingLobby(got[0], got[1], got[2])

    def take_seat(self, slot: str, capacity: int, room_id: str | None, open_room: str | None,
                  now_ms: int, ttl_ms: int) -> LobbySeat | None:
        """``RoomIndexes.take_seat`` in one step (nothing here awaits)."""
        got = self.forming_lobby(slot)
        if got is not None and room_id in (None, got.room_id) and got.seats < capacity:
            until = self.forming[slot][3]
            self.forming[slot] = (got.room_id, got.opened_ms, got.seats + 1, until)
            return LobbySeat(got.room_id, got.opened_ms, got.seats + 1, False)
        if open_room is not None and (got is None or got.seats >= capacity):
            self.forming[slot] = (open_room, now_ms, 1, self.clock.now() + ttl_ms)
            return LobbySeat(open_room, now_ms, 1, True)
        return None

    def retire_lobby(self, slot: str, room_id: str) -> bool:
        """``RoomIndexes.retire_lobby``: drop the pointer if it names ``room_id``."""
        got = self.forming_lobby(slot)
        if got is None or got.room_id != room_id:
            return False
        del self.forming[slot]
        return True

    def sweep(self) -> int:
        """Purge every expired room now; returns how many were purged."""
        now = self.swept_ms = self.clock.now()
        gone = [rid for rid, r in self.rooms.items()
                if r.deadline_ms is not None and now >= r.deadline_ms]
        for rid in gone:
            self.drop(rid)
        return len(gone)

    def close(self) -> None:
        """Refuse every later call and wake every subscriber."""
        self.closed = True
        for room in self.rooms.values():
            room.changed.set()
