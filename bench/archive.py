"""The archive at scale (issue 20): player queries, archive writes, and the
server's moves while it archives — on a SQLite file and on PostgreSQL.

* **archive**: 1,000,000 races among 20,000 players in each database (the
  real schema, filled in bulk: ``bench/_archive_data.py`` says how, and what
  the rows look like), built once and kept: the SQLite file in
  ``~/.cache/belle-lucie-race/bench`` (``platformdirs.user_cache_dir``; or
  ``LUCIE_BENCH_CACHE``), the PostgreSQL database
  ``lucie_bench_archive_<races>_<players>`` (or ``LUCIE_BENCH_PG_DB``) on the
  server of ``LUCIE_BENCH_PG`` (default
  ``postgresql://postgres@127.0.0.1:5432/postgres``). A later run reuses them
  when they hold the same generation (size, seed, generator version);
  building prints its time. ``LUCIE_BENCH_DROP=1`` deletes both at the end.
  PostgreSQL not answering: its lines say so and the rest runs.
* **queries**: p50/p99 over 500 random players of ``ArchiveDb.profile``,
  ``ArchiveDb.player_races`` (the first page of 20; a deep page: the one
  after the row 90 % down the history of a player with ≥ 100 races, by its
  cursor) and ``ArchiveDb.versus`` (a pair that raced each other: a random
  player and an opponent from one of their races; totals and a page of 20),
  after 50 untimed calls of each (other players); the kinds in turn, call by
  call, so a busy moment of the machine falls on all alike, with a baseline
  among them: ``SELECT 1`` through the same pool (the machine and the driver,
  no query), and the load average printed. Targets on
  PostgreSQL: p99 ≤ 20 ms (profile), ≤ 20 ms (history page), ≤ 50 ms
  (head-to-head).
* **writes**: races/s through ``ArchiveDb.write`` (the archiver's path: the
  race, its racers, figures and openskill ratings in one transaction) into
  the big archive, documents of 2–6 racers (80 % of them players, 100 moves
  each), by one writer (as the archiver writes), then by four at once.
* **moves while archiving**: one embedded ``lucie-server`` archiving into
  that database, with a backlog of finished races pending (made through the
  API: players, rooms joined with player keys, started and closed by their
  hosts) and ``bench/server.py``'s racers (200 in 25 rooms, each on its own
  socket, a legal move then ``u``, from two load processes) — paced at one
  move per 0.4 s each (~500 moves/s, the one-process profile of
  docs/capacity.md), then as fast as acks return (saturating, the yardstick
  of ``bench/server.py``). During each load the archiver is held and let go
  in turns of 1 s (a bench-only wrapper of the archiver waits before each
  race while a gate file is missing): moves sent while it is held (A)
  against moves sent while it writes the backlog (B) — same server, same
  seats, same moment, so the machine's other load falls on both. B must not move beyond noise: the
  p99 of each turn, B's turns against A's (one-sided Mann–Whitney U test,
  p < 0.05: beyond noise); also the A turns split in two halves, one p99
  against the other. And the server's CPU per move in each (/proc), and the
  races archived during B; then, no moves, the archiver let go for 3 s: the
  races it archives a second when idle. ``moves_only`` (``python -m bench
  archive --moves-only``): this part alone.

Everything the bench writes into the kept databases (the write test's races,
the server's backlog, their players) is taken out again afterwards.
``quick=True``: 20,000 races / 1,000 players, 60 queries of each kind, 60
writes, a small backlog and the paced load only, 4 s in 0.5 s turns.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import math
import multiprocessing
import os
import random
import re
import secrets
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor, wait
from functools import partial
from pathlib import Path
from typing import Any, cast

import httpx
import orjson
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bench import _archive_data as data
from bench.server import _cpu_s, _port, _run_loop, _setup, _spawn, _stop
from server.archive import ArchiveDb, describe
from server.archive.players import _cursor
from server.archive.schema import archived_racers, players, races
from server.records.players import fold_name, key_digest, new_player_id, new_player_key

__all__ = ["TARGETS_MS", "run"]

TARGETS_MS = {"profile": 20.0, "history first page": 20.0, "history deep page": 20.0,
              "head-to-head": 50.0}
"""p99 targets on PostgreSQL (issue 20)."""

METRICS_TOKEN = secrets.token_urlsafe(24)
"""The scrapes' Bearer token (``LUCIE_METRICS_TOKEN`` of the servers it starts)."""
ENV = {"LUCIE_WS_RATE": "1000000", "LUCIE_WS_BURST": "1000000",
       "LUCIE_HTTP_RATE": "1000000", "LUCIE_HTTP_BURST": "1000000",
       "LUCIE_SEND_QUEUE": "4096",
       "LUCIE_JOIN_PER_MIN": "600000", "LUCIE_JOIN_BURST": "1000000",
       "LUCIE_CREATE_PER_MIN": "600000", "LUCIE_CREATE_BURST": "1000000",
       "LUCIE_WAITING_ROOMS_PER_ADDRESS": "1000000",
       "LUCIE_SOCKETS_PER_ADDRESS": "100000", "LUCIE_SPECTATORS_PER_ROOM": "100000",
       "LUCIE_HTTP_CONNECTIONS_PER_ADDRESS": "100000",
       "LUCIE_METRICS_TOKEN": METRICS_TOKEN}
