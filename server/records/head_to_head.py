"""Head-to-head over live rooms: racers' games as records, comparisons, checked replays.

The glue between the race authority's stored rooms and the pure
:mod:`server.records.compare` / :mod:`server.records.replay_file`: a game is named
by a :class:`RacerRef` (room id or code + racer id or name) or given as an
imported replay document. Refusals are :class:`~server.race.errors.RaceError`\\ s
with the codes ``replay/invalid`` (400), ``replay/forged`` (422) and
``compare/different_deal`` (409), plus the authority's ``room/not_found``
and ``racer/not_found``.

A running game is compared as it stands: its timeline ends at the room's
race clock now. The redeal key never leaves the server here: only
foundation counts, layouts and move texts do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.race.authority import RaceAuthority
from server.race.errors import RaceError, RacerNotFound
from server.race.state import RacerRecord, RoomRecord
from server.rules import Move, RuleSet

from .compare import CompareError, Comparison, compare
from .record import GameRecord, TimedMove
from .replay_file import ReplayError, import_replay

__all__ = [
    "CompareDifferentDeal",
    "RacerRef",
    "ReplayForgedError",
    "ReplayInvalidError",
    "Source",
    "check_replay",
    "compare_sources",
    "racer_record",
]


class ReplayInvalidError(RaceError):
    """An imported replay that is not a readable replay document."""

    code = "replay/invalid"
    status = 400


class ReplayForgedError(RaceError):
    """An imported replay whose log or result does not hold up when replayed."""

    code = "replay/forged"
    status = 422


class CompareDifferentDeal(RaceError):
    """Two games on different deal numbers or rule sets."""

    code = "compare/different_deal"
    status = 409


@dataclass(frozen=True, slots=True)
class RacerRef:
    """A racer's game in a live room: room id or code, racer id or name."""

    room: str
    racer: str


Source = RacerRef | GameRecord


def check_replay(document: Any) -> GameRecord:
    """An imported replay document, checked by replaying it.

    :raises ReplayInvalidError, ReplayForgedError:
    """
    try:
        return import_replay(document)
    except ReplayError as exc:
        cls = ReplayForgedError if exc.code == "replay/forged" else ReplayInvalidError
        raise cls(exc.message, exc.details) from None


async def racer_record(authority: RaceAuthority, ref: RacerRef) -> tuple[GameRecord, str]:
    """The racer's game as a record (running games end at the race clock now),
    and the room id.

    :raises RoomNotFound, RacerNotFound:
    """
    room: RoomRecord
    room, _, now = await authority._load(ref.room)
    entry = room.entry(ref.racer) or next(
        (e for e in room.roster if e.name.casefold() == ref.racer.casefold()), None)
    if entry is None:
        names = ", ".join(e.name for e in room.roster) or "nobody"
        raise RacerNotFound(f"no racer {ref.racer!r} in room {room.code} (racers: {names})",
                            {"racer": ref.racer})
    got = await authority.store.racers.get_racer(room.id, entry.id)
    racer = RacerRecord.model_validate(got.data) if got else RacerRecord(id=entry.id)
    clock = authority._clock(room, now) or 0
    finished = racer.finished_ms if racer.final else clock
    record = GameRecord(
        rules=RuleSet.from_json(room.rules), deal_number=room.deal_number,
        redeal_key=bytes.fromhex(room.redeal_key),
        moves=tuple(TimedMove(Move.from_text(m), t) for m, t in racer.log),
        name=entry.name, join_order=entry.join_order, status=authority._status(room, racer),
        finished_ms=max(finished or 0, racer.log[-1][1] if racer.log else 0),
    )
    return record, room.id


async def compare_sources(authority: RaceAuthority, a: Source, b: Source) -> Comparison:
    """Compare two games, each a live racer or an imported (checked) record.

    Join order takes part in the verdict only when both racers are of one room.

    :raises RoomNotFound, RacerNotFound, CompareDifferentDeal:
    """
    records: list[GameRecord] = []
    rooms: list[str | None] = []
    for source in (a, b):
        if isinstance(source, RacerRef):
            record, room_id = await racer_record(authority, source)
            records.append(record)
            rooms.append(room_id)
        else:
            records.append(source)
            rooms.append(None)
    ra, rb = records
    if rooms[0] is None or rooms[0] != rooms[1]:
        ra = _without_join(ra)
        rb = _without_join(rb)
    try:
        return compare(ra, rb)
    except CompareError as exc:
        raise CompareDifferentDeal(str(exc), {
            "a": {"variant": ra.rules.id, "deal_number": ra.deal_number},
            "b": {"variant": rb.rules.id, "deal_number": rb.deal_number}}) from None


def _without_join(record: GameRecord) -> GameRecord:
    return GameRecord(record.rules, record.deal_number, record.redeal_key, record.moves,
                      record.name, None, record.status, record.finished_ms)
