"""A synthetic archive for ``bench/archive.py``: races, racers, players, their
figures and rating history, generated deterministically and loaded in bulk.

The tables are the real ones: each database is migrated with
:meth:`server.archive.ArchiveDb.migrate`, then filled past SQLAlchemy — the
SQLite file with ``executemany`` in big transactions (``sqlite3``), PostgreSQL
with ``COPY`` (asyncpg ``copy_records_to_table``). The secondary indexes
(``schema.py``'s ``Index`` objects) are dropped for the load and created again
from the same definitions after it; PostgreSQL is then ``VACUUM ANALYZE``-d
(what autovacuum does on a live database), the SQLite file is not analysed (the
server never does either).

What a race looks like (fixed seed, so both databases hold the same rows):

- 2–6 racers (35/25/20/12/8 %), each linked to a player with probability 0.8,
  else anonymous; players picked by a log-normal activity (σ = 1): with 20,000
  players and 1,000,000 races the mean player has ~130 races, the busiest a
  few thousand;
- variants: ``belle-lucie`` 76 %, the eight others the rest; 95 % ranked;
- results: a fifth of the racers win (52 cards), the rest stop between 4 and
  51 cards; ranks and points as the standings make them;
- ended over two years up to an hour before the build, in race order (so
  streaks count as the archiver would count them);
- the room record and standings as the archive stores them (compact JSON),
  and a two-move log per racer (moves kept small).

``player_variants`` holds every player's figures per variant, counted exactly
as :func:`server.archive.ratings.apply_race` counts them; the ratings are a
cheap random walk (winners up, losers down, sigma shrinking) rather than
openskill's, one ``rating_history`` row per player per rated race (a ranked
race with two players or more).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import orjson
import platformdirs
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.schema import CreateIndex

from server.archive import ArchiveDb, database_url
from server.archive.schema import (
    archived_racers,
    metadata,
    player_variants,
    players,
    races,
    rating_history,
)
from server.race.ids import CODE_ALPHABET
from server.records.players import fold_name
from server.rules import VARIANTS, get_variant

__all__ = ["GENERATOR", "Built", "Spec", "build", "cache_dir", "drop_postgres", "drop_sqlite",
           "forget_since", "open_postgres", "open_sqlite", "pg_admin_url", "race_doc"]

GENERATOR = 2
"""Bump when the generated rows change: cached databases are built again."""

SIZES, SIZE_CUM = (2, 3, 4, 5, 6), (35, 60, 80, 92, 100)
LINKED = 0.8
RANKED = 0.95
VARIANT_SHARE = {"belle-lucie": 76, "three-shuffles-and-a-draw": 5, "trefoil": 4, "the-fan": 4,
                 "super-flower-garden": 3, "shamrocks": 2, "house-in-the-wood": 2,
                 "fan-with-reserve": 2, "no-redeal": 2}
TIME_LIMIT_MS = 600_000
SPAN_MS = 730 * 86_400_000
CHUNK = 25_000
"""Races generated and written per batch (one transaction / one COPY each)."""

RACE_COLS = ["race_id", "room_id", "room_code", "variant", "rules", "deal_number",
             "redeal_key", "ranked", "started_at_ms", "ended_at_ms", "time_limit_ms", "par",
             "last_seq", "room", "standings", "archived_at_ms"]
RACER_COLS = ["race_id", "racer_id", "player_id", "name", "join_order", "status", "final",
              "foundation_cards", "redeals_used", "merci_used", "reach_time_ms",
              "finished_ms", "points", "rank", "moves", "ended_at_ms", "focus_losses"]
PLAYER_COLS = ["player_id", "name", "folded", "key_digest", "created_ms", "fair_play",
               "fair_play_at_ms"]
VARIANT_COLS = ["player_id", "variant", "mu", "sigma", "rating", "rated_races", "races",
                "wins", "cards_total", "best_ms", "streak", "best_streak", "last_race_ms"]
HISTORY_COLS = ["player_id", "variant", "race_id", "mu", "sigma", "at_ms"]
TABLES = ((races, RACE_COLS), (archived_racers, RACER_COLS), (players, PLAYER_COLS),
          (player_variants, VARIANT_COLS), (rating_history, HISTORY_COLS))
for _table, _cols in TABLES:  # the rows below are tuples in this order
    if sorted(c.name for c in _table.columns) != sorted(_cols):
        raise RuntimeError(f"bench/_archive_data.py: the columns of {_table.name} changed; "
                           "update the generator (and GENERATOR)")

assert set(VARIANT_SHARE) == set(VARIANTS)


def cache_dir() -> Path:
    """Where built SQLite archives are kept: ``LUCIE_BENCH_CACHE``, else
    ``platformdirs.user_cache_dir("belle-lucie-race")/bench`` (Linux:
    ``~/.cache/belle-lucie-race/bench``)."""
    folder = Path(os.environ.get("LUCIE_BENCH_CACHE")
                  or Path(platformdirs.user_cache_dir("belle-lucie-race")) / "bench")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def pg_admin_url() -> str:
    """The PostgreSQL server the bench makes its database on: ``LUCIE_BENCH_PG``
    (a ``postgresql://`` URL of any database there), else the local one. The
    database's name: ``LUCIE_BENCH_PG_DB``, else ``lucie_bench_archive_<races>_<players>``."""
    return os.environ.get("LUCIE_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


@dataclass(frozen=True, slots=True)
class Spec:
    """How big an archive: ``races`` races among ``players`` players."""

    races: int
    players: int
    seed: int = 20

    @property
    def tag(self) -> str:
        return f"{self.races}r-{self.players}p-s{self.seed}-g{GENERATOR}"


@dataclass(frozen=True, slots=True)
class Built:
    """A database ready for the bench: its SQLAlchemy URL, when it was built
    (every row the bench writes later is newer) and how long building took
    (``0``: reused from the cache)."""

    url: str
    built_ms: int
    build_s: float
    where: str


# -- generation ---------------------------------------------------------------------


def _b64(rng: random.Random, n: int) -> str:
    return base64.urlsafe_b64encode(rng.getrandbits(8 * n).to_bytes(n, "big")).decode()


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


@dataclass(slots=True)
class _Figures:
    mu: float = 25.0
    sigma: float = 25 / 3
    rated: int = 0
    races: int = 0
    wins: int = 0
    cards: int = 0
    best_ms: int | None = None
    streak: int = 0
    best_streak: int = 0
    last_ms: int = 0


class _Generator:
    """Rows of one archive, in race order (module docstring)."""

    def __init__(self, spec: Spec, end_ms: int) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed)
        self.end_ms = end_ms
        self.start_ms = end_ms - SPAN_MS
        rng = self.rng
        self.player_ids = [f"p{_b64(rng, 9)}" for _ in range(spec.players)]
        self.names = [f"Racer {i:05d}" for i in range(spec.players)]
        weights = [rng.lognormvariate(0.0, 1.0) for _ in range(spec.players)]
        self.cum: list[float] = []
        total = 0.0
        for w in weights:
            total += w
            self.cum.append(total)
        self.variants = list(VARIANT_SHARE)
        self.variant_cum = [sum(list(VARIANT_SHARE.values())[:i + 1])
                            for i in range(len(self.variants))]
        self.rules = {v: get_variant(v).to_json() for v in self.variants}
        self.figures: dict[tuple[int, str], _Figures] = {}

    def player_rows(self) -> list[tuple[Any, ...]]:
        rng = self.rng
        return [(pid, name, fold_name(name),
                 hashlib.sha256(f"bench-{self.spec.seed}-{i}".encode()).hexdigest(),
                 self.start_ms - rng.randrange(86_400_000), None, None)
                for i, (pid, name) in enumerate(zip(self.player_ids, self.names, strict=True))]

    def chunks(self) -> Iterator[tuple[list[tuple[Any, ...]], list[tuple[Any, ...]],
                                       list[tuple[Any, ...]]]]:
        n = self.spec.races
        for first in range(0, n, CHUNK):
            race_rows: list[tuple[Any, ...]] = []
            racer_rows: list[tuple[Any, ...]] = []
            history: list[tuple[Any, ...]] = []
            for i in range(first, min(n, first + CHUNK)):
                self._race(i, race_rows, racer_rows, history)
            yield race_rows, racer_rows, history

    def _race(self, i: int, race_rows: list[tuple[Any, ...]],
              racer_rows: list[tuple[Any, ...]], history: list[tuple[Any, ...]]) -> None:
        rng = self.rng
        slot = SPAN_MS // self.spec.races
        ended = self.start_ms + i * slot + rng.randrange(max(1, slot))
        race_id = _b64(rng, 12)
        variant = rng.choices(self.variants, cum_weights=self.variant_cum)[0]
        ranked = rng.random() < RANKED
        size = rng.choices(SIZES, cum_weights=SIZE_CUM)[0]
        linked = sum(rng.random() < LINKED for _ in range(size))
        chosen: list[int] = []
        while len(chosen) < linked:
            for pick in rng.choices(range(self.spec.players), cum_weights=self.cum,
                                    k=linked - len(chosen)):
                if pick not in chosen:
                    chosen.append(pick)
        who: list[int | None] = [*chosen, *([None] * (size - linked))]
        rng.shuffle(who)
        racers: list[dict[str, Any]] = []
        for order, p in enumerate(who, 1):
            racer_id = _b64(rng, 6)
            if rng.random() < 0.2:
                status, cards = "won", 52
                finished = rng.randrange(90_000, TIME_LIMIT_MS)
                reach = finished
            else:
                status = rng.choices(("stuck", "timed_out", "resigned", "left"),
                                     cum_weights=(60, 85, 95, 100))[0]
                cards = rng.randrange(4, 52)
                reach = rng.randrange(20_000, TIME_LIMIT_MS - 30_000)
                finished = TIME_LIMIT_MS if status == "timed_out" else \
                    reach + rng.randrange(30_000)
            key = (0, finished, 0, 0) if status == "won" else (1, 0, -cards, reach)
            racers.append({"id": racer_id, "p": p, "order": order, "status": status,
                           "cards": cards, "finished": finished, "reach": reach, "key": key,
                           "name": self.names[p] if p is not None else f"Guest {racer_id[:4]}"})
        for r in racers:
            r["rank"] = 1 + sum(o["key"] < r["key"] for o in racers)
            r["points"] = 5 * r["cards"] + (
                500 + max(0, 1200 - r["finished"] // 1000) if r["status"] == "won" else 0)
        started = ended - max(r["finished"] or 0 for r in racers) - rng.randrange(1, 1000)
        room_id = race_id
        code = "".join(rng.choices(CODE_ALPHABET, k=6))
        roster = [{"id": r["id"], "name": r["name"], "join_order": r["order"],
                   "token_digest": "", "ready": False,
                   "player": self.player_ids[r["p"]] if r["p"] is not None else None}
                  for r in racers]
        deal_number = rng.randrange(1, 2**31)
        redeal_key = rng.getrandbits(256).to_bytes(32, "big").hex()
        room = {"id": room_id, "code": code, "rules": self.rules[variant],
                "deal_number": deal_number, "redeal_key": redeal_key, "ranked": ranked,
                "state": "over", "capacity": max(size, 4), "time_limit_ms": TIME_LIMIT_MS,
                "visibility": "public", "countdown_ms": 5000, "host_digest": "",
                "created_ms": started - 60_000, "start_at_ms": started, "ended_ms": ended,
                "roster": roster, "joins": size, "par": None}
        table = sorted(racers, key=lambda r: (r["rank"], r["order"]))
        standings = {"final": True, "par": None, "standings": [
            {"rank": r["rank"], "racer": r["id"], "name": r["name"],
             "foundation_cards": r["cards"], "reach_time_ms": r["reach"], "moves": 2,
             "join_order": r["order"], "status": r["status"], "final": True,
             "points": r["points"], "to_par": None} for r in table]}
        race_rows.append((
            race_id, room_id, code, variant, _dumps(self.rules[variant]), str(deal_number),
            redeal_key, ranked, started, ended, TIME_LIMIT_MS, None, 3 * size + 4,
            _dumps(room), _dumps(standings), ended + rng.randrange(200, 3000)))
        for r in racers:
            moves = _dumps([["2f", r["reach"] // 2], ["3f", r["reach"]]])
            racer_rows.append((
                race_id, r["id"], self.player_ids[r["p"]] if r["p"] is not None else None,
                r["name"], r["order"], r["status"], True, r["cards"], rng.randrange(3), False,
                r["reach"], r["finished"], r["points"], r["rank"], moves, ended, 0))
        if ranked and linked:
            self._figures(race_id, variant, ended, size,
                          [r for r in racers if r["p"] is not None], history)

    def _figures(self, race_id: str, variant: str, ended: int, field: int,
                 mine: list[dict[str, Any]], history: list[tuple[Any, ...]]) -> None:
        """``apply_race``'s figures; a random walk for the rating."""
        rng = self.rng
        for r in mine:
            f = self.figures.get((r["p"], variant))
            if f is None:
                f = self.figures[(r["p"], variant)] = _Figures()
            win = r["rank"] == 1 and field >= 2
            f.races += 1
            f.wins += win
            f.cards += r["cards"]
            f.streak = f.streak + 1 if win else 0
            f.best_streak = max(f.best_streak, f.streak)
            if r["status"] == "won":
                f.best_ms = min(f.best_ms or r["finished"], r["finished"])
            f.last_ms = max(f.last_ms, ended)
        if len(mine) < 2:
            return
        n = len(mine)
        for r in mine:
            place = sum(o["rank"] < r["rank"] for o in mine)
            f = self.figures[(r["p"], variant)]
            f.mu += f.sigma * 0.3 * (1 - 2 * place / (n - 1)) + rng.gauss(0.0, 0.05)
            f.sigma = max(f.sigma * 0.97, 0.8)
            f.rated += 1
            history.append((self.player_ids[r["p"]], variant, race_id, f.mu, f.sigma, ended))

    def variant_rows(self) -> list[tuple[Any, ...]]:
        return [(self.player_ids[p], v, f.mu, f.sigma, f.mu - 3 * f.sigma, f.rated, f.races,
                 f.wins, f.cards, f.best_ms, f.streak, f.best_streak, f.last_ms)
                for (p, v), f in sorted(self.figures.items())]


# -- loading --------------------------------------------------------------------------


class _Target(Protocol):
    async def rows(self, table: str, cols: list[str], rows: list[tuple[Any, ...]]) -> None: ...


def _secondary_indexes() -> list[Any]:
    return [ix for table in metadata.sorted_tables for ix in table.indexes]


def _index_ddl(dialect: Dialect) -> list[str]:
    return [str(CreateIndex(ix).compile(dialect=dialect)) for ix in _secondary_indexes()]


async def _generate(spec: Spec, targets: list[_Target]) -> None:
    gen = _Generator(spec, time.time_ns() // 1_000_000 - 3_600_000)
    player_rows = gen.player_rows()
    for t in targets:
        await t.rows("players", PLAYER_COLS, player_rows)
    for race_rows, racer_rows, history in gen.chunks():
        for t in targets:
            await t.rows("races", RACE_COLS, race_rows)
            await t.rows("archived_racers", RACER_COLS, racer_rows)
            await t.rows("rating_history", HISTORY_COLS, history)
    variant_rows = gen.variant_rows()
    for t in targets:
        await t.rows("player_variants", VARIANT_COLS, variant_rows)


class _SqliteTarget:
    """Bulk rows into a migrated SQLite file (``executemany``, one transaction each)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in ("synchronous=OFF", "cache_size=-600000", "temp_store=MEMORY"):
            self.conn.execute(f"PRAGMA {pragma}")
        for ix in _secondary_indexes():
            self.conn.execute(f"DROP INDEX {ix.name}")

    async def rows(self, table: str, cols: list[str], rows: list[tuple[Any, ...]]) -> None:
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.conn.execute("BEGIN")
        self.conn.executemany(sql, rows)
        self.conn.execute("COMMIT")

    async def finish(self) -> None:
        for ddl in _index_ddl(sqlite_dialect.dialect()):
            self.conn.execute(ddl)
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()


class _PgTarget:
    """Bulk rows into a migrated PostgreSQL database (``COPY``)."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    @classmethod
    async def open(cls, url: str) -> _PgTarget:
        conn = await asyncpg.connect(url, timeout=5)
        for ix in _secondary_indexes():
            await conn.execute(f"DROP INDEX {ix.name}")
        # the rows are consistent by construction: no foreign key trigger per row
        await conn.execute("SET session_replication_role = replica")
        return cls(conn)

    async def rows(self, table: str, cols: list[str], rows: list[tuple[Any, ...]]) -> None:
        await self.conn.copy_records_to_table(table, records=rows, columns=cols)

    async def finish(self) -> None:
        try:
            await self.conn.execute("SET session_replication_role = DEFAULT")
            await self.conn.execute("SET maintenance_work_mem = '512MB'")
            for ddl in _index_ddl(postgresql.dialect()):  # type: ignore[no-untyped-call]
                await self.conn.execute(ddl)
            await self.conn.execute("VACUUM ANALYZE")
        finally:
            await self.conn.close()


def _sqlite_paths(spec: Spec) -> tuple[Path, Path]:
    path = cache_dir() / f"archive-{spec.tag}.sqlite3"
    return path, path.with_name(path.name + ".json")


def _pg_name(spec: Spec) -> str:
    return os.environ.get("LUCIE_BENCH_PG_DB") or f"lucie_bench_archive_{spec.races}_{spec.players}"


def _pg_url(name: str) -> str:
    return str(make_url(pg_admin_url()).set(database=name).render_as_string(hide_password=False))


async def _admin(sql: str) -> Any:
    conn = await asyncpg.connect(pg_admin_url(), timeout=5)
    try:
        return await conn.fetch(sql)
    finally:
        await conn.close()


async def open_sqlite(spec: Spec) -> Built | None:
    """The cached SQLite archive of ``spec``, or ``None`` (none, or another size)."""
    path, meta_path = _sqlite_paths(spec)
    if not (path.exists() and meta_path.exists()):
        return None
    meta = json.loads(meta_path.read_text())
    if meta.get("tag") != spec.tag:
        return None
    built = Built(database_url(f"sqlite:///{path}"), int(meta["built_ms"]), 0.0, str(path))
    await forget_since(built.url, built.built_ms)  # what an interrupted run left
    return built


async def open_postgres(spec: Spec) -> Built | None:
    """The kept PostgreSQL archive of ``spec``, or ``None``.

    :raises OSError, asyncpg.PostgresError: the server does not answer.
    """
    name = _pg_name(spec)
    found = await _admin("SELECT shobj_description(oid, 'pg_database') AS meta "
                         f"FROM pg_database WHERE datname = '{name}'")
    if not found or not found[0]["meta"]:
        return None
    meta = json.loads(found[0]["meta"])
    if meta.get("tag") != spec.tag:
        return None
    url = database_url(_pg_url(name))
    await forget_since(url, int(meta["built_ms"]))
    return Built(url, int(meta["built_ms"]), 0.0, f"database {name}")


async def build(spec: Spec, *, sqlite: bool, pg: bool) -> dict[str, Built]:
    """Build the archives of ``spec`` asked for — the SQLite file in the cache,
    the PostgreSQL database ``lucie_bench_archive_<races>_<players>`` — made
    again from nothing, from one pass of the generator (module docstring)."""
    started = time.perf_counter()
    targets: dict[str, _SqliteTarget | _PgTarget] = {}
    path, meta_path = _sqlite_paths(spec)
    name = _pg_name(spec)
    if sqlite:
        drop_sqlite(spec)
        db = ArchiveDb(database_url(f"sqlite:///{path}"))
        await db.migrate()
        await db.close()
        Path(f"{path}.migrate-lock").unlink(missing_ok=True)
        targets["sqlite"] = _SqliteTarget(path)
    if pg:
        await drop_postgres(spec)
        await _admin(f'CREATE DATABASE "{name}"')
        db = ArchiveDb(database_url(_pg_url(name)))
        await db.migrate()
        await db.close()
        targets["postgresql"] = await _PgTarget.open(_pg_url(name))
    if not targets:  # both kept: nothing to generate
        return {}
    built_ms = time.time_ns() // 1_000_000
    await _generate(spec, list(targets.values()))
    out = {}
    for kind, target in targets.items():
        await target.finish()
        meta = json.dumps({"tag": spec.tag, "built_ms": built_ms})
        if kind == "sqlite":
            meta_path.write_text(meta)
            out[kind] = Built(database_url(f"sqlite:///{path}"), built_ms, 0.0, str(path))
        else:
            await _admin(f"COMMENT ON DATABASE \"{name}\" IS '{meta}'")
            out[kind] = Built(database_url(_pg_url(name)), built_ms, 0.0, f"database {name}")
    took = time.perf_counter() - started
    return {k: Built(b.url, b.built_ms, took, b.where) for k, b in out.items()}


async def drop_postgres(spec: Spec) -> None:
    await _admin(f'DROP DATABASE IF EXISTS "{_pg_name(spec)}" WITH (FORCE)')


def drop_sqlite(spec: Spec) -> None:
    path, meta_path = _sqlite_paths(spec)
    meta_path.unlink(missing_ok=True)
    for suffix in ("", "-wal", "-shm", ".migrate-lock"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


_FORGET = (
    # the bench's writes only ever involve players made since, or anonymous racers
    "DELETE FROM rating_history WHERE player_id IN "
    "(SELECT player_id FROM players WHERE created_ms >= {p})",
    "DELETE FROM player_variants WHERE player_id IN "
    "(SELECT player_id FROM players WHERE created_ms >= {p})",
    "DELETE FROM archived_racers WHERE race_id IN "
    "(SELECT race_id FROM races WHERE archived_at_ms >= {p})",
    "DELETE FROM races WHERE archived_at_ms >= {p}",
    "DELETE FROM players WHERE created_ms >= {p}",
)


async def forget_since(url: str, since_ms: int) -> int:
    """Take out what the bench wrote after the build: races archived since
    ``since_ms`` (their racers) and players made since (their figures and
    rating points). The bench's writes only ever involve such new players or
    anonymous racers, so the built rows are as built again. Plain connections
    without the archive's 3 s statement timeout: finding the new races scans
    ``races``. The number of races taken out."""
    parsed = make_url(url)
    gone = 0
    if parsed.get_backend_name() == "sqlite":
        conn = sqlite3.connect(str(parsed.database), isolation_level=None, timeout=30)
        try:
            # as the server's connections: the races' dependants (the fair-play
            # queue, assessments, challenges' rows) go with them
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("BEGIN IMMEDIATE")
            for sql in _FORGET:
                done = conn.execute(sql.format(p="?"), (since_ms,))
                gone = done.rowcount if sql.startswith("DELETE FROM races") else gone
            conn.execute("COMMIT")
        finally:
            conn.close()
        return gone
    pg = await asyncpg.connect(parsed.set(drivername="postgresql").render_as_string(
        hide_password=False), timeout=10)
    try:
        async with pg.transaction():
            for sql in _FORGET:
                status = await pg.execute(sql.format(p="$1"), since_ms)
                if sql.startswith("DELETE FROM races"):
                    gone = int(status.split()[-1])
        # as autovacuum would, sooner: index-only scans need the visibility map
        # (cheap: only the pages written or emptied since are read)
        await pg.execute("VACUUM races, archived_racers, players, player_variants, "
                         "rating_history")
    finally:
        await pg.close()
    return gone


# -- race documents for the write path -------------------------------------------------


def race_doc(rng: random.Random, player_ids: list[str], moves: int = 100) -> dict[str, Any]:
    """A finished race document as the archiver hands ``ArchiveDb.write`` (the
    race authority's ``FinishedRace``): 2–6 racers, 80 % of them players from
    ``player_ids``, ``moves`` moves in each racer's log, ended now."""
    size = rng.choices(SIZES, cum_weights=SIZE_CUM)[0]
    linked = [p for p in rng.sample(player_ids, size) if rng.random() < LINKED]
    who: list[str | None] = [*linked, *([None] * (size - len(linked)))]
    now = time.time_ns() // 1_000_000
    race_id = _b64(rng, 12)
    roster: list[dict[str, Any]] = []
    racers: dict[str, dict[str, Any]] = {}
    lines: list[dict[str, Any]] = []
    for order, pid in enumerate(who, 1):
        racer_id = _b64(rng, 6)
        won = rng.random() < 0.2
        cards = 52 if won else rng.randrange(4, 52)
        reach = rng.randrange(90_000, TIME_LIMIT_MS)
        name = f"P {pid[:8]}" if pid else f"Guest {racer_id[:4]}"
        roster.append({"id": racer_id, "name": name, "join_order": order, "token_digest": "",
                       "ready": False, "player": pid})
        log = [[rng.choice(("2f", "3f", "a1", "5x", "u")), reach * k // moves]
               for k in range(1, moves + 1)]
        racers[racer_id] = {"id": racer_id, "status": "won" if won else "stuck", "log": log,
                            "foundation_cards": cards, "redeals_used": rng.randrange(3),
                            "merci_used": False, "reach_time_ms": reach, "final": True,
                            "finished_ms": reach}
        lines.append({"racer": racer_id, "name": name, "foundation_cards": cards,
                      "reach_time_ms": reach, "moves": moves, "join_order": order,
                      "status": "won" if won else "stuck", "final": True,
                      "points": 5 * cards + (500 if won else 0), "to_par": None,
                      "_key": (0, reach) if won else (1, -cards)})
    for line in lines:
        line["rank"] = 1 + sum(o["_key"] < line["_key"] for o in lines)
    for line in lines:
        del line["_key"]
    lines.sort(key=lambda x: x["rank"])
    room = {"id": race_id, "code": "".join(rng.choices(CODE_ALPHABET, k=6)),
            "rules": get_variant("belle-lucie").to_json(), "deal_number": rng.randrange(2**31),
            "redeal_key": rng.getrandbits(256).to_bytes(32, "big").hex(), "ranked": True,
            "state": "over", "capacity": 8, "time_limit_ms": TIME_LIMIT_MS,
            "visibility": "public", "countdown_ms": 5000, "host_digest": "",
            "created_ms": now - 700_000, "start_at_ms": now - 610_000, "ended_ms": now,
            "roster": roster, "joins": size, "par": None}
    return {"race_id": race_id, "room": room, "racers": racers,
            "standings": {"final": True, "par": None, "standings": lines}, "seq": 3 * size + 4}
