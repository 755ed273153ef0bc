"""``python -m infra.load.run`` (``make load``): a bounded, headless load run on 127.0.0.1.

Starts the server itself (never anything but 127.0.0.1), runs the Locust
scenario (:mod:`infra.load.locustfile`) as a subprocess for a bounded time,
samples the server's CPU and memory, and writes under ``--out``
(``results/``): ``<profile>_stats.csv`` & co (Locust's CSV), ``<profile>.html``
(Locust's report), ``<profile>.json`` (the capacity row) and
``summary.md`` (the table of every profile of this invocation).

Profiles:

- ``embedded`` — one process, memory store: 1,000 human-pace racers (plus
  20 bot-pace racers and 50 spectators);
- ``redis`` — two processes sharing Redis (``REDIS_URL``, default
  ``redis://127.0.0.1:6379/13``): 2,000 human-pace racers spread over both,
  from three Locust worker processes (one gevent loop for 2,140 users, busy
  about 65 % of the time, added its own queueing to the measured latency:
  p99 190–300 ms with one, 110–240 with two, 110 with three);
- ``idle`` — one process holding 2,000 racers' idle WebSockets;
- ``smoke`` — a few racers at bot pace for 8 s (the test suite's check).

Without ``--profile``: ``embedded``, and ``redis`` too when ``REDIS_URL`` is set.
``--py-spy`` samples each server process for up to 30 s of the steady state
and writes ``<profile>-hotspots.md`` (the functions it spends its time in).
``--nice N`` runs the servers and Locust at niceness N, each in its own session
and scheduler autogroup (negative needs root): on a machine shared with
other busy programs it approximates a dedicated one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import psutil

from .hotspots import hotspots_markdown
from .servers import REPO, ServerGroup, prioritise
from .summary import machine, markdown_table, read_stats, summarize

__all__ = ["PROFILES", "Profile", "main", "run_profile"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class Profile:
    """One load run: server processes, users, pace and time bounds."""

    name: str
    processes: int = 1
    redis: bool = False
    racers: int = 1000
    bots: int = 20
    spectators: int = 50
    idle: bool = False
    duration_s: int = 150
    spawn_rate: float = 50.0
    human_pace_s: float = 2.0
    locust_processes: int = 1
    nice: int = 0


PROFILES = {
    "embedded": Profile("embedded"),
    "redis": Profile("redis", processes=2, redis=True, racers=2000, bots=40, spectators=100,
                     duration_s=180, spawn_rate=50.0, locust_processes=3),
    "idle": Profile("idle", racers=2000, bots=0, spectators=0, idle=True, duration_s=75,
                    spawn_rate=100.0),
    "smoke": Profile("smoke", racers=6, bots=2, spectators=1, duration_s=8, spawn_rate=20.0,
                     human_pace_s=0.2),
}
"""The built-in profiles (module docstring); command-line flags override fields."""


def _check_loopback_redis(url: str) -> None:
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK:
        raise SystemExit(f"load runs use a Redis on 127.0.0.1 only, not {host!r}")


def _locust_cmd(p: Profile, hosts: list[str], out: Path) -> list[str]:
    classes = ["IdleRacer"] if p.idle else [
        c for c, n in (("HumanRacer", p.racers), ("BotRacer", p.bots),
                       ("Spectator", p.spectators)) if n > 0]
    cmd = [sys.executable, "-m", "locust", "-f", str(REPO / "infra/load/locustfile.py"),
           "--headless", "--users", str(p.racers + p.bots + p.spectators),
           "--spawn-rate", str(p.spawn_rate), "--run-time", f"{p.duration_s}s",
           "--host", hosts[0], "--csv", str(out / p.name), "--html", str(out / f"{p.name}.html"),
           *([] if p.idle else ["--reset-stats"]), "--only-summary", "--stop-timeout", "3",
           "--loglevel", "WARNING",
           "--exit-code-on-error", "0"]
    if p.locust_processes > 1:
        cmd += ["--processes", str(p.locust_processes)]
    return cmd + classes


README_APPLY_US = 1.9
"""``python -m bench engine``'s check + apply median (µs) on the machine the
capacity figures (docs/capacity.md) were measured on."""


def machine_speed() -> float:
    """Print and return this machine's engine check + apply median (µs), with a
    warning when it runs the engine much slower than the capacity figures' machine (a
    shared or throttled machine: its latencies are not comparable)."""
    from bench.engine import apply_median_us

    speed = apply_median_us()
    print(f"[load] engine check + apply: median {speed:.1f} µs "
          f"(docs/capacity.md figures: {README_APPLY_US} µs)", flush=True)
    if speed > 1.5 * README_APPLY_US:
        print(f"[load] warning: this machine runs the engine {speed / README_APPLY_US:.1f}× "
              "slower than docs/capacity.md's; latencies are not comparable", flush=True)
    return round(speed, 2)


def run_profile(p: Profile, out: Path, redis_url: str | None = None,
                py_spy: bool = False) -> dict[str, object]:
    """Run profile ``p`` against servers it starts; return its capacity row."""
    out.mkdir(parents=True, exist_ok=True)
    if p.redis:
        redis_url = redis_url or "redis://127.0.0.1:6379/13"
        _check_loopback_redis(redis_url)
    with ServerGroup(p.processes, redis_url if p.redis else None, log_dir=out / p.name,
                     nice=p.nice) as group:
        env = {**os.environ, "PYTHONPATH": str(REPO), "LOAD_HOSTS": ",".join(group.urls),
               "LOAD_BOTS": str(p.bots), "LOAD_SPECTATORS": str(p.spectators),
               "LOAD_HUMAN_PACE_S": str(p.human_pace_s)}
        baseline = group.rss()
        group.sample_every(1.0)
        spawn_s = (p.racers + p.bots + p.spectators) / p.spawn_rate
        started = time.monotonic()
        print(f"[load] {p.name}: {p.processes} server process(es) at {', '.join(group.urls)}; "
              f"{p.racers} racers, {p.bots} bots, {p.spectators} spectators, "
              f"{p.duration_s} s", flush=True)
        with (out / f"{p.name}-locust.log").open("wb") as log:
            proc = subprocess.Popen(_locust_cmd(p, group.urls, out), cwd=REPO, env=env,
                                    stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            prioritise(proc.pid, p.nice)
            spies = _spy(group.pids, out / p.name, started + spawn_s + 5,
                         min(30.0, p.duration_s - spawn_s - 10)) if py_spy else []
            load_cpu = _watch_cpu(proc, started + spawn_s + 5, p.duration_s + 60)
            _hotspots(spies, out / f"{p.name}-hotspots.md")
        rows = read_stats(out / f"{p.name}_stats.csv")
        row = summarize(p.name, rows, group.samples, steady_from=started + spawn_s + 5,
                        baseline_rss=baseline, racers=p.racers + p.bots,
                        connections=p.racers + p.bots + p.spectators, load_cpu=load_cpu,
                        machine_cpu=group.machine)
    row["duration_s"], row["steady_s"] = p.duration_s, round(p.duration_s - spawn_s, 1)
    row["locust_processes"], row["nice"] = p.locust_processes, p.nice
    return row


def _spy(pids: list[int], prefix: Path, at: float, seconds: float) -> list[Path]:
    """Start ``py-spy record`` on each server at monotonic time ``at`` (a thread)."""
    if seconds < 3:
        return []
    spy = Path(sys.executable).with_name("py-spy")
    outs = [prefix.with_name(f"{prefix.name}-server-{i}.folded") for i in range(len(pids))]

    def record() -> None:
        time.sleep(max(0.0, at - time.monotonic()))
        procs = [subprocess.Popen([str(spy), "record", "--pid", str(pid), "--duration",
                                   str(int(seconds)), "--rate", "100", "--nonblocking",
                                   "--format", "raw", "-o", str(o)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for pid, o in zip(pids, outs, strict=True)]
        for proc in procs:
            try:
                proc.wait(seconds + 30)
            except subprocess.TimeoutExpired:
                proc.kill()

    thread = threading.Thread(target=record, name="py-spy", daemon=True)
    thread.start()
    _SPIES.append(thread)
    return outs


_SPIES: list[threading.Thread] = []


def _hotspots(outs: list[Path], path: Path) -> None:
    for thread in _SPIES:
        thread.join(60)
    _SPIES.clear()
    found = [hotspots_markdown(o) for o in outs if o.exists()]
    if found:
        path.write_text("\n".join(found))


def _watch_cpu(proc: subprocess.Popen[bytes], steady_from: float, limit_s: float) -> float | None:
    """Wait for Locust (killed after ``limit_s``); mean CPU % of it and its workers."""
    deadline = time.monotonic() + limit_s
    parent = psutil.Process(proc.pid)
    seen: dict[int, psutil.Process] = {}
    readings: list[float] = []
    while proc.poll() is None:
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise SystemExit(f"locust did not stop within {limit_s:.0f} s; killed")
        try:
            for p in [parent, *parent.children(recursive=True)]:
                if p.pid not in seen:
                    seen[p.pid] = p
                    p.cpu_percent(None)
            total = sum(p.cpu_percent(None) for p in seen.values() if p.is_running())
        except psutil.Error:
            total = 0.0
        if time.monotonic() >= steady_from:
            readings.append(total)
        time.sleep(1)
    return sum(readings) / len(readings) if readings else None


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m infra.load.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", action="append", choices=sorted(PROFILES),
                    help="profile to run (repeatable); default: embedded (+ redis with REDIS_URL)")
    ap.add_argument("--racers", type=int, help="human-pace racers")
    ap.add_argument("--bots", type=int, help="bot-pace racers")
    ap.add_argument("--spectators", type=int)
    ap.add_argument("--duration", type=int, dest="duration_s", help="seconds, spawning included")
    ap.add_argument("--spawn-rate", type=float)
    ap.add_argument("--pace", type=float, dest="human_pace_s", help="seconds between moves")
    ap.add_argument("--locust-processes", type=int,
                    help="Locust --processes (load generator; default 3 for redis, else 1)")
    ap.add_argument("--nice", type=int, help="niceness of servers and Locust (negative: root)")
    ap.add_argument("--py-spy", action="store_true", help="profile the servers (py-spy)")
    ap.add_argument("--out", type=Path, default=REPO / "results")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run the chosen profiles; print and write the capacity table."""
    args = _parser().parse_args(argv)
    redis_url = os.environ.get("REDIS_URL")
    names = args.profile or (["embedded", "redis"] if redis_url else ["embedded"])
    overrides = {k: v for k, v in vars(args).items()
                 if k not in ("profile", "out", "py_spy") and v is not None}
    rows, speeds = [], []
    for name in names:
        before = machine_speed()
        row = run_profile(replace(PROFILES[name], **overrides), args.out, redis_url,
                          py_spy=args.py_spy)
        after = machine_speed()
        speeds.append(f"{name} {before} → {after}")
        row["engine_apply_us"] = [before, after]
        (args.out / f"{name}.json").write_text(json.dumps(row, indent=2) + "\n")
        rows.append(row)
        print(json.dumps(row), flush=True)
    table = markdown_table(rows)
    (args.out / "summary.md").write_text(
        f"Machine: {machine()}\n\nEngine check + apply median before → after each run "
        f"(µs; docs/capacity.md machine {README_APPLY_US}): {'; '.join(speeds)}\n\n{table}\n")
    print(table)
    print(f"[load] reports in {args.out}/ (CSV, HTML, JSON, summary.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
