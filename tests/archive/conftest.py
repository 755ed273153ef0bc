"""Archive databases for the tests: a fresh SQLite file, and a throwaway
PostgreSQL database per test session.

PostgreSQL: the server at 127.0.0.1:5432 (trust auth; its database ``test``)
when one answers — a uniquely named database is created for the session and
dropped after it — else a throwaway cluster started with ``initdb``/``pg_ctl``
(``/usr/lib/postgresql/15/bin``) in the run's temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from tests.conftest import free_port, run_dir

PG_BIN = Path("/usr/lib/postgresql/15/bin")


async def _admin(port: int, sql: str) -> None:
    conn = await asyncpg.connect(host="127.0.0.1", port=port, user="postgres",
                                 database="test" if port == 5432 else "postgres", timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _reachable(port: int) -> bool:
    try:
        asyncio.run(_admin(port, "SELECT 1"))
        return True
    except (OSError, asyncpg.PostgresError, TimeoutError):
        return False


def _as_postgres(cmd: list[str], folder: Path) -> list[str]:
    """``initdb`` refuses to run as root: run the cluster as ``postgres`` then."""
    if os.geteuid() != 0:
        return cmd
    shutil.chown(folder, "postgres")
    return ["runuser", "-u", "postgres", "--", *cmd]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[int]:
    """The port of a PostgreSQL server: 5432 when it answers (unless
    ``LUCIE_TEST_PG=throwaway``), else a throwaway cluster in the run's folder."""
    if os.environ.get("LUCIE_TEST_PG") != "throwaway" and _reachable(5432):
        yield 5432
        return
    folder = run_dir("pg-")
    folder.chmod(0o755)
    port = free_port()
    data = folder / "data"
    subprocess.run(_as_postgres([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres",
                                 "--auth=trust", "-E", "UTF8"], folder),
                   check=True, capture_output=True)
    subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-l",
                                 str(folder / "pg.log"), "-o",
                                 f"-p {port} -k {folder} -h 127.0.0.1", "-w", "start"], folder),
                   check=True, capture_output=True)
    try:
        yield port
    finally:
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m",
                                     "immediate", "stop"], folder), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_database(pg_server: int) -> Iterator[str]:
    """A ``postgresql://`` URL of a database made for this session (dropped after)."""
    name = "lucie_test_" + secrets.token_hex(6)
    asyncio.run(_admin(pg_server, f'CREATE DATABASE "{name}"'))
    try:
        yield f"postgresql://postgres@127.0.0.1:{pg_server}/{name}"
    finally:
        asyncio.run(_admin(pg_server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def reset_pg(url: str) -> None:
    """Drop every table of the session's database (each test starts empty)."""
    conn = await asyncpg.connect(url, timeout=3)
    try:
        await conn.execute("DROP TABLE IF EXISTS notifications, challenge_attempts, challenges, "
                           "moderation_verdicts, assessments, "
                           "assessment_queue, rating_history, player_variants, players, "
                           "archived_racers, races, alembic_version CASCADE")
    finally:
        await conn.close()
