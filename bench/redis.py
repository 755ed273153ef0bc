"""Redis backend throughput (issue 4): two ``lucie-server`` processes sharing one
Redis on loopback, beside the embedded backend in the same run.

* **embedded**: one process, memory store — the load of ``bench/server.py``
  (200 racers in 25 rooms, each on its own WebSocket, a legal move then ``u``
  as fast as acks return); accepted moves/s and p50/p99 ack latency.
* **redis**: the same load against two processes on a private
  ``redis-server`` (free port, no persistence); every room has racers on both
  processes, so each move's events cross processes through Redis. Targets:
  ≥ 1,500 moves/s, p99 ≤ 60 ms; the ratio to the embedded figures.
* **CPU per move** (``/proc``): the server processes', and Redis's — a
  steadier figure than moves/s on a shared machine.
* **Redis work per move**: ``INFO commandstats`` deltas over the timed run
  count every command, those run inside the Lua scripts included. Round trips
  are the commands the servers send: the commandstats total minus the
  scripts' own commands, whose number per script call is measured with
  ``MONITOR`` over a short extra run (they show as ``[… lua]`` there).
  Fan-out, timer sweeps and health checks count; the sockets' connection
  set-up (measured alone: the same sockets connecting with no move) does
  not, and is shown apart. Target ≤ 6 round trips per move.

The load generator (``bench.server``) runs in two worker processes beside
the servers and Redis; on a small machine they share cores, so the figures
are a floor. ``quick=True`` runs 2 s per phase.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from bench.server import ENV, _measure, _port, _ports, _setup, _spawn, _stop, _worker

__all__ = ["run"]

SERVER = "from server.app import main; raise SystemExit(main())"


PORT_TRIES = 4


class _PortTaken(RuntimeError):
    """redis-server could not listen: its port was taken after it was chosen."""


def _redis_server(port: int, workdir: Path) -> subprocess.Popen[bytes]:
    """A ``redis-server`` on ``port``, once it answers — itself, not whatever
    else listens there (``INFO``'s ``process_id``).

    :raises _PortTaken: the port was in use (redis-server exited).
    """
    log_path = workdir / f"redis-{port}.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir)],
            stdout=log, stderr=subprocess.STDOUT)
    # whatever else listens there may not answer: 1 s a try, then look at the process
    client = redis.Redis(port=port, socket_timeout=1, retry=Retry(NoBackoff(), 0))
    deadline = time.monotonic() + 10
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                said = log_path.read_text(errors="replace")
                kind = _PortTaken if "already in use" in said else RuntimeError
                raise kind(f"redis-server exited with {proc.returncode}: {said[-500:]}")
            try:
                if int(client.info("server")["process_id"]) == proc.pid:
                    return proc
            except redis.RedisError:
                pass
            time.sleep(0.05)
    finally:
        client.close()
    proc.kill()
    raise RuntimeError("redis-server did not start")


def _private_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``(process, port)``: a ``redis-server`` of this run on a free port (another
    port when the chosen one is taken before redis-server could listen on it)."""
    for attempt in range(1, PORT_TRIES + 1):
        port = _port()
        try:
            return _redis_server(port, workdir), port
        except _PortTaken:
            if attempt == PORT_TRIES:
                raise
    raise AssertionError("unreachable")


def _measure_split(urls: list[str], seats: list[Any], seconds: float) -> tuple[float, float,
                                                                                float, int]:
    """Like ``bench.server._measure``, worker ``i`` talking to ``urls[i]``; seats are
    dealt round robin so every room has racers on every process."""
    chunks = [seats[i::len(urls)] for i in range(len(urls))]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(len(urls), mp_context=ctx) as pool:
        futures = [pool.submit(_worker, "race", url, chunk, seconds)
                   for url, chunk in zip(urls, chunks, strict=True)]
        results = [f.result() for f in futures]
    total = sum(r[0] for r in results)
    lat = sorted(x for r in results for x in r[1])
    return (total / seconds, statistics.median(lat) * 1000,
            lat[int(len(lat) * 0.99)] * 1000, total)


def _connect_only(urls: list[str], seats: list[Any]) -> None:
    """Every seat's socket connects, gets its welcome and closes (no move)."""
    chunks = [seats[i::len(urls)] for i in range(len(urls))]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(len(urls), mp_context=ctx) as pool:
        for f in [pool.submit(_worker, "race", url, chunk, 0.0)
                  for url, chunk in zip(urls, chunks, strict=True)]:
            f.result()


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used by process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _commandstats(client: redis.Redis) -> dict[str, int]:
    stats: dict[str, Any] = client.info("commandstats")  # type: ignore[assignment]
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def _round_trips(log: Path) -> tuple[int, int]:
    """``(sent by clients, run inside scripts)`` from a ``redis-cli monitor`` log."""
    sent = inside = 0
    with log.open("rb") as lines:
        for line in lines:
            if b" lua] " in line:
                inside += 1
            elif b'"' in line and b'"monitor"' not in line.lower():
                sent += 1
    return sent, inside


def run(quick: bool) -> list[str]:
    """Embedded, then Redis with two processes; lines of figures, targets, ratios."""
    seconds = 2.0 if quick else 8.0
    lines: list[str] = []

    port = _port()
    server = _spawn(SERVER, port, ENV)
    url = f"http://127.0.0.1:{port}"
    try:
        seats = _setup(url)
        e_cpu0 = _cpu_s(server.pid)
        e_rate, e_p50, e_p99 = _measure("race", url.replace("http", "ws"), seats, seconds, 2)
        e_cpu = (_cpu_s(server.pid) - e_cpu0) / (e_rate * seconds) * 1e6
    finally:
        _stop(server)
    load = os.getloadavg()[0]
    lines.append(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start")
    lines.append(f"embedded (1 process, memory): {e_rate:,.0f} moves/s, ack p50 "
                 f"{e_p50:.1f} ms, p99 {e_p99:.1f} ms (target ≤ 50); server CPU "
                 f"{e_cpu:.0f} µs/move")

    workdir = Path(tempfile.mkdtemp(prefix="lucie-bench-redis-"))
    store, rport = _private_redis(workdir)
    procs: list[subprocess.Popen[bytes]] = []
    admin = redis.Redis(port=rport)
    try:
        env = ENV | {"REDIS_URL": f"redis://127.0.0.1:{rport}/0"}
        ports = _ports(2)
        procs = [_spawn(SERVER, p, env) for p in ports]
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        ws_urls = [u.replace("http", "ws") for u in urls]
        _measure_split(ws_urls, _setup(urls[0])[:16], 1.0)  # warm-up: scripts, pools
        seats = _setup(urls[0])
        before = sum(_commandstats(admin).values())
        _connect_only(ws_urls, seats)
        setup = sum(_commandstats(admin).values()) - before - 1
        admin.config_resetstat()
        watched = [*procs, store]
        cpu0 = [_cpu_s(p.pid) for p in watched]
        r_rate, r_p50, r_p99, moves = _measure_split(ws_urls, seats, seconds)
        cpu = [(_cpu_s(p.pid) - c) / moves * 1e6 for p, c in zip(watched, cpu0, strict=True)]
        stats = _commandstats(admin)
        commands = sum(v for k, v in stats.items() if k not in ("info", "config|resetstat"))
        main_scripts = stats.get("evalsha", 0) + stats.get("eval", 0)

        seats = _setup(urls[0])
        log = workdir / "monitor.log"
        with log.open("wb") as out:
            scripts = _commandstats(admin).get("evalsha", 0)
            monitor = subprocess.Popen(["redis-cli", "-p", str(rport), "monitor"], stdout=out,
                                       stderr=subprocess.DEVNULL)
            time.sleep(0.3)
            _, _, _, m_moves = _measure_split(ws_urls, seats, 2.0 if quick else 4.0)
            time.sleep(0.3)
            monitor.terminate()
            monitor.wait(10)
        _, inside = _round_trips(log)
        m_scripts = _commandstats(admin).get("evalsha", 0) - scripts
    finally:
        for proc in procs:
            _stop(proc)
        admin.close()
        _stop(store)
        shutil.rmtree(workdir, ignore_errors=True)

    lines.append(f"redis (2 processes, 1 Redis): {r_rate:,.0f} moves/s (target ≥ 1,500), ack "
                 f"p50 {r_p50:.1f} ms, p99 {r_p99:.1f} ms (target ≤ 60); server CPU "
                 f"{sum(cpu[:-1]):.0f} µs/move (both processes), Redis CPU {cpu[-1]:.0f} µs/move")
    lines.append(f"ratio redis/embedded: throughput {r_rate / e_rate:.2f}, "
                 f"p50 ×{r_p50 / e_p50:.1f}, p99 ×{r_p99 / e_p99:.1f}, "
                 f"server CPU per move ×{sum(cpu[:-1]) / e_cpu:.1f}")
    per_script = inside / max(1, m_scripts)
    trips = commands - main_scripts * per_script - setup
    lines.append(f"redis commands per move (commandstats, script internals included): "
                 f"{commands / moves:.1f}; scripts per move {main_scripts / moves:.2f}, "
                 f"{per_script:.1f} commands inside each (MONITOR, {m_moves} moves)")
    lines.append(f"redis commands sent per move by the servers: {trips / moves:.2f} — each "
                 f"at most one round trip, fewer when auto-pipelined (target ≤ 6 round "
                 f"trips); plus {setup / len(seats):.1f} per socket connection, "
                 f"{setup / moves:.2f} per move in this run")
    return lines
