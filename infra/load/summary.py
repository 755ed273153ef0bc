"""Turn a Locust CSV report and server samples into one capacity-table row.

:func:`read_stats` reads ``<prefix>_stats.csv``; :func:`summarize` combines
the move rows (``WS move (…)``) with the server processes' CPU and memory
samples (:class:`infra.load.servers.Sample`); :func:`markdown_table` prints
rows the way docs/capacity.md's table shows them.
"""

from __future__ import annotations

import csv
import os
import platform
from collections.abc import Iterable, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from .servers import Sample

__all__ = ["machine", "markdown_table", "read_stats", "summarize"]

_MB = 1024 * 1024


def read_stats(path: Path) -> list[dict[str, str]]:
    """The rows of a Locust ``*_stats.csv`` (the ``Aggregated`` row included)."""
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _num(row: dict[str, str], key: str) -> float:
    value = row.get(key, "")
    return float(value) if value not in ("", "N/A") else 0.0


def machine() -> str:
    """This machine in one line: CPU model, cores, memory, Python."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import psutil

    mem = psutil.virtual_memory().total / 1024**3
    return (f"{model}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, "
            f"Python {platform.python_version()}, {platform.system()} {platform.release()}")


def summarize(profile: str, stats: Sequence[dict[str, str]], samples: Sequence[list[Sample]],
              *, steady_from: float, baseline_rss: Sequence[int], racers: int,
              connections: int, load_cpu: float | None = None,
              machine_cpu: Sequence[tuple[float, float]] = ()) -> dict[str, Any]:
    """One row: moves, ack latency percentiles, failures, server CPU and memory.

    ``samples`` per server process; only those at or after ``steady_from``
    (monotonic time) count for CPU. Memory per connection is the growth of
    resident memory over ``baseline_rss`` divided by ``connections``.
    ``machine_cpu``: ``(time, CPU % of the machine)`` samples; what neither
    the server nor the load generator used is reported as ``other_cpu_percent``
    (other programs on a shared machine compete with the server).
    """
    moves = [r for r in stats if r["Name"].startswith("move")]
    human = next((r for r in moves if r["Name"] == "move (human)"), None)
    ref = human or (moves[0] if moves else None)
    total = next((r for r in stats if r["Name"] == "Aggregated"), None)
    steady = [[s for s in proc if s.at >= steady_from] or proc[-1:] for proc in samples]
    cpu = [fmean(s.cpu_percent for s in proc) if proc else 0.0 for proc in steady]
    peak_rss = [max((s.rss for s in proc), default=0) for proc in samples]
    end_rss = [proc[-1].rss if proc else 0 for proc in samples]
    grown = sum(end_rss) - sum(baseline_rss)
    busy = [c for t, c in machine_cpu if t >= steady_from]
    machine_mean = fmean(busy) if busy else None
    other = (None if machine_mean is None
             else max(0.0, machine_mean - sum(cpu) - (load_cpu or 0.0)))
    return {
        "profile": profile,
        "processes": len(samples),
        "racers": racers,
        "connections": connections,
        "moves": int(sum(_num(r, "Request Count") for r in moves)),
        "moves_per_s": round(sum(_num(r, "Requests/s") for r in moves), 1),
        "move_failures": int(sum(_num(r, "Failure Count") for r in moves)),
        "requests": int(_num(total, "Request Count")) if total else 0,
        "failures": int(_num(total, "Failure Count")) if total else 0,
        "p50_ms": _num(ref, "50%") if ref else None,
        "p95_ms": _num(ref, "95%") if ref else None,
        "p99_ms": _num(ref, "99%") if ref else None,
        "max_ms": _num(ref, "Max Response Time") if ref else None,
        "server_cpu_percent": [round(c) for c in cpu],
        "server_rss_mb": [round(r / _MB) for r in peak_rss],
        "server_open_files": [max((s.fds for s in proc), default=0) for proc in samples],
        "baseline_rss_mb": [round(r / _MB) for r in baseline_rss],
        "kb_per_connection": round(grown / 1024 / connections, 1) if connections else None,
        "load_cpu_percent": None if load_cpu is None else round(load_cpu),
        "machine_cpu_percent": None if machine_mean is None else round(machine_mean),
        "other_cpu_percent": None if other is None else round(other),
        "machine": machine(),
    }


_HEAD = ("| profile | racers held | moves/s | ack p50 / p95 / p99 (ms) | failures "
         "| server CPU | server RSS (MB) | memory / connection | load gen. CPU | other CPU |\n"
         "|---|---|---|---|---|---|---|---|---|---|")


def markdown_table(rows: Iterable[dict[str, Any]]) -> str:
    """The rows as docs/capacity.md's table (Markdown)."""
    lines = [_HEAD]
    for r in rows:
        lat = ("–" if r["p50_ms"] is None or not r["moves"]
               else f"{r['p50_ms']:.0f} / {r['p95_ms']:.0f} / {r['p99_ms']:.0f}")
        cpu = " + ".join(f"{c}%" for c in r["server_cpu_percent"])
        rss = " + ".join(str(m) for m in r["server_rss_mb"])
        per = "–" if r["kb_per_connection"] is None else f"{r['kb_per_connection']:.0f} KB"
        lines.append(f"| {r['profile']} ({r['processes']} proc) | {r['racers']} "
                     f"| {r['moves_per_s']} | {lat} | {r['failures']} / {r['requests']} "
                     f"| {cpu} | {rss} | {per} | {_pct(r.get('load_cpu_percent'))} "
                     f"| {_pct(r.get('other_cpu_percent'))} |")
    return "\n".join(lines)


def _pct(value: object) -> str:
    return "–" if value is None else f"{value}%"
