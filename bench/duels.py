"""Rated duels' matchmaking (issue 35): ``POST /api/v1/duels`` against one
``lucie-server`` process on PostgreSQL, with a backlog of open duels.

The database (``LUCIE_BENCH_PG_DB``, else ``lucie_bench_duels``, on the server
of ``LUCIE_BENCH_PG`` as ``bench/archive.py``'s) is made afresh, migrated by
``ArchiveDb.migrate`` and seeded past SQLAlchemy (asyncpg ``COPY``, then
``VACUUM ANALYZE``):

- ``OPEN`` open duels (10,000), each by its own creator who has played it
  (their attempt's result in, the duel offered), of the variants in the
  archive bench's mix (``belle-lucie`` 76 %); the creators' ratings (mu − 3
  sigma when the duel was made) spread as a seasoned population's: 15 % at 0
  (no rated race yet), the rest normal around 18, sd 9, clipped to 0 … 50;
  their ages exponential, mean 1 day, at most 6.9 days (none expired at the
  start);
- ``REQUESTS`` callers (1,000), players with a key and a rating drawn the same
  way, each asking once for a duel of a variant of the same mix.

The callers arrive over ``SPAN_MS`` (2 days) of **simulated time** (a Poisson
process): before its request each caller moves the server's clock of
challenges to its arrival (``LUCIE_CLOCK_OFFSET_FILE``, as the tests do), so
ages, the band's widening and expiry follow simulated time while the requests
are timed on the wall clock. ``CLIENTS`` (4) callers are in flight at once,
over HTTP, through the real API. A caller who gets a fresh duel plays it in
10 simulated minutes: the bench then writes its result as the archive would
(attempt result, ``offered_ms``), so later callers can be handed it.

Figures: ``POST /duels`` latency p50/p99/max on the wall clock (target p99 ≤
50 ms), and the matching's quality: pairs made, the mean (and p90) rating
distance between the two players of a pair, and the share of callers who had
a rival within a simulated day of asking (at once, or their fresh duel taken
within 24 h; those still waiting at the end count against it unless less than
a day passed). Beside them, the matching query alone (``duel_candidates`` on
the same database, ``MEASURED`` calls) and its plan's top line.
``quick=True``: 2,000 open duels and 200 callers.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import secrets
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from sqlalchemy.engine import make_url

from bench.server import ENV, _cpu_s, _ports, _spawn, _stop
from server.archive import ArchiveDb, database_url
from server.records.players import fold_name, key_digest, new_player_id, new_player_key
from server.rules import VARIANTS

__all__ = ["run"]

OPEN = 10_000
REQUESTS = 1_000
CLIENTS = 4
SPAN_MS = 2 * 86_400_000
"""Simulated time over which the callers arrive."""
PLAY_MS = 10 * 60_000
"""Simulated time a caller takes to play the fresh duel they got."""
DAY_MS = 86_400_000
MEASURED = 300
TARGET_P99_MS = 50.0
SEED = 35
VARIANT_SHARE = {"belle-lucie": 76, "three-shuffles-and-a-draw": 5, "trefoil": 4, "the-fan": 4,
                 "super-flower-garden": 3, "shamrocks": 2, "house-in-the-wood": 2,
                 "fan-with-reserve": 2, "no-redeal": 2}
assert set(VARIANT_SHARE) == set(VARIANTS)
SERVER = "from server.app import main; raise SystemExit(main())"


def _admin_url() -> str:
    return os.environ.get("LUCIE_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _db_name() -> str:
    return os.environ.get("LUCIE_BENCH_PG_DB") or "lucie_bench_duels"


def _db_url() -> str:
    return str(make_url(_admin_url()).set(database=_db_name())
               .render_as_string(hide_password=False))


async def _admin(sql: str) -> None:
    conn = await asyncpg.connect(_admin_url(), timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _rating(rng: random.Random) -> float:
    """A rating (mu − 3 sigma) of the seeded population (module docstring)."""
    if rng.random() < 0.15:
        return 0.0
    return min(50.0, max(0.0, rng.gauss(18.0, 9.0)))


def _variant(rng: random.Random) -> str:
    return rng.choices(list(VARIANT_SHARE), weights=list(VARIANT_SHARE.values()))[0]


@dataclass
class _Caller:
    player_id: str
    key: str
    rating: float
    variant: str
    arrive_ms: int
    latency_ms: float = 0.0
    matched: bool = False
    challenge: str = ""
    rival_rating: float = 0.0
    waited_ms: int = 0
    """Matched: how long the duel they got had waited."""


@dataclass
class _World:
    """What the bench knows of every duel: creator rating, creation time, taken when."""

    start_ms: int
    duels: dict[str, dict[str, Any]] = field(default_factory=dict)


def _code(rng: random.Random) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(rng.choice(alphabet) for _ in range(8))


async def _seed(url: str, rng: random.Random, n_open: int, n_callers: int,
                start_ms: int) -> tuple[_World, list[_Caller]]:
    """Fill the migrated database (module docstring) → the world and the callers."""
    conn = await asyncpg.connect(url, timeout=10)
    world = _World(start_ms)
    players, variants, challenges, attempts = [], [], [], []
    codes: set[str] = set()
    try:
        for i in range(n_open):
            pid, rating, variant = new_player_id(), _rating(rng), _variant(rng)
            name = f"Creator {i:05d}"
            players.append((pid, name, fold_name(name), key_digest(new_player_key()),
                            start_ms - 30 * DAY_MS))
            age = min(int(rng.expovariate(1 / DAY_MS)), int(6.9 * DAY_MS))
            created = start_ms - age
            cid = secrets.token_urlsafe(12)
            code = _code(rng)
            while code in codes:
                code = _code(rng)
            codes.add(code)
            played = created + PLAY_MS
            challenges.append((
                cid, code, "rated", variant, str(rng.randrange(1, 10**9)),
                secrets.token_hex(32), secrets.token_hex(16), secrets.token_hex(32), 900_000,
                pid, name, rating, created, created + 7 * DAY_MS, "open", 1, played, None,
                None, False, None, None))
            attempts.append((cid, pid, name, f"r{cid}", "r1", created, created + 3_600_000,
                             f"bench-{cid}", "resigned", rng.randrange(4, 52),
                             rng.randrange(10_000, 900_000), 50, played))
            world.duels[cid] = {"rating": rating, "created_ms": created, "taken_ms": None}
        callers = []
        t = start_ms
        for i in range(n_callers):
            pid, key, rating, variant = new_player_id(), new_player_key(), _rating(rng), \
                _variant(rng)
            name = f"Caller {i:05d}"
            players.append((pid, name, fold_name(name), key_digest(key), start_ms - DAY_MS))
            if rating > 0:  # rated before: mu − 3 sigma = rating
                sigma = 2.5
                variants.append((pid, variant, rating + 3 * sigma, sigma, rating, 30, 40, 10,
                                 1000, None, 0, 2, start_ms - DAY_MS))
            t += int(rng.expovariate(n_callers / SPAN_MS))
            callers.append(_Caller(pid, key, rating, variant, t))
        await conn.copy_records_to_table(
            "players", records=players,
            columns=["player_id", "name", "folded", "key_digest", "created_ms"])
        await conn.copy_records_to_table(
            "player_variants", records=variants,
            columns=["player_id", "variant", "mu", "sigma", "rating", "rated_races", "races",
                     "wins", "cards_total", "best_ms", "streak", "best_streak",
                     "last_race_ms"])
        await conn.copy_records_to_table("challenges", records=challenges, columns=[
            "challenge_id", "code", "kind", "variant", "deal_number", "redeal_key", "deal_salt",
            "deal_commitment", "time_limit_ms", "creator_id", "creator_name", "creator_rating",
            "created_ms", "expires_ms", "state", "played", "offered_ms", "taker_id",
            "taker_until_ms", "settle_due", "closed_ms", "result"])
        await conn.copy_records_to_table("challenge_attempts", records=attempts, columns=[
            "challenge_id", "player_id", "name", "room_id", "racer_id", "started_ms",
            "deadline_ms", "race_id", "status", "foundation_cards", "reach_time_ms", "moves",
            "finished_at_ms"])
        await conn.execute("VACUUM ANALYZE")
    finally:
        await conn.close()
    return world, callers


class _SimClock:
    """The simulated time the bench has told the server (the offset file)."""

    def __init__(self, path: Path, start_ms: int) -> None:
        self.path = path
        self.start_ms = start_ms
        self.now_ms = start_ms
        self._tmp = path.with_suffix(".tmp")

    def advance(self, to_ms: int) -> None:
        if to_ms <= self.now_ms:
            return
        self.now_ms = to_ms
        self._tmp.write_text(str(to_ms - time.time_ns() // 1_000_000))
        os.replace(self._tmp, self.path)


async def _play_fresh(conn: asyncpg.Connection, challenge_id: str, player_id: str,
                      at_ms: int) -> None:
    """What the archive writes when a fresh duel's creator has played it."""
    async with conn.transaction():
        await conn.execute(
            "UPDATE challenge_attempts SET race_id = $3, status = 'resigned', "
            "foundation_cards = 20, reach_time_ms = 300000, moves = 40, finished_at_ms = $4 "
            "WHERE challenge_id = $1 AND player_id = $2",
            challenge_id, player_id, f"bench-{challenge_id}", at_ms)
        await conn.execute("UPDATE challenges SET played = played + 1, offered_ms = $2 "
                           "WHERE challenge_id = $1", challenge_id, at_ms)


