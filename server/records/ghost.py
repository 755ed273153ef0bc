"""Ghost racers: a recorded game raced again on the race clock, exactly as it was played.

A :class:`Ghost` turns a :class:`~server.records.record.GameRecord` into its
**progress schedule**: one :class:`GhostProgress` per logged move, stamped
with the move's recorded race-clock time, then a final one. The ghost's
state at any race-clock time is a pure function of that time
(:meth:`Ghost.progress_at`), so every server process agrees on it and the
ghost ranks like any racer (rules.md, "Race ranking": its foundation
cards, its recorded reach time, its moves, its join order).

End of a ghost: at its record's ``finished_ms`` (else its last move) its
result becomes final with the recorded status when that is final (``won``,
``stuck``, ``resigned``, ``timed_out``); a record that stopped while still
playing ends ``resigned`` unless the replayed game is won or stuck. In a
room with a time limit, moves after the limit are not played: the ghost
ends ``timed_out`` at the limit, like a racer.

:func:`plan_ghost` is the planner a ghost room takes
(``server.race.ghost_room.GhostRooms``), whose driver plays the schedule on
the live race clock through the authority.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Final

from server.rules import deal

from .record import GameRecord, timeline

__all__ = ["FINAL_STATUSES", "Ghost", "GhostProgress", "plan_ghost"]

FINAL_STATUSES: Final = ("won", "stuck", "resigned", "timed_out")


@dataclass(frozen=True, slots=True)
class GhostProgress:
    """The ghost right after a move (or at its end, ``final``), on the race clock (ms)."""

    race_clock_ms: int
    foundation_cards: int
    moves: int
    redeals_used: int
    merci_used: bool
    status: str
    reach_time_ms: int | None
    final: bool
    move: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON object with the same field names (the ``progress`` event's data)."""
        return {"race_clock_ms": self.race_clock_ms, "foundation_cards": self.foundation_cards,
                "moves": self.moves, "redeals_used": self.redeals_used,
                "merci_used": self.merci_used, "status": self.status,
                "reach_time_ms": self.reach_time_ms, "final": self.final, "move": self.move}


class Ghost:
    """The progress schedule of a recorded game (module docstring).

    :raises IllegalLogMove: the record does not replay (check imports first).
    """

    def __init__(self, record: GameRecord, *, time_limit_ms: int | None = None) -> None:
        self.record = record
        game, steps = timeline(record)
        start = deal(record.rules, record.deal_number).foundation_cards
        self.start = GhostProgress(0, start, 0, 0, False, "playing", None, False)
        schedule = [
            GhostProgress(s.race_clock_ms, s.foundation_cards, s.index, s.redeals_used,
                          s.merci_used, "playing", s.reach_time_ms, False, s.move)
            for s in steps
            if time_limit_ms is None or s.race_clock_ms <= time_limit_ms
        ]
        last = schedule[-1] if schedule else self.start
        end_ms = max(record.finished_ms or 0, record.last_ms)
        if time_limit_ms is not None and (len(schedule) < len(steps) or end_ms > time_limit_ms):
            status, end_ms = "timed_out", time_limit_ms
        elif record.status in FINAL_STATUSES:
            status = record.status
        elif game.status in ("won", "stuck"):
            status = game.status
        else:
            status = "resigned"
        schedule.append(GhostProgress(end_ms, last.foundation_cards, last.moves,
                                      last.redeals_used, last.merci_used, status,
                                      last.reach_time_ms, True))
        self.schedule: tuple[GhostProgress, ...] = tuple(schedule)
        self._times = [p.race_clock_ms for p in self.schedule]

    @property
    def name(self) -> str:
        """The recorded racer's name."""
        return self.record.name

    @property
    def result(self) -> GhostProgress:
        """The ghost's final result."""
        return self.schedule[-1]

    @property
    def final_ms(self) -> int:
        """Race-clock time its result becomes final."""
        return self.schedule[-1].race_clock_ms

    def progress_at(self, race_clock_ms: int) -> GhostProgress:
        """The ghost's state at ``race_clock_ms``: after every progress due by then."""
        i = bisect.bisect_right(self._times, race_clock_ms)
        return self.schedule[i - 1] if i else self.start

    def due(self, after_ms: int, until_ms: int) -> list[GhostProgress]:
        """Progress stamped in ``(after_ms, until_ms]``, in order."""
        lo = bisect.bisect_right(self._times, after_ms)
        hi = bisect.bisect_right(self._times, until_ms)
        return list(self.schedule[lo:hi])


def plan_ghost(record: GameRecord, time_limit_ms: int) -> Ghost:
    """The ghost of ``record`` in a room with that time limit (ms): the planner
    of ``GhostRooms``.

    :raises IllegalLogMove: the record does not replay.
    """
    return Ghost(record, time_limit_ms=time_limit_ms)
