"""Fixtures for the client tests: a real ``lucie-server`` process, a cuttable TCP proxy.

``lucie_server`` starts the server once per session on a free port (memory
store) and yields its URL; the tests skip with a reason when the server
package is not there. ``proxy`` sits between the client and that server
and can cut every connection at once, as a network failure or a server
dropping its sockets would.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/v1/rooms", timeout=0.5).status_code == 200
    except httpx.HTTPError:
        return False


def start_server_process(port: int, log: Path) -> subprocess.Popen[bytes]:
    """Start ``lucie-server`` on ``port`` (memory store); wait until it answers."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(LUCIE_HOST="127.0.0.1", LUCIE_PORT=str(port), LUCIE_LOG_LEVEL="warning")
    exe = Path(sys.executable).with_name("lucie-server")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c",
                                           "from server.app import main; main()"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=REPO)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"lucie-server exited: {log.read_text()[-2000:]}")
        if _answers(url):
            return proc
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"lucie-server did not answer: {log.read_text()[-2000:]}")


@pytest.fixture(scope="session")
def lucie_server() -> Iterator[str]:
    """URL of a real ``lucie-server`` process for the whole session."""
    if importlib.util.find_spec("server.app") is None:
        pytest.skip("server.app is not in this tree yet (the race server issue)")
    log = Path(tempfile.gettempdir()) / f"lucie-test-server-{os.getpid()}.log"
    port = free_port()
    proc = start_server_process(port, log)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class Proxy:
    """A TCP proxy from ``url`` to the server; :meth:`cut` drops every connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.server: asyncio.Server | None = None
        self.port = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self.refuse = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refuse:
            writer.close()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_w}
        await asyncio.gather(self._pipe(reader, up_w), self._pipe(up_r, writer))
        self._writers -= {writer, up_w}

    def cut(self) -> None:
        """Drop every open connection at once (new ones are accepted)."""
        for w in list(self._writers):
            transport = w.transport
            transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


@pytest.fixture
async def proxy(lucie_server: str) -> AsyncIterator[Proxy]:
    """A :class:`Proxy` in front of the session's server."""
    p = Proxy(int(lucie_server.rsplit(":", 1)[1]))
    await p.start()
    yield p
    await p.close()
