"""The archive contract on a real SQLite file (the embedded default)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.archive import ArchiveDb, database_url

from .challenges_contract import ChallengeContract
from .contract import ArchiveContract
from .fairplay_contract import FairPlayContract
from .players_contract import PlayerContract


@pytest.fixture
async def empty_db(tmp_path: Path) -> AsyncIterator[ArchiveDb]:
    db = ArchiveDb(database_url(None, str(tmp_path / "data")))
    yield db
    await db.close()


@pytest.fixture
async def db(empty_db: ArchiveDb) -> ArchiveDb:
    await empty_db.migrate()
    return empty_db


class TestSqliteArchive(ArchiveContract, PlayerContract, FairPlayContract,
                         ChallengeContract):
    pass


def test_the_default_file_is_created_in_the_data_dir(tmp_path: Path) -> None:
    url = database_url(None, str(tmp_path / "new" / "dir"))
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'new' / 'dir' / 'archive.sqlite3'}"
    assert (tmp_path / "new" / "dir").is_dir()


def test_urls_get_their_async_driver() -> None:
    assert database_url("postgresql://u:p@h:5/db") == "postgresql+asyncpg://u:p@h:5/db"
    assert database_url("postgres://h/db") == "postgresql+asyncpg://h/db"
    assert database_url("postgresql+psycopg://h/db") == "postgresql+asyncpg://h/db"
    assert database_url("sqlite:////tmp/x.db") == "sqlite+aiosqlite:////tmp/x.db"
    with pytest.raises(ValueError, match="mysql"):
        database_url("mysql://h/db")