async def _drive(base: str, db_url: str, clock: _SimClock, world: _World,
                 callers: list[_Caller]) -> None:
    """The callers, ``CLIENTS`` in flight, in order of arrival (module docstring)."""
    queue: asyncio.Queue[_Caller] = asyncio.Queue()
    for caller in callers:
        queue.put_nowait(caller)
    to_play: list[tuple[int, str, str]] = []  # (at sim ms, challenge, creator)
    writer = await asyncpg.connect(db_url, timeout=10)

    async def client() -> None:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=base + "/api/v1", timeout=30,
                                     limits=limits) as api:
            while not queue.empty():
                caller = queue.get_nowait()
                clock.advance(caller.arrive_ms)
                while to_play and to_play[0][0] <= caller.arrive_ms:
                    at, cid, pid = to_play.pop(0)
                    await _play_fresh(writer, cid, pid, at)
                started = time.perf_counter()
                got = await api.post("/duels", json={"variant": caller.variant},
                                     headers={"Authorization": f"Bearer {caller.key}"})
                caller.latency_ms = (time.perf_counter() - started) * 1000
                if got.status_code != 201:
                    raise RuntimeError(f"POST /duels: {got.status_code} {got.text[:300]}")
                joined = got.json()
                duel = joined["challenge"]
                caller.challenge = duel["id"]
                caller.matched = joined["matched"]
                if caller.matched:
                    known = world.duels[duel["id"]]
                    known["taken_ms"] = clock.now_ms
                    caller.rival_rating = known["rating"]
                    caller.waited_ms = clock.now_ms - known["created_ms"]
                else:
                    world.duels[duel["id"]] = {"rating": caller.rating, "taken_ms": None,
                                               "created_ms": duel["created_at_ms"]}
                    to_play.append((caller.arrive_ms + PLAY_MS, duel["id"], caller.player_id))
                    to_play.sort()

    try:
        await asyncio.gather(*(client() for _ in range(CLIENTS)))
    finally:
        await writer.close()


