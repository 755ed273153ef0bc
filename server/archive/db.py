"""The archive database: finished races, kept for good (SQLAlchemy 2 Core, async).

One code path for both backends: an embedded SQLite file (``aiosqlite``) by
default, PostgreSQL (``asyncpg``) when ``LUCIE_DATABASE_URL`` says so
(:func:`database_url`). The tables are :mod:`server.archive.schema`'s,
created and upgraded by :mod:`server.archive.migrate`.

- :meth:`ArchiveDb.write` stores one finished race document (the race
  authority's ``FinishedRace``) idempotently: the race id is the primary key
  and the insert does nothing when the row exists, in one transaction with
  the racers' rows — written twice (two processes, a retry), stored once
  (the rows and statements: :mod:`server.archive.writing`).
- :meth:`ArchiveDb.find_race` reads a race back by race id, room id or room
  code (the latest race with that code) as a :class:`StoredRace`.
- Players, ratings, history and head-to-head over time: the methods of
  :class:`~server.archive.players.PlayerQueries`, handed out as this object's
  own (``create_player``, ``profile``, ``versus``, …); each archived race
  updates its players' figures and ratings in the transaction that stores it
  (:mod:`server.archive.ratings`).
- Fair play: the assessment queue, assessments, moderators' verdicts and
  the rating refund (:class:`~server.archive.fairplay_db.FairPlayQueries`,
  docs/fair-play.md), handed out the same way.
- Challenges and duels (:class:`~server.archive.challenges_db.ChallengeQueries`,
  issue 35), handed out the same way.

A database that does not answer (refused, timed out, gone mid-query, not
migrated yet) raises :class:`~server.errors.ArchiveUnavailable`, never a
driver's exception; the URL (and its password) is never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import event, exc, func, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.errors import ArchiveUnavailable

from . import migrate
from .challenges_db import ChallengeQueries
from .fairplay_db import FairPlayQueries
from .players import PlayerQueries
from .ratings import rating_of
from .schema import archived_racers, races
from .writing import race_rows, store_race

__all__ = ["APP_NAME", "ArchiveDb", "StoredRace", "database_url", "describe"]

log = logging.getLogger("server.archive")

APP_NAME = "belle-lucie-race"
"""The ``platformdirs`` application name: the embedded archive lives in
``user_data_dir(APP_NAME)`` unless ``LUCIE_DATA_DIR`` says otherwise."""

FILE_NAME = "archive.sqlite3"
"""The embedded archive's file name in the data directory."""

_TIMEOUT_S = 3.0
"""Connect and statement timeout: a database that does not answer in this is down."""


@dataclass(frozen=True, slots=True)
class StoredRace:
    """A race read back: the room record, racer records by id, last event number
    (the race authority's ``ArchivedRace``)."""

    room: dict[str, Any]
    racers: dict[str, dict[str, Any]]
    seq: int = 0


def database_url(url: str | None = None, data_dir: str | None = None) -> str:
    """The SQLAlchemy URL of the archive: ``url`` with its async driver
    (``postgresql://`` and ``postgres://`` → ``postgresql+asyncpg://``,
    ``sqlite://`` → ``sqlite+aiosqlite://``), else the SQLite file in
    ``data_dir`` (default: the user's data directory), created when missing.

    :raises ValueError: a URL of another database.
    """
    if url:
        scheme, sep, rest = url.partition("://")
        if not sep:
            raise ValueError(f"LUCIE_DATABASE_URL: not a URL ({scheme[:20]!r}…)")
        base = scheme.split("+")[0].lower()
        if base in ("postgresql", "postgres"):
            return "postgresql+asyncpg://" + rest
        if base == "sqlite":
            return "sqlite+aiosqlite://" + rest
        raise ValueError(f"LUCIE_DATABASE_URL: {base!r} is not postgresql or sqlite")
    folder = Path(data_dir or platformdirs.user_data_dir(APP_NAME)).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / FILE_NAME}"


def describe(url: str) -> str:
    """The URL for logs: password hidden (``postgresql+asyncpg://u:***@h/db``)."""
    return make_url(url).render_as_string(hide_password=True)


