"""Rules engine speed (issue 2): checked moves, move generation, random playouts, deals.

Figures, all on one core, each also given as a ratio against a baseline
measured in the same run — ``list(cards)`` of a 52-card list, the cheapest
"touch every card once" operation in pure Python:

* **check + apply**: :func:`server.rules.apply` (it checks legality and
  builds the new position; the server's path for every move) on moves
  sampled from random play, redeals included; median µs per move over
  batches, and moves/s. Target ≥ 100,000 checked moves/s.
* **is_legal** alone on the same moves.
* **legal moves**: ``list(legal_moves(...))`` per position of random play.
* **random playouts**: deal, then random legal moves (redeals and merci
  included) until won or stuck (at most 500 moves), games/s per variant.
  Target ≥ 1,000 full random games/s (``belle-lucie``).
* **deals**: :func:`server.rules.deal` per second.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from server.rules import (
    VARIANTS,
    Move,
    Position,
    RuleSet,
    apply,
    deal,
    get_variant,
    is_legal,
    legal_moves,
)

__all__ = ["MOVES_TARGET", "PLAYOUTS_TARGET", "apply_median_us", "run"]

MOVES_TARGET = 100_000
"""Checked moves per second the engine must reach (issue 2)."""
PLAYOUTS_TARGET = 1_000
"""Full random games per second the engine must reach (issue 2, ``belle-lucie``)."""

_KEY = bytes(range(32))
_MAX_MOVES = 500


def _median_per_op(body: Callable[[], int], batches: int) -> float:
    """Median seconds per operation; ``body`` runs one batch and returns its op count."""
    per_op = []
    for _ in range(batches):
        t0 = time.perf_counter()
        ops = body()
        per_op.append((time.perf_counter() - t0) / ops)
    return statistics.median(per_op)


def _baseline(batches: int) -> float:
    cards = list(range(52))

    def body() -> int:
        for _ in range(20_000):
            list(cards)
        return 20_000

    return _median_per_op(body, batches)


def playout(rules: RuleSet, deal_number: int, rng: random.Random) -> int:
    """One full random game through the engine; returns the number of moves."""
    pos = deal(rules, deal_number)
    for n in range(_MAX_MOVES):
        moves = list(legal_moves(rules, pos))
        if not moves:
            return n
        pos = apply(rules, pos, moves[rng.randrange(len(moves))], _KEY)
    return _MAX_MOVES


def _sample(rules: RuleSet, games: int, rng: random.Random) -> list[tuple[Position, Move]]:
    """(position, legal move) pairs met in random play."""
    out: list[tuple[Position, Move]] = []
    for g in range(games):
        pos = deal(rules, 1 + g)
        for _ in range(_MAX_MOVES):
            moves = list(legal_moves(rules, pos))
            if not moves:
                break
            move = moves[rng.randrange(len(moves))]
            out.append((pos, move))
            pos = apply(rules, pos, move, _KEY)
    return out


def _median_single(sample: list[tuple[Position, Move]], rules: RuleSet) -> float:
    """Median seconds of one ``apply`` call, timed one by one (timer cost removed)."""
    clock = time.perf_counter_ns
    empty = []
    for _ in range(len(sample)):
        t0 = clock()
        empty.append(clock() - t0)
    times = []
    for pos, move in sample:
        t0 = clock()
        apply(rules, pos, move, _KEY)
        times.append(clock() - t0)
    return max(statistics.median(times) - statistics.median(empty), 0) / 1e9


def apply_median_us(games: int = 20) -> float:
    """Median µs of one checked move (:func:`server.rules.apply`) over the
    moves of ``games`` random games: the ``check + apply per move`` figure, and
    a quick gauge of how fast this machine runs the server's Python now."""
    rules = get_variant("belle-lucie")
    return _median_single(_sample(rules, games, random.Random(20261130)), rules) * 1e6


def _playout_line(rules: RuleSet, games: int, base: float, rng: random.Random) -> str:
    numbers = iter(range(1, 10**9))
    total_moves = 0

    def playouts() -> int:
        nonlocal total_moves
        for _ in range(games // 3):
            total_moves += playout(rules, next(numbers), rng)
        return games // 3

    per_game = _median_per_op(playouts, 3)
    avg = total_moves / (3 * (games // 3))
    line = f"random playouts {rules.id}: {_fmt(per_game, base, 'µs/game')}, {avg:.0f} moves/game"
    if rules.id == "belle-lucie":
        verdict = "met" if 1 / per_game >= PLAYOUTS_TARGET else "MISSED"
        line += f"; target ≥{PLAYOUTS_TARGET:,}/s {verdict}"
    return line


def _fmt(per_op: float, base: float, unit: str = "µs") -> str:
    return f"{per_op * 1e6:.2f} {unit} ({1 / per_op:,.0f}/s; {per_op / base:.1f}× baseline)"


def run(quick: bool) -> list[str]:
    """Measure and return the result lines (see the module docstring)."""
    batches = 3 if quick else 9
    rng = random.Random(20261130)
    rules = get_variant("belle-lucie")
    _baseline(1)  # warm-up
    base = _baseline(9)
    lines = [f"baseline list(52 cards): {base * 1e9:.0f} ns"]

    sample = _sample(rules, 20 if quick else 200, rng)

    def check_apply() -> int:
        for pos, move in sample:
            apply(rules, pos, move, _KEY)
        return len(sample)

    def legal_only() -> int:
        for pos, move in sample:
            is_legal(rules, pos, move)
        return len(sample)

    positions = [pos for pos, _ in sample]

    def generate() -> int:
        for pos in positions:
            list(legal_moves(rules, pos))
        return len(positions)

    per_move = _median_per_op(check_apply, batches)
    verdict = "met" if 1 / per_move >= MOVES_TARGET else "MISSED"
    single = _median_single(sample, rules)
    lines.append(f"check + apply per move: median {single * 1e6:.2f} µs; "
                 f"throughput {_fmt(per_move, base)}; target ≥{MOVES_TARGET:,}/s {verdict}")
    plays = [(pos, move) for pos, move in sample if move.kind == "play"]

    def check_apply_plays() -> int:
        for pos, move in plays:
            apply(rules, pos, move, _KEY)
        return len(plays)

    lines.append(f"check + apply, plays only (no redeal): "
                 f"{_fmt(_median_per_op(check_apply_plays, batches), base)}")
    lines.append(f"is_legal per move: {_fmt(_median_per_op(legal_only, batches), base)}")
    lines.append(f"legal moves per position: {_fmt(_median_per_op(generate, batches), base)}")

    games = 30 if quick else 300
    for variant in VARIANTS:
        lines.append(_playout_line(get_variant(variant), games, base, rng))
        if quick:
            break

    numbers = iter(range(1, 10**9))
    big = iter(range(10**19, 10**20))

    def deals() -> int:
        for _ in range(1000):
            deal(rules, next(numbers))
        return 1000

    def big_deals() -> int:
        for _ in range(1000):
            deal(rules, next(big))
        return 1000

    lines.append(f"deals (MS, < 32000): {_fmt(_median_per_op(deals, batches), base)}")
    lines.append(f"deals (Mersenne Twister): {_fmt(_median_per_op(big_deals, batches), base)}")
    return lines