async def _query_alone(db_url: str, callers: list[_Caller], now_ms: int
                       ) -> tuple[list[float], str]:
    """``duel_candidates`` alone, as the server calls it, ``MEASURED`` times
    (callers' ratings and variants) → latencies (ms) and the plan's top lines."""
    db = ArchiveDb(database_url(db_url))
    lat = []
    try:
        for caller in callers[:MEASURED]:
            started = time.perf_counter()
            await db.duel_candidates(caller.variant, caller.player_id, caller.rating, now_ms,
                                     5.0, 3_600_000, 3)
            lat.append((time.perf_counter() - started) * 1000)
    finally:
        await db.close()
    conn = await asyncpg.connect(db_url, timeout=10)
    try:
        plan = await conn.fetch(_EXPLAIN, "belle-lucie", callers[0].player_id, 18.0, now_ms)
    finally:
        await conn.close()
    lines = [r[0].strip() for r in plan]
    return lat, " / ".join(line for line in lines if "Scan" in line or "Limit" in line)[:300]


_EXPLAIN = ("EXPLAIN (ANALYZE, COSTS OFF) SELECT c.challenge_id FROM challenges c "
            "WHERE c.kind = 'rated' AND c.variant = $1 AND c.state = 'open' "
            "AND c.offered_ms IS NOT NULL AND c.expires_ms > $4 AND c.creator_id != $2 "
            "AND (c.taker_id IS NULL OR c.taker_until_ms < $4) "
            "AND NOT EXISTS (SELECT 1 FROM challenge_attempts a WHERE a.challenge_id = "
            "c.challenge_id AND a.player_id = $2) "
            "AND abs(c.creator_rating - $3) <= 5.0 * (1 + ($4 - c.created_ms) / 3600000) "
            "AND c.creator_rating >= $3 ORDER BY c.creator_rating, c.created_ms LIMIT 3")
"""The upward walk of ``duel_candidates`` (the downward one mirrors it)."""


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else math.nan


