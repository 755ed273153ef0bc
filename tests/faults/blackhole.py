"""A TCP proxy on 127.0.0.1 whose path can go silent: :meth:`BlackholeProxy.cut`
stops every byte each way without closing anything — as a network that drops
packets does (a Wi-Fi gone, a NAT entry expired, a cable pulled between two
switches) — and new connections are accepted but never reach the server;
:meth:`BlackholeProxy.mend` lets everything through again, held bytes first.

Neither end sees a close or a reset: only a client that expects answers (a
ping's pong) can tell the connection is gone. It runs in a thread of its own
(the tests block in Selenium's and the client's synchronous calls)."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from tests.conftest import free_port

__all__ = ["BlackholeProxy"]


class BlackholeProxy:
    """Forward ``127.0.0.1:<port>`` to ``127.0.0.1:<upstream>``, silent while cut;
    :meth:`close` ends it."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.connections = 0
        """Connections accepted so far (a client that reconnects makes more)."""
        self._loop = asyncio.new_event_loop()
        self._flowing = asyncio.Event()
        self._ready = threading.Event()
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self._main, name="blackhole-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("blackhole proxy did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> None:
        """From now on no byte passes either way and nothing is closed."""
        self._loop.call_soon_threadsafe(self._flowing.clear)

    def mend(self) -> None:
        """The path is back: held bytes and held connections go through."""
        self._loop.call_soon_threadsafe(self._flowing.set)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._flowing.set()
        server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            with contextlib.suppress(Exception):
                self._loop.run_until_complete(server.wait_closed())
            self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writers.add(writer)
        await self._flowing.wait()  # a connection made while cut hangs, unanswered
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.close()
            self._writers.discard(writer)
            return
        self._writers.add(up_writer)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                             return_exceptions=True)
        self._writers -= {writer, up_writer}

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self._flowing.wait()  # held, in order, while the path is cut
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            await self._flowing.wait()  # an end is not passed on while cut either
            writer.close()

    def close(self) -> None:
        """Close every connection, then stop."""

        def stop() -> None:
            self._flowing.set()
            for writer in self._writers:
                writer.close()
            self._loop.call_later(0.05, self._loop.stop)

        self._loop.call_soon_threadsafe(stop)
        self._thread.join(10)
