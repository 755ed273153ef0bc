"""The deployment files validate: ``docker-compose.yml`` (Compose) and
``infra/haproxy.cfg`` (HAProxy), with whichever of the tools is installed."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess

import pytest

from tests.conftest import REPO

from .balancer import SHIPPED, haproxy_binary, render

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
    # HAProxy will not start unless it may open two files per connection (and a few)
    maxconn = re.search(r"^\s*maxconn (\d+)$", (REPO / "infra" / "haproxy.cfg").read_text(),
                        re.MULTILINE)
    nofile = re.search(r"^  lb:\n(?:    .*\n|      .*\n)*?    ulimits:\n      nofile: (\d+)$",
                       done.stdout, re.MULTILINE)
    assert maxconn and nofile, "the lb service sets no open-files limit for its maxconn"
    assert int(nofile[1]) >= 2 * int(maxconn[1]) + 100


def test_haproxy_config_validates() -> None:
    haproxy = haproxy_binary()
    if haproxy is None:
        pytest.skip("haproxy is not installed")
    done = subprocess.run([haproxy, "-c", "-f", str(REPO / "infra" / "haproxy.cfg")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Configuration file is valid" in done.stdout


def test_the_test_balancer_runs_the_shipped_options() -> None:
    """tests/redis/test_haproxy.py runs ``render`` of the shipped file: it may
    change where HAProxy listens and where the replicas are, nothing else."""
    shipped = SHIPPED.read_text()
    rendered = render(shipped, bind="127.0.0.1:1", stats="127.0.0.1:2",
                      servers=["127.0.0.1:3", "127.0.0.1:4"])
    diff = list(difflib.ndiff(shipped.splitlines(), rendered.splitlines()))
    removed = [line[2:].strip() for line in diff if line.startswith("- ")]
    added = [line[2:].strip() for line in diff if line.startswith("+ ")]
    # the lines it may drop or rewrite ("": the blank line after the resolvers)
    allowed = re.compile(r"(|bind :8000|bind :8404|server app\d+ app\d+:8000 check|"
                         r"resolvers docker|nameserver dns1 127\.0\.0\.11:53|hold valid \w+|"
                         r"# Docker's DNS.*|default-server .* resolvers docker .*)$")
    assert [line for line in removed if not allowed.match(line)] == []
    default_server = next(line for line in removed if line.startswith("default-server "))
    assert sorted(added) == sorted([
        "bind 127.0.0.1:1", "bind 127.0.0.1:2",
        default_server.replace(" resolvers docker", ""),
        "server app1 127.0.0.1:3 check", "server app2 127.0.0.1:4 check"])


@pytest.mark.parametrize("target", ["test", "test-lowest", "test-cluster", "chaos", "bench",
                                    "load"])
def test_make_targets_that_run_redis_ensure_it_first(target: str) -> None:
    """The trial: ``make test-cluster`` ran without ``scripts/ensure-redis.sh``, so
    on a fresh machine the cluster tests found no ``redis-server``/``redis-cli``."""
    # run from `make test` too: the outer make's variables would make this one
    # print "Entering directory" lines
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    done = subprocess.run(["make", "--no-print-directory", "-n", "-o", ".venv/.installed-test",
                           target], cwd=REPO, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "scripts/ensure-redis.sh", done.stdout


@pytest.mark.parametrize(("args", "bots"), [("", ["--bots", "3"]),
                                            ("--bots 1 --deal 5", ["--bots", "1"])])
def test_make_run_takes_the_bots_of_args(args: str, bots: list[str]) -> None:
    """``make run ARGS="--bots 2"`` ran ``lucie play --bots 3 --bots 2`` (the
    last won, but read oddly); the default three come only without ``--bots``."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    done = subprocess.run(["make", "--no-print-directory", "-n", "-o", ".venv/.installed-test",
                           "run", f"ARGS={args}"], cwd=REPO, capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    words = done.stdout.splitlines()[-1].split()
    assert words[words.index("play") + 1:words.index("play") + 3] == bots, words
    assert words.count("--bots") == 1, words
