"""Start the embedded race server for the local user when none is running.

``lucie play`` (and so ``make run``) call :func:`ensure_server`: when the
server URL is on this machine and nothing answers there, it starts
``lucie-server`` as a child process on that port (``LUCIE_HOST`` and
``LUCIE_PORT`` set, the store URL ``memory://`` whatever the environment
or a ``.env`` file says), waits until it answers, and stops it on exit. The
server's libraries are the ``server`` extra: a client-only install (``pip
install 'belle-lucie-race[client]'``) can race on any server, and is told to
install that extra when it would have to start one.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from .errors import ServerUnreachable

__all__ = ["ensure_server", "is_local", "nothing_listens", "server_answers", "start_server"]

_LOCAL = frozenset({"127.0.0.1", "localhost", "::1"})

SERVER_PACKAGES = ("starlette", "uvicorn", "redis", "orjson", "pydantic_settings", "sqlalchemy",
                   "aiosqlite", "asyncpg", "alembic", "prometheus_client",
                   "pythonjsonlogger", "openskill")
"""What ``lucie-server`` imports that the client does not (the ``server`` extra
of pyproject.toml; tests/test_import_graph.py keeps them out of the client)."""


def missing_server_packages() -> list[str]:
    """Those of :data:`SERVER_PACKAGES` that cannot be imported here."""
    missing = []
    for name in SERVER_PACKAGES:  # found, not imported: SQLAlchemy alone takes ~0.5 s
        if importlib.util.find_spec(name) is None:
            missing.append(name)
    return missing


def is_local(url: str) -> bool:
    """Whether ``url`` names this machine (loopback host)."""
    return (urlsplit(url).hostname or "") in _LOCAL


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    return ("127.0.0.1" if host == "localhost" else host,
            parts.port or (443 if parts.scheme == "https" else 80))


def server_answers(url: str, timeout: float = 1.0) -> bool:
    """Whether a race server answers ``GET /api/v1/rooms`` at ``url``."""
    try:
        resp = httpx.get(f"{url}/api/v1/rooms", timeout=timeout)
    except (httpx.HTTPError, OSError):
        return False
    return resp.status_code < 500


def nothing_listens(url: str) -> bool:
    """Whether ``url`` is on this machine and nothing at all listens on its port
    (a server that answers with errors still listens)."""
    return is_local(url) and not _port_taken(*_host_port(url))


def _port_taken(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _server_command() -> list[str]:
    script = Path(sys.executable).with_name("lucie-server")
    exe = str(script) if script.exists() else shutil.which("lucie-server")
    return [exe] if exe else [sys.executable, "-c", "from server.app import main; main()"]


def start_server(url: str, *, wait_s: float = 20.0, log_path: Path | None = None,
                 settings: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start ``lucie-server`` for ``url`` and wait until it answers.

    Its output goes to ``log_path`` (default: a file in the temp directory);
    ``settings``: more of its environment (``LUCIE_BOT_THINK_MS``…).

    :raises ServerUnreachable: the server's packages are not installed (the
        message says ``pip install 'belle-lucie-race[server]'``), or it did not
        answer within ``wait_s`` seconds, or exited (the message names the log
        file).
    """
    missing = missing_server_packages()
    if missing:
        raise ServerUnreachable(url, "starting one here needs the server's packages (missing: "
                                     f"{', '.join(missing)}): install belle-lucie-race[server], "
                                     "e.g. pip install 'belle-lucie-race[server]'")
    host, port = _host_port(url)
    log_path = log_path or Path(tempfile.gettempdir()) / f"lucie-server-{port}.log"
    # the memory store, whatever the environment or a ./.env file names
    # (LUCIE_REDIS_URL beats REDIS_URL and the file: docs/settings.md)
    env = {k: v for k, v in os.environ.items()
           if k.upper() not in ("REDIS_URL", "LUCIE_REDIS_URL")}
    env.update(settings or {})
    env.update(LUCIE_HOST=host, LUCIE_PORT=str(port), LUCIE_REDIS_URL="memory://")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(_server_command(), stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerUnreachable(url, f"the embedded server exited; see {log_path}")
        if server_answers(url, timeout=0.5):
            return proc
        time.sleep(0.1)
    stop_server(proc)
    raise ServerUnreachable(url, f"the embedded server did not start; see {log_path}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server started by :func:`start_server` (terminate, then kill)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@contextlib.contextmanager
def ensure_server(url: str, *, allow_start: bool = True,
                  settings: Mapping[str, str] | None = None) -> Iterator[bool]:
    """Make sure a server answers at ``url`` for the duration of the block.

    Yields ``True`` when it started one (stopped when the block ends), with
    ``settings`` added to its environment.

    :raises ServerUnreachable: nothing answers and ``url`` is not local (or
        ``allow_start`` is false), or the port is taken by something else.
    """
    if server_answers(url):
        yield False
        return
    host, port = _host_port(url)
    if not allow_start or not is_local(url):
        raise ServerUnreachable(url, "connection refused")
    if _port_taken(host, port):
        raise ServerUnreachable(url, f"port {port} is taken by something that is not a race "
                                     "server")
    proc = start_server(url, settings=settings)
    try:
        yield True
    finally:
        stop_server(proc)
