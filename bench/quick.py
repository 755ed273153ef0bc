"""Quick-race matchmaking (issue 21): ``POST /api/v1/quick`` against two
``lucie-server`` processes sharing one private Redis (free port, no
persistence), as a crowd pressing "Quick race" at once.

Two load-generator processes (forked) keep ``CALLERS`` callers each busy:
every caller takes a seat (a new anonymous name each time), alternating
between the two servers, for the timed run. Every seat is a real join into
the forming lobby of its band (all anonymous here: one band), so lobbies fill
one after another and start as they fill. Figures: quick-race joins/s, join
latency p50/p99 (from the caller, over HTTP), lobbies formed per join (1/6
when every lobby filled), the servers' and Redis's CPU per join and the Redis
commands per join (``INFO commandstats``, script internals included).

On a small machine the servers, Redis and the load generator share cores, so
the figures are a floor. A second, light run (a few callers) gives the latency
of a join that hardly waits. ``quick=True`` runs 2 s (else 10 s).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import secrets
import shutil
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import redis

from bench.redis import ENV, SERVER, _commandstats, _cpu_s, _private_redis
from bench.server import _ports, _spawn, _stop

__all__ = ["run"]

CALLERS = 64
"""Concurrent callers per load-generator process (two of them): saturation."""
LIGHT = 4
"""… in the light-load run: the latency of a join that hardly waits."""
QUICK_ENV = ENV | {"LUCIE_JOIN_PER_MIN": "100000000", "LUCIE_JOIN_BURST": "100000000",
                   "LUCIE_QUICK_BOTS": "0"}
"""No per-address join budget (one address calls for everyone); no computer racers for
the last lobby alone."""


async def _callers(urls: list[str], seconds: float, tag: str,
                   callers: int) -> tuple[int, int, list[float]]:
    import httpx

    limits = httpx.Limits(max_connections=callers, max_keepalive_connections=callers)
    clients = [httpx.AsyncClient(base_url=u + "/api/v1", timeout=30, limits=limits)
               for u in urls]
    stop_at = time.monotonic() + seconds
    lat: list[float] = []
    failed = 0

    async def caller(i: int) -> None:
        nonlocal failed
        n = 0
        while time.monotonic() < stop_at:
            n += 1
            started = time.perf_counter()
            got = await clients[(i + n) % len(clients)].post(
                "/quick", json={"variant": "belle-lucie", "name": f"{tag}{i}-{n}"})
            if got.status_code == 201:
                lat.append((time.perf_counter() - started) * 1000)
            else:
                failed += 1

    try:
        await asyncio.gather(*(caller(i) for i in range(callers)))
    finally:
        for client in clients:
            await client.aclose()
    return len(lat), failed, lat


def _worker(urls: list[str], seconds: float, tag: str,
            callers: int) -> tuple[int, int, list[float]]:
    return asyncio.run(_callers(urls, seconds, tag, callers))


def _load(urls: list[str], seconds: float,
          callers: int = CALLERS) -> tuple[int, int, list[float], float]:
    """Joins, failures, latencies (ms) and the wall time of one timed run of
    ``callers`` callers in each of two load-generator processes."""
    ctx = multiprocessing.get_context("fork")
    started = time.monotonic()
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        futures = [pool.submit(_worker, urls if i == 0 else urls[::-1], seconds,
                               f"w{i}{secrets.token_hex(2)}-", callers) for i in range(2)]
        results = [f.result() for f in futures]
    wall = time.monotonic() - started
    lat = [x for _, _, part in results for x in part]
    return sum(r[0] for r in results), sum(r[1] for r in results), lat, wall


def run(quick: bool) -> list[str]:
    """Two processes, one Redis: quick-race joins/s, latency, lobbies per join."""
    seconds = 2.0 if quick else 10.0
    workdir = Path(tempfile.mkdtemp(prefix="lucie-bench-quick-"))
    store, rport = _private_redis(workdir)
    admin = redis.Redis(port=rport)
    procs = []
    try:
        env = QUICK_ENV | {"REDIS_URL": f"redis://127.0.0.1:{rport}/0"}
        ports = _ports(2)
        procs = [_spawn(SERVER, p, env) for p in ports]
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        _load(urls, 1.0)  # warm-up: scripts loaded, pools open
        rooms0 = admin.zcard("lucie:rooms")
        admin.config_resetstat()
        watched = [*procs, store]
        cpu0 = [_cpu_s(p.pid) for p in watched]
        joins, failed, lat, wall = _load(urls, seconds)
        cpu = [(_cpu_s(p.pid) - c) / max(1, joins) * 1e6
               for p, c in zip(watched, cpu0, strict=True)]
        stats = _commandstats(admin)
        commands = sum(v for k, v in stats.items() if k not in ("info", "config|resetstat"))
        rooms = admin.zcard("lucie:rooms") - rooms0
        light, _, light_lat, light_wall = _load(urls, seconds / 2, LIGHT)
    finally:
        for proc in procs:
            _stop(proc)
        admin.close()
        _stop(store)
        shutil.rmtree(workdir, ignore_errors=True)
    return [
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end",
        f"quick race, 2 processes + 1 Redis, {2 * CALLERS} callers at once: "
        f"{joins / wall:,.0f} joins/s ({joins} in {wall:.1f} s, {failed} refused); join "
        f"latency {_percentiles(lat)} (queued: the servers are saturated)",
        f"light load, {2 * LIGHT} callers: {light / light_wall:,.0f} joins/s, join latency "
        f"{_percentiles(light_lat)}",
        f"lobbies: {rooms} formed for {joins} joins ({joins / max(1, rooms):.2f} racers per "
        f"lobby; 6 seats: full ones start at once)",
        f"per join: server CPU {sum(cpu[:-1]):.0f} µs (both processes), Redis CPU "
        f"{cpu[-1]:.0f} µs, Redis commands {commands / max(1, joins):.1f} (script "
        f"internals included)",
    ]


def _percentiles(lat: list[float]) -> str:
    if not lat:
        return "p50 – p99 –"
    lat = sorted(lat)
    return (f"p50 {statistics.median(lat):.1f} ms, "
            f"p99 {lat[min(len(lat) - 1, int(len(lat) * 0.99))]:.1f} ms")
