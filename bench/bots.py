"""Computer racers' levels (issue 38): are they ordered, distinct and at a human
pace, and what is each level's rating?

For each of ``deals`` random ``belle-lucie`` deals (a random deal number and a
random **secret** redeal key, as a race room draws them), three bots of each
level (:mod:`server.solver.levels`), each with its own seed, play a whole game
through the real engine (:func:`server.rules.apply` with the key; the bots
never see it), and ``hint``'s line plays it once (:func:`server.solver.hint`
without the key at every move: what a racer who follows the hints plays, at
the club level's pace). Each game keeps its final foundation cards, its moves,
its status and a race clock made of the level's think times
(:func:`server.solver.levels.think_ms`, the default unit of 1,600 ms).

Prints, against the issue's targets:

- mean foundation cards per level, ordered novice < club < expert with each
  gap ≥ 3 cards; wins and stuck endings;
- the share of deals on which the three bots of a level differ in final
  foundation cards or moves (not all three alike; target ≥ 80 %), and the
  stricter share on which all three end differently (no two alike);
- each level's think time per move (median, p90), and the expert's search
  CPU per move (median, p99), spent in the server's solver workers;
- ratings: each deal gives three races (seat ``j`` of each level, and the hint
  line), ranked by rules.md "Race ranking" (cards, reach time, moves) and
  fed, in deal order, to openskill's Plackett–Luce model (the players'
  model, defaults mu 25, sigma 25/3): each level's and the hint line's
  rating mu − 3 sigma, beside the published :data:`~server.solver.levels.RATINGS`.

``quick=True`` or ``deals``: fewer deals (quick: 20).
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Final

from openskill.models import PlackettLuce

from server.rules import RuleSet, apply, deal
from server.rules.ranking import ranking_key
from server.solver import hint
from server.solver.levels import HINT_RATING, LEVELS, RATINGS, BotMind, Level, level_move

__all__ = ["DEALS", "run"]

DEALS: Final = 200
SEATS: Final = 3
UNIT_MS: Final = 1_600
MAX_MOVES: Final = 1_000
_RULES = RuleSet.from_json({"variant": "belle-lucie"})


@dataclass(frozen=True, slots=True)
class Game:
    """One game: final foundation cards, moves, status, reach time (race clock
    of the last foundation change, ms), the pauses (ms), the search CPU (ms)
    of each move."""

    cards: int
    moves: int
    status: str
    reach_ms: int
    pauses: tuple[int, ...]
    cpu_ms: tuple[float, ...]


def play_bot(level: Level, seed: int, number: int, key: bytes) -> Game:
    """A ``level`` bot with ``seed`` plays deal ``number`` (redeal ``key``) to its end."""
    mind = BotMind(level, seed)
    pos = deal(_RULES, number)
    clock = reach = 0
    pauses: list[int] = []
    cpu: list[float] = []
    for _ in range(MAX_MOVES):
        started = time.process_time()
        move = level_move(*mind.ask(_RULES, pos))
        cpu.append(1000 * (time.process_time() - started))
        if move is None:
            break
        pause = mind.pause_ms(move, UNIT_MS)
        pauses.append(pause)
        clock += pause
        mind.played(pos, move)
        before = pos.foundation_cards
        pos = apply(_RULES, pos, move, key)
        if pos.foundation_cards != before:
            reach = clock
    status = "won" if pos.foundation_cards == _RULES.cards else "stuck"
    return Game(pos.foundation_cards, len(pauses), status, reach, tuple(pauses), tuple(cpu))


def play_hints(number: int, key: bytes, seed: int) -> Game:
    """``hint``'s line (no redeal key) on deal ``number``, at the club's pace."""
    mind = BotMind("club", seed)  # its think times only
    pos = deal(_RULES, number)
    clock = reach = moves = 0
    seen = {pos}
    while moves < MAX_MOVES:
        move = hint(_RULES, pos)
        if move is None or (move.kind == "play" and apply(_RULES, pos, move) in seen):
            break  # stuck, or only builds back and forth (not in one deck)
        clock += mind.pause_ms(move, UNIT_MS)
        moves += 1
        before = pos.foundation_cards
        pos = apply(_RULES, pos, move, key)
        seen.add(pos)
        if pos.foundation_cards != before:
            reach = clock
    status = "won" if pos.foundation_cards == _RULES.cards else "stuck"
    return Game(pos.foundation_cards, moves, status, reach, (), ())


def _deal(index: int) -> tuple[int, dict[str, list[Game]]]:
    rng = random.Random(f"bench-bots:{index}")
    number, key = rng.randrange(1, 2**31), rng.randbytes(32)
    games: dict[str, list[Game]] = {
        level: [play_bot(level, rng.getrandbits(63), number, key) for _ in range(SEATS)]
        for level in LEVELS}
    games["hint"] = [play_hints(number, key, rng.getrandbits(63))]
    return index, games


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def _ends(games: list[Game]) -> int:
    """How many different ends (foundation cards, moves) the games have."""
    return len({(g.cards, g.moves) for g in games})


def _ratings(results: list[dict[str, list[Game]]]) -> dict[str, tuple[float, float]]:
    """Each racer kind's (mu, sigma) after the races (module docstring)."""
    model = PlackettLuce()
    kinds = [*LEVELS, "hint"]
    rating = {k: model.rating(name=k) for k in kinds}
    for games in results:
        for seat in range(SEATS):
            field = {k: games[k][0 if k == "hint" else seat] for k in kinds}
            keys = {k: ranking_key(g.cards, g.reach_ms, g.moves) for k, g in field.items()}
            order = sorted(set(keys.values()))
            ranks = [float(order.index(keys[k]) + 1) for k in kinds]
            new = model.rate([[rating[k]] for k in kinds], ranks=ranks)
            rating = {k: team[0] for k, team in zip(kinds, new, strict=True)}
    return {k: (r.mu, r.sigma) for k, r in rating.items()}


