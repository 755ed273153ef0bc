"""Capacity at 1, 2 and 4 processes behind HAProxy (issue 23), on one Redis and on
a Redis Cluster; ``docs/capacity.md`` explains the method and the figures.

For each store and each N, N real ``lucie-server`` processes share the store
(their own key prefix) behind a real ``haproxy`` configured from the shipped
``infra/haproxy.cfg`` (``tests/redis/balancer.py``); every socket and request
goes through HAProxy, whose round robin spreads each room's sockets over the
processes. The load (``bench/_capacity_load.py``) runs in worker processes:

* **human pace**: ``racers`` racers in rooms of 8 (+ 1 spectator per 20),
  one move every 2 s ± 25 %; ack p50/p99 after a warm-up (target p99 ≤ 100
  ms). Then a step search, bounded in time: ×1.5 racers while p99 ≤ 100 ms
  (÷1.5 while it is over) — the most racers held at p99 ≤ 100 ms;
* **full speed**: 200 racers in 25 rooms, a move as soon as the last ack came
  (``bench/redis.py``'s load) → moves/s and ack p99;
* **CPU per move** over the full-speed phase: Redis (``INFO cpu``
  ``used_cpu_sys + used_cpu_user``, summed over every node), the servers and
  HAProxy (``/proc``), the generator (its workers' ``getrusage``), in µs;
* **scaling efficiency**: moves/s at N ÷ (N × moves/s at 1); and by CPU per
  move (servers + HAProxy + Redis at 1 ÷ at N), what it would be with a core
  per process — the steadier of the two on a shared machine.

The cluster rows need ``infra.redis_cluster.LocalRedisCluster`` (3 masters, 1
replica each); without it they are skipped with a message. Load averages and
``nproc`` are printed: on a small machine the generator, HAProxy and Redis
share the servers' cores, so the ratios say more than the absolute figures.

``python -m bench capacity`` runs both stores (``--quick``: 1 and 2 processes, one store
for both, a few seconds each);
``python -m bench.capacity [--quick] [--backend redis cluster] [--processes 1 2 4]``
chooses.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import redis

from bench._capacity_load import Pace, Seat, children_cpu_s, full_speed, human_pace, setup
from bench._capacity_report import TARGET_P99_MS, Row, projection, row_line, table
from bench.redis import ENV as RATE_LIMITS
from bench.redis import _cpu_s, _private_redis
from bench.server import _stop
from infra.load.servers import LOAD_LIMITS
from tests.redis.balancer import Balancer, haproxy_binary
from tests.redis.cluster import Cluster as ServerGroup

__all__ = ["BACKENDS", "QUICK", "Config", "Row", "main", "measure", "run", "table"]

BACKENDS = ("redis", "cluster")
SERVER_ENV = {**LOAD_LIMITS, **RATE_LIMITS, "LUCIE_TICK_MS": "250"}


@dataclass(frozen=True)
class Config:
    """How much load, for how long (every phase is bounded in time)."""

    processes: tuple[int, ...] = (1, 2, 4)
    racers: int = 800
    step: float = 1.5
    max_racers: int = 6000
    search_s: float = 60.0
    warmup_s: float = 3.0
    seconds: float = 12.0
    full_racers: int = 200
    full_seconds: float = 8.0
    workers: int = field(default_factory=lambda: max(2, min(8, (os.cpu_count() or 2) // 2)))
    fresh_store: bool = True


QUICK = Config(processes=(1, 2), racers=48, search_s=0.0, warmup_s=1.0, seconds=3.0,
               full_racers=48, full_seconds=2.0, fresh_store=False)
"""The smoke check: 1 and 2 processes on one store, no search, a few seconds each."""


def _redis_cpu_s(ports: list[int]) -> list[float]:
    """CPU seconds (``used_cpu_sys + used_cpu_user``) of each node so far."""
    out = []
    for port in ports:
        with redis.Redis(port=port) as client:
            cpu = client.info("cpu")
        out.append(float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"]))
    return out


@contextlib.contextmanager
def _store(backend: str) -> Iterator[tuple[str, list[int]]]:
    """``(URL for the servers, every node's port)`` of a private store."""
    if backend == "redis":
        workdir = Path(tempfile.mkdtemp(prefix="lucie-bench-capacity-"))
        proc, port = _private_redis(workdir)
        try:
            yield f"redis://127.0.0.1:{port}/0", [port]
        finally:
            _stop(proc)
            shutil.rmtree(workdir, ignore_errors=True)
        return
    from infra.redis_cluster import LocalRedisCluster

    cluster = LocalRedisCluster(masters=3, replicas=1)
    try:
        cluster.start()
        yield cluster.url, list(cluster.ports)
    finally:
        cluster.stop()


def _search(lb_ws: str, url: str, seats: list[Seat], first: Pace, cfg: Config,
            steps: list[Pace]) -> int:
    """The most racers (of the levels tried) held at p99 ≤ 100 ms, 0 if none;
    up ×step while it holds, else down ÷step, within ``cfg.search_s``."""
    def holds(p: Pace) -> bool:
        return p.p99_ms <= TARGET_P99_MS and not p.errors

    held = first.racers if holds(first) else 0
    up, level = holds(first), first.racers
    deadline = time.monotonic() + cfg.search_s
    while time.monotonic() < deadline:
        level = int(level * cfg.step) if up else int(level / cfg.step)
        if not 8 <= level <= cfg.max_racers:
            break
        if level > len(seats):
            seats += setup(url, level - len(seats), 5000 + len(seats))
        step = human_pace(lb_ws, seats[:level], warmup=cfg.warmup_s, seconds=cfg.seconds,
                          workers=cfg.workers)
        steps.append(step)
        if holds(step) != up:
            return level if holds(step) else held
        held = level if up else held
    return held


def _measure_n(backend: str, store_url: str, nodes: list[int], n: int,
               cfg: Config) -> Row:
    group = ServerGroup(n, redis_url=store_url, **SERVER_ENV)
    try:
        lb = Balancer(group.urls)
        try:
            ws = lb.url.replace("http", "ws")
            load0 = os.getloadavg()[0]
            seats = setup(lb.url, cfg.racers, 1000)
            pace = human_pace(ws, seats, warmup=cfg.warmup_s, seconds=cfg.seconds,
                              workers=cfg.workers)
            steps: list[Pace] = []
            held = _search(ws, lb.url, seats, pace, cfg, steps)
            fast = setup(lb.url, cfg.full_racers, 20000)
            watched = [*group.procs, lb.proc]
            cpu0, redis0, gen0 = [_cpu_s(p.pid) for p in watched], _redis_cpu_s(nodes), \
                children_cpu_s()
            before = lb.stats()
            rate, p50, p99, moves = full_speed(ws, fast, seconds=cfg.full_seconds,
                                               workers=cfg.workers)
            cpu = [(_cpu_s(p.pid) - c) / max(1, moves) * 1e6
                   for p, c in zip(watched, cpu0, strict=True)]
            per_node = [(t - t0) / max(1, moves) * 1e6
                        for t, t0 in zip(_redis_cpu_s(nodes), redis0, strict=True)]
            gen_us = (children_cpu_s() - gen0) / max(1, moves) * 1e6
            after = lb.stats()  # the full-speed sockets each process got
            sockets = [int(after[k]["stot"]) - int(before[k]["stot"]) for k in lb.names]
        finally:
            lb.stop()
    finally:
        with contextlib.suppress(redis.RedisError):  # the store is thrown away anyway
            group.stop()
    for folder in (lb.dir, group.logdir):  # their logs are kept only when a run fails
        shutil.rmtree(folder, ignore_errors=True)
    return Row(backend, n, pace, steps, held, rate, p50, p99, moves, sum(per_node),
               max(per_node), sum(cpu[:-1]), cpu[-1], gen_us, sockets,
               (load0, os.getloadavg()[0]))


def measure(backend: str, cfg: Config) -> list[Row]:
    """Every N of ``cfg.processes`` on a private store of ``backend`` (a fresh one
    for each N unless ``cfg.fresh_store`` is false)."""
    if not cfg.fresh_store:
        with _store(backend) as (url, nodes):
            return [_measure_n(backend, url, nodes, n, cfg) for n in cfg.processes]
    rows = []
    for n in cfg.processes:
        with _store(backend) as (url, nodes):
            rows.append(_measure_n(backend, url, nodes, n, cfg))
    return rows


def run(quick: bool, backends: tuple[str, ...] = BACKENDS,
        processes: tuple[int, ...] | None = None) -> list[str]:
    """Both stores (the cluster's rows when ``infra.redis_cluster`` exists)."""
    cfg = QUICK if quick else Config()
    if processes:
        cfg = replace(cfg, processes=processes)
    haproxy = subprocess.run(["sh", "-c", "haproxy -v 2>/dev/null || /usr/sbin/haproxy -v"],
                             capture_output=True, text=True).stdout.split("\n")[0]
    lines = [f"machine: nproc {os.cpu_count()}, load average "
             f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} at the start; {haproxy}; "
             f"generator: {cfg.workers} worker processes"]
    rows: list[Row] = []
    if haproxy_binary() is None:
        return [*lines, "skipped: haproxy is not installed (scripts/ensure-tools.sh)"]
    for backend in backends:
        if backend == "cluster":
            try:
                import infra.redis_cluster  # noqa: F401
            except ImportError:
                lines.append("cluster: skipped — Redis Cluster support is not installed "
                             "(infra/redis_cluster.py is missing)")
                continue
        got = measure(backend, cfg)
        rows += got
        lines += [row_line(r, got) for r in got]
    lines += table(rows)
    lines += projection([r for r in rows if r.backend == "redis"])
    lines += projection([r for r in rows if r.backend == "cluster"])
    lines.append(f"load average at the end: {'/'.join(f'{x:.1f}' for x in os.getloadavg())}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.capacity``: choose stores and process counts."""
    parser = argparse.ArgumentParser(prog="python -m bench.capacity", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs (smoke check)")
    parser.add_argument("--backend", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--processes", nargs="+", type=int, default=None)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    for line in run(args.quick, tuple(args.backend), tuple(args.processes or ())):
        print(line, flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
