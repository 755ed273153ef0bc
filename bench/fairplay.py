"""Fair-play assessment (issue 32): does it flag solver-assisted players and
leave honest ones alone, and what does it cost?

Simulated players (:mod:`bench._fairplay_players`: honest ``club``, ``noisy``
and ``weak`` players; ``assisted`` ones playing the one-layout solver's line,
and partly assisted ``every-second`` and ``after-redeals`` ones), all with
the same human-like timing, each race a random deal (``belle-lucie``) with a
random secret redeal key, played through the real engine and solver. Every
race is assessed (:func:`server.fairplay.signals.race_signals`, one process
per core), and each player judged after 10 races
(:func:`server.fairplay.verdict.judge_player`, the table's thresholds).

Prints, per kind, the share of players reaching ``review`` (and
``likely_assisted``), against the targets: fully assisted ≥ 95 %, partly
assisted ≥ 60 % (both partial kinds together), honest ≤ 1 %; and the
assessment's CPU per racer per race (median, p99; target median ≤ 1 s),
which the server spends in its solver worker processes, never on the event
loop. The thresholds were set on a separate calibration run (other seeds).

``quick=True``: 10 honest players and 5 of each assisted kind per kind.
"""

from __future__ import annotations

import random
import statistics
from multiprocessing import Pool

from server.fairplay.signals import RaceSignals, race_signals
from server.fairplay.verdict import judge_player
from server.rules import RuleSet

from ._fairplay_players import ASSISTED, HONEST, KINDS, Player, play_race

__all__ = ["RACES", "run"]

RACES = 10
"""Races per player before their verdict is read."""
_RULES = RuleSet.from_json({"variant": "belle-lucie"})


def _race(job: tuple[str, int, int]) -> tuple[str, int, RaceSignals]:
    kind, seed, race = job
    rng = random.Random(f"bench-fairplay:{kind}:{seed}:{race}")
    number, key = rng.randrange(1, 2**31), rng.randbytes(32)
    log, status = play_race(Player(kind, seed + 1_000_000), race, _RULES, number, key)
    return kind, seed, race_signals(_RULES, number, key, log, status=status)


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def run(quick: bool) -> list[str]:
    """Simulate, assess and judge (module docstring); the printed lines."""
    players = {kind: (10 if quick else 100) if kind in HONEST else (5 if quick else 40)
               for kind in KINDS}
    jobs = [(kind, seed, race) for kind in KINDS for seed in range(players[kind])
            for race in range(RACES)]
    with Pool(2) as pool:
        done = pool.map(_race, jobs, chunksize=8)
    games: dict[tuple[str, int], list[RaceSignals]] = {}
    for kind, seed, signals in done:
        games.setdefault((kind, seed), []).append(signals)
    reached: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for (kind, _), races in games.items():
        reached[kind].append(judge_player(races).verdict)
    lines = [f"{len(jobs)} races: {sum(players[k] for k in HONEST)} honest players, "
             f"{sum(players[k] for k in ASSISTED)} assisted, {RACES} races each"]

    def share(kinds: tuple[str, ...], verdicts: tuple[str, ...]) -> float:
        got = [v for k in kinds for v in reached[k]]
        return sum(v in verdicts for v in got) / len(got)

    flagged = ("review", "likely_assisted")
    for kind in KINDS:
        lines.append(f"{kind:>14}: review or worse {share((kind,), flagged):6.1%}, "
                     f"likely_assisted {share((kind,), ('likely_assisted',)):6.1%} "
                     f"({len(reached[kind])} players)")
    full, partial = share(("assisted",), flagged), share(("every-second", "after-redeals"),
                                                         flagged)
    honest = share(HONEST, flagged)
    lines.append(f"fully assisted reaching review {full:.1%} (target >= 95 %: "
                 f"{'ok' if full >= 0.95 else 'MISSED'})")
    lines.append(f"partly assisted reaching review {partial:.1%} (target >= 60 %: "
                 f"{'ok' if partial >= 0.60 else 'MISSED'})")
    lines.append(f"honest reaching review {honest:.1%} (target <= 1 %: "
                 f"{'ok' if honest <= 0.01 else 'MISSED'})")
    cpu = [s.cpu_ms for _, _, s in done]
    med = statistics.median(cpu)
    lines.append(f"assessment CPU per racer per race: median {med:.0f} ms, p99 "
                 f"{_pct(cpu, 99):.0f} ms, max {max(cpu):.0f} ms (target median <= 1000 ms: "
                 f"{'ok' if med <= 1000 else 'MISSED'}; in the solver workers, never on the "
                 "event loop)")
    return lines
