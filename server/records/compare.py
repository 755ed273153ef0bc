"""Head-to-head comparison of two games on the same deal and rule set.

:func:`compare` takes two :class:`~server.records.record.GameRecord`\\ s — two
racers of one room, or of two rooms with the same deal number and rule set,
finished or still running — and gives a :class:`Comparison`:

- both **timelines**: after each move, the race-clock time (ms) and the
  foundation count (and the layout the game is in);
- the **divergence**: the first 1-based move index where the two logs differ
  (``reason`` ``"moves"``), where the same moves give different layouts
  (``"layouts"``: rooms with different redeal keys, after a redeal), or
  where one log ends and the other goes on (``"ended"``); ``None`` when the
  logs are the same;
- **per-layout figures** for each layout of the rule set (1 = the deal, 2
  after the first redeal, …): cards to foundation (net, undo counted),
  moves made in it, and time spent in it (ms) — a layout's time runs from
  the move that entered it to the move that left it, the last one until the
  side's end (its ``finished_ms``, else ``until_ms``, else its last move);
- **lead**: over race-clock time 0 … the later end, how long each side had
  strictly more foundation cards (``a_ms``, ``b_ms``), how long they were
  level, the segments, and how often the lead passed from one to the other;
- the **verdict** by rules.md "Race ranking": more foundation cards, earlier
  reach time, fewer moves, earlier join (only meaningful in one room);
  ``decided_by`` names the rule that decided, ``"tie"`` when none did.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final, Literal

from server.errors import CompareDifferentDeal
from server.rules import deal, new_game
from server.rules.ranking import ranking_key

from .record import GameRecord, Step, timeline

__all__ = [
    "CompareError",
    "Comparison",
    "Divergence",
    "LayoutFigures",
    "Lead",
    "LeadSegment",
    "Side",
    "Verdict",
    "compare",
]

Who = Literal["a", "b"]
_RULE_NAMES: Final = ("foundation_cards", "reach_time", "moves", "join_order")


CompareError = CompareDifferentDeal
"""The two games cannot be compared: different deal number or rule set
(:class:`server.errors.CompareDifferentDeal`)."""


@dataclass(frozen=True, slots=True)
class LayoutFigures:
    """One layout of one side: cards to foundation, moves made and time (ms) spent in it."""

    layout: int
    reached: bool
    cards_to_foundation: int
    moves: int
    time_ms: int

    def to_json(self) -> dict[str, Any]:
        """JSON object with the same field names."""
        return {"layout": self.layout, "reached": self.reached,
                "cards_to_foundation": self.cards_to_foundation, "moves": self.moves,
                "time_ms": self.time_ms}


@dataclass(frozen=True, slots=True)
class Side:
    """One of the two games: its result now, its timeline and its per-layout figures."""

    name: str
    join_order: int | None
    status: str
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    redeals_used: int
    merci_used: bool
    start_foundation_cards: int
    end_ms: int
    steps: tuple[Step, ...]
    layouts: tuple[LayoutFigures, ...]

    def foundation_cards_at(self, race_clock_ms: int) -> int:
        """Foundation count after every move made at or before ``race_clock_ms``."""
        count = self.start_foundation_cards
        for step in self.steps:
            if step.race_clock_ms > race_clock_ms:
                break
            count = step.foundation_cards
        return count

    def to_json(self) -> dict[str, Any]:
        """JSON object: result fields, ``timeline`` (one entry per move) and ``layouts``."""
        return {
            "name": self.name,
            "join_order": self.join_order,
            "status": self.status,
            "foundation_cards": self.foundation_cards,
            "reach_time_ms": self.reach_time_ms,
            "moves": self.moves,
            "redeals_used": self.redeals_used,
            "merci_used": self.merci_used,
            "start_foundation_cards": self.start_foundation_cards,
            "end_ms": self.end_ms,
            "timeline": [
                {"index": s.index, "move": s.move, "race_clock_ms": s.race_clock_ms,
                 "foundation_cards": s.foundation_cards, "layout": s.layout}
                for s in self.steps
            ],
            "layouts": [f.to_json() for f in self.layouts],
        }


@dataclass(frozen=True, slots=True)
class Divergence:
    """First move (1-based) where the games part, and why; ``move_index`` ``None``: same logs."""

    move_index: int | None
    reason: Literal["moves", "layouts", "ended"] | None
    a_move: str | None
    b_move: str | None

    def to_json(self) -> dict[str, Any]:
        """JSON object with the same field names."""
        return {"move_index": self.move_index, "reason": self.reason,
                "a_move": self.a_move, "b_move": self.b_move}


@dataclass(frozen=True, slots=True)
class LeadSegment:
    """Race-clock interval [start_ms, end_ms) with its leader (``None``: level)."""

    start_ms: int
    end_ms: int
    leader: Who | None


@dataclass(frozen=True, slots=True)
class Lead:
    """Who led for how long (ms), the segments, and how often the lead changed hands."""

    a_ms: int
    b_ms: int
    level_ms: int
    changes: int
    segments: tuple[LeadSegment, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON object; segments as ``{"start_ms", "end_ms", "leader"}``."""
        return {"a_ms": self.a_ms, "b_ms": self.b_ms, "level_ms": self.level_ms,
                "changes": self.changes,
                "segments": [{"start_ms": s.start_ms, "end_ms": s.end_ms, "leader": s.leader}
                             for s in self.segments]}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The better of the two by the ranking rules, and the rule that decided."""

    winner: Who | None
    decided_by: Literal["foundation_cards", "reach_time", "moves", "join_order", "tie"]

    def to_json(self) -> dict[str, Any]:
        """JSON object with the same field names."""
        return {"winner": self.winner, "decided_by": self.decided_by}


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything :func:`compare` finds (module docstring)."""

    deal_number: int
    rules: dict[str, object]
    a: Side
    b: Side
    divergence: Divergence
    lead: Lead
    verdict: Verdict

    def to_json(self) -> dict[str, Any]:
        """The wire form (``docs/protocol.md``, "Comparison")."""
        return {"deal_number": self.deal_number, "rules": self.rules,
                "a": self.a.to_json(), "b": self.b.to_json(),
                "divergence": self.divergence.to_json(), "lead": self.lead.to_json(),
                "verdict": self.verdict.to_json()}


