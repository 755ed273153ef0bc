"""The archive contract on a real PostgreSQL database (tests/archive/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.archive import ArchiveDb, database_url, describe

from .challenges_contract import ChallengeContract
from .conftest import reset_pg
from .contract import ArchiveContract, test_an_unreachable_database_is_unavailable_fast
from .fairplay_contract import FairPlayContract
from .players_contract import PlayerContract


@pytest.fixture
async def empty_db(pg_database: str) -> AsyncIterator[ArchiveDb]:
    await reset_pg(pg_database)
    db = ArchiveDb(database_url(pg_database))
    yield db
    await db.close()


@pytest.fixture
async def db(empty_db: ArchiveDb) -> ArchiveDb:
    await empty_db.migrate()
    return empty_db


class TestPostgresArchive(ArchiveContract, PlayerContract, FairPlayContract,
                         ChallengeContract):
    pass


__all__ = ["test_an_unreachable_database_is_unavailable_fast"]


def test_logs_never_show_the_password() -> None:
    shown = describe(database_url("postgresql://lucie:s3cret@db:5432/lucie"))
    assert "s3cret" not in shown and "db:5432/lucie" in shown
