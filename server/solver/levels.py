"""Computer racers' levels (issue 38): how a ``novice``, a ``club`` player and an
``expert`` choose their moves and how long they think.

Every level plays legal moves only (the engine's :func:`~server.rules.legal_moves`)
and never goes back to a position it saw in the same layout; each bot draws its
choices from its own seeded generator (the seed is drawn when it takes its seat
and kept with the racer), so bots of one level on one deal play different games.

- ``novice``: the club rule (:mod:`server.solver.strategy`) with a look-ahead of
  one build, but it **misses builds** — each useful build goes unseen with
  probability :attr:`LevelSpec.miss` — and **redeals early** (while a useful build
  remains) with probability :attr:`LevelSpec.early_redeal` at each position
  where a redeal is allowed.
- ``club``: today's strategy (foundation moves first, the build that lets most
  cards up two builds ahead, the redeal, the merci), with its choice drawn
  among the near-best builds (scores within :attr:`LevelSpec.near`) and, before
  a redeal, now and then a tidying build (:attr:`LevelSpec.tidy`) that changes
  the layout the redeal gathers.
- ``expert``: plans each layout with the one-layout solver
  (:func:`~server.solver.solve.solve`, a node budget per candidate move of
  :data:`EXPERT_NODES`): it plays a move after which the most foundation cards
  can still be reached in this layout (drawn among the equally good ones), and
  redeals when the layout holds no more (a foundation move among the best is
  taken :data:`UPS_FIRST` of the time). Rule sets the solver does not handle
  (two decks, free cells) get the club rule.

Whatever the level, once nothing gains any more and no redeal or merci is
left, a bot plays its remaining builds (any it has not played) until no move
is left: it ends ``stuck`` like a person would, not resigned.

**Think time** (:func:`think_ms`): log-normal, in multiples of ``unit_ms`` (the
club level's median pause before an ordinary move; ``LUCIE_BOT_THINK_MS``,
1,600 ms by default): median :attr:`Think.median` × unit with spread
:attr:`Think.sigma` (the log's standard deviation); a foundation move right
after a foundation move is quick (median :data:`FOLLOW_UP` × unit, σ 0.35);
the first move of a layout — the deal's, and after each redeal — adds the time
to read it (log-normal, median :attr:`Think.reading` × unit, σ 0.4). Every
pause is kept within 0.1 … 12 × unit. The levels' figures are in
docs/protocol.md ("Computer racers").

**Ratings** (:data:`RATINGS`): each level's openskill rating (Plackett–Luce,
mu − 3 sigma as players' ``rating``), calibrated by ``python -m bench bots``,
which races the levels against each other and ``hint``'s line.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Final, Literal, get_args

from server.rules import FOUNDATION, REDEAL, Move, Position, RuleSet, apply, legal_moves

from .errors import UnsupportedRulesError
from .solve import solve
from .strategy import scored_builds

__all__ = [
    "EXPERT_NODES",
    "FOLLOW_UP",
    "HINT_RATING",
    "LEVELS",
    "RATINGS",
    "SPECS",
    "UPS_FIRST",
    "BotMind",
    "Level",
    "LevelSpec",
    "Think",
    "level_move",
    "level_of",
    "levels_mix",
    "nearest_level",
    "think_ms",
]

Level = Literal["novice", "club", "expert"]
LEVELS: Final[tuple[Level, ...]] = get_args(Level)
"""The levels, weakest first."""

EXPERT_NODES: Final = 20_000
"""The expert's search budget per candidate move (positions visited)."""
EXPERT_SECONDS: Final = 0.3
"""The most wall time an expert's move may search (the layout and its candidates)."""
UPS_FIRST: Final = 0.7
"""How often the expert takes a foundation move when one is among its best moves
(else any of them: the lines differ, the games too)."""
FOLLOW_UP: Final = 0.25
"""Median of a foundation move right after a foundation move, in units."""

RATINGS: Final[dict[Level, float]] = {"novice": 6.8, "club": 17.8, "expert": 28.5}
"""Each level's rating (openskill Plackett–Luce, mu − 3 sigma), calibrated by
``python -m bench bots`` (docs/protocol.md, "Computer racers", has the table)."""
HINT_RATING: Final = 27.3
"""The rating of ``hint``'s line in the same calibration (a reference)."""


@dataclass(frozen=True, slots=True)
class Think:
    """A level's think time, in units (module docstring): ``median`` and
    ``sigma`` of an ordinary move's pause, ``reading``: median of the extra
    time the first move after a redeal takes."""

    median: float
    sigma: float
    reading: float