def _layouts(record: GameRecord, steps: list[Step], end_ms: int) -> tuple[LayoutFigures, ...]:
    count = record.rules.redeals + 1
    cards = [0] * count
    moves = [0] * count
    time = [0] * count
    reached = [False] * count
    current, since = 1, 0
    reached[0] = True
    for step in steps:
        cards[current - 1] += step.delta
        moves[current - 1] += 1
        if step.layout != current:
            time[current - 1] += step.race_clock_ms - since
            current, since = step.layout, step.race_clock_ms
            reached[current - 1] = True
    time[current - 1] += max(0, end_ms - since)
    return tuple(LayoutFigures(i + 1, reached[i], cards[i], moves[i], time[i])
                 for i in range(count))


def _side(record: GameRecord, until_ms: int | None) -> Side:
    game, steps = timeline(record)
    if record.finished_ms is not None:
        end_ms = record.finished_ms
    elif until_ms is not None:
        end_ms = max(until_ms, record.last_ms)
    else:
        end_ms = record.last_ms
    start = deal(record.rules, record.deal_number).foundation_cards
    return Side(
        name=record.name,
        join_order=record.join_order,
        status=record.status or game.status,
        foundation_cards=game.foundation_cards,
        reach_time_ms=steps[-1].reach_time_ms if steps else None,
        moves=len(steps),
        redeals_used=game.position.redeals_used,
        merci_used=game.position.merci_used,
        start_foundation_cards=start,
        end_ms=end_ms,
        steps=tuple(steps),
        layouts=_layouts(record, steps, end_ms),
    )


