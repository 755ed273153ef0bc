"""Solver figures (issue 7): winnability with known redeals, planned play, lblsolve.

* **known redeals**: ``belle-lucie`` deals 1..1000, redeal key
  :func:`server.solver.default_redeal_key` of the deal, 2 s budget per deal:
  share decided (won or lost), share won, median and p95 time. Target ≥ 98 %
  decided; seed ``001`` reports 98.1 % of deals winnable with the redeal
  shuffle known (ratio given against it).
* **planned play**: :func:`server.solver.play_layouts` (one-layout search in
  each layout, then redeal, as a player must) on deals 1..200 of
  ``belle-lucie`` and ``three-shuffles-and-a-draw`` (200,000 positions per layout); win rate against
  ``lblsolve``'s published ~16 % (no merci) and ~41 % (merci).
* **vs lblsolve**: first-layout foundation count and time of our one-layout
  search against ``python -m lblsolve.cards`` (sobjornstad/lblsolve, run from
  a copy outside the project: ``LBLSOLVE_DIR``, default ``/tmp/lblsolve``;
  skipped when absent) on deals 1..50; ours must be ≥ on every deal and take
  ≤ 1/10 of its time (its own reported search time, both in one run).

``quick=True`` runs a few deals of each (a smoke check of a few seconds) and
skips lblsolve. The deal loops use a pool of 2 processes.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from multiprocessing import Pool
from pathlib import Path

from client_cli.deal_cmd import format_deal
from server.rules import deal, get_variant
from server.solver import default_redeal_key, play_layouts, solve

__all__ = ["LBLSOLVE_WIN_RATE", "PLANNED_NODES", "SEED_001_WINNABLE", "run"]

SEED_001_WINNABLE = 0.981
"""Seed 001: 196,111 of 200,000 deals winnable with the redeal shuffle known."""
LBLSOLVE_WIN_RATE = {"belle-lucie": 0.16, "three-shuffles-and-a-draw": 0.41}
"""lblsolve's published win rates (issue 7), for comparison."""
_WORKERS = 2
PLANNED_NODES = 200_000
"""Node budget per layout of planned play (a node budget keeps the win rate
independent of the machine's load; 30 s per layout is only a safety cap)."""


def _known(number: int) -> tuple[int, str, float]:
    rules = get_variant("belle-lucie")
    res = solve(rules, deal(rules, number), default_redeal_key(number), max_seconds=2.0)
    return number, res.verdict, res.seconds


def _planned(job: tuple[str, int, int]) -> tuple[int, bool, int, float]:
    variant, number, nodes = job
    rules = get_variant(variant)
    played = play_layouts(rules, deal(rules, number), default_redeal_key(number),
                          max_seconds_per_layout=30.0, max_nodes_per_layout=nodes)
    return number, played.won, played.foundation, played.seconds


def _pct(q: list[float], p: float) -> float:
    s = sorted(q)
    return s[min(len(s) - 1, int(p * len(s)))]


def _known_lines(n: int) -> list[str]:
    with Pool(_WORKERS) as pool:
        rows = pool.map(_known, range(1, n + 1), chunksize=4)
    times = [t for _, _, t in rows]
    won = sum(v == "won" for _, v, _ in rows)
    decided = sum(v != "unknown" for _, v, _ in rows)
    undecided = [d for d, v, _ in rows if v == "unknown"]
    return [
        f"known redeals, belle-lucie deals 1..{n}, 2 s/deal: decided {decided / n:.1%} "
        f"(target 98 %), won {won / n:.1%} (ratio {won / n / SEED_001_WINNABLE:.3f} "
        f"against seed 001's 98.1 %), lost {(decided - won) / n:.1%}",
        f"known redeals time per deal: median {statistics.median(times) * 1000:.1f} ms, "
        f"p95 {_pct(times, 0.95) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
        + (f"; undecided deals {undecided[:10]}" if undecided else ""),
    ]


def _planned_lines(n: int, nodes: int = PLANNED_NODES) -> list[str]:
    out = []
    for variant, ref in LBLSOLVE_WIN_RATE.items():
        with Pool(_WORKERS) as pool:
            rows = pool.map(_planned, [(variant, d, nodes) for d in range(1, n + 1)],
                            chunksize=2)
        rate = sum(w for _, w, _, _ in rows) / n
        times = [t for *_, t in rows]
        cards = statistics.mean(f for _, _, f, _ in rows)
        out.append(
            f"planned play (one layout at a time), {variant} deals 1..{n}: won {rate:.1%} "
            f"(lblsolve ~{ref:.0%}; ratio {rate / ref:.2f}), mean {cards:.1f} cards, "
            f"median {statistics.median(times) * 1000:.0f} ms/game, max {max(times):.2f} s"
        )
    return out


_LBL_LEAVING = re.compile(r"leaving (\d+) on the tableau")
_LBL_TIME = re.compile(r"(?:exhausted|solved) in ([0-9.]+)ms")


LBLSOLVE_TIMEOUT = 300.0
"""Seconds after which an lblsolve run is stopped (its count is then unknown)."""


def _lblsolve(lbl_dir: Path, number: int) -> tuple[int | None, float]:
    """lblsolve's first-layout foundation count (``None``: timed out) and its
    reported time (s; the wall time when it timed out)."""
    text = format_deal("belle-lucie", number, "lblsolve") + "\n"
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lblsolve.cards"], input=text, capture_output=True,
            text=True, cwd=lbl_dir, timeout=LBLSOLVE_TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        return None, LBLSOLVE_TIMEOUT
    out = proc.stdout
    m_time = _LBL_TIME.search(out)
    seconds = float(m_time.group(1)) / 1000 if m_time else float("nan")
    if "Game solved" in out:
        return 52, seconds
    m = _LBL_LEAVING.search(out)
    return (52 - int(m.group(1)) if m else 0), seconds


def _lblsolve_lines(n: int) -> list[str]:
    lbl_dir = Path(os.environ.get("LBLSOLVE_DIR", "/tmp/lblsolve"))
    if not (lbl_dir / "lblsolve" / "cards.py").exists():
        return [f"vs lblsolve: skipped (no lblsolve copy at {lbl_dir}; set LBLSOLVE_DIR)"]
    rules = get_variant("belle-lucie")
    ours_t = theirs_t = 0.0
    worse: list[int] = []
    timed_out: list[int] = []
    better = 0
    for number in range(1, n + 1):
        res = solve(rules, deal(rules, number), None, mode="one-layout", max_seconds=10)
        count, seconds = _lblsolve(lbl_dir, number)
        ours_t += res.seconds
        theirs_t += seconds
        if count is None:
            timed_out.append(number)
            continue
        if res.best_foundation < count:
            worse.append(number)
        better += res.best_foundation > count
    return [
        f"vs lblsolve, first layout of belle-lucie deals 1..{n}: ours >= theirs on "
        f"{n - len(worse) - len(timed_out)}/{n} deals (more on {better})"
        + (f", fewer on {worse}" if worse else "")
        + (f"; lblsolve stopped after {LBLSOLVE_TIMEOUT:.0f} s on {timed_out} "
           "(its time counted as that)" if timed_out else ""),
        f"vs lblsolve time: ours {ours_t:.3f} s, theirs {theirs_t:.2f} s "
        f"(ratio {ours_t / theirs_t:.4f}, target <= 0.1)",
    ]


def run(quick: bool) -> list[str]:
    """Solver benchmark lines (module docstring)."""
    lines = _known_lines(20 if quick else 1000)
    lines += _planned_lines(10, 20_000) if quick else _planned_lines(200)
    if not quick:
        lines += _lblsolve_lines(50)
    return lines