@dataclass(frozen=True, slots=True)
class LevelSpec:
    """How a level plays (module docstring). Probabilities are per position."""

    lookahead: int
    """Builds looked ahead for one that lets more cards up (1 or 2)."""
    miss: float
    """Chance that a useful build goes unseen."""
    early_redeal: float
    """Chance of taking the redeal while a useful build remains."""
    near: int
    """Builds scoring within this of the best are drawn among (scores: 4 per card)."""
    tidy: float
    """Chance of one more build that gains nothing before a redeal."""
    plans: bool
    """Plans each layout with the one-layout solver."""
    think: Think


SPECS: Final[dict[Level, LevelSpec]] = {
    "novice": LevelSpec(lookahead=1, miss=0.45, early_redeal=0.12, near=4, tidy=0.3,
                        plans=False, think=Think(median=1.5, sigma=0.6, reading=3.0)),
    "club": LevelSpec(lookahead=2, miss=0.0, early_redeal=0.0, near=1, tidy=0.3,
                      plans=False, think=Think(median=1.0, sigma=0.5, reading=2.5)),
    "expert": LevelSpec(lookahead=2, miss=0.0, early_redeal=0.0, near=0, tidy=0.0,
                        plans=True, think=Think(median=0.75, sigma=0.45, reading=2.0)),
}


def level_of(text: str) -> Level:
    """``text`` as a level.

    :raises ValueError: not one of :data:`LEVELS`.
    """
    for level in LEVELS:
        if text == level:
            return level
    raise ValueError(f"unknown level {text!r}: one of {', '.join(LEVELS)}")


def levels_mix(count: int) -> tuple[Level, ...]:
    """``count`` bots of mixed levels, weakest first: club, then expert, novice in
    turn (1: club; 2: club, expert; 3: one of each…)."""
    cycle: tuple[Level, ...] = ("club", "expert", "novice")
    return tuple(sorted((cycle[i % 3] for i in range(count)), key=LEVELS.index))


def nearest_level(rating: float) -> Level:
    """The level whose rating (:data:`RATINGS`) is nearest ``rating`` (a tie: the weaker)."""
    return min(LEVELS, key=lambda level: (abs(RATINGS[level] - rating), LEVELS.index(level)))


def think_ms(level: Level, rng: random.Random, unit_ms: float, *, after_redeal: bool = False,
             follow_up: bool = False) -> int:
    """A pause before a move, ms (module docstring): ``after_redeal``: the first
    move of a new layout; ``follow_up``: a foundation move right after one.
    ``unit_ms`` ≤ 0: no pause."""
    if unit_ms <= 0:
        return 0
    think = SPECS[level].think
    if follow_up:
        units = rng.lognormvariate(math.log(FOLLOW_UP), 0.35)
    else:
        units = rng.lognormvariate(math.log(think.median), think.sigma)
    if after_redeal:
        units += rng.lognormvariate(math.log(think.reading), 0.4)
    return round(min(12.0, max(0.1, units)) * unit_ms)


def _fresh(rules: RuleSet, pos: Position, move: Move, seen: Collection[Position]) -> bool:
    return move.kind in ("redeal", "merci") or apply(rules, pos, move) not in seen


def _heuristic(rules: RuleSet, pos: Position, spec: LevelSpec, seen: Collection[Position],
               rng: random.Random) -> Move | None:
    """The novice's and club's choice (module docstring)."""
    moves = list(legal_moves(rules, pos))
    ups = [m for m in moves if m.kind == "play" and m.target == FOUNDATION]
    if ups:
        return rng.choice(ups)
    redeal = REDEAL if REDEAL in moves else None
    scored = scored_builds(rules, pos, seen, spec.lookahead)
    base = pos.foundation_cards * 4
    useful = [(s, m) for s, m in scored if s > base and rng.random() >= spec.miss]
    if redeal is not None and useful and rng.random() < spec.early_redeal:
        return redeal
    if useful:
        best = max(s for s, _ in useful)
        return rng.choice([m for s, m in useful if s >= best - spec.near])
    idle = [m for s, m in scored if s <= base]
    if redeal is not None:
        return rng.choice(idle) if idle and rng.random() < spec.tidy else redeal
    mercis = [m for m in moves if m.kind == "merci"]
    if mercis:
        return rng.choice([m for m in mercis if m.target == FOUNDATION] or mercis)
    return rng.choice([m for _, m in scored]) if scored else None


