"""The signals of one racer's race: how their moves compare with the solver's
best, and how they were timed (docs/fair-play.md, "What is measured").

Pure and synchronous: :func:`race_signals` replays the racer's move log in
the engine and asks the one-layout solver (``server.solver``, mode
``one-layout``: the most foundation cards a player can plan from the layout
on the table, redeals unknown) about the positions it passes. The service
runs it in the solver's worker processes, never on the event loop
(:mod:`server.fairplay.assessor`).

Per move of the line that stands (moves taken back with undo left out):

- *solver loss* (cards): the best count reachable in this layout before the
  move minus the best after it (0: the move is on a best line); for a
  redeal, the best count of the layout left minus the cards up when it was
  taken (cards given up by redealing early);
- *agreement*: the share of *decisions* (moves made where two or more
  moves were legal) with no loss.

Per layout (the first one and each one a redeal lays out): the best count
from its start, what the *yardstick* — the plain strategy of the computer
racers (:func:`server.solver.strategy.choose_move`, no style: foundation
moves, then builds that let autoplay put cards up within two builds) —
reaches from there, and what the racer reached. A layout is *hard* when the
yardstick falls short of the best count (the best line needs planning) and
*solved* when the racer reached the best count. Solving hard layouts every
time is what the solver's line looks like; people do it now and then.

Timing, on the race clock (ms) of the log: the gaps between *actions* (log
entries at one race-clock time — an autoplay's foundation moves — are one
action), their mean and coefficient of variation, the share faster than
:data:`READING_MS`, and the time from each redeal to the next action (a
solver user must transcribe the new layout).

Cost: one solver search per layout start and per move that leaves the
solver's known line (a move on it reuses the rest of the line), each bounded
by ``budget_s``; positions are memoised within the race. Measured in
``python -m bench fairplay``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final, Literal

from server.rules import REDEAL, UNDO, Move, Position, RuleSet, apply, deal, legal_moves
from server.solver.solve import solve
from server.solver.strategy import choose_move

__all__ = [
    "READING_MS",
    "LayoutFacts",
    "RaceSignals",
    "race_signals",
]

READING_MS: Final = 250
"""An action sooner than this after the one before it (ms) is faster than a
person reads a changed board; autoplay chains are one action."""
SOLVE_NODES: Final = 200_000
"""Node budget of one solver search during an assessment."""
YARDSTICK_MOVES: Final = 400
"""The most moves the yardstick plays in one layout."""

LayoutEnd = Literal["redeal", "won", "stuck", "open"]


@dataclass(frozen=True, slots=True)
class LayoutFacts:
    """One layout of the racer's game: ``start`` foundation cards when it was
    laid out, ``best`` reachable from there (a lower bound unless ``exact``),
    ``yardstick`` (what the plain strategy reaches), ``reached`` (cards up when
    the racer redealt, or at the end) and how it ended (``open``: the race
    ended with the racer still playing it — resigned, left, out of time)."""

    start: int
    best: int
    exact: bool
    yardstick: int
    reached: int
    end: LayoutEnd

    @property
    def hard(self) -> bool:
        """The plain strategy falls short of the best count."""
        return self.yardstick < self.best

    @property
    def solved(self) -> bool:
        """The racer reached the best count (a layout left open counts only
        when it was)."""
        return self.reached >= self.best


@dataclass(frozen=True, slots=True)
class RaceSignals:
    """One racer's signals for one race (module docstring; JSON-able with
    :meth:`to_json`). Counts are moves or cards; times are ms; ``cpu_ms`` is
    what computing them cost."""

    moves: int
    decisions: int
    agreed: int
    loss_cards: int
    critical: int
    found: int
    undos: int
    layouts: tuple[LayoutFacts, ...]
    gap_mean_ms: float | None
    gap_cv: float | None
    fast_share: float | None
    redeal_read_ms: tuple[int, ...]
    focus_losses: int
    cpu_ms: float = field(default=0.0, compare=False)

    @property
    def agreement(self) -> float | None:
        """Share of decisions with no solver loss (``None``: no decision)."""
        return self.agreed / self.decisions if self.decisions else None

    @property
    def hard_layouts(self) -> int:
        """Hard layouts the racer finished (solved, or ended by a redeal or
        the game's end)."""
        return sum(1 for lay in self.layouts if lay.hard and (lay.solved or lay.end != "open"))

    @property
    def hard_solved(self) -> int:
        """Hard layouts the racer solved."""
        return sum(1 for lay in self.layouts if lay.hard and lay.solved)

    def to_json(self) -> dict[str, object]:
        """The signals as a JSON object (the assessment's ``signals``)."""
        return {
            "moves": self.moves, "decisions": self.decisions, "agreed": self.agreed,
            "agreement": None if self.agreement is None else round(self.agreement, 4),
            "loss_cards": self.loss_cards, "critical": self.critical, "found": self.found,
            "undos": self.undos,
            "hard_layouts": self.hard_layouts, "hard_solved": self.hard_solved,
            "layouts": [{"start": lay.start, "best": lay.best, "exact": lay.exact,
                         "yardstick": lay.yardstick, "reached": lay.reached, "end": lay.end}
                        for lay in self.layouts],
            "gap_mean_ms": _round(self.gap_mean_ms), "gap_cv": _round(self.gap_cv, 3),
            "fast_share": _round(self.fast_share, 3),
            "redeal_read_ms": list(self.redeal_read_ms), "focus_losses": self.focus_losses,
            "cpu_ms": round(self.cpu_ms, 1),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> RaceSignals:
        """Read :meth:`to_json`'s form back (stored assessments)."""
        def num(key: str) -> float | None:
            value = data.get(key)
            return None if value is None else float(value)  # type: ignore[arg-type]

        layouts = tuple(LayoutFacts(int(lay["start"]), int(lay["best"]), bool(lay["exact"]),
                                    int(lay["yardstick"]), int(lay["reached"]), lay["end"])
                        for lay in data.get("layouts", []))  # type: ignore[attr-defined]
        return cls(int(data["moves"]), int(data["decisions"]),  # type: ignore[call-overload]
                   int(data["agreed"]), int(data["loss_cards"]),  # type: ignore[call-overload]
                   int(data.get("critical", 0)), int(data.get("found", 0)),  # type: ignore[call-overload]
                   int(data.get("undos", 0)), layouts,  # type: ignore[call-overload]
                   num("gap_mean_ms"), num("gap_cv"), num("fast_share"),
                   tuple(int(x) for x in data.get("redeal_read_ms", [])),  # type: ignore[attr-defined]
                   int(data.get("focus_losses", 0)),  # type: ignore[call-overload]
                   float(data.get("cpu_ms", 0.0)))  # type: ignore[arg-type]


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


class _Oracle:
    """The one-layout solver's best count per position, memoised; a position
    on a known best line takes the line's count without a search."""

    def __init__(self, rules: RuleSet, budget_s: float, total_s: float) -> None:
        self.rules = rules
        self.budget_s = budget_s
        self.deadline = time.perf_counter() + total_s
        self.known: dict[Position, tuple[int, bool, tuple[Move, ...]]] = {}

    def best(self, pos: Position) -> tuple[int, bool, tuple[Move, ...]]:
        got = self.known.get(pos)
        if got is None:
            # past the race's total budget every search is a short look (its
            # count a lower bound, so its losses are not counted)
            left = self.deadline - time.perf_counter()
            res = solve(self.rules, pos, None, mode="one-layout", max_nodes=SOLVE_NODES,
                        max_seconds=min(self.budget_s, max(left, 0.005)))
            got = self.known[pos] = (res.best_foundation, res.exact, res.moves)
        return got

    def yardstick_loses(self, pos: Position, seen: list[Position], best: int) -> bool:
        """The plain strategy's move in ``pos`` (``seen``: this layout's
        positions so far) gives up cards: a redeal below ``best``, or a move
        after which fewer are reachable (a *critical* position)."""
        move = choose_move(self.rules, pos, seen)
        if move is None:
            return False
        if move == REDEAL:
            return best > pos.foundation_cards
        after_best, exact, _ = self.best(apply(self.rules, pos, move))
        return exact and after_best < best

    def follow(self, pos: Position, move: Move, after: Position) -> None:
        """``move`` from ``pos`` is the first of ``pos``'s best line: ``after``
        has the same best count, by the rest of the line."""
        best, exact, line = self.best(pos)
        if line and line[0] == move and after not in self.known:
            self.known[after] = (best, exact, line[1:])


def _yardstick(rules: RuleSet, pos: Position) -> int:
    """Foundation cards the plain strategy reaches from ``pos`` in this layout."""
    seen = [pos]
    for _ in range(YARDSTICK_MOVES):
        move = choose_move(rules, pos, seen)
        if move is None or move.kind == "redeal":
            break
        pos = apply(rules, pos, move)
        seen.append(pos)
    return pos.foundation_cards


def _line(log: Sequence[tuple[str, int]]) -> tuple[list[Move], int]:
    """The moves that stand (undone ones taken out) and the number of undos."""
    line: list[Move] = []
    undos = 0
    for text, _ in log:
        move = Move.from_text(text)
        if move == UNDO:
            undos += 1
            if line:
                line.pop()
        else:
            line.append(move)
    return line, undos


def _timing(log: Sequence[tuple[str, int]]
            ) -> tuple[float | None, float | None, float | None, tuple[int, ...]]:
    """Gap mean (ms), coefficient of variation, share of gaps under
    :data:`READING_MS`, and the times from each redeal to the next action."""
    times: list[int] = []
    redeal_at: list[int] = []
    for text, at in log:
        if not times or at != times[-1]:
            times.append(int(at))
        if text in ("r", "redeal"):
            redeal_at.append(int(at))
    gaps = [b - a for a, b in pairwise(times)]
    reads = []
    for at in redeal_at:
        nxt = next((t for t in times if t > at), None)
        if nxt is not None:
            reads.append(nxt - at)
    if len(gaps) < 2:
        return None, None, None, tuple(reads)
    mean = statistics.fmean(gaps)
    cv = statistics.pstdev(gaps) / mean if mean > 0 else 0.0
    fast = sum(1 for g in gaps if g < READING_MS) / len(gaps)
    return mean, cv, fast, tuple(reads)


def race_signals(rules: RuleSet, deal_number: int, redeal_key: bytes,
                 log: Sequence[tuple[str, int]], *, status: str = "stuck",
                 focus_losses: int = 0, budget_s: float = 0.25,
                 total_s: float = 20.0) -> RaceSignals:
    """The signals of one racer's race (module docstring).

    ``log``: the racer's move log, ``[move text, race-clock ms]`` in order
    (undo included, autoplay expanded, as the race authority keeps it);
    ``status``: the racer's final status (``won``/``stuck`` end the last
    layout; anything else leaves it ``open``); ``focus_losses``: times the
    racer's page lost focus during the race (the web client reports them);
    ``budget_s``: the most one solver search may take (s); ``total_s``: the
    most all of them may take together (s; past it, searches are cut short).

    :raises InvalidMoveError, IllegalMoveError: a log the engine refuses (the
        authority never stores one).
    :raises UnsupportedRulesError: two decks or free cells.
    """
    started = time.process_time()
    line, undos = _line(log)
    oracle = _Oracle(rules, budget_s, total_s)
    pos = deal(rules, deal_number)
    decisions = agreed = loss = critical = found = 0
    layouts: list[LayoutFacts] = []
    start = pos
    seen = [pos]
    for move in line:
        best, exact, _ = oracle.best(pos)
        after = apply(rules, pos, move, redeal_key)
        if move == REDEAL:
            lost = max(0, best - pos.foundation_cards)
            layouts.append(_layout(rules, oracle, start, pos, "redeal"))
            start = after
        else:
            oracle.follow(pos, move, after)
            after_best, after_exact, _ = oracle.best(after)
            lost = max(0, best - after_best) if exact and after_exact else 0
            if _choices(rules, pos) >= 2:
                decisions += 1
                agreed += lost == 0
        loss += lost
        if exact and oracle.yardstick_loses(pos, seen, best):
            critical += 1
            found += lost == 0
        seen = [after] if move == REDEAL else [*seen, after]
        pos = after
    end: LayoutEnd = status if status in ("won", "stuck") else "open"  # type: ignore[assignment]
    layouts.append(_layout(rules, oracle, start, pos, end))
    mean, cv, fast, reads = _timing(log)
    return RaceSignals(len(line), decisions, agreed, loss, critical, found, undos,
                       tuple(layouts), mean, cv, fast, reads, focus_losses,
                       (time.process_time() - started) * 1000)


def _choices(rules: RuleSet, pos: Position) -> int:
    return sum(1 for m in legal_moves(rules, pos) if m.kind in ("play", "merci"))


def _layout(rules: RuleSet, oracle: _Oracle, start: Position, end: Position,
            how: LayoutEnd) -> LayoutFacts:
    best, exact, _ = oracle.best(start)
    return LayoutFacts(start.foundation_cards, best, exact, _yardstick(rules, start),
                       end.foundation_cards, how)

