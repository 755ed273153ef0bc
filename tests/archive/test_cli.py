"""``lucie-server migrate``: brings the archive to the newest revision and exits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, free_port


def _migrate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from server.app import main; raise SystemExit(main())",
         "migrate"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)


def test_migrate_creates_the_embedded_archive(tmp_path: Path) -> None:
    env = {**os.environ, "LUCIE_DATA_DIR": str(tmp_path / "data")}
    done = _migrate(env)
    assert done.returncode == 0, done.stderr
    assert "newest revision" in done.stdout
    assert (tmp_path / "data" / "archive.sqlite3").is_file()
    again = _migrate(env)  # nothing to do: still fine
    assert again.returncode == 0, again.stderr


def test_migrate_reports_a_database_down_without_its_password() -> None:
    env = {**os.environ,
           "LUCIE_DATABASE_URL": f"postgresql://lucie:s3cret@127.0.0.1:{free_port()}/x"}
    done = _migrate(env)
    assert done.returncode == 1
    assert "archive/unavailable" in done.stderr or "does not answer" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout


def test_migrate_refuses_another_database() -> None:
    done = _migrate({**os.environ, "LUCIE_DATABASE_URL": "mysql://h/db"})
    assert done.returncode == 2 and "mysql" in done.stderr
