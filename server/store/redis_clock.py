"""The service clock of the Redis store: Redis ``TIME``, calibrated.

:class:`RedisClock` reads ``TIME`` at most every ``sync_s`` seconds and adds
the local monotonic time elapsed since, so every process sharing one Redis
reads the same clock (to within half a round trip) without a round trip per
call. Re-calibration runs in the background; meanwhile the last offset
serves. Only the very first reading waits for Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from server.runtime.metrics import redis_error
from server.runtime.redis_url import REDIS_FAILURES

from .base import StoreUnavailable

__all__ = ["RedisClock", "unavailable"]


@contextlib.contextmanager
def unavailable() -> Iterator[None]:
    """Turn any Redis failure (a redis-py error, an ``OSError``) into
    :class:`StoreUnavailable` with a retry hint, counting it
    (``lucie_redis_errors_total{operation="call"}``: one per store call that failed)."""
    try:
        yield
    except REDIS_FAILURES as exc:
        redis_error("call", exc)
        raise StoreUnavailable(
            f"redis: {type(exc).__name__}; retry in about a second") from None


class RedisClock:
    """:class:`~server.store.base.ServiceClock` on the ``TIME`` of ``client``'s
    Redis (module docstring); ``sync_s``: seconds between calibrations."""

    def __init__(self, client: aioredis.Redis | RedisCluster, *, sync_s: float = 1.0) -> None:
        self._redis = client
        self._sync_s = sync_s
        self._offset_ms: float | None = None
        self._synced = 0.0
        self._last_ms = 0
        self._sync_task: asyncio.Task[None] | None = None

    async def now_ms(self) -> int:
        """Unix ms of the Redis clock, never decreasing within this process.

        :raises StoreUnavailable: the first calibration could not reach Redis.
        """
        mono = time.monotonic() * 1000
        if self._offset_ms is None:
            await self._sync()
            mono = time.monotonic() * 1000
        elif mono - self._synced > self._sync_s * 1000 and (
                self._sync_task is None or self._sync_task.done()):
            # re-calibrate in the background; meanwhile the last offset serves
            self._sync_task = asyncio.create_task(self._resync(), name="redis-clock")
        assert self._offset_ms is not None
        now = max(int(mono + self._offset_ms), self._last_ms)
        self._last_ms = now
        return now

    async def _resync(self) -> None:
        self._synced = time.monotonic() * 1000  # one attempt per period, even failing
        with contextlib.suppress(StoreUnavailable):
            await self._sync()

    async def _sync(self) -> None:
        before = time.monotonic() * 1000
        with unavailable():
            sec, usec = await self._redis.time()
        after = time.monotonic() * 1000
        self._offset_ms = sec * 1000 + usec / 1000 - (before + after) / 2
        self._synced = after

    async def close(self) -> None:
        """Stop a calibration in flight."""
        if self._sync_task is not None:
            self._sync_task.cancel()
            await asyncio.gather(self._sync_task, return_exceptions=True)