PAGE = 20
BASELINE = "SELECT 1 (baseline)"
"""Timed with the queries: a pool checkout (with its pre-ping) and one round
trip — what the machine and the driver cost before any query does."""
PACE_S = 0.4
"""The paced load: one move per racer every 0.4 s (200 racers: ~500 moves/s)."""


def _pct(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


# -- the archives ----------------------------------------------------------------------


async def _archives(spec: data.Spec, lines: list[str]) -> dict[str, data.Built]:
    out: dict[str, data.Built] = {}
    sqlite = await data.open_sqlite(spec)
    pg_ok, pg = True, None
    try:
        pg = await data.open_postgres(spec)
    except Exception as exc:  # any failure (down, refused, …): skip PostgreSQL
        pg_ok = False
        lines.append(f"postgresql: not available at {describe(data.pg_admin_url())} "
                     f"({type(exc).__name__}: {exc}); its lines are left out")
    made = await data.build(spec, sqlite=sqlite is None, pg=pg_ok and pg is None)
    if sqlite is not None:
        out["sqlite"] = sqlite
    if pg is not None:
        out["postgresql"] = pg
    out.update(made)
    for name in sorted(out, reverse=True):
        b = out[name]
        how = f"built in {b.build_s:.0f} s" if b.build_s else "reused from an earlier run"
        if b.build_s and len(made) > 1:
            how += " (both databases, from one pass of the generator)"
        lines.append(f"{name} archive: {spec.races:,} races, {spec.players:,} players — "
                     f"{how}; {b.where}")
    return {name: out[name] for name in sorted(out, reverse=True)}


# -- queries ---------------------------------------------------------------------------


async def _samples(url: str, n: int, deep_min: int, seed: int) -> dict[str, Any]:
    """The players, deep cursors and pairs the query timings use (the same on
    both databases: the rows are the same). Its own engine: counting every
    player's races takes longer than the archive's 3 s statement timeout."""
    rng = random.Random(seed)
    r = archived_racers.c
    engine = create_async_engine(url)
    try:
        return await _sample(engine, rng, r, n, deep_min)
    finally:
        await engine.dispose()


async def _sample(engine: AsyncEngine, rng: random.Random, r: Any, n: int,
                  deep_min: int) -> dict[str, Any]:
    async with engine.connect() as conn:
        everyone = sorted((await conn.execute(select(players.c.player_id))).scalars())
        counts: dict[str, int] = dict((await conn.execute(
            select(r.player_id, func.count()).where(r.player_id.is_not(None))
            .group_by(r.player_id))).all())
        racing = sorted(p for p in counts if counts[p])
        busy = sorted(p for p in counts if counts[p] >= deep_min) or racing
        deep = []
        for p in rng.choices(busy, k=n):
            row = (await conn.execute(
                select(r.ended_at_ms, r.race_id).where(r.player_id == p)
                .order_by(r.ended_at_ms.desc(), r.race_id.desc())
                .limit(1).offset(int(counts[p] * 0.9)))).one()
            deep.append((p, _cursor(row.ended_at_ms, row.race_id)))
        pairs: list[tuple[str, str]] = []
        while len(pairs) < n:
            a = rng.choice(racing)
            race = (await conn.execute(
                select(r.race_id).where(r.player_id == a).order_by(r.ended_at_ms, r.race_id)
                .limit(1).offset(rng.randrange(counts[a])))).scalar_one()
            others = sorted((await conn.execute(
                select(r.player_id).where(r.race_id == race, r.player_id.is_not(None),
                                          r.player_id != a))).scalars())
            if others:
                pairs.append((a, rng.choice(others)))
    sizes = sorted(counts.values())
    return {"players": rng.sample(everyone, n), "deep": deep, "pairs": pairs,
            "deep_depth": statistics.mean(int(counts[p] * 0.9) for p, _ in deep),
            "median_races": statistics.median(sizes), "max_races": sizes[-1],
            "p99_races": sizes[int(len(sizes) * 0.99)]}


async def _time(calls: list[Callable[[], Awaitable[Any]]]) -> list[float]:
    out = []
    for call in calls:
        t0 = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def _queries(built: data.Built, n: int, warm_n: int, deep_min: int) -> dict[str, Any]:
    db = ArchiveDb(built.url)
    try:
        await db.migrate()
        s = await _samples(built.url, n + warm_n, deep_min, seed=20)
        warm, timed = slice(0, warm_n), slice(warm_n, None)

        async def select_1() -> None:
            async with db.engine.connect() as conn:
                await conn.exec_driver_sql("SELECT 1")

        def kinds(part: slice) -> dict[str, list[Callable[[], Awaitable[Any]]]]:
            return {
                BASELINE: [select_1 for _ in s["players"][part]],
                "profile": [partial(db.profile, p) for p in s["players"][part]],
                "history first page": [partial(db.player_races, p, PAGE, None)
                                       for p in s["players"][part]],
                "history deep page": [partial(db.player_races, p, PAGE, c)
                                      for p, c in s["deep"][part]],
                "head-to-head": [partial(db.versus, a, b, PAGE, None)
                                 for a, b in s["pairs"][part]],
            }

        for calls in kinds(warm).values():
            await _time(calls)
        # the kinds in turn, call by call: a busy moment of the machine falls on all
        timed_calls = kinds(timed)
        got: dict[str, list[float]] = {name: [] for name in timed_calls}
        load = os.getloadavg()[0]
        for i in range(n):
            for name, calls in timed_calls.items():
                got[name] += await _time(calls[i:i + 1])
        return {"figures": {name: _pct(v) for name, v in got.items()}, "samples": s,
                "load": (load, os.getloadavg()[0])}
    finally:
        await db.close()


# -- throughput ------------------------------------------------------------------------


async def _throughput(built: data.Built, n: int) -> dict[str, float]:
    since = time.time_ns() // 1_000_000
    rng = random.Random(7)
    db = ArchiveDb(built.url)
    out: dict[str, float] = {}
    try:
        await db.migrate()
        pids = []
        for i in range(200):
            name = f"Writer {secrets.token_hex(3)} {i}"
            made = await db.create_player(new_player_id(), name, fold_name(name),
                                          key_digest(new_player_key()))
            pids.append(made["id"])
        docs = [data.race_doc(rng, pids) for _ in range(n)]
        t0 = time.perf_counter()
        for doc in docs[: n // 2]:
            if not await db.write(doc):
                raise RuntimeError("a fresh race was already stored")
        out["one writer"] = (n // 2) / (time.perf_counter() - t0)
        rest = docs[n // 2:]

        async def writer(mine: list[dict[str, Any]]) -> None:
            for doc in mine:
                await db.write(doc)

        t0 = time.perf_counter()
        await asyncio.gather(*(writer(rest[i::4]) for i in range(4)))
        out["four writers"] = len(rest) / (time.perf_counter() - t0)
    finally:
        await db.close()
        await data.forget_since(built.url, since)
    return out


# -- moves while archiving -------------------------------------------------------------


def _metrics(url: str) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=10,
                     headers={"Authorization": f"Bearer {METRICS_TOKEN}"}).text
    out = {}
    for name in ("lucie_races_archived_total", "lucie_archive_pending"):
        m = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M)
        out[name] = float(m.group(1)) if m else 0.0
    return out


def _cpu_tree_s(pid: int) -> float:
    """CPU seconds of ``pid`` and its children (the solver pool)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _settle(pid: int, timeout_s: float = 20.0) -> None:
    """Wait until the server (and its solver worker) is idle: the par searches
    the closed races started are over."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        c0 = _cpu_tree_s(pid)
        time.sleep(0.5)
        if _cpu_tree_s(pid) - c0 < 0.05:
            return


async def _backlog(url: str, races: int, seed: int) -> None:
    """``races`` finished races through the API: 2–6 racers, 80 % of them joined
    with a player key (of 200 players made here), started and closed."""
    rng = random.Random(seed)
    tag = secrets.token_hex(3)
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=60, limits=limits) as http:
        keys = []
        for i in range(200):
            made = await http.post("/players", json={"name": f"Bench {tag} {i}"})
            made.raise_for_status()
            keys.append(made.json()["key"])
        todo = list(range(races))

        async def one() -> None:
            while todo:
                todo.pop()
                size = rng.choices(data.SIZES, cum_weights=data.SIZE_CUM)[0]
                created = await http.post("/rooms", json={
                    "deal": rng.randrange(1, 1_000_000), "countdown_s": 0, "capacity": 8,
                    "time_limit_s": 600})
                created.raise_for_status()
                room, host = created.json()["room"]["id"], created.json()["host_token"]
                for j, key in enumerate(rng.sample(keys, size)):
                    if rng.random() < data.LINKED:
                        got = await http.post(f"/rooms/{room}/racers", json={},
                                              headers={"Authorization": f"Bearer {key}"})
                    else:
                        got = await http.post(f"/rooms/{room}/racers", json={"name": f"g{j}"})
                    got.raise_for_status()
                auth = {"Authorization": f"Bearer {host}"}
                (await http.post(f"/rooms/{room}/start", headers=auth)).raise_for_status()
                (await http.post(f"/rooms/{room}/close", headers=auth)).raise_for_status()

        await asyncio.gather(*(one() for _ in range(16)))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def _written(url: str, windows: dict[str, tuple[int, int]]) -> dict[str, Any]:
    """Races the server archived in each window (by ``archived_at_ms``, the time
    each write began) and when it wrote the last one. A plain engine, without
    the archive's 3 s statement timeout: ``archived_at_ms`` has no index, the
    query scans ``races`` (over 3 s on PostgreSQL on a busy machine)."""
    engine = create_async_engine(url)
    at = races.c.archived_at_ms
    out: dict[str, Any] = {}
    try:
        async with engine.connect() as conn:  # one scan: the times since the first window
            since = min((t0 for t0, _ in windows.values()), default=0)
            times = list((await conn.execute(select(at).where(at >= since))).scalars())
        for name, (t0, t1) in windows.items():
            out[name] = sum(1 for t in times if t0 <= t < t1)
        out["last"] = max(times, default=None)
    finally:
        await engine.dispose()
    return out


GATED_SERVER = """
import asyncio, os
from server.archive.archiver import Archiver
async def gate():
    while not os.path.exists(os.environ["LUCIE_BENCH_GATE"]):
        await asyncio.sleep(0.05)
_run_once, _pace = Archiver.run_once, Archiver._pace
async def run_once(self, **kw):
    await gate()
    return await _run_once(self, **kw)
async def pace(self, spent_s):
    await _pace(self, spent_s)
    await gate()
Archiver.run_once, Archiver._pace = run_once, pace
from server.app import main
raise SystemExit(main())
"""
"""``lucie-server`` whose archiver waits before each race while the file
``LUCIE_BENCH_GATE`` is missing: the bench holds it (between two races, its
pacing pause done) and lets it go. (Not inside ``ArchiveDb.write``: the
archiver times its writes to pace itself.)"""


async def _racer(url: str, seat: tuple[str, str, str, dict[str, Any]], stop_at: float,
                 lat: list[tuple[float, float]], tag: str,
                 interval: float) -> tuple[int, dict[str, Any]]:
    """``bench.server``'s racer (a legal move, then ``u``), with client move ids
    new to this run (a repeated id is answered from the first answer, applying
    nothing), paced to one move per ``interval`` s (``0``: as fast as acks
    return); its game (version, legal moves) at the end for the next run."""
    from websockets.asyncio.client import connect

    room, _racer_id, token, game = seat
    version, legal = game["version"], game["legal_moves"]
    done = n = 0
    async with connect(f"{url}/api/v1/rooms/{room}/ws", max_queue=None, compression=None,
                       additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        await ws.recv()  # welcome
        next_at = time.monotonic() + random.random() * interval
        while True:
            if interval:
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                next_at += interval
            if time.monotonic() >= stop_at:
                break
            move = "u" if version % 2 else legal[n % len(legal)]
            n += 1
            t0 = time.monotonic()
            await ws.send(orjson.dumps({"t": "move", "d": {
                "move": move, "expected_version": version,
                "client_move_id": f"{tag}-{n}"}}).decode())
            while True:
                text = await ws.recv()
                if isinstance(text, bytes):
                    text = text.decode()
                if text.startswith('{"t":"ack"'):
                    break
                if text.startswith('{"t":"refused"') or text.startswith('{"t":"error"'):
                    raise RuntimeError(text[:300])
            lat.append((t0, time.monotonic() - t0))
            ack = orjson.loads(text)["d"]
            version = ack["version"]
            if version % 2 == 0:
                legal = ack["game"]["legal_moves"]
            done += 1
    return done, {"version": version, "legal_moves": legal}


_Worked = tuple[list[tuple[float, float]], list[dict[str, Any]], float]


def _load_worker(url: str, seats: list[Any], seconds: float, tag: str,
                 interval: float) -> _Worked:
    """The racers of ``seats`` for ``seconds``: (send time, ack latency) per move
    (``time.monotonic``, the same clock in every process), their games after,
    and when they stopped sending."""
    async def main() -> _Worked:
        lat: list[tuple[float, float]] = []
        stop_at = time.monotonic() + seconds
        got = await asyncio.gather(*(_racer(url, seat, stop_at, lat, tag, interval)
                                     for seat in seats))
        return lat, [g[1] for g in got], stop_at

    return cast(_Worked, _run_loop(main()))


def _interleaved(url: str, seats: list[Any], seconds: float, interval: float, pid: int,
                 gate: Path, phase_s: float = 1.0, guard_s: float = 0.2) -> dict[str, Any]:
    """One load of ``seconds`` (two worker processes, ``bench.server``'s set-up)
    while the archiver is held and let go in turns of ``phase_s`` (A: held, B:
    writing). Each move counts in the turn it was sent in, unless sent within
    ``guard_s`` of a switch (a write under way finishes, a held archiver wakes).
    Only turns wholly inside the load count (the first second lets the
    sockets connect). Per turn kind: moves/s, ack p50/p99 (ms), the server's
    CPU ms per move, each turn's p99; the p99 of every other A turn against
    the rest (the noise); the B turns' wall clock windows. ``seats`` get
    their games' new versions."""
    workers = 2
    tag = secrets.token_hex(4)
    parts = [list(range(i, len(seats), workers)) for i in range(workers)]
    switches: list[tuple[float, bool, float, int]] = []  # monotonic, open, cpu s, wall ms
    gate.unlink(missing_ok=True)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(_load_worker, url, [seats[i] for i in part], seconds, tag,
                               interval) for part in parts]
        t0, opened = time.monotonic(), False
        switches.append((t0, opened, _cpu_s(pid), _now_ms()))
        while True:
            due = t0 + len(switches) * phase_s
            if not wait(futures, timeout=max(0.0, due - time.monotonic())).not_done:
                break
            opened = not opened
            if opened:
                gate.touch()
            else:
                gate.unlink(missing_ok=True)
            switches.append((time.monotonic(), opened, _cpu_s(pid), _now_ms()))
        gate.unlink(missing_ok=True)
        switches.append((time.monotonic(), False, _cpu_s(pid), _now_ms()))
        results = [f.result() for f in futures]
    for part, (_, games, _) in zip(parts, results, strict=True):
        for i, game in zip(part, games, strict=True):
            seats[i] = (*seats[i][:3], game)
    starts = [sw[0] for sw in switches]
    # turns wholly inside the load: the first second only lets the sockets connect
    first = next(k for k, t in enumerate(starts) if t - starts[0] >= 1.0 or k == len(starts) - 1)
    stopped = min(r[2] for r in results)
    last = max([first, *(k for k in range(len(starts) - 1) if starts[k + 1] <= stopped)])
    samples: dict[str, list[float]] = {"A": [], "B": [], "A even": [], "A odd": []}
    per_turn: list[list[float]] = [[] for _ in switches]
    moves = [0] * len(switches)
    for sent, latency in (x for r in results for x in r[0]):
        k = bisect.bisect_right(starts, sent) - 1
        if k < first or k > last:
            continue
        moves[k] += 1
        if sent - starts[k] < guard_s:
            continue
        kind = "B" if switches[k][1] else "A"
        samples[kind].append(latency * 1000)
        per_turn[k].append(latency * 1000)
        if kind == "A":
            samples[f"A {'even' if k % 4 == 0 else 'odd'}"].append(latency * 1000)
    out: dict[str, Any] = {"windows": [(sw[3], nxt[3]) for sw, nxt in
                                       itertools.pairwise(switches[first:last + 2]) if sw[1]]}
    for kind in ("A", "B"):
        turns = [k for k in range(first, last + 1) if switches[k][1] == (kind == "B")]
        span = sum(switches[k + 1][0] - switches[k][0] for k in turns)
        cpu = sum(switches[k + 1][2] - switches[k][2] for k in turns)
        count = sum(moves[k] for k in turns)
        p50, p99 = _pct(samples[kind])
        out[kind] = {"rate": count / span if span else float("nan"), "p50": p50, "p99": p99,
                     "cpu_ms": cpu / max(1, count) * 1000, "span_s": span,
                     "turn_p99": [_pct(per_turn[k])[1] for k in turns if per_turn[k]]}
    out["noise"] = _pct(samples["A even"])[1] / _pct(samples["A odd"])[1]
    return out


def _moves(built: data.Built, *, backlog: int, seconds: float, phase_s: float,
           loads: tuple[str, ...], idle_s: float = 3.0) -> dict[str, Any]:
    """The paced, then the saturating load (module docstring) on one server
    archiving into ``built``, the archiver held and let go in turns; then
    ``idle_s`` with the archiver let go and no moves (its idle speed)."""
    since = _now_ms()
    out: dict[str, Any] = {"notes": []}
    with tempfile.TemporaryDirectory(prefix="lucie-bench-") as tmp:
        gate = Path(tmp) / "archive"
        env = ENV | {"LUCIE_DATABASE_URL": built.url, "LUCIE_DATA_DIR": tmp,
                     "LUCIE_BENCH_GATE": str(gate)}
        port = _port()
        server = _spawn(GATED_SERVER, port, env)
        url = f"http://127.0.0.1:{port}"
        try:
            t0 = time.perf_counter()
            asyncio.run(_backlog(url, backlog, seed=11))
            seats: list[Any] = _setup(url)
            out["setup_s"] = time.perf_counter() - t0
            _settle(server.pid)
            out["pending"] = _metrics(url)["lucie_archive_pending"]
            ws = url.replace("http", "ws")
            load_avg = os.getloadavg()[0]
            for load in loads:
                out[load] = _interleaved(ws, seats, seconds, PACE_S if load == "paced" else 0.0,
                                         server.pid, gate, phase_s)
            out["left"] = _metrics(url)["lucie_archive_pending"]
            out["load"] = (load_avg, os.getloadavg()[0])
            # no moves: the archiver at its idle speed
            gate.touch()
            out["idle_window"] = (_now_ms(), _now_ms() + int(idle_s * 1000))
            time.sleep(idle_s)
            gate.unlink(missing_ok=True)
            out["idle_left"] = _metrics(url)["lucie_archive_pending"]
        finally:
            _stop(server)
    for load in loads:
        windows = {str(i): w for i, w in enumerate(out[load]["windows"])}
        written = asyncio.run(_written(built.url, windows))
        out[load]["archived"] = sum(written[k] for k in windows)
    out["idle"] = asyncio.run(_written(built.url, {"idle": out["idle_window"]}))["idle"] / idle_s
    if out["left"] == 0:
        out["notes"].append("the backlog ran out: the last B turns had nothing to write")
    if out["idle_left"] == 0:
        out["notes"].append("the backlog ran out while idle: the idle rate is a lower bound")
    asyncio.run(data.forget_since(built.url, since))
    return out


# -- the run ---------------------------------------------------------------------------


def _higher(a: list[float], b: list[float]) -> float:
    """One-sided Mann–Whitney U test (normal approximation): the chance of ``b``
    running this much higher than ``a`` (or more) when both come from one
    distribution."""
    if not a or not b:
        return float("nan")
    u = sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in a for y in b)
    mean, sd = len(a) * len(b) / 2, math.sqrt(len(a) * len(b) * (len(a) + len(b) + 1) / 12)
    z = (u - mean - 0.5) / sd
    return 0.5 * math.erfc(z / math.sqrt(2))


