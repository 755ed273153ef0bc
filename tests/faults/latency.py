"""A TCP proxy on 127.0.0.1 that delays every byte by a fixed time each way, in
a thread of its own (the test's event loop blocks in synchronous calls).

Put between a server and its Redis, it stands for a Redis a few milliseconds
away (another host, another zone): a connection then takes several round
trips to be made (``CLIENT SETNAME``, ``CLIENT SETINFO``), which makes the
window where the fan-out is still connecting wide and its races repeatable.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from tests.conftest import free_port

__all__ = ["LatencyProxy"]


class LatencyProxy:
    """Forward ``127.0.0.1:<port>`` to ``127.0.0.1:<upstream>``, ``delay_s`` late
    each way; :meth:`close` ends it."""

    def __init__(self, upstream: int, delay_s: float) -> None:
        self.upstream = upstream
        self.delay_s = delay_s
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self._main, name="latency-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("latency proxy did not start")

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
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
        self._writers.add(writer)
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
        loop = asyncio.get_running_loop()

        def later(data: bytes) -> None:
            if not writer.is_closing():
                writer.write(data)

        try:
            while data := await reader.read(65536):
                loop.call_later(self.delay_s, later, data)  # same delay: order kept
        except OSError:
            pass
        finally:
            loop.call_later(self.delay_s, writer.close)

    def close(self) -> None:
        """Close every connection, then stop."""

        def stop() -> None:
            for writer in self._writers:
                writer.close()
            self._loop.call_later(0.05, self._loop.stop)

        self._loop.call_soon_threadsafe(stop)
        self._thread.join(10)
