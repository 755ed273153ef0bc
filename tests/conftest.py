"""Shared fixtures: a real ``lucie-server`` process on a free loopback port."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from infra.redis_cluster import LocalRedisCluster

REPO = Path(__file__).resolve().parents[1]
RUNS = Path(tempfile.gettempdir()) / "lucie-tests"
RUN_DIR = RUNS / f"run-{os.getpid()}"
"""Logs and data of the servers and Redis processes this test session starts.
Each session has its own (sessions may run side by side); a session removes
the folders of earlier ones that are over :data:`KEEP_RUNS_S` old, so runs
never pile up folders in /tmp."""
KEEP_RUNS_S = 3600

# The archive (server/archive) of every server these tests start lives under
# the run's folder, never in the user's data directory: platformdirs follows
# XDG_DATA_HOME (servers built in this process with default settings), and
# start_lucie_server gives each process its own LUCIE_DATA_DIR.
os.environ["XDG_DATA_HOME"] = str(RUN_DIR / "xdg-data")
os.environ.pop("LUCIE_DATA_DIR", None)
os.environ.pop("LUCIE_DATABASE_URL", None)
# Likewise the terminal client's player keys (client_cli/player_key.py): never
# the user's; a test that stores one points LUCIE_CONFIG_DIR at its tmp_path.
os.environ["XDG_CONFIG_HOME"] = str(RUN_DIR / "xdg-config")
os.environ.pop("LUCIE_CONFIG_DIR", None)


def run_dir(prefix: str) -> Path:
    """A fresh folder under :data:`RUN_DIR` for one test's processes."""
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=RUN_DIR))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--chaos", action="store_true", default=False,
                     help="also run the long soak variants of the fault tests "
                          "(marker chaos; make chaos)")
    parser.addoption("--cluster-long", action="store_true", default=False,
                     help="also run the long Redis Cluster runs (marker cluster_long; "
                          "make test-cluster)")
    parser.addoption("--bench", action="store_true", default=False,
                     help="also run the benchmarks' quick runs (marker bench; make bench)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``chaos`` (long soak variants) are left out — deselected, not
    skipped: ``make test`` runs every test it lists — unless ``--chaos`` is given
    (``make chaos``); likewise ``cluster_long`` unless ``--cluster-long``
    (``make test-cluster``) and ``bench`` unless ``--bench`` (``make bench``)."""
    for marker, option in (("chaos", "--chaos"), ("cluster_long", "--cluster-long"),
                           ("bench", "--bench")):
        if config.getoption(option):
            continue
        # the marker itself: `item.keywords` has the parameter ids too (a test
        # parametrized with "chaos" or "bench" is not marked so)
        soak = [item for item in items if item.get_closest_marker(marker)]
        if soak:
            config.hook.pytest_deselected(items=soak)
            items[:] = [item for item in items if not item.get_closest_marker(marker)]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Remove the process logs of old test sessions (:data:`RUNS`)."""
    if not RUNS.is_dir():
        return
    for old in RUNS.iterdir():
        try:
            if old != RUN_DIR and time.time() - old.stat().st_mtime > KEEP_RUNS_S:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue

ServerFactory = Callable[..., str]

TEST_LIMITS = {
    "LUCIE_CREATE_PER_MIN": "60000", "LUCIE_CREATE_BURST": "100000",
    "LUCIE_JOIN_PER_MIN": "60000", "LUCIE_JOIN_BURST": "100000",
    "LUCIE_UPLOAD_PER_MIN": "60000", "LUCIE_UPLOAD_BURST": "100000",
    "LUCIE_WAITING_ROOMS_PER_ADDRESS": "100000", "LUCIE_MAX_ROOMS": "1000000",
}
"""The per-address budgets of the servers the tests start: tests create rooms
from one address far faster than a person (the limit tests set their own)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 right now: each is held while
    the next is chosen (two calls of :func:`free_port` may give the same port)."""
    with contextlib.ExitStack() as stack:
        held = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in held:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in held]


