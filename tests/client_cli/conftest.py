"""Fixtures for the client tests: a real ``lucie-server`` process, a cuttable TCP proxy.

``lucie_server`` is one server process (memory store) for the whole session,
started by the shared ``server_factory`` of ``tests/conftest.py``. ``proxy``
sits between the client and that server and can cut every connection at
once, as a network failure or a server dropping its sockets would.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from tests.conftest import ServerFactory

__all__ = ["Proxy"]


@pytest.fixture(scope="session")
def lucie_server(server_factory: ServerFactory) -> str:
    """URL of a real ``lucie-server`` process (memory store) for the whole session."""
    return server_factory()


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
