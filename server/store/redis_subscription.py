"""One subscriber's buffer of a room channel, fed by the fan-out follower
(:mod:`server.store.redis_fanout`)."""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["Subscription"]


class Subscription:
    """One subscriber's view of a room channel: a bounded buffer of published
    payloads and a ``resync`` flag meaning "re-read the stream from your
    position"."""

    __slots__ = ("_limit", "queue", "resync", "wake")

    def __init__(self, limit: int) -> None:
        self.queue: deque[bytes] = deque()
        self.wake = asyncio.Event()
        self.resync = True
        self._limit = limit

    def push(self, payload: bytes) -> None:
        """Buffer one published payload; on overflow drop the buffer and resync."""
        if len(self.queue) >= self._limit:
            self.queue.clear()
            self.resync = True
        else:
            self.queue.append(payload)
        self.wake.set()

    def poke(self) -> None:
        """Ask the subscriber to re-read the stream."""
        self.resync = True
        self.wake.set()

    async def wait(self) -> None:
        """Return when something was pushed or poked since the last look."""
        if self.queue or self.resync:
            return
        self.wake.clear()
        await self.wake.wait()