def _query_lines(queries: dict[str, dict[str, Any]], n: int) -> list[str]:
    s = next(iter(queries.values()))["samples"]
    lines = [f"players' races: median {s['median_races']:.0f}, p99 {s['p99_races']:,}, most "
             f"{s['max_races']:,}; deep pages start {s['deep_depth']:.0f} rows down on "
             f"average; {n} calls of each"]
    for name, q in queries.items():
        lines.append(f"{name} queries: load average {q['load'][0]:.1f} at the start, "
                     f"{q['load'][1]:.1f} at the end")
        for kind, (p50, p99) in q["figures"].items():
            target = TARGETS_MS.get(kind)
            verdict = "" if name != "postgresql" or target is None else (
                f" (target ≤ {target:.0f}: {'met' if p99 <= target else 'MISSED'})")
            lines.append(f"{name} {kind}: p50 {p50:.1f} ms, p99 {p99:.1f} ms{verdict}")
    return lines


def _move_lines(name: str, m: dict[str, Any], loads: tuple[str, ...], seconds: float,
                phase_s: float) -> list[str]:
    lines = [f"{name} moves: {m['pending']:.0f} finished races pending (set-up "
             f"{m['setup_s']:.0f} s), {seconds:.0f} s per load in {phase_s:g} s turns; "
             f"load average {m['load'][0]:.1f} → {m['load'][1]:.1f}"]
    for load in loads:
        r = m[load]
        a, b = r["A"], r["B"]
        label = f"{name} moves, {'paced ~500/s' if load == 'paced' else 'saturating'}"
        chance = _higher(a["turn_p99"], b["turn_p99"])
        verdict = (f"BEYOND noise (B's turns higher: Mann–Whitney p = {chance:.3f})"
                   if chance < 0.05 else f"within noise (Mann–Whitney p = {chance:.2f})")
        lines += [
            f"{label}, archiver held (A): {a['rate']:,.0f} moves/s, ack p50 {a['p50']:.1f} ms, "
            f"p99 {a['p99']:.1f} ms; server CPU {a['cpu_ms']:.2f} ms/move",
            f"{label}, archiver writing (B): {b['rate']:,.0f} moves/s, ack p50 "
            f"{b['p50']:.1f} ms, p99 {b['p99']:.1f} ms; server CPU {b['cpu_ms']:.2f} ms/move; "
            f"{r['archived'] / b['span_s']:,.0f} races/s archived meanwhile",
            f"{label}, ratio B/A p99 {b['p99'] / a['p99']:.2f} ({b['p99'] - a['p99']:+.1f} ms), "
            f"p50 {b['p50'] / a['p50']:.2f} ({b['p50'] - a['p50']:+.1f} ms); noise: A's two "
            f"halves p99 {r['noise']:.2f}; the {phase_s:g} s turns' p99, median A "
            f"{statistics.median(a['turn_p99']):.1f} ms, B {statistics.median(b['turn_p99']):.1f}"
            f" ms → {verdict}",
        ]
    lines.append(f"{name} archiving with no moves: {m['idle']:,.0f} races/s "
                 f"({m['idle_left']:.0f} left pending)")
    return lines + [f"{name} note: {note}" for note in m["notes"]]