def _quality(world: _World, callers: list[_Caller], end_ms: int) -> dict[str, Any]:
    matched = [c for c in callers if c.matched]
    distances = [abs(c.rating - c.rival_rating) for c in matched]
    within = censored = 0
    for c in callers:
        if c.matched:
            within += 1
            continue
        taken = world.duels[c.challenge]["taken_ms"]
        if taken is not None and taken - c.arrive_ms <= DAY_MS:
            within += 1
        elif taken is None and end_ms - c.arrive_ms < DAY_MS:
            censored += 1
    opened = [c for c in callers if not c.matched]
    waits = [c.waited_ms for c in matched]
    return {
        "pairs": len(matched), "opened": len(opened),
        "opened_taken": sum(world.duels[c.challenge]["taken_ms"] is not None for c in opened),
        "from_backlog": sum(c.challenge not in {o.challenge for o in opened} for c in matched),
        "mean_distance": statistics.fmean(distances) if distances else math.nan,
        "p90_distance": _pct(distances, 0.9), "max_distance": max(distances, default=math.nan),
        "within_day": within / max(1, len(callers) - censored), "censored": censored,
        "wait_median_h": statistics.median(waits) / 3_600_000 if waits else math.nan,
    }


def run(quick: bool) -> list[str]:
    """Seed, serve, call: ``POST /duels`` latency and matching quality (module docstring)."""
    n_open, n_callers = (2_000, 200) if quick else (OPEN, REQUESTS)
    rng = random.Random(SEED)
    workdir = Path(tempfile.mkdtemp(prefix="lucie-bench-duels-"))
    db_url = _db_url()
    proc = None
    try:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{_db_name()}" WITH (FORCE)'))
        asyncio.run(_admin(f'CREATE DATABASE "{_db_name()}"'))

        async def migrate() -> None:
            db = ArchiveDb(database_url(db_url))
            try:
                await db.migrate()
            finally:
                await db.close()

        asyncio.run(migrate())
        start_ms = time.time_ns() // 1_000_000
        started = time.perf_counter()
        world, callers = asyncio.run(_seed(db_url, rng, n_open, n_callers, start_ms))
        seeded_s = time.perf_counter() - started
        offset = workdir / "clock-offset"
        clock = _SimClock(offset, start_ms)
        clock.advance(start_ms + 1)
        port = _ports(1)[0]
        proc = _spawn(SERVER, port, ENV | {
            "LUCIE_DATABASE_URL": db_url, "LUCIE_DATA_DIR": str(workdir / "data"),
            "LUCIE_CLOCK_OFFSET_FILE": str(offset)})
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base) as api:  # pools open, routes imported
            for _ in range(20):
                api.get("/api/v1/challenges/NOSUCHCH")
        wall, cpu = time.perf_counter(), _cpu_s(proc.pid)
        asyncio.run(_drive(base, db_url, clock, world, callers))
        wall, cpu = time.perf_counter() - wall, _cpu_s(proc.pid) - cpu
        alone, plan = asyncio.run(_query_alone(db_url, callers, clock.now_ms))
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)
        if not os.environ.get("LUCIE_BENCH_KEEP"):
            asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{_db_name()}" WITH (FORCE)'))
    lat = [c.latency_ms for c in callers]
    p99 = _pct(lat, 0.99)
    q = _quality(world, callers, clock.now_ms)
    return [
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end",
        f"seeded: {n_open:,} open duels, {n_callers:,} callers on PostgreSQL in "
        f"{seeded_s:.1f} s",
        f"POST /duels, {n_callers:,} requests, {CLIENTS} clients, 1 process + PostgreSQL: "
        f"p50 {statistics.median(lat):.1f} ms, p99 {p99:.1f} ms, max {max(lat):.1f} ms "
        f"(target p99 ≤ {TARGET_P99_MS:.0f}: {'met' if p99 <= TARGET_P99_MS else 'MISSED'}); "
        f"{n_callers / wall:,.0f} requests/s; server CPU {cpu / n_callers * 1000:.1f} ms per "
        f"request",
        f"matching query alone (duel_candidates, {len(alone)} calls): p50 "
        f"{statistics.median(alone):.2f} ms, p99 {_pct(alone, 0.99):.2f} ms; plan: {plan}",
        f"matching: {q['pairs']} of {n_callers} callers paired at once ({q['from_backlog']} "
        f"from the backlog), {q['opened']} opened a fresh duel ({q['opened_taken']} taken "
        f"later in the run); the duels taken had waited {q['wait_median_h']:.1f} h (median)",
        f"matching quality: mean rating distance of the pairs {q['mean_distance']:.2f} "
        f"(p90 {q['p90_distance']:.2f}, max {q['max_distance']:.2f}); paired within a day "
        f"of simulated time: {q['within_day']:.1%} of callers ({q['censored']} still waiting "
        f"less than a day at the end left out); {SPAN_MS / DAY_MS:.0f} simulated days",
    ]
