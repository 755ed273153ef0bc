"""Alembic migrations of the archive, run in code (no ``alembic.ini``).

:func:`upgrade` brings a database to a revision (``head`` by default); the
server runs it at start and ``lucie-server migrate`` runs it alone. On
PostgreSQL it holds a transaction-scoped advisory lock, so processes starting
together migrate one after the other. :func:`downgrade` and
:func:`current` serve tests and operators.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["HEAD", "MIGRATIONS", "current", "downgrade", "upgrade"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
"""The Alembic script directory shipped inside the package."""

HEAD = "0005"
"""The newest revision (tests check the scripts agree)."""

_LOCK_KEY = 20_2000
"""PostgreSQL advisory lock id held while migrating."""


def _config(connection: Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


async def _run(engine: AsyncEngine, action: Any, revision: str) -> None:
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(text(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})"))
        await conn.run_sync(lambda sync: action(_config(sync), revision))


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database up to ``revision``.

    :raises sqlalchemy.exc.SQLAlchemyError, OSError: the database does not answer.
    """
    await _run(engine, command.upgrade, revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    """Migrate the database down to ``revision`` (``base``: empty)."""
    await _run(engine, command.downgrade, revision)


async def current(engine: AsyncEngine) -> str | None:
    """The database's revision (``None``: never migrated)."""
    async with engine.connect() as conn:
        return await conn.run_sync(
            lambda sync: MigrationContext.configure(sync).get_current_revision())
