"""The figures of ``bench/capacity.py``: one line per row, the Markdown table of
``docs/capacity.md``, and the projection to a larger machine.

**Projection.** Every move's events go to every process that has a socket in
the room, so the servers' and Redis's CPU per move grow with the number of
processes a room spans (≤ 8, its racers). Both are fitted over the measured
N as ``a + b × (span − 1)`` (least squares). A machine of ``cores`` cores
running the servers, HAProxy and the store (the clients are elsewhere) does
``cores`` ÷ (their CPU per move) moves/s, unless one Redis thread — the
single Redis, or the cluster's busiest node — runs out first. Human-pace
racers: the fraction of full speed at which the 1-process row still held p99
≤ 100 ms, times 2 s per move.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass

from bench._capacity_load import PER_ROOM, PERIOD_S, Pace

__all__ = ["TARGET_P99_MS", "Row", "projection", "row_line", "table"]

TARGET_P99_MS = 100.0


@dataclass
class Row:
    """One store × N: the human-pace run, the search, the full-speed run (CPU in
    µs per accepted move over the full-speed run; Redis: all nodes, and the
    busiest one)."""

    backend: str
    processes: int
    pace: Pace
    steps: list[Pace]
    held: int
    rate: float
    p50_ms: float
    p99_ms: float
    moves: int
    redis_us: float
    redis_max_us: float
    server_us: float
    haproxy_us: float
    generator_us: float
    sockets: list[int]
    load: tuple[float, float]

    def efficiency(self, one: Row | None) -> float | None:
        """moves/s here ÷ (N × moves/s at 1 process on the same store)."""
        return self.rate / (self.processes * one.rate) if one else None

    def cpu_efficiency(self, one: Row | None) -> float | None:
        """CPU per move (servers + HAProxy + Redis) at 1 process ÷ at N: the scaling
        efficiency where each process has its own core — unlike moves/s, steady
        on a shared machine."""
        if one is None:
            return None
        return _serving_us(one) / _serving_us(self)

    def share(self) -> float:
        """The part of the machine's CPU this run's processes used at full speed."""
        us = self.redis_us + self.server_us + self.haproxy_us + self.generator_us
        return us * self.rate / 1e6 / (os.cpu_count() or 1)

    def tried(self) -> int:
        return max([self.pace.racers, *(s.racers for s in self.steps)])


def _serving_us(row: Row) -> float:
    return row.server_us + row.haproxy_us + row.redis_us


def _one(rows: list[Row], row: Row) -> Row | None:
    return next((r for r in rows if r.backend == row.backend and r.processes == 1), None)


def _redis(row: Row) -> str:
    if row.redis_max_us >= row.redis_us - 0.5:
        return f"{row.redis_us:.0f}"
    return f"{row.redis_us:.0f} (busiest node {row.redis_max_us:.0f})"


def row_line(row: Row, rows: list[Row]) -> str:
    """Every figure of ``row``, on one line."""
    p = row.pace
    eff = row.efficiency(_one(rows, row))
    search = ", ".join(f"{s.racers}: p99 {s.p99_ms:.0f}" for s in row.steps) or "not run"
    return (f"{row.backend} × {row.processes}: human pace {p.racers} racers "
            f"(+{p.spectators} spectators) {p.rate:,.0f} moves/s, ack p50 {p.p50_ms:.1f} / "
            f"p99 {p.p99_ms:.1f} ms, {p.errors} refused, {p.late_sends} moves sent late; "
            f"search [{search}] → held {row.held:,} at p99 ≤ {TARGET_P99_MS:.0f} ms; "
            f"full speed {row.rate:,.0f} moves/s ({row.rate / row.processes:,.0f} per "
            f"process), p50 {row.p50_ms:.1f} / p99 {row.p99_ms:.1f} ms"
            + (f", scaling efficiency {eff:.2f} (by CPU per move "
               f"{row.cpu_efficiency(_one(rows, row)):.2f})" if eff is not None else "")
            + f"; CPU µs/move: Redis {_redis(row)}, servers {row.server_us:.0f}, "
            f"HAProxy {row.haproxy_us:.0f}, generator {row.generator_us:.0f} — "
            f"{row.share():.0%} of the machine; full-speed sockets per process "
            f"{'/'.join(map(str, row.sockets))}; load {row.load[0]:.1f} → {row.load[1]:.1f}")


def table(rows: list[Row]) -> list[str]:
    """The Markdown table of ``docs/capacity.md``."""
    out = ["| store | processes | human pace: racers, ack p50 / p99 (ms) | most racers at "
           "p99 ≤ 100 ms (most tried) | full speed: moves/s (per process), ack p99 (ms) | "
           "scaling efficiency: moves/s (CPU per move) | CPU µs/move: Redis / servers / "
           "HAProxy / generator | share of the machine's CPU | load avg |",
           "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        eff, cpu_eff = row.efficiency(_one(rows, row)), row.cpu_efficiency(_one(rows, row))
        out.append(
            f"| {'one Redis' if row.backend == 'redis' else 'cluster (3+3)'} | "
            f"{row.processes} | {row.pace.racers:,}: {row.pace.p50_ms:.0f} / "
            f"{row.pace.p99_ms:.0f} | {row.held:,} ({row.tried():,}) | {row.rate:,.0f} "
            f"({row.rate / row.processes:,.0f}), {row.p99_ms:.0f} | "
            f"{'–' if eff is None else f'{eff:.2f} ({cpu_eff:.2f})'} | {_redis(row)} / "
            f"{row.server_us:.0f} / {row.haproxy_us:.0f} / {row.generator_us:.0f} | "
            f"{row.share():.0%} | {row.load[0]:.1f}–{row.load[1]:.1f} |")
    return out


def _fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """``(a, b)`` of ``a + b × (span − 1)`` by least squares (``b = 0`` from one N)."""
    xs = [min(n, PER_ROOM) - 1 for n, _ in points]
    ys = [y for _, y in points]
    if len(set(xs)) < 2:
        return statistics.fmean(ys), 0.0
    slope, intercept = statistics.linear_regression(xs, ys)
    return intercept, max(0.0, slope)


def projection(rows: list[Row], cores: int = 16) -> list[str]:
    """On paper: ``cores`` cores running the servers, HAProxy and the store."""
    one = next((r for r in rows if r.processes == 1), None)
    if one is None or one.rate <= 0:
        return []
    a, b = _fit([(r.processes, r.server_us) for r in rows])
    c, d = _fit([(r.processes, r.redis_us) for r in rows])
    e, f = _fit([(r.processes, r.redis_max_us) for r in rows])
    lb = statistics.fmean(r.haproxy_us for r in rows)
    out = [f"{one.backend}: fitted over N = {', '.join(str(r.processes) for r in rows)}, "
           f"µs/move: servers ≈ {a:.0f} + {b:.0f} × (processes a room spans − 1), Redis ≈ "
           f"{c:.0f} + {d:.0f} × (…) (busiest node {e:.0f} + {f:.0f} × …), HAProxy ≈ {lb:.0f}"]
    share = one.held / PERIOD_S / one.rate
    about = "≥" if one.held >= one.tried() else "≈"
    for label, span in (("round robin, a room on 8 processes", PER_ROOM),
                        ("room-sticky balancing, a room on 1 process", 1)):
        server, store, busiest = a + b * (span - 1), c + d * (span - 1), e + f * (span - 1)
        moves = cores * 1e6 / (server + lb + store)
        bound = "the cores"
        if 1e6 / busiest < moves:
            moves = 1e6 / busiest
            bound = "Redis's one thread" if one.backend == "redis" else "the busiest node"
        out.append(f"{cores} cores, {label}: {server:,.0f} + {lb:.0f} + {store:.0f} µs/move "
                   f"(servers, HAProxy, Redis) → ≈ {moves:,.0f} moves/s, bound by {bound} "
                   f"(servers {moves * server / 1e6:.1f} cores, HAProxy {moves * lb / 1e6:.1f}"
                   f", Redis {moves * store / 1e6:.1f}); {about} "
                   f"{moves * share * PERIOD_S:,.0f} human-pace racers at {share:.0%} of "
                   f"full speed (where 1 process held p99 ≤ 100 ms here)")
    return out
