"""The storage interface of the race authority, and the contract every backend keeps.

The authority (:mod:`server.race`) keeps all room and racer state behind a
:class:`LiveStore`: a bundle of six small parts, each a :class:`~typing.Protocol`
named by what its callers need —

- :class:`RoomRecords` (``store.rooms``): room records, short codes, expiry;
- :class:`RacerGames` (``store.racers``): racer games, move answers, the move read;
- :class:`RoomEventLog` (``store.events``): each room's event log and subscriptions;
- :class:`RoomIndexes` (``store.indexes``): the public-room lobby index, room timers;
- :class:`ServiceClock` (``store.clock``): the one clock of the service;
- :class:`PendingArchive` (``store.archive``): finished races not yet in the
  archive database (:mod:`server.archive`), with their claims.

Two backends provide every part over one shared state: :mod:`server.store.memory`
(the embedded default, one process) and :mod:`server.store.redis` (any number
of processes). Both keep **the same bytes**: records are JSON objects encoded
by :func:`encode_record` and read back by :func:`decode_record`.

Keys: a room is named by its id (``room_id``, url-safe text); a racer by
``(room_id, racer_id)``. Every key of a room (room record, code, racers,
answers, events) belongs to that room and goes away with it
(:meth:`RoomRecords.expire_room`); a Redis backend puts ``{room_id}`` in each
key as a hash tag so that one room lives on one cluster slot.

Consistency contract (service.md, "Authority and consistency"):

1. **Versions and compare-and-set.** Each room record and each racer record
   has a store version (``rev``): 0 means "absent", the first write makes it 1,
   each write adds 1. :meth:`RoomRecords.save_room` and
   :meth:`RacerGames.save_racer` write only if the stored ``rev`` equals
   ``expected_rev``, otherwise they raise :class:`VersionConflict` and change
   nothing. Two writers that read the same ``rev`` can never both succeed
   (Redis: one Lua script; memory: no ``await`` between check and write).
2. **Atomic write + answer + events.** A save may carry the answer to a
   client move id and the room events it causes. Either the record, the
   answer and every event are all stored, or none is — one write across the
   parts (:class:`RoomRecords`/:class:`RacerGames` append to the
   :class:`RoomEventLog` in that same write; Redis: one script, one round
   trip). An answer, once stored for ``(room, racer, client_move_id)``, is
   never replaced (:meth:`RacerGames.get_answer` returns the first one).
3. **Room event log.** Events of one room get sequence numbers 1, 2, 3, …
   with no gap and no repeat, in commit order; the store sets ``"seq"`` in
   each event object. The log keeps at least the last
   :attr:`RoomEventLog.event_retention` events; older ones may be trimmed.
   :meth:`RoomEventLog.events_since` and :meth:`RoomEventLog.subscribe` raise
   :class:`EventsTooOld` when events the caller needs were trimmed.
4. **Subscriptions never lose events.** ``subscribe(room, since)`` yields
   every event with ``seq > since`` in order, including events committed by
   other processes, and then waits for new ones; it does not skip even when
   the consumer is slow (a Redis Stream read from an id, not plain pub/sub).
5. **Server time.** :meth:`ServiceClock.now_ms` is the one clock of the
   service (Unix milliseconds); every process of one deployment reads the
   same clock (Redis ``TIME``). The race clock is ``now_ms() - started_at_ms``.
6. **Expiry.** :meth:`RoomRecords.expire_room` makes every key of a room
   vanish after the given delay; reading a vanished room gives ``None``.
7. **Failures.** A backend that cannot reach its storage raises
   :class:`StoreUnavailable` (never a backend-specific exception); nothing is
   half-written.

8. **Pending archive.** A room saved with ``archive=True`` (the write that
   ends its race) is, in that same write, listed as pending in
   :class:`PendingArchive` and keeps every key until
   :meth:`PendingArchive.archived` (no expiry applies meanwhile:
   :meth:`RoomRecords.expire_room` with a positive delay is put off until
   then). :meth:`PendingArchive.claim` leases pending rooms to one caller for
   a while; a lease that runs out (its process died) makes the room
   claimable again.

Records are plain JSON-able ``dict``s whose fields belong to the authority;
the store reads none of them except the room's ``code`` (for
:meth:`RoomRecords.find_room_by_code`) — it is a versioned, evented key-value
store. Every method of every part may raise :class:`StoreUnavailable`.

Size: the contract of six small parts and its eight points, in one place so
that both twins (and ``tests/store/contract.py``) read one text.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any, NamedTuple, Protocol

import orjson

from server.errors import EventsTooOld, StoreError, StoreUnavailable, VersionConflict
from server.runtime.jsoncodec import json_bytes

__all__ = [
    "Event",
    "EventsTooOld",
    "FormingLobby",
    "LiveStore",
    "LobbySeat",
    "PendingArchive",
    "RacerGames",
    "Record",
    "RoomEventLog",
    "RoomIndexes",
    "RoomRecords",
    "ServiceClock",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "Versioned",
    "decode_record",
    "encode_record",
    "json_bytes",
]

Record = dict[str, Any]
"""A JSON-able object (room, racer, answer)."""

Event = dict[str, Any]
"""A room event: a JSON-able object with ``"type"``; the store adds ``"seq"``."""


class Versioned(NamedTuple):
    """A record as read: its data and its store version (``rev`` ≥ 1)."""

    data: Record
    rev: int


_BIG_INT = re.compile(rb"[:\[,]\s*-?[0-9]{20}")
"""A JSON number of 20 digits or more, which orjson reads as a float (lossy)."""


def encode_record(data: Record) -> bytes:
    """The stored bytes of a record: compact UTF-8 JSON (no spaces, non-ASCII
    as UTF-8, keys in the given order), as ``orjson.dumps`` writes it
    (:func:`json_bytes`: integers of any size stay exact). A value may be an
    ``orjson.Fragment``: JSON bytes already encoded, written as they are (a
    move's racer record carries its log so, grown one move at a time)."""
    return json_bytes(data)


def decode_record(raw: bytes | str) -> Record:
    """Inverse of :func:`encode_record` (integers of any size read back exactly).

    :raises StoreError: the bytes are not a JSON object (corrupt storage).
    """
    try:
        if _BIG_INT.search(raw.encode() if isinstance(raw, str) else raw):
            data = json.loads(raw)  # orjson would read a 20-digit number as a float
        else:
            data = orjson.loads(raw)
    except ValueError as exc:  # orjson.JSONDecodeError and json's are ValueErrors
        raise StoreError(f"corrupt record: {exc}") from None
    if not isinstance(data, dict):
        raise StoreError("corrupt record: not a JSON object")
    return data


class ServiceClock(Protocol):
    """The service clock (contract point 5)."""

    async def now_ms(self) -> int:
        """Unix time in integer milliseconds, never decreasing within one process."""


class RoomRecords(Protocol):
    """Room records, their short codes and their expiry (contract points 1, 2, 6)."""

    async def claim_code(self, code: str, room_id: str) -> bool:
        """Reserve the short room ``code`` for ``room_id``.

        Returns ``False`` (and changes nothing) when the code is taken by a
        live room. The code expires with the room.
        """

    async def find_room_by_code(self, code: str) -> str | None:
        """The id of the live room with this short code, or ``None``."""

    async def get_room(self, room_id: str) -> Versioned | None:
        """The room record and its ``rev``, or ``None`` if absent/expired."""

    async def save_room(
        self,
        room_id: str,
        data: Record,
        expected_rev: int,
        events: Sequence[Event] = (),
        *,
        archive: bool = False,
    ) -> tuple[int, list[Event]]:
        """Compare-and-set the room record and append ``events`` to the room's
        :class:`RoomEventLog`, atomically (one write).

        ``expected_rev`` 0 creates the room (and adds it to :meth:`room_ids`).
        ``archive``: the write ends the room's race — in the same write the room
        becomes pending in :class:`PendingArchive` and its keys stop expiring
        until :meth:`PendingArchive.archived` (contract point 8).

        :returns: the new ``rev`` and the events as stored (with ``seq``).
        :raises VersionConflict: the stored ``rev`` differs; nothing written.
        """

    async def room_ids(self) -> list[str]:
        """Ids of every live room (any state), in no particular order."""

    async def expire_room(self, room_id: str, after_ms: int) -> None:
        """Make every key of the room (record, code, racers, answers, events,
        its index entries) vanish ``after_ms`` milliseconds from now (0: at
        once). Later saves keep the deadline."""


class RacerGames(Protocol):
    """Racer games (records), the answers to client move ids, and the read a
    move makes (contract points 1, 2)."""

    async def get_racer(self, room_id: str, racer_id: str) -> Versioned | None:
        """The racer record and its ``rev``, or ``None`` if never saved."""

    async def get_racers(self, room_id: str) -> dict[str, Versioned]:
        """Every saved racer record of the room, by racer id."""

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
        """Compare-and-set the racer record, store the answer to a client move
        id, and append ``events`` to the room's log — all or nothing, one write.

        ``expected_rev`` 0 creates the record. ``answer`` is
        ``(client_move_id, answer)``; if an answer for that id already exists
        the whole save fails with :class:`VersionConflict` (the caller then
        reads the first answer with :meth:`get_answer`). ``room_rev``, when
        given, must also be the room record's current rev: a move decided on a
        cached room record is written only if the room has not changed since
        (the authority's one-round-trip move, :mod:`server.race.play`).

        :returns: the new ``rev`` and the events as stored (with ``seq``).
        :raises VersionConflict: stale ``rev``, stale ``room_rev`` or repeated
            id; nothing written.
        """

    async def get_answer(self, room_id: str, racer_id: str, client_move_id: str) -> Record | None:
        """The stored answer to this client move id, or ``None``."""

    async def get_move_state(
        self, room_id: str, racer_id: str, client_move_id: str
    ) -> tuple[Versioned | None, Record | None, Versioned | None]:
        """What a move reads, together: ``(room, answer to client_move_id, racer)``
        — as :meth:`RoomRecords.get_room`, :meth:`get_answer` and
        :meth:`get_racer` give them (Redis: one pipeline, one round trip)."""


class RoomEventLog(Protocol):
    """Each room's event log and its subscriptions (contract points 3, 4)."""

    @property
    def event_retention(self) -> int:
        """The log keeps at least this many most recent events per room (≥ 1)."""

    async def append_events(self, room_id: str, events: Sequence[Event]) -> list[Event]:
        """Append events that go with no record write; returns them with ``seq``."""

    async def last_seq(self, room_id: str) -> int:
        """The sequence number of the room's latest event (0: none yet)."""

    async def events_since(self, room_id: str, since: int) -> list[Event]:
        """Every retained event with ``seq > since``, in order ([] if none).

        :raises EventsTooOld: an event with ``seq > since`` was trimmed.
        """

    def subscribe(self, room_id: str, since: int) -> AsyncIterator[Event]:
        """Events with ``seq > since`` in order, then new ones as they commit.

        An async generator: close it (``contextlib.aclosing``) to unsubscribe.
        It ends when the room vanishes, or when the store closes.

        :raises EventsTooOld: (on iteration) the events after ``since`` were
            trimmed, or the consumer fell so far behind that they were.
        """


class FormingLobby(NamedTuple):
    """A forming-lobby pointer as read (:meth:`RoomIndexes.forming_lobbies`)."""

    room_id: str
    opened_ms: int
    """When the pointer was set to this room (service clock, Unix ms)."""
    seats: int
    """Seats handed out in it so far (:meth:`RoomIndexes.take_seat`)."""


class LobbySeat(NamedTuple):
    """A seat :meth:`RoomIndexes.take_seat` handed out."""

    room_id: str
    opened_ms: int
    seat: int
    """1 … capacity: the seats handed out in this lobby, this one included."""
    opened: bool
    """The caller's ``open_room`` became the lobby: the caller creates the room."""


class RoomIndexes(Protocol):
    """The service-wide indexes of rooms: the lobby (public rooms that may
    take racers), the room timers, and the forming-lobby pointers of quick
    races (one per slot, e.g. a variant and rating band: which room the next
    quick-race caller of that slot goes to). All are hints the authority
    checks against each room's record."""

    async def add_to_lobby(self, room_id: str, until_ms: int) -> None:
        """List the room in the lobby index until ``until_ms`` (Unix ms of
        :meth:`ServiceClock.now_ms`: when the room, still waiting, would
        expire); the index lists the latest first.

        The index is a hint: the lobby checks each listed room's record, and
        takes off the ones that no longer wait (:meth:`remove_from_lobby`).
        Entries past their time leave it by themselves.
        """

    async def lobby_room_ids(self) -> list[str]:
        """Ids in the lobby index, latest ``until_ms`` (newest room) first."""

    async def remove_from_lobby(self, room_ids: Sequence[str]) -> None:
        """Take rooms off the lobby index (unknown ids are ignored)."""

    async def set_timer(self, room_id: str, at_ms: int) -> None:
        """Index the room under its next timer deadline ``at_ms`` (Unix ms of
        :meth:`ServiceClock.now_ms`: countdown end, time limit), replacing its
        previous one.

        The authority sets it *before* the write that makes the timer pending,
        so a timer is never missing (a spurious one is harmless: the sweep
        looks at the room and clears it).
        """

    async def clear_timer(self, room_id: str, at_ms: int | None = None) -> None:
        """Drop the room's timer; with ``at_ms``, only if it is still that one
        (compare-and-delete: a deadline set meanwhile by another writer stays)."""

    async def due_timers(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        """Up to ``limit`` ``(room_id, at_ms)`` whose timer is due (``at_ms <=
        now_ms``), earliest first; rooms without a timer are never listed, so a
        sweep costs nothing for idle or finished rooms. Listing does not
        remove: the caller clears (or moves) each timer it has handled. (The
        sweep calls this every tick; a backend may purge expired rooms then.)"""

    async def forming_lobbies(self, slots: Sequence[str]) -> dict[str, FormingLobby]:
        """The forming-lobby pointer of each of ``slots`` that has one (one read:
        Redis ``MGET``); slots without a pointer, or whose pointer expired, are
        left out."""

    async def take_seat(self, slot: str, capacity: int, *, room_id: str | None = None,
                        open_room: str | None = None, now_ms: int = 0,
                        ttl_ms: int = 0) -> LobbySeat | None:
        """Hand out one seat of ``slot``'s forming lobby, atomically (one write):

        - the pointer names a room (``room_id`` when given, else any) with fewer
          than ``capacity`` seats handed out: one more seat of it;
        - else, with ``open_room``, when the slot has no pointer or its room has
          all its seats out: the pointer is replaced by ``open_room`` (opened at
          ``now_ms``, expiring ``ttl_ms`` later) with its first seat, and
          ``opened`` says the caller must create that room;
        - else ``None`` (the pointer moved on from ``room_id``, or is full).

        So callers at once fill one lobby after another: never two seats more
        than ``capacity`` in one pointer, never two lobbies opened for one slot
        from the same full one.
        """

    async def retire_lobby(self, slot: str, room_id: str) -> bool:
        """Drop ``slot``'s pointer if it still names ``room_id`` (compare-and-delete:
        a lobby opened meanwhile stays); whether it was dropped. Callers retire a
        lobby that started, filled, closed or vanished."""

    async def room_counts(self) -> dict[str, int]:
        """How many rooms the indexes hold, for metrics: ``live`` (every room not
        yet expired, whatever its state), ``lobby`` (listed in the lobby and not
        past their time), ``running`` (with a pending timer: countdown or
        racing). Counts only, no record is read (Redis: two ``ZCOUNT`` and a
        ``ZCARD`` in one pipeline)."""


class PendingArchive(Protocol):
    """Finished races waiting for the archive database (contract point 8)."""

    async def claim(self, limit: int, lease_ms: int) -> list[str]:
        """Up to ``limit`` pending room ids that nobody holds (never claimed, or
        their lease ran out), each now leased to the caller for ``lease_ms``
        (service clock); oldest lease first."""

    async def archived(self, room_id: str, after_ms: int) -> None:
        """The room is in the archive: no longer pending; every key of the room
        now vanishes ``after_ms`` from now (as :meth:`RoomRecords.expire_room`).
        Unknown ids are ignored."""

    async def pending(self) -> list[str]:
        """Every pending room id, claimed or not (tests, metrics)."""


class LiveStore(Protocol):
    """What a backend provides: the six parts over one shared state, and its
    life cycle. The parts are read-only attributes (a backend may give them
    their concrete types)."""

    @property
    def rooms(self) -> RoomRecords:
        """Room records, codes, expiry."""

    @property
    def racers(self) -> RacerGames:
        """Racer games, answers, the move read."""

    @property
    def events(self) -> RoomEventLog:
        """The room event logs and subscriptions."""

    @property
    def indexes(self) -> RoomIndexes:
        """The lobby index and the room timers."""

    @property
    def clock(self) -> ServiceClock:
        """The service clock."""

    @property
    def archive(self) -> PendingArchive:
        """Finished races not yet archived."""

    async def ping(self) -> None:
        """Return when the storage answers (readiness).

        :raises StoreUnavailable: it does not.
        """

    async def close(self) -> None:
        """Release connections and wake every subscriber so it ends."""