def _divergence(a: GameRecord, b: GameRecord) -> Divergence:
    ga = new_game(a.rules, a.deal_number, a.redeal_key)
    gb = new_game(b.rules, b.deal_number, b.redeal_key)
    for i, (ma, mb) in enumerate(zip(a.moves, b.moves, strict=False), 1):
        if ma.move != mb.move:
            return Divergence(i, "moves", str(ma.move), str(mb.move))
        ga, gb = ga.play(ma.move).with_log(()), gb.play(mb.move).with_log(())  # linear
        if ga.position != gb.position:
            return Divergence(i, "layouts", str(ma.move), str(mb.move))
    if len(a.moves) == len(b.moves):
        return Divergence(None, None, None, None)
    i = min(len(a.moves), len(b.moves))
    a_move = str(a.moves[i].move) if i < len(a.moves) else None
    b_move = str(b.moves[i].move) if i < len(b.moves) else None
    return Divergence(i + 1, "ended", a_move, b_move)


def _counts_at(side: Side, marks: list[int]) -> list[int]:
    """:meth:`Side.foundation_cards_at` of each of the ascending ``marks``, in one
    pass over the steps (a call per mark was quadratic: two logs of 20,000 moves
    held the event loop ~10 s)."""
    counts: list[int] = []
    i, count = 0, side.start_foundation_cards
    for mark in marks:
        while i < len(side.steps) and side.steps[i].race_clock_ms <= mark:
            count = side.steps[i].foundation_cards
            i += 1
        counts.append(count)
    return counts


def _lead(a: Side, b: Side) -> Lead:
    end = max(a.end_ms, b.end_ms)
    marks = sorted({0, end, *(s.race_clock_ms for s in a.steps + b.steps)})
    marks = [m for m in marks if m <= end]
    segments: list[LeadSegment] = []
    starts = marks[:-1]
    for (start, stop), fa, fb in zip(pairwise(marks), _counts_at(a, starts),
                                     _counts_at(b, starts), strict=True):
        leader: Who | None = "a" if fa > fb else "b" if fb > fa else None
        if segments and segments[-1].leader == leader:
            segments[-1] = LeadSegment(segments[-1].start_ms, stop, leader)
        else:
            segments.append(LeadSegment(start, stop, leader))
    totals = {"a": 0, "b": 0, None: 0}
    for seg in segments:
        totals[seg.leader] += seg.end_ms - seg.start_ms
    leaders = [s.leader for s in segments if s.leader is not None]
    changes = sum(1 for x, y in pairwise(leaders) if x != y)
    return Lead(totals["a"], totals["b"], totals[None], changes, tuple(segments))


def _verdict(a: Side, b: Side) -> Verdict:
    ka = ranking_key(a.foundation_cards, a.reach_time_ms, a.moves, a.join_order)
    kb = ranking_key(b.foundation_cards, b.reach_time_ms, b.moves, b.join_order)
    for name, x, y in zip(_RULE_NAMES, ka, kb, strict=True):
        if x != y:
            return Verdict("a" if x < y else "b", name)  # type: ignore[arg-type]
    return Verdict(None, "tie")


def compare(a: GameRecord, b: GameRecord, *, until_ms: int | None = None) -> Comparison:
    """Compare two games on one deal and rule set (module docstring).

    ``until_ms`` is the race clock now, for games still running (their last
    layout's time and the lead run until then); finished sides end at their
    ``finished_ms``.

    :raises CompareDifferentDeal: different deal numbers or rule sets (``CompareError``).
    :raises IllegalLogMove: a log does not replay (a bug upstream, or a
        record that was not checked).
    """
    if a.deal_number != b.deal_number or a.rules != b.rules:
        raise CompareDifferentDeal(
            f"games on different deals or rules: {a.rules.id} #{a.deal_number} "
            f"vs {b.rules.id} #{b.deal_number}", {
                "a": {"variant": a.rules.id, "deal_number": a.deal_number},
                "b": {"variant": b.rules.id, "deal_number": b.deal_number}})
    side_a, side_b = _side(a, until_ms), _side(b, until_ms)
    return Comparison(
        deal_number=a.deal_number,
        rules=a.rules.to_json(),
        a=side_a,
        b=side_b,
        divergence=_divergence(a, b),
        lead=_lead(side_a, side_b),
        verdict=_verdict(side_a, side_b),
    )
