"""Clients that vanish: killed or frozen without a close frame, or that stop reading.

Public reports of this kind: WebSocket servers that keep the sockets of
vanished clients (a killed process, a laptop lid shut, a NAT that forgot
the flow) open for ever, so per-client caps stay full and memory grows,
and servers that stall or keep buffering for a peer that stopped reading
(encode/broadcaster #55 is the pub/sub side of that: subscriptions left
behind grow without bound). Here real ``lucie-server`` processes with
``LUCIE_SOCKETS_PER_ADDRESS`` small, so a socket the server still holds
shows as a refused upgrade (HTTP 429 ``rate/limited``) from that address.

Promises:

* A client process SIGKILLed holding 5 sockets (the cap): the kernel closes
  its TCP connections, so the server frees them at once.
* A client frozen holding 5 sockets (SIGSTOP: no FIN, no pong — a vanished
  host as the server sees it): a new socket from its address is refused
  (429) right away and accepted within the ping window
  (``LUCIE_PING_INTERVAL=1``, ``LUCIE_PING_TIMEOUT=1``: ≤ 3.5 s).
* A peer that upgrades and then never reads while events flood is closed
  with 4000 (too slow) and its socket freed within seconds, not at the
  ping timeout; other sockets of the room are not held up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from websockets.exceptions import InvalidStatus

from tests.conftest import REPO, ServerFactory
from tests.e2e.wire import Api

pytestmark = pytest.mark.timeout(60)

ADDRESS = "127.0.0.9"
CAP = 5

CHILD = """
import asyncio, sys
from websockets.asyncio.client import connect

async def main():
    socks = [await connect(sys.argv[1], local_addr=(sys.argv[2], 0), open_timeout=5)
             for _ in range(int(sys.argv[3]))]
    print("open", flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _ws_url(url: str, room: str) -> str:
    return url.replace("http", "ws", 1) + f"/api/v1/rooms/{room}/ws"


@contextlib.contextmanager
def _holder(url: str, address: str, n: int) -> Iterator[subprocess.Popen[bytes]]:
    """A child process holding ``n`` room sockets from ``address``; killed at the end."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, url, address, str(n)], cwd=REPO,
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"open\n"
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


async def _try_open(url: str, address: str) -> int:
    """Open and close one room socket from ``address``: 101, or the refusal's status."""
    from websockets.asyncio.client import connect
    try:
        async with connect(url, local_addr=(address, 0), open_timeout=5):
            return 101
    except InvalidStatus as exc:
        return exc.response.status_code


async def _freed_within(url: str, address: str, limit_s: float) -> float:
    started = time.monotonic()
    while (status := await _try_open(url, address)) != 101:
        assert status == 429, status
        assert time.monotonic() - started < limit_s, "sockets still held"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def test_killed_or_frozen_client_frees_its_sockets(server_factory: ServerFactory) -> None:
    url = server_factory(LUCIE_SOCKETS_PER_ADDRESS=str(CAP), LUCIE_PING_INTERVAL="1",
                         LUCIE_PING_TIMEOUT="1")
    api = Api(url)
    try:
        room, _ = await api.create(deal=5)
        ws = _ws_url(url, room["id"])
        # killed: its kernel sends the FINs, the server frees the sockets at once
        with _holder(ws, ADDRESS, CAP) as child:
            assert await _try_open(ws, ADDRESS) == 429  # the cap is full
            child.send_signal(signal.SIGKILL)
            child.wait(5)
            killed_s = await _freed_within(ws, ADDRESS, 3.0)
        # frozen: no FIN, no pong; only the keepalive ping notices
        with _holder(ws, ADDRESS, CAP) as child:
            child.send_signal(signal.SIGSTOP)
            stopped = time.monotonic()
            assert await _try_open(ws, ADDRESS) == 429  # still held right after
            await _freed_within(ws, ADDRESS, 3.5)
            frozen_s = time.monotonic() - stopped
        assert await _try_open(ws, "127.0.0.8") == 101  # other addresses never waited
        print(f"fault-figure: vanished client: freed {killed_s:.3f} s after SIGKILL, "
              f"{frozen_s:.2f} s after SIGSTOP (ping 1 s + timeout 1 s)")
    finally:
        await api.aclose()


def _raw_upgrade(port: int, room: str, address: str) -> socket.socket:
    """A room socket over a raw TCP connection with a 2 KB receive buffer:
    the handshake is read, then nothing more unless the test reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"GET /api/v1/rooms/{room}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _close_code(sock: socket.socket) -> int | None:
    """Read server frames until a close frame (its code) or the end (``None``)."""
    sock.settimeout(5)
    buf = b""

    def need(n: int) -> bool:
        nonlocal buf
        while len(buf) < n:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                return False
            if not chunk:
                return False
            buf += chunk
        return True

    while need(2):
        opcode, size, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
        if size == 126 and need(4):
            size, at = int.from_bytes(buf[2:4], "big"), 4
        elif size == 127 and need(10):
            size, at = int.from_bytes(buf[2:10], "big"), 10
        if not need(at + size):
            return None
        payload, buf = buf[at:at + size], buf[at + size:]
        if opcode == 0x8:
            return int.from_bytes(payload[:2], "big")
    return None


async def test_a_peer_that_stops_reading_is_closed_4000(server_factory: ServerFactory) -> None:
    # one socket per address: the slow peer's slot shows when it is freed; the
    # racer floods ready toggles over its own socket (an event each), unthrottled
    url = server_factory(LUCIE_SOCKETS_PER_ADDRESS="1", LUCIE_SEND_QUEUE="64",
                         LUCIE_WS_RATE="1000000", LUCIE_WS_BURST="1000000")
    port = int(url.rsplit(":", 1)[1])
    api = Api(url)
    address = "127.0.0.10"
    try:
        room, _ = await api.create(deal=6)
        ws = _ws_url(url, room["id"])
        _, token = await api.join(room["id"], "Ada")
        await api.join(room["id"], "Bob")  # never ready: the room stays waiting
        slow = await asyncio.to_thread(_raw_upgrade, port, room["id"], address)
        assert await _try_open(ws, address) == 429  # the slow socket holds the slot
        from websockets.asyncio.client import connect
        async with connect(ws, additional_headers={"Authorization": f"Bearer {token}"},
                           max_queue=None) as racer:
            seen = 0

            async def drain() -> None:
                nonlocal seen
                with contextlib.suppress(Exception):
                    async for m in racer:
                        seen += '"type":"ready"' in str(m)

            draining = asyncio.create_task(drain())
            started = time.monotonic()
            freed_s = None
            sent = 0
            async with asyncio.timeout(30):
                while freed_s is None:
                    for _ in range(25):
                        for _ in range(20):
                            sent += 1
                            await racer.send('{"t":"ready","d":{"ready":%s}}'
                                             % ("true" if sent % 2 else "false"))
                        while seen < sent - 20:  # the racer's own queue never fills
                            await asyncio.sleep(0.001)
                    if await _try_open(ws, address) == 101:
                        freed_s = time.monotonic() - started
            while seen < sent:  # the racer's own socket got every event meanwhile
                await asyncio.sleep(0.05)
            draining.cancel()
        code = await asyncio.to_thread(_close_code, slow)
        slow.close()
        assert code == 4000, code
        print(f"fault-figure: stopped reader: closed 4000, slot freed {freed_s:.2f} s "
              f"after the flood began ({sent} events sent by then)")
    finally:
        await api.aclose()
