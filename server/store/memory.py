"""The embedded store: everything in this process's memory (``memory://``).

Keeps the :mod:`server.store.base` contract for one process. Each part —
:class:`MemoryRoomRecords`, :class:`MemoryRacerGames`, :class:`MemoryEventLog`,
:class:`MemoryIndexes`, :class:`MemoryPendingArchive`,
:class:`~server.store.memory_state.MemoryClock` — works on the one
:class:`~server.store.memory_state.MemoryState` of its :class:`MemoryStore`.
The event loop is single-threaded and no method awaits between its check and
its write, so each compare-and-set (record + answer + events) is atomic.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from server.runtime.event_seq import EventCursor

from .base import Event, FormingLobby, LobbySeat, Record, VersionConflict, Versioned, decode_record
from .memory_state import MemoryClock, MemoryState, kept

__all__ = [
    "MemoryClock",
    "MemoryEventLog",
    "MemoryIndexes",
    "MemoryPendingArchive",
    "MemoryRacerGames",
    "MemoryRoomRecords",
    "MemoryStore",
]

_PURGE_EVERY_MS = 1000
"""How often :meth:`MemoryIndexes.due_timers` (the room-timer sweep) purges expired rooms."""


class MemoryRoomRecords:
    """:class:`~server.store.base.RoomRecords` on a :class:`MemoryState`."""

    def __init__(self, state: MemoryState) -> None:
        self._state = state

    async def claim_code(self, code: str, room_id: str) -> bool:
        st = self._state
        st.check_open()
        owner = st.codes.get(code)
        if owner is not None and st.room(owner) is not None and owner != room_id:
            return False
        st.codes[code] = room_id
        st.room_or_new(room_id).code = code
        return True

    async def find_room_by_code(self, code: str) -> str | None:
        st = self._state
        st.check_open()
        owner = st.codes.get(code)
        if owner is None or st.room(owner) is None:
            return None
        return owner

    async def get_room(self, room_id: str) -> Versioned | None:
        room = self._state.room(room_id)
        if room is None or room.rev == 0:
            return None
        return Versioned(decode_record(room.record), room.rev)

    async def save_room(
        self, room_id: str, data: Record, expected_rev: int, events: Sequence[Event] = (),
        *, archive: bool = False,
    ) -> tuple[int, list[Event]]:
        st = self._state
        room = st.room(room_id)
        rev = 0 if room is None else room.rev
        if rev != expected_rev:
            raise VersionConflict(f"room {room_id}: rev {rev}, expected {expected_rev}")
        raw = kept(data)
        room = st.room_or_new(room_id)
        room.record, room.rev = raw, rev + 1
        if archive:  # the race's end: pending in the same critical section
            room.archive_pending, room.deadline_ms = True, None
            st.pending.setdefault(room_id, 0)
        return room.rev, st.append(room, events)

    async def room_ids(self) -> list[str]:
        st = self._state
        st.check_open()
        st.sweep()
        return [rid for rid, r in st.rooms.items() if r.rev > 0]

    async def expire_room(self, room_id: str, after_ms: int) -> None:
        st = self._state
        room = st.room(room_id)
        if room is None:
            return
        if after_ms <= 0:
            st.drop(room_id)
        elif not room.archive_pending:  # kept until archived (contract point 8)
            room.deadline_ms = st.clock.now() + after_ms


class MemoryPendingArchive:
    """:class:`~server.store.base.PendingArchive` on a :class:`MemoryState`."""

    def __init__(self, state: MemoryState) -> None:
        self._state = state

    async def claim(self, limit: int, lease_ms: int) -> list[str]:
        st = self._state
        st.check_open()
        now = st.clock.now()
        free = sorted((until, rid) for rid, until in st.pending.items() if until <= now)
        got = [rid for _, rid in free[:max(0, limit)]]
        for rid in got:
            st.pending[rid] = now + lease_ms
        return got

    async def archived(self, room_id: str, after_ms: int) -> None:
        st = self._state
        st.check_open()
        st.pending.pop(room_id, None)
        room = st.rooms.get(room_id)
        if room is not None:
            room.archive_pending = False
            await MemoryRoomRecords(st).expire_room(room_id, after_ms)

    async def pending(self) -> list[str]:
        self._state.check_open()
        return list(self._state.pending)


class MemoryRacerGames:
    """:class:`~server.store.base.RacerGames` on a :class:`MemoryState`."""

    def __init__(self, state: MemoryState) -> None:
        self._state = state

    async def get_racer(self, room_id: str, racer_id: str) -> Versioned | None:
        room = self._state.room(room_id)
        if room is None or racer_id not in room.racers:
            return None
        raw, rev = room.racers[racer_id]
        return Versioned(decode_record(raw), rev)

    async def get_racers(self, room_id: str) -> dict[str, Versioned]:
        room = self._state.room(room_id)
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
        st = self._state
        room = st.room(room_id)
        rev = 0 if room is None or racer_id not in room.racers else room.racers[racer_id][1]
        if rev != expected_rev:
            raise VersionConflict(
                f"racer {racer_id}: rev {rev}, expected {expected_rev}")
        if room_rev is not None and (0 if room is None else room.rev) != room_rev:
            raise VersionConflict(f"room {room_id}: changed since rev {room_rev}")
        if answer is not None and room is not None and (racer_id, answer[0]) in room.answers:
            raise VersionConflict(f"racer {racer_id}: client move id {answer[0]!r} answered")
        raw = kept(data)
        answer_raw = kept(answer[1]) if answer is not None else None
        if room is None:
            room = st.room_or_new(room_id)
        room.racers[racer_id] = (raw, rev + 1)
        if answer is not None and answer_raw is not None:
            room.answers[(racer_id, answer[0])] = answer_raw
        return rev + 1, st.append(room, events)

    async def get_answer(self, room_id: str, racer_id: str, client_move_id: str) -> Record | None:
        room = self._state.room(room_id)
        if room is None:
            return None
        raw = room.answers.get((racer_id, client_move_id))
        return None if raw is None else decode_record(raw)

    async def get_move_state(
        self, room_id: str, racer_id: str, client_move_id: str
    ) -> tuple[Versioned | None, Record | None, Versioned | None]:
        room = self._state.room(room_id)
        if room is None:
            return None, None, None
        record = None if room.rev == 0 else Versioned(decode_record(room.record), room.rev)
        answer = room.answers.get((racer_id, client_move_id))
        racer = room.racers.get(racer_id)
        return (record, None if answer is None else decode_record(answer),
                None if racer is None else Versioned(decode_record(racer[0]), racer[1]))


class MemoryEventLog:
    """:class:`~server.store.base.RoomEventLog` on a :class:`MemoryState`."""

    def __init__(self, state: MemoryState) -> None:
        self._state = state

    @property
    def event_retention(self) -> int:
        return self._state.event_retention

    async def append_events(self, room_id: str, events: Sequence[Event]) -> list[Event]:
        st = self._state
        return st.append(st.room_or_new(room_id), events)

    async def last_seq(self, room_id: str) -> int:
        room = self._state.room(room_id)
        return 0 if room is None else room.last_seq

    async def events_since(self, room_id: str, since: int) -> list[Event]:
        room = self._state.room(room_id)
        if room is None:
            return []
        return self._state.since(room, since)

    async def subscribe(self, room_id: str, since: int) -> AsyncIterator[Event]:
        st = self._state
        seen = EventCursor(since)
        while not st.closed:
            room = st.room(room_id)
            if room is None:
                return
            changed = room.changed
            for event in st.since(room, seen.last):  # the log itself: no gap, no repeat
                seen.took(event["seq"])
                yield event
            if seen.last >= room.last_seq:
                await changed.wait()


class MemoryIndexes:
    """:class:`~server.store.base.RoomIndexes` on a :class:`MemoryState`."""

    def __init__(self, state: MemoryState) -> None:
        self._state = state

    async def add_to_lobby(self, room_id: str, until_ms: int) -> None:
        self._state.check_open()
        self._state.lobby[room_id] = until_ms

    async def lobby_room_ids(self) -> list[str]:
        st = self._state
        st.check_open()
        st.sweep()
        now = st.clock.now()
        for room_id in [r for r, until in st.lobby.items() if until <= now]:
            del st.lobby[room_id]
        return sorted(st.lobby, key=lambda rid: (st.lobby[rid], rid), reverse=True)

    async def remove_from_lobby(self, room_ids: Sequence[str]) -> None:
        self._state.check_open()
        for room_id in room_ids:
            self._state.lobby.pop(room_id, None)

    async def set_timer(self, room_id: str, at_ms: int) -> None:
        self._state.check_open()
        self._state.timers[room_id] = at_ms

    async def clear_timer(self, room_id: str, at_ms: int | None = None) -> None:
        st = self._state
        st.check_open()
        if at_ms is None or st.timers.get(room_id) == at_ms:
            st.timers.pop(room_id, None)

    async def due_timers(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        st = self._state
        st.check_open()
        # the sweep calls this every tick: purge expired rooms now and then (a
        # scan of deadlines, no decoding), so ended rooms do not linger in memory
        if st.clock.now() - st.swept_ms >= _PURGE_EVERY_MS:
            st.sweep()
        due = sorted((at, rid) for rid, at in st.timers.items() if at <= now_ms)
        return [(rid, at) for at, rid in due[:limit]]

    async def forming_lobbies(self, slots: Sequence[str]) -> dict[str, FormingLobby]:
        got = {slot: self._state.forming_lobby(slot) for slot in slots}
        return {slot: lobby for slot, lobby in got.items() if lobby is not None}

    async def take_seat(self, slot: str, capacity: int, *, room_id: str | None = None,
                        open_room: str | None = None, now_ms: int = 0,
                        ttl_ms: int = 0) -> LobbySeat | None:
        return self._state.take_seat(slot, capacity, room_id, open_room, now_ms, ttl_ms)

    async def retire_lobby(self, slot: str, room_id: str) -> bool:
        return self._state.retire_lobby(slot, room_id)

    async def room_counts(self) -> dict[str, int]:
        st = self._state
        st.check_open()
        now = st.clock.now()
        live = sum(1 for r in st.rooms.values()
                   if r.rev > 0 and (r.deadline_ms is None or r.deadline_ms > now))
        lobby = sum(1 for until in st.lobby.values() if until > now)
        return {"live": live, "lobby": lobby, "running": len(st.timers)}


class MemoryStore:
    """The in-process :class:`~server.store.base.LiveStore`: five parts over
    one :class:`MemoryState`.

    ``event_retention``: events kept per room (at least 1). ``clock``: the
    service clock (default: a new :class:`MemoryClock`; tests pass one that
    moves on demand).
    """

    def __init__(self, *, event_retention: int = 1000, clock: MemoryClock | None = None) -> None:
        self._state = MemoryState(event_retention=event_retention, clock=clock or MemoryClock())
        self.rooms = MemoryRoomRecords(self._state)
        self.racers = MemoryRacerGames(self._state)
        self.events = MemoryEventLog(self._state)
        self.indexes = MemoryIndexes(self._state)
        self.archive = MemoryPendingArchive(self._state)
        self.clock = self._state.clock

    def sweep(self) -> int:
        """Purge every expired room now; returns how many were purged."""
        return self._state.sweep()

    async def ping(self) -> None:
        self._state.check_open()

    async def close(self) -> None:
        self._state.close()
