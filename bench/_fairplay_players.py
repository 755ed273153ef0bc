"""Simulated racers for ``python -m bench fairplay``: honest players of several
strengths and solver-assisted ones, each playing a whole game on a deal with
a secret redeal key through the real engine, with human-like timing.

Honest players (``kind``):

- ``club``: the computer racers' strategy (:func:`server.solver.strategy.choose_move`)
  with a style drawn per player (a seeded tie-break, look-ahead 1 or 2);
- ``noisy``: the same, but 15 % of the time any legal build instead, and a
  redeal taken early (while a build remains) on 5 % of positions;
- ``weak``: look-ahead 1, 30 % any build, 10 % early redeals.

Assisted players:

- ``assisted``: the one-layout solver's line in every layout, then the redeal
  (what a script reading its own board and asking ``server.solver`` plays);
- ``every-second``: the solver's move on every second move, the club
  strategy on the others;
- ``after-redeals``: the club strategy in the first layout, the solver's
  line in every layout a redeal lays out.

Timing (the same distribution for everyone — the bench checks that the
solver signals alone separate them): the gap before each move is
log-normal, median :data:`GAP_MEDIAN_MS` with σ :data:`GAP_SIGMA` (fitted by
eye to the move times of our own play in the terminal client: most moves
1–3 s apart, a long tail of thinking); a foundation move right after another
is an autoplay-like quick click (log-normal, median 350 ms); the first move
after a redeal adds a reading time (log-normal, median 4 s).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from server.rules import FOUNDATION, REDEAL, Move, Position, RuleSet, apply, deal, legal_moves
from server.solver.solve import solve
from server.solver.strategy import Style, choose_move

__all__ = ["ASSISTED", "HONEST", "KINDS", "Player", "play_race"]

HONEST: Final = ("club", "noisy", "weak")
ASSISTED: Final = ("assisted", "every-second", "after-redeals")
KINDS: Final = HONEST + ASSISTED
GAP_MEDIAN_MS: Final = 1_600
GAP_SIGMA: Final = 0.55
MAX_MOVES: Final = 600


@dataclass(frozen=True, slots=True)
class Player:
    """A simulated player: ``kind`` (module docstring) and ``seed`` (their own
    randomness: style, noise, timing)."""

    kind: str
    seed: int


def _gap(rng: random.Random, quick: bool, after_redeal: bool) -> int:
    if quick:
        return max(120, int(rng.lognormvariate(5.86, 0.35)))  # median ~350 ms
    gap = rng.lognormvariate(7.378, GAP_SIGMA)  # median ~1.6 s
    if after_redeal:
        gap += rng.lognormvariate(8.29, 0.4)  # median ~4 s to read the new layout
    return max(150, int(gap))


def _solver_move(rules: RuleSet, pos: Position, plan: list[Move]) -> Move | None:
    """The next move of the one-layout solver's line (re-planned when ``plan``
    is empty); ``None`` when the line is played out."""
    if not plan:
        res = solve(rules, pos, None, mode="one-layout", max_seconds=2.0, max_nodes=1_000_000)
        plan.extend(res.moves)
    return plan.pop(0) if plan else None


def _honest_move(rules: RuleSet, pos: Position, seen: list[Position], style: Style,
                 rng: random.Random, noise: float, early: float) -> Move | None:
    moves = list(legal_moves(rules, pos))
    ups = [m for m in moves if m.kind == "play" and m.target == FOUNDATION]
    if not ups and noise and rng.random() < noise:
        builds = [m for m in moves if m.kind == "play" and m.target != FOUNDATION]
        fresh = [m for m in builds if apply(rules, pos, m) not in seen]
        if fresh:
            return rng.choice(fresh)
    if not ups and early and rng.random() < early and REDEAL in moves:
        return REDEAL
    return choose_move(rules, pos, seen, style)


def play_race(player: Player, race: int, rules: RuleSet, deal_number: int,
              redeal_key: bytes) -> tuple[list[tuple[str, int]], str]:
    """One game by ``player`` (their ``race``-th): the move log ``[text, race
    clock ms]`` and the final status (``won`` or ``stuck``)."""
    rng = random.Random(f"{player.kind}:{player.seed}:{race}")
    style = Style(random.Random(rng.random()), 1 if player.kind == "weak" else
                  (2 if rng.random() < 0.75 else 1))
    noise, early = {"noisy": (0.15, 0.05), "weak": (0.30, 0.10)}.get(player.kind, (0.0, 0.0))
    pos = deal(rules, deal_number)
    seen = [pos]
    plan: list[Move] = []
    log: list[tuple[str, int]] = []
    clock = 0
    layout = 0
    after_redeal = False
    last_up = False
    for n in range(MAX_MOVES):
        assisted = (player.kind == "assisted"
                    or (player.kind == "every-second" and n % 2 == 1)
                    or (player.kind == "after-redeals" and layout > 0))
        move: Move | None = None
        if assisted:
            move = _solver_move(rules, pos, plan)
            if move is None and pos.redeals_used < rules.redeals:
                move = REDEAL
        else:
            plan.clear()
            move = _honest_move(rules, pos, seen, style, rng, noise, early)
        if move is None:
            break
        up = move.kind == "play" and move.target == FOUNDATION
        clock += _gap(rng, up and last_up, after_redeal)
        log.append((str(move), clock))
        pos = apply(rules, pos, move, redeal_key)
        last_up, after_redeal = up, move == REDEAL
        if move == REDEAL:
            layout += 1
            seen = [pos]
            plan.clear()
        else:
            seen.append(pos)
        if pos.foundation_cards == rules.cards:
            return log, "won"
    return log, "stuck"