def _planned(rules: RuleSet, pos: Position, seen: Collection[Position], rng: random.Random,
             nodes: int, seconds: float) -> Move | None:
    """The expert's choice (module docstring): the layout searched from ``pos``
    first; when more cards can go up in it, each candidate move is searched
    and one of those after which as many still can is drawn (the root line's
    first move always among them; foundation moves first, :data:`UPS_FIRST`
    of the time); else the redeal,
    else the club rule (the merci, the remaining builds).

    :raises UnsupportedRulesError: a rule set the solver does not handle.
    """
    deadline = time.perf_counter() + seconds
    root = solve(rules, pos, None, mode="one-layout", max_nodes=nodes, max_seconds=seconds / 2)
    moves = list(legal_moves(rules, pos))
    if root.best_foundation <= pos.foundation_cards or not root.moves:
        if REDEAL in moves:
            return REDEAL
        return _heuristic(rules, pos, SPECS["club"], seen, rng)
    first = root.moves[0]
    candidates = [m for m in moves if m.kind != "redeal" and m != first
                  and _fresh(rules, pos, m, seen)]
    values = [(root.best_foundation, first)] if _fresh(rules, pos, first, seen) else []
    for m in candidates:
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        res = solve(rules, apply(rules, pos, m), None, mode="one-layout", max_nodes=nodes,
                    max_seconds=left)
        values.append((res.best_foundation, m))
    if not values:
        return _heuristic(rules, pos, SPECS["club"], seen, rng)
    best = max(v for v, _ in values)
    options = [m for v, m in values if v >= best]
    ups = [m for m in options if m.kind == "play" and m.target == FOUNDATION]
    return rng.choice(ups if ups and rng.random() < UPS_FIRST else options)


def level_move(rules: RuleSet, pos: Position, level: Level, seen: Collection[Position],
               seed: int, *, nodes: int = EXPERT_NODES,
               seconds: float = EXPERT_SECONDS) -> Move | None:
    """A ``level`` bot's next move in ``pos`` under ``rules`` (module docstring),
    or ``None`` when it has none: no legal move, or (variants whose builds can
    cycle) every build leads back to a position in ``seen`` — the positions it
    visited in this layout. ``seed``: this move's draw (the bot's generator
    gives one per move, :class:`BotMind`); ``nodes``, ``seconds``: the expert's
    budget. Pure and picklable: the server runs an expert's move in its solver
    pool. The move is legal in ``pos``; undo and autoplay are never chosen.
    """
    spec = SPECS[level]
    rng = random.Random(seed)
    if spec.plans:
        try:
            return _planned(rules, pos, seen, rng, nodes, seconds)
        except UnsupportedRulesError:
            spec = SPECS["club"]
    return _heuristic(rules, pos, spec, seen, rng)


@dataclass(slots=True)
class BotMind:
    """One bot's memory through a game: its level, its generator (from the seed
    drawn at its seat), the positions seen in this layout, its last move.

    Use: ``move = level_move(*mind.ask(rules, pos))`` (anywhere: a thread, a
    solver worker), then ``mind.played(pos, move)``; :meth:`pause_ms` is the
    think time before playing it.
    """

    level: Level
    seed: int
    rng: random.Random = field(init=False)
    seen: set[Position] = field(default_factory=set)
    last: Move | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def new_game(self) -> None:
        """Forget the last game's positions (a series' next race)."""
        self.seen.clear()
        self.last = None

    def ask(self, rules: RuleSet, pos: Position
            ) -> tuple[RuleSet, Position, Level, frozenset[Position], int]:
        """The arguments of :func:`level_move` for this bot's next move in ``pos``."""
        return rules, pos, self.level, frozenset(self.seen), self.rng.getrandbits(63)

    def played(self, pos: Position, move: Move) -> None:
        """``move`` is played from ``pos``: remember the position (a redeal starts
        a new layout: forget them)."""
        self.seen.add(pos)
        if move.kind == "redeal":
            self.seen.clear()

    def pause_ms(self, move: Move, unit_ms: float) -> int:
        """The think time before ``move`` (:func:`think_ms`), ms — with the reading
        time when it is the first move of a layout (the game's first, or after a
        redeal); then ``move`` is this bot's last."""
        up = move.kind == "play" and move.target == FOUNDATION
        last_up = self.last is not None and self.last.kind == "play" \
            and self.last.target == FOUNDATION
        after_redeal = self.last is None or self.last.kind == "redeal"  # a layout to read
        self.last = move
        return think_ms(self.level, self.rng, unit_ms, after_redeal=after_redeal,
                        follow_up=up and last_up)

