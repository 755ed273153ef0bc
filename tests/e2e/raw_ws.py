"""Room sockets by hand over asyncio streams, for the tests that need what a
WebSocket library hides: any handshake header (``Origin``, ``Host``,
``Sec-WebSocket-Protocol``, ``X-Forwarded-Proto``), the refusal's HTTP
answer, control frames, floods written as fast as the kernel takes them."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Opened", "close_of", "frame", "next_message", "open_raw", "read_frame", "text_frame"]

OP_TEXT, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x8, 0x9, 0xA


@dataclass
class Opened:
    """An upgrade's outcome: its status, headers (lower-case names) and, when
    refused, the body; the streams when it was accepted (101)."""

    status: int
    headers: dict[str, str]
    body: bytes
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    rest: bytearray = field(default_factory=bytearray)

    def error(self) -> dict[str, Any]:
        """The JSON error of a refused upgrade."""
        return json.loads(self.body)["error"]  # type: ignore[no-any-return]

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            await asyncio.wait_for(self.writer.wait_closed(), 2)


async def open_raw(port: int, path: str, headers: dict[str, str] | None = None, *,
                   host: str | None = None, local: str | None = None) -> Opened:
    """Send a WebSocket upgrade of ``path`` to 127.0.0.1:``port`` with ``headers``
    (``Host`` is ``127.0.0.1:port`` unless ``host``; from address ``local``)
    and read the answer's head (and body, when refused)."""
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, local_addr=(local, 0) if local else None)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}",
             "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
             "Sec-WebSocket-Version: 13", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split()[1])
    found = {}
    for line in header_lines:
        if ":" in line:
            name, _, value = line.partition(":")
            found[name.strip().lower()] = value.strip()
    body = b""
    if status != 101 and "content-length" in found:
        body = await asyncio.wait_for(reader.readexactly(int(found["content-length"])), 10)
    return Opened(status, found, body, reader, writer)


def frame(opcode: int, payload: bytes = b"") -> bytes:
    """A client's (masked) frame, FIN set; payloads up to 64 KiB."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | size]) if size < 126
                                     else bytes([0x80 | 126]) + struct.pack("!H", size))
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


def text_frame(message: Any) -> bytes:
    """A client text frame of ``message`` as JSON."""
    return frame(OP_TEXT, json.dumps(message).encode())


async def read_frame(opened: Opened) -> tuple[int, bytes] | None:
    """The next server frame ``(opcode, payload)``; ``None`` at the end of the stream."""
    buf = opened.rest

    async def need(n: int) -> bool:
        while len(buf) < n:
            try:
                chunk = await opened.reader.read(65536)
            except (ConnectionResetError, BrokenPipeError):
                return False
            if not chunk:
                return False
            buf.extend(chunk)
        return True

    if not await need(2):
        return None
    opcode, size, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
    if size == 126:
        if not await need(4):
            return None
        size, at = int.from_bytes(buf[2:4], "big"), 4
    elif size == 127:
        if not await need(10):
            return None
        size, at = int.from_bytes(buf[2:10], "big"), 10
    if not await need(at + size):
        return None
    payload = bytes(buf[at:at + size])
    del buf[:at + size]
    return opcode, payload


async def next_message(opened: Opened, timeout: float = 5.0) -> dict[str, Any] | tuple[int, str]:
    """The next text message as JSON, skipping control frames other than a
    close; a close frame as ``(code, reason)``; ``(1006, "")`` at the end."""
    async with asyncio.timeout(timeout):
        while True:
            got = await read_frame(opened)
            if got is None:
                return 1006, ""
            opcode, payload = got
            if opcode == OP_CLOSE:
                return close_of(payload)
            if opcode == OP_TEXT:
                return json.loads(payload)  # type: ignore[no-any-return]


def close_of(payload: bytes) -> tuple[int, str]:
    """A close frame's ``(code, reason)`` (1005 when it has none)."""
    if len(payload) < 2:
        return 1005, ""
    return int.from_bytes(payload[:2], "big"), payload[2:].decode(errors="replace")
