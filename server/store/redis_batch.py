"""Auto-pipelining for the Redis store: the commands that concurrent coroutines
issue within one turn of the event loop go to Redis as one pipeline.

Under load many racers move at once; sent one by one, each command costs a
write, a read, a wake-up and a parse. :class:`Batcher` queues commands and
flushes the queue once per loop turn (``loop.call_soon``) as one
non-transactional redis-py pipeline on one pooled connection: one write and
one read for the whole batch, each caller getting its own result or error.
Commands of one coroutine keep their order (it awaits each before the next),
and a batch never waits for more commands, so a lone command is not delayed.

On a Redis Cluster (``nodes`` given) a batch is split by the node serving
each command's first key (:class:`~server.store.redis_shards.Nodes`) and
each node's share goes as one pipeline on that node's client, in parallel.

Durability (``wait_replicas`` > 0): a pipeline holding a script call
(``EVALSHA``: the writes) ends with ``WAIT wait_replicas wait_timeout_ms``
on the same connection, so it counts the replicas that have every write of
the pipeline; when fewer answer in time, each script call of the pipeline
fails with :class:`ReplicasBehind` (the write was applied on the primary and
may be lost by a failover: it is not acknowledged; reads are unaffected).

Errors: a command that fails alone (``NOSCRIPT``, a Lua error) fails only its
caller; a connection error or timeout fails every caller of the batch. Both
are redis-py exceptions for the store to map.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.runtime.metrics import REDIS_SECONDS, redis_error

if TYPE_CHECKING:
    from .redis_shards import Nodes

__all__ = ["Batcher", "ReplicasBehind"]

_PIPELINE_SECONDS = REDIS_SECONDS.labels("pipeline")
"""One auto-pipeline's round trip (``lucie_redis_seconds{operation="pipeline"}``)."""

_Item = tuple[tuple[Any, ...], "asyncio.Future[Any]"]


class ReplicasBehind(RedisError):
    """``WAIT`` counted fewer replicas than asked for within its timeout."""


def _first_key(args: tuple[Any, ...]) -> Any:
    """The routing key of a command: an ``EVALSHA``'s first key, else the first argument."""
    return args[3] if args[0] == "EVALSHA" else args[1]


class Batcher:
    """Batches commands for ``client`` (module docstring); ``max_batch`` caps
    the commands of one pipeline (1: no batching, each command sent alone);
    ``nodes``: the cluster's nodes (cluster mode); ``wait_replicas``,
    ``wait_timeout_ms``: ``WAIT`` after the writes (module docstring)."""

    def __init__(self, client: Any, *, max_batch: int = 512, nodes: Nodes | None = None,
                 wait_replicas: int = 0, wait_timeout_ms: int = 100) -> None:
        self._client = client
        self._nodes = nodes
        self._wait = (wait_replicas, wait_timeout_ms) if wait_replicas > 0 else None
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
        if self._max <= 1 and self._nodes is None and self._wait is None:
            # batching off: each command alone
            alone: asyncio.Future[Any] = asyncio.ensure_future(
                self._client.execute_command(*args))
            return alone
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
        if self._nodes is None:
            await self._send_to(self._client, batch)
            return
        try:
            await self._nodes.ready()
            groups: dict[int, tuple[aioredis.Redis, list[_Item]]] = {}
            for item in batch:
                client = self._nodes.client_of_key(_first_key(item[0]))
                groups.setdefault(id(client), (client, []))[1].append(item)
        except Exception as exc:  # no slot map: every caller fails
            await self._nodes.refresh()
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        await asyncio.gather(*(self._send_to(client, items)
                               for client, items in groups.values()))

    async def _send_to(self, client: aioredis.Redis, batch: list[_Item]) -> None:
        self.batches += 1
        started = time.perf_counter()
        wait = self._wait if self._wait and any(a[0] == "EVALSHA" for a, _ in batch) else None
        try:
            pipe = client.pipeline(transaction=False)
            for args, _ in batch:
                pipe.execute_command(*args)
            if wait:
                pipe.execute_command("WAIT", *wait)
            results = await pipe.execute(raise_on_error=False)
            if wait:
                acked = results.pop()
                if isinstance(acked, Exception) or int(acked) < wait[0]:
                    behind = ReplicasBehind(f"WAIT: {acked} of {wait[0]} replicas in "
                                            f"{wait[1]} ms")
                    results = [behind if a[0] == "EVALSHA" and not isinstance(r, Exception)
                               else r for (a, _), r in zip(batch, results, strict=True)]
        except asyncio.CancelledError:
            for _, future in batch:
                future.cancel()
            raise
        except Exception as exc:  # the whole batch failed (connection, timeout)
            redis_error("pipeline", exc)
            if self._nodes is not None:
                await self._nodes.refresh()
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        _PIPELINE_SECONDS.observe(time.perf_counter() - started)
        moved = False
        for (_, future), result in zip(batch, results, strict=True):
            if future.done():
                continue  # its caller gave up (cancelled)
            if isinstance(result, Exception):
                moved = moved or str(result).startswith(("MOVED", "CLUSTERDOWN", "ASK"))
                future.set_exception(result)
            else:
                future.set_result(result)
        if moved and self._nodes is not None:  # the slot map is stale (failover)
            await self._nodes.refresh()

    async def aclose(self) -> None:
        """Wait for the batches in flight."""
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
