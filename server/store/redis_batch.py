"""Auto-pipelining for the Redis store: the commands that concurrent coroutines
issue within one turn of the event loop go to Redis as one pipeline.

Under load many racers move at once; sent one by one, each command costs a
write, a read, a wake-up and a parse. :class:`Batcher` queues commands and
flushes the queue once per loop turn (``loop.call_soon``) as one
non-transactional redis-py pipeline on one pooled connection: one write and
one read for the whole batch, each caller getting its own result or error.
Commands of one coroutine keep their order (it awaits each before the next),
and a batch never waits for more commands, so a lone command is not delayed.

Errors: a command that fails alone (``NOSCRIPT``, a Lua error) fails only its
caller; a connection error or timeout fails every caller of the batch. Both
are redis-py exceptions for the store to map.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import redis.asyncio as aioredis

from server.runtime.metrics import REDIS_SECONDS, redis_error

__all__ = ["Batcher"]

_PIPELINE_SECONDS = REDIS_SECONDS.labels("pipeline")
"""One auto-pipeline's round trip (``lucie_redis_seconds{operation="pipeline"}``)."""

_Item = tuple[tuple[Any, ...], "asyncio.Future[Any]"]


class Batcher:
    """Batches commands for ``client`` (module docstring); ``max_batch`` caps
    the commands of one pipeline (1: no batching, each command sent alone)."""

    def __init__(self, client: aioredis.Redis, *, max_batch: int = 512) -> None:
        self._client = client
        self._max = max_batch
        self._queue: list[_Item] = []
        self._scheduled = False
        self._inflight: set[asyncio.Task[None]] = set()
        self.batches = 0
        """Pipelines sent so far (for tests and benchmarks)."""

    def call(self, *args: Any) -> asyncio.Future[Any]:
        """Queue one command (``"HGET", key, field``); its future gets the
        parsed reply (redis-py's response callbacks apply) or the error."""
        loop = asyncio.get_running_loop()
        if self._max <= 1:  # batching off: each command alone
            return asyncio.ensure_future(
                self._client.execute_command(*args))  # type: ignore[no-untyped-call]
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((args, future))
        if not self._scheduled:
            # the task's first step runs on the next loop turn and takes every
            # command queued until then: one hop, then one round trip
            self._scheduled = True
            task = loop.create_task(self._next_batch())
            self._inflight.add(task)
            task.add_done_callback(self._inflight.discard)
        return future

    async def _next_batch(self) -> None:
        self._scheduled = False
        batch, self._queue = self._queue, []
        try:
            while batch:
                await self._send(batch[:self._max])
                batch = batch[self._max:]
        finally:  # cancelled (store closing): nobody is left waiting
            for _, future in batch:
                if not future.done():
                    future.cancel()

    async def _send(self, batch: list[_Item]) -> None:
        self.batches += 1
        started = time.perf_counter()
        try:
            pipe = self._client.pipeline(transaction=False)
            for args, _ in batch:
                pipe.execute_command(*args)
            results = await pipe.execute(raise_on_error=False)
        except asyncio.CancelledError:
            for _, future in batch:
                future.cancel()
            raise
        except Exception as exc:  # the whole batch failed (connection, timeout)
            redis_error("pipeline", exc)
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        _PIPELINE_SECONDS.observe(time.perf_counter() - started)
        for (_, future), result in zip(batch, results, strict=True):
            if future.done():
                continue  # its caller gave up (cancelled)
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)

    async def aclose(self) -> None:
        """Wait for the batches in flight."""
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