def run(quick: bool, moves_only: bool = False) -> list[str]:
    """Build or reuse the archives, then time queries, writes and moves
    (``moves_only``: the moves while archiving alone, the backlog sized for
    an archiver writing 100 races/s)."""
    spec = data.Spec(20_000, 1_000) if quick else data.Spec(1_000_000, 20_000)
    n, warm = (60, 10) if quick else (500, 50)
    deep_min = 40 if quick else 100
    writes = 60 if quick else 2_000
    seconds, phase_s = (4.0, 0.5) if quick else (20.0, 1.0)
    loads = ("paced",) if quick else ("paced", "saturating")
    lines: list[str] = []
    try:
        archives = asyncio.run(_archives(spec, lines))
        queries = {} if moves_only else {name: asyncio.run(_queries(b, n, warm, deep_min))
                                          for name, b in archives.items()}
        if queries:
            lines += _query_lines(queries, n)
        rates = {name: 100.0 for name in archives}
        for name, b in ({} if moves_only else archives).items():
            tp = asyncio.run(_throughput(b, writes))
            rates[name] = tp["one writer"]
            lines.append(f"{name} archive writes: {tp['one writer']:,.0f} races/s one writer, "
                         f"{tp['four writers']:,.0f} races/s four writers (ArchiveDb.write, "
                         f"ratings included, {writes // 2:,} races each)")
        for name, b in archives.items():
            # enough for the archiver to write during every B turn of the paced load
            backlog = 60 if quick else int(min(2_000, rates[name] * seconds / 2 * 1.2 + 100))
            m = _moves(b, backlog=backlog, seconds=seconds, phase_s=phase_s, loads=loads)
            lines += _move_lines(name, m, loads, seconds, phase_s)
    finally:
        if os.environ.get("LUCIE_BENCH_DROP") == "1":
            data.drop_sqlite(spec)
            with contextlib.suppress(Exception):  # PostgreSQL down: nothing to drop
                asyncio.run(data.drop_postgres(spec))
            lines.append("archives dropped (LUCIE_BENCH_DROP=1)")
    return lines


if __name__ == "__main__":
    import sys

    print("\n".join(run("--quick" in sys.argv, "--moves-only" in sys.argv)))
