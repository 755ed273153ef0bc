"""The deployment files validate: ``docker-compose.yml`` (Compose) and
``infra/haproxy.cfg`` (HAProxy), with whichever of the tools is installed."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.timeout(60)


def _compose() -> list[str] | None:
    if shutil.which("docker") and subprocess.run(
            ["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_compose_file_validates() -> None:
    compose = _compose()
    if compose is None:
        pytest.skip("neither `docker compose` nor docker-compose is installed")
    done = subprocess.run([*compose, "config"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for name in ("redis", "postgres", "app1", "app2", "app3", "lb"):
        assert f"  {name}:" in done.stdout
    # every replica shares the archive database (docs/archive.md)
    assert done.stdout.count("LUCIE_DATABASE_URL: postgresql://") == 3
    assert "postgres-data" in done.stdout
    assert "appendonly yes" in (REPO / "infra" / "redis.conf").read_text()
    assert done.stdout.count("healthcheck:") >= 6


def test_haproxy_config_validates() -> None:
    if shutil.which("haproxy") is None:
        pytest.skip("haproxy is not installed")
    done = subprocess.run(["haproxy", "-c", "-f", str(REPO / "infra" / "haproxy.cfg")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Configuration file is valid" in done.stdout