def run(quick: bool, deals: int | None = None) -> list[str]:
    """Play, measure and rate (module docstring); the printed lines."""
    n = deals or (20 if quick else DEALS)
    with Pool(2) as pool:
        done = sorted(pool.map(_deal, range(n), chunksize=2))
    results = [games for _, games in done]
    lines = [f"{n} random belle-lucie deals with secret redeal keys; {SEATS} bots of each "
             "level per deal, and hint's line"]
    means: dict[str, float] = {}
    for kind in [*LEVELS, "hint"]:
        games = [g for r in results for g in r[kind]]
        means[kind] = statistics.mean(g.cards for g in games)
        wins = sum(g.status == "won" for g in games) / len(games)
        lines.append(f"{kind:>7}: mean foundation cards {means[kind]:5.1f}, won {wins:6.1%}, "
                     f"moves median {statistics.median(g.moves for g in games):.0f} "
                     f"({len(games)} games)")
    gaps = [means[b] - means[a] for a, b in itertools.pairwise(LEVELS)]
    ordered = all(gap >= 3 for gap in gaps)
    lines.append(f"gaps novice→club {gaps[0]:.1f}, club→expert {gaps[1]:.1f} cards "
                 f"(target: ordered, each >= 3: {'ok' if ordered else 'MISSED'})")
    for level in LEVELS:
        differ = sum(_ends(r[level]) > 1 for r in results) / n
        each = sum(_ends(r[level]) == SEATS for r in results) / n
        lines.append(f"{level:>7}: the {SEATS} bots differ in final cards or moves on "
                     f"{differ:6.1%} of deals (target >= 80 %: "
                     f"{'ok' if differ >= 0.8 else 'MISSED'}); all {SEATS} games differ on "
                     f"{each:6.1%}")
    for level in LEVELS:
        pauses = [float(p) for r in results for g in r[level] for p in g.pauses]
        first = [float(g.pauses[0]) for r in results for g in r[level] if g.pauses]
        med, p90 = statistics.median(pauses) / 1000, _pct(pauses, 90) / 1000
        lines.append(f"{level:>7}: think time per move median {med:.2f} s, p90 {p90:.2f} s "
                     f"(unit {UNIT_MS} ms; first move median "
                     f"{statistics.median(first) / 1000:.2f} s)")
    cpu = [c for r in results for g in r["expert"] for c in g.cpu_ms]
    lines.append(f" expert: search CPU per move median {statistics.median(cpu):.1f} ms, p99 "
                 f"{_pct(cpu, 99):.1f} ms, max {max(cpu):.0f} ms (the server's solver workers)")
    rated = _ratings(results)
    published: dict[str, float] = {**dict(RATINGS.items()), "hint": HINT_RATING}
    for kind, (mu, sigma) in rated.items():
        lines.append(f"{kind:>7}: rating {mu - 3 * sigma:5.1f} (mu {mu:.2f}, sigma {sigma:.2f};"
                     f" published {published[kind]:.1f}) over {SEATS * n} races")
    return lines

