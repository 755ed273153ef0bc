"""Connections that never finish their request head, and too many from one
address, cost the server little and end quickly (issue 33, item 1).

Found by a breaker: four connections each sending 48 MiB of one unfinished
header raised a server's resident memory from 135 to 318 MB for good
(httptools concatenates a header's pieces without a bound), and 40
connections trickling headers plus 10 silent ones were all still open after
87 s (nothing timed out a request head; the keep-alive timeout only runs
between requests).

Each test starts a real ``lucie-server`` process on loopback and talks to it
over raw sockets; every flood is bounded in bytes, connections and seconds.

* **Header flood**: the head is read up to ``LUCIE_MAX_HEADER`` (16 KiB),
  then answered 431 ``request/headers_too_large`` (JSON); the process grows
  by at most 20 MB over a 4 × 12 MiB flood (``VmRSS``).
* **Slow and silent connections**: a connection that has not sent a
  complete request head within ``LUCIE_HEADER_TIMEOUT_S`` of opening (or of
  the first byte of its next request) is closed.
* **Per-address cap**: past ``LUCIE_HTTP_CONNECTIONS_PER_ADDRESS`` open
  HTTP connections, a new one from that address is answered 429
  ``rate/limited`` with ``Retry-After`` at once and closed, while the held
  ones, other addresses and trusted proxies are served; upgraded room
  sockets leave the count (they have their own cap).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator

import pytest

from tests.conftest import run_dir, start_lucie_server

from .parts import rss_kb

# what these tests assert is done by our subclass of uvicorn's private HTTP
# protocol (docs/dependencies.md): outside its releases the stock h11 runs
pytestmark = [pytest.mark.timeout(90), pytest.mark.uvicorn_private]

FLOODERS = 4
FLOOD_BYTES = 12 << 20
"""What each flooding connection sends at most (12 MiB; the report's was 48)."""
CHUNK = 64 << 10
RSS_GROWTH_KB = 20 << 10
"""The most the flood may add to the process's resident memory (20 MB)."""


@contextlib.contextmanager
def _server(**env: str) -> Iterator[tuple[int, int, str]]:
    """A ``lucie-server`` with ``env``: its port, pid and log file."""
    log = run_dir("floods-") / "server.log"
    proc, url = start_lucie_server(env, log)
    try:
        yield int(url.rsplit(":", 1)[1]), proc.pid, str(log)
    finally:
        proc.terminate()
        proc.wait(10)


async def _connect(port: int, source: str = "127.0.0.1"
                   ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return await asyncio.open_connection(sock=sock)


async def _read_all(reader: asyncio.StreamReader, within_s: float) -> bytes:
    """What the server sends until it closes (or ``within_s`` passes; a reset
    ends it too)."""
    seen = b""
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(within_s):
            while chunk := await reader.read(65536):
                seen += chunk
    return seen


def _answer(raw: bytes) -> tuple[int, dict[str, str], dict[str, object]]:
    """Status, headers (lower-case names) and JSON body of one HTTP answer."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in
               (line.partition(":") for line in lines[1:])}
    return status, headers, json.loads(body) if body else {}


async def _get(port: int, path: str = "/healthz", source: str = "127.0.0.1") -> int:
    reader, writer = await _connect(port, source)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    raw = await _read_all(reader, 5)
    writer.close()
    return _answer(raw)[0]


async def _flood(port: int) -> tuple[asyncio.Task[bytes], asyncio.StreamWriter, int]:
    """One connection sending an endless header (up to :data:`FLOOD_BYTES`,
    10 s) whatever the server answers, as an attacker would, while reading
    that answer: the reading task, the connection (left open) and the bytes
    sent before the server cut it off."""
    reader, writer = await _connect(port)
    answer = asyncio.create_task(_read_all(reader, 12))
    sent = 0
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Flood: ")
    deadline = time.monotonic() + 10
    try:
        while sent < FLOOD_BYTES and time.monotonic() < deadline:
            writer.write(b"a" * CHUNK)
            await asyncio.wait_for(writer.drain(), max(0.1, deadline - time.monotonic()))
            sent += CHUNK
    except (ConnectionError, TimeoutError):
        pass  # the server stopped taking it
    return answer, writer, sent


async def test_a_header_flood_is_answered_431_and_costs_no_memory() -> None:
    with _server() as (port, pid, _):
        assert await _get(port) == 200  # warm
        before = rss_kb(pid)
        floods = await asyncio.gather(*(_flood(port) for _ in range(FLOODERS)))
        await asyncio.sleep(0.5)
        grown = rss_kb(pid) - before  # the flooding connections are still open
        print(f"\nheader flood: {FLOODERS} × ≤{FLOOD_BYTES >> 20} MiB, sent "
              f"{[s >> 10 for _, _, s in floods]} KiB; RSS {before / 1024:.1f} MB "
              f"+{grown / 1024:.1f} MB")
        for _, writer, _ in floods:
            writer.close()
        for answer, _, sent in floods:
            raw = await answer
            assert raw, f"no answer after {sent} bytes of header"
            status, headers, body = _answer(raw)
            assert status == 431, raw[:300]
            assert body["error"]["code"] == "request/headers_too_large"  # type: ignore[index]
            assert headers["content-type"] == "application/json"
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["connection"] == "close"
        assert grown <= RSS_GROWTH_KB, f"RSS grew {grown} kB over the flood"
        # a head just under the limit still passes; the server still serves
        reader, writer = await _connect(port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Fill: "
                     + b"a" * 15_000 + b"\r\n\r\n")
        assert _answer(await _read_all(reader, 5))[0] == 200
        writer.close()


async def _until_closed(reader: asyncio.StreamReader, within_s: float) -> float | None:
    """Seconds until the server closes the connection (EOF or reset), ``None``
    if it is still open after ``within_s``."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(within_s):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return None
    except ConnectionError:
        pass
    return time.monotonic() - started


async def _trickle(writer: asyncio.StreamWriter, first: bytes, stop: asyncio.Event) -> None:
    """Send ``first``, then one more header line every 0.2 s, never ending the head."""
    with contextlib.suppress(ConnectionError):
        writer.write(first)
        for i in range(100):
            if stop.is_set():
                return
            await asyncio.sleep(0.2)
            writer.write(f"X-Slow-{i}: {i}\r\n".encode())
            await writer.drain()


async def test_slow_and_silent_connections_are_closed_within_the_header_timeout() -> None:
    timeout_s, slack_s = 1.0, 1.5
    with _server(LUCIE_HEADER_TIMEOUT_S=str(timeout_s)) as (port, _, _):
        stop = asyncio.Event()
        slow = [await _connect(port) for _ in range(8)]
        silent = [await _connect(port) for _ in range(4)]
        # a keep-alive connection: one whole request, then a next head that never ends
        kept_reader, kept_writer = await _connect(port)
        kept_writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b" 200 " in await kept_reader.readuntil(b"\r\n\r\n")
        trickles = [asyncio.create_task(_trickle(w, b"GET /healthz HTTP/1.1\r\nHost: x\r\n",
                                                 stop)) for _, w in slow]
        trickles.append(asyncio.create_task(_trickle(kept_writer, b"GET /healthz HTTP/1.1\r\n",
                                                      stop)))
        watched = [r for r, _ in slow] + [r for r, _ in silent] + [kept_reader]
        closing = asyncio.gather(*(_until_closed(r, timeout_s + 3) for r in watched))
        await asyncio.sleep(0.5)
        assert await _get(port) == 200  # meanwhile the server serves others
        closed_after = await closing
        stop.set()
        await asyncio.gather(*trickles)
        for _, w in [*slow, *silent, (kept_reader, kept_writer)]:
            w.close()
        print(f"\nclosed after (s): {[round(s, 2) if s else s for s in closed_after]}")
        assert None not in closed_after, closed_after
        assert all(s <= timeout_s + slack_s for s in closed_after if s is not None), \
            closed_after


async def _held(port: int, source: str = "127.0.0.1"
                ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection the server has accepted, that has sent nothing yet."""
    reader, writer = await _connect(port, source)
    await asyncio.sleep(0.05)
    return reader, writer


async def test_connections_beyond_the_per_address_cap_are_refused_others_go_on() -> None:
    cap = 4
    with _server(LUCIE_HTTP_CONNECTIONS_PER_ADDRESS=str(cap),
                 LUCIE_TRUSTED_PROXIES="127.0.0.3") as (port, _, _):
        held = [await _held(port) for _ in range(cap)]
        # one more from the same address: refused at once, with the JSON error
        reader, writer = await _connect(port)
        started = time.monotonic()
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        raw = await _read_all(reader, 5)
        took = time.monotonic() - started
        writer.close()
        assert raw, "closed without an answer"
        status, headers, body = _answer(raw)
        assert status == 429, raw[:300]
        assert body["error"]["code"] == "rate/limited"  # type: ignore[index]
        assert int(headers["retry-after"]) >= 1
        assert took < 1.0, took
        # another address is served; so are the held connections
        assert await _get(port, source="127.0.0.2") == 200
        reader0, writer0 = held[0]
        writer0.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b" 200 " in await asyncio.wait_for(reader0.readuntil(b"\r\n\r\n"), 5)
        # a trusted proxy's connections carry many clients: not counted
        proxied = [await _held(port, "127.0.0.3") for _ in range(cap + 2)]
        for r, w in proxied:
            w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b" 200 " in await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 5)
            w.close()
        for _, w in held:
            w.close()
        await asyncio.sleep(0.2)
        assert await _get(port) == 200  # the slots are free again
        print(f"\nrefused in {took * 1000:.1f} ms")


async def test_room_sockets_leave_the_http_connection_count() -> None:
    """An upgraded connection is a room socket (``LUCIE_SOCKETS_PER_ADDRESS``):
    it no longer holds one of its address's HTTP slots."""
    from tests.api.live import upgrade_request

    cap = 2
    with _server(LUCIE_HTTP_CONNECTIONS_PER_ADDRESS=str(cap)) as (port, _, _):
        reader, writer = await _connect(port)
        writer.write(b"POST /api/v1/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        status, _, body = _answer(await _read_all(reader, 5))
        writer.close()
        assert status == 201
        room = body["room"]["id"]  # type: ignore[index]
        sockets = []
        for _ in range(cap + 3):
            r, w = await _connect(port)
            w.write(upgrade_request(str(room)))
            seen = b""
            async with asyncio.timeout(5):
                while b"welcome" not in seen:
                    chunk = await r.read(65536)
                    assert chunk, seen
                    seen += chunk
            assert seen.startswith(b"HTTP/1.1 101"), seen[:200]
            sockets.append(w)
        assert await _get(port) == 200
        for w in sockets:
            w.close()