_DOWN = (exc.OperationalError, exc.InterfaceError, exc.TimeoutError, exc.DisconnectionError,
         OSError, asyncio.TimeoutError, ConnectionError)


@contextlib.contextmanager
def unavailable() -> Iterator[None]:
    """Map a database that does not answer to :class:`ArchiveUnavailable`."""
    try:
        yield
    except _DOWN as e:
        raise ArchiveUnavailable(f"the archive database does not answer: "
                                 f"{type(e).__name__}") from None
    except exc.DBAPIError as e:
        if e.connection_invalidated:
            raise ArchiveUnavailable("the archive database connection was lost") from None
        raise


class ArchiveDb:
    """The archive over one async engine (module docstring). ``url``: a
    SQLAlchemy async URL (:func:`database_url`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.dialect = make_url(url).get_backend_name()
        args: dict[str, Any] = {}
        if self.dialect == "postgresql":
            args = {"timeout": _TIMEOUT_S, "command_timeout": _TIMEOUT_S}
        elif self.dialect == "sqlite":
            args = {"timeout": _TIMEOUT_S}
        self.engine: AsyncEngine = create_async_engine(
            url, connect_args=args, pool_pre_ping=True, pool_timeout=_TIMEOUT_S)
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self.ready = False
        """Migrated to the head revision by this object (reads need it)."""
        queries = PlayerQueries(self.engine, self._migrated, unavailable)
        self.create_player = queries.create_player
        self.player_by_key = queries.player_by_key
        self.find_player = queries.find_player
        self.delete_player = queries.delete_player
        self.profile = queries.profile
        self.player_races = queries.player_races
        self.versus = queries.versus
        self.rating_history = queries.rating_history
        self.rating_board = queries.rating_board
        fair = FairPlayQueries(self.engine, self._migrated, unavailable)
        self.claim_assessments = fair.claim_assessments
        self.store_assessments = fair.store_assessments
        self.drop_assessment = fair.drop_assessment
        self.pending_assessments = fair.pending_assessments
        self.assessed_players = fair.assessed_players
        self.player_assessments = fair.player_assessments
        self.record_verdict = fair.record_verdict
        self.verdicts = fair.verdicts
        self.fair_play_of = fair.fair_play_of
        self.board_results = fair.board_results
        duels = ChallengeQueries(self.engine, self._migrated, unavailable)
        self.create_challenge = duels.create_challenge
        self.find_challenge = duels.find_challenge
        self.check_attempt = duels.check_attempt
        self.add_attempt = duels.add_attempt
        self.duel_candidates = duels.duel_candidates
        self.match_duel = duels.match_duel
        self.take_duel = duels.take_duel
        self.due_settlements = duels.due_settlements
        self.settle = duels.settle
        self.due_closings = duels.due_closings
        self.close_challenge = duels.close_challenge
        self.notifications = duels.notifications
        self.unread_notifications = duels.unread_notifications
        self.player_challenges = duels.player_challenges
        self.challenge_closed = duels.challenge_closed
        self.attempt_racer = duels.attempt_racer

    async def player_rating(self, player_id: str, variant: str) -> float | None:
        """The player's rating in ``variant`` (quick races' bands): ``ratings.rating_of``."""
        await self._migrated()
        with unavailable():
            async with self.engine.connect() as conn:
                return await rating_of(conn, player_id, variant)

    async def _migrated(self) -> None:
        if not self.ready:  # down at start: migrate once it answers
            await self.migrate()

    async def migrate(self) -> None:
        """Create or upgrade the tables (Alembic ``upgrade head``).

        :raises ArchiveUnavailable:
        """
        with unavailable(), contextlib.ExitStack() as held:
            database = make_url(self.url).database
            if self.dialect == "sqlite" and database and database != ":memory:":
                # processes sharing one file migrate one after the other
                lock = held.enter_context(open(f"{database}.migrate-lock", "a+b"))
                await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)
            async with asyncio.timeout(4 * _TIMEOUT_S):
                await migrate.upgrade(self.engine)
        self.ready = True

    async def ping(self) -> None:
        """:raises ArchiveUnavailable: the database does not answer."""
        with unavailable():
            async with asyncio.timeout(_TIMEOUT_S), self.engine.connect() as conn:
                await conn.exec_driver_sql("SELECT 1")

    async def write(self, race: dict[str, Any]) -> bool:
        """Store one finished race document (``race_id``, ``room``, ``racers``,
        ``standings``, ``seq``); ``False`` when it was stored already
        (:func:`server.archive.writing.store_race`, in one transaction).

        :raises ArchiveUnavailable:
        """
        if not self.ready:
            await self.migrate()
        row, racer_rows = race_rows(race)
        with unavailable():
            async with self.engine.begin() as conn:
                return await store_race(conn, row, racer_rows,
                                        rated=bool(race.get("rated", row["ranked"])))

    async def find_race(self, ref: str) -> StoredRace | None:
        """The race by race id, room id, or room code (the latest race with it).

        :raises ArchiveUnavailable: the database does not answer (a database
            not migrated yet by this object is migrated first).
        """
        if "\x00" in ref:  # PostgreSQL text holds no NUL: no race has it
            return None
        if not self.ready:  # down at start: migrate once it answers
            await self.migrate()
        cols = (races.c.race_id, races.c.room, races.c.last_seq)
        with unavailable():
            async with self.engine.connect() as conn:
                found = (await conn.execute(
                    select(*cols).where((races.c.race_id == ref) | (races.c.room_id == ref))
                    .order_by((races.c.race_id == ref).desc(), races.c.ended_at_ms.desc())
                    .limit(1))).first()
                if found is None and len(ref) <= 16:
                    found = (await conn.execute(
                        select(*cols).where(races.c.room_code == ref.upper())
                        .order_by(races.c.ended_at_ms.desc()).limit(1))).first()
                if found is None:
                    return None
                rows = (await conn.execute(
                    select(archived_racers).where(archived_racers.c.race_id == found.race_id)
                )).mappings().all()
        racers = {r["racer_id"]: {
            "id": r["racer_id"], "status": r["status"], "log": r["moves"],
            "foundation_cards": r["foundation_cards"], "redeals_used": r["redeals_used"],
            "merci_used": r["merci_used"], "reach_time_ms": r["reach_time_ms"],
            "finished_ms": r["finished_ms"], "final": r["final"],
            "focus_losses": r["focus_losses"]} for r in rows}
        return StoredRace(room=found.room, racers=racers, seq=found.last_seq)

    async def update_par(self, race_id: str, par: int, room: dict[str, Any],
                         standings: dict[str, Any]) -> bool:
        """Store a par found after the race was archived, with the room record
        and the standings that show it; ``False``: no such race (yet).

        :raises ArchiveUnavailable:
        """
        if not self.ready:
            await self.migrate()
        with unavailable():
            async with self.engine.begin() as conn:
                done = await conn.execute(
                    update(races).where(races.c.race_id == race_id)
                    .values(par=par, room=room, standings=standings))
        return bool(done.rowcount)

    async def update_room(self, race_id: str, room: dict[str, Any]) -> bool:
        """Store the room record of an archived race again (a rematch link set
        after it was archived: docs/protocol.md, "Rematch"); ``False``: no such
        race (yet).

        :raises ArchiveUnavailable:
        """
        if not self.ready:
            await self.migrate()
        with unavailable():
            async with self.engine.begin() as conn:
                done = await conn.execute(
                    update(races).where(races.c.race_id == race_id).values(room=room))
        return bool(done.rowcount)

    async def count(self) -> int:
        """How many races the archive holds (tests, operators).

        :raises ArchiveUnavailable:
        """
        with unavailable():
            async with self.engine.connect() as conn:
                return int((await conn.execute(select(func.count()).select_from(races)))
                           .scalar_one())

    async def close(self) -> None:
        """Close every pooled connection."""
        with contextlib.suppress(Exception):
            await self.engine.dispose()


def _sqlite_pragmas(dbapi_connection: Any, _: Any) -> None:
    """WAL (readers never wait for the archiver), foreign keys on."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
