"""The embedded server ``lucie play`` starts keeps its games in memory."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from client_cli.embedded import start_server, stop_server
from tests.conftest import free_port


def test_embedded_server_ignores_store_urls_of_environment_and_env_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store URL in the environment (either name) or in ./.env would turn the
    player's local server into a client of some Redis (here: one that does
    not answer, so readiness would fail)."""
    (tmp_path / ".env").write_text("LUCIE_REDIS_URL=redis://127.0.0.1:1/0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LUCIE_ENV_FILE", raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("redis_url", "redis://127.0.0.1:1/1")  # names have no case
    monkeypatch.setenv("lucie_redis_url", "redis://127.0.0.1:1/2")
    url = f"http://127.0.0.1:{free_port()}"
    proc = start_server(url, wait_s=30, log_path=tmp_path / "server.log")
    try:
        ready = httpx.get(url + "/readyz", timeout=10)
        assert ready.status_code == 200 and ready.json()["store"] == "MemoryStore"
    finally:
        stop_server(proc)