def server_env(env: dict[str, str]) -> dict[str, str]:
    """The environment of a test server: this one without a store URL (the
    memory store unless ``env`` names one) and without a ``.env`` file (a
    developer's ``./.env`` stays out of the tests), then :data:`TEST_LIMITS`
    and ``env``."""
    inherited = {k: v for k, v in os.environ.items()
                 if k.upper() not in ("REDIS_URL", "LUCIE_REDIS_URL")}
    return {**TEST_LIMITS, **inherited, "LUCIE_ENV_FILE": os.devnull, **env}


def start_lucie_server(env: dict[str, str], log_path: Path, *, new_session: bool = False
                       ) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``lucie-server`` on a free port with extra ``env``; wait for /healthz.
    ``new_session``: the server leads a process group of its own (with its
    children), as a command run in a terminal does.

    :returns: the process and its base URL.
    """
    port = free_port()
    full_env = server_env(env)
    full_env.setdefault("LUCIE_DATA_DIR", str(log_path.parent / f"data-{port}"))
    level = [] if "LUCIE_LOG_LEVEL" in env else ["--log-level", "warning"]
    log_path.parent.mkdir(parents=True, exist_ok=True)  # another session may have swept it
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from server.app import main; raise SystemExit(main())",
             "--port", str(port), *level],
            cwd=REPO, env=full_env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=new_session)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60  # a loaded machine imports slowly
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"lucie-server exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/healthz", timeout=0.5).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("lucie-server did not come up")


SERVER_LOGS: dict[str, Path] = {}
"""Log file (stdout + stderr) of each server the factory started, by URL."""


@pytest.fixture(scope="session")
def server_factory() -> Iterator[ServerFactory]:
    """Start real server processes (``factory(**env) -> url``), stopped at the end;
    their logs are in :data:`SERVER_LOGS`."""
    procs: list[subprocess.Popen[bytes]] = []
    logdir = run_dir("e2e-")

    def factory(**env: str) -> str:
        proc, url = start_lucie_server(env, logdir / f"server-{len(procs)}.log")
        procs.append(proc)
        SERVER_LOGS[url] = logdir / f"server-{len(procs) - 1}.log"
        return url

    yield factory
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalRedisCluster]:
    """A real local Redis Cluster (3 masters, 3 replicas, free ports), shared by the
    session's cluster tests; each test uses its own key prefix. A test that kills
    a node starts its own cluster instead. Its nodes require a password (in
    :attr:`~LocalRedisCluster.url`), as production clusters do: the store's
    per-node clients once connected without it."""
    with LocalRedisCluster(base_dir=run_dir("redis-cluster-"),
                           password="cluster-test-secret") as cluster:
        yield cluster


def child_pids(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` now (Linux ``/proc``)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and is not a zombie; Linux ``/proc``)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def wait_gone(pids: set[int], timeout_s: float = 10) -> set[int]:
    """Wait up to ``timeout_s`` for ``pids`` to end; those still running."""
    deadline = time.monotonic() + timeout_s
    while (left := {p for p in pids if alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The cyclic garbage collector off for the test (after one collection):
    an object caught in a reference cycle then stays, where reference
    counting alone would free it — the server runs a full collection only
    every ten minutes (``server.runtime.gcpolicy``)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def freed_once_cancelled(coro: Coroutine[Any, Any, Any], started: asyncio.Event) -> bool:
    """Run ``coro`` in a task until it sets ``started`` (and goes on to its next
    wait), cancel it, wait for it to end (``asyncio.wait`` does not take its
    exception), drop it: whether it is gone at once, by reference counting
    (use with :func:`no_collector`)."""
    task = asyncio.create_task(coro)
    async with asyncio.timeout(5):
        await started.wait()
    task.cancel()
    await asyncio.wait([task], timeout=5)
    assert task.cancelled()
    gone = weakref.ref(task)
    del task
    await asyncio.sleep(0)  # done callbacks run
    return gone() is None
