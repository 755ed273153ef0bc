"""Head-to-head over live rooms: racers' games as records, comparisons, checked replays.

The glue between live racers' logs and the pure :mod:`server.records.compare`
/ :mod:`server.records.replay_file`: a game is named by a :class:`RacerRef`
(room id or code + racer id or name) and read through :class:`LiveGames`
(the race authority keeps that interface: ``RaceAuthority.racer_log``), or
given as an imported replay document. Refusals are :class:`~server.errors.RaceError`\\ s
with the codes ``replay/invalid`` (400), ``replay/forged`` (422) and
``compare/different_deal`` (409), plus the authority's ``room/not_found``
and ``racer/not_found``.

A running game is compared as it stands: its timeline ends at the room's
race clock now. The redeal key never leaves the server here: only
foundation counts, layouts and move texts do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from server.errors import CompareDifferentDeal, ReplayForged, ReplayInvalid
from server.rules import Move, RuleSet

from .compare import Comparison, compare
from .record import GameRecord, TimedMove
from .replay_file import import_replay

__all__ = [
    "CompareDifferentDeal",
    "LiveGames",
    "LiveLog",
    "RacerRef",
    "ReplayForgedError",
    "ReplayInvalidError",
    "Source",
    "check_replay",
    "compare_sources",
    "racer_record",
]


ReplayInvalidError = ReplayInvalid
"""An imported replay that is not a readable replay document (:mod:`server.errors`)."""

ReplayForgedError = ReplayForged
"""An imported replay whose log or result does not hold up when replayed."""


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
    return import_replay(document)


class LiveLog(Protocol):
    """A live racer's game as the race authority gives it (``RaceAuthority.racer_log``)."""

    @property
    def room_id(self) -> str: ...
    @property
    def rules(self) -> RuleSet: ...
    @property
    def deal_number(self) -> int: ...
    @property
    def redeal_key(self) -> bytes: ...
    @property
    def moves(self) -> Sequence[tuple[str, int]]:
        """``(move text, race-clock ms)`` in log order."""
    @property
    def name(self) -> str: ...
    @property
    def join_order(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def finished_ms(self) -> int:
        """When the result became final, else the race clock now (ms)."""


class LiveGames(Protocol):
    """Where live racers' games come from (the race authority)."""

    async def racer_log(self, room: str, racer: str) -> LiveLog:
        """The game of ``racer`` (id or name) in ``room`` (id or code).

        :raises RoomNotFound, RacerNotFound:
        """
        ...


async def racer_record(games: LiveGames, ref: RacerRef) -> tuple[GameRecord, str]:
    """The racer's game as a record (running games end at the race clock now),
    and the room id.

    :raises RoomNotFound, RacerNotFound:
    """
    got = await games.racer_log(ref.room, ref.racer)
    record = GameRecord(
        rules=got.rules, deal_number=got.deal_number, redeal_key=got.redeal_key,
        moves=tuple(TimedMove(Move.from_text(m), t) for m, t in got.moves),
        name=got.name, join_order=got.join_order, status=got.status,
        finished_ms=got.finished_ms,
    )
    return record, got.room_id


async def compare_sources(games: LiveGames, a: Source, b: Source) -> Comparison:
    """Compare two games, each a live racer or an imported (checked) record.

    Join order takes part in the verdict only when both racers are of one room.

    :raises RoomNotFound, RacerNotFound, CompareDifferentDeal:
    """
    records: list[GameRecord] = []
    rooms: list[str | None] = []
    for source in (a, b):
        if isinstance(source, RacerRef):
            record, room_id = await racer_record(games, source)
            records.append(record)
            rooms.append(room_id)
        else:
            records.append(source)
            rooms.append(None)
    ra, rb = records
    if rooms[0] is None or rooms[0] != rooms[1]:
        ra = _without_join(ra)
        rb = _without_join(rb)
    return compare(ra, rb)


def _without_join(record: GameRecord) -> GameRecord:
    return GameRecord(record.rules, record.deal_number, record.redeal_key, record.moves,
                      record.name, None, record.status, record.finished_ms)
