"""What the parts of the Redis store share: one :class:`RedisContext`.

The context holds the command client, the key prefix and every key name
(layout: :mod:`server.store.redis_scripts`), the auto-pipeline
(:class:`~server.store.redis_batch.Batcher`), the calibrated clock
(:class:`~server.store.redis_clock.RedisClock`) and the per-process fan-out
follower (:class:`~server.store.redis_fanout.Follower`; on a Redis Cluster
:class:`~server.store.redis_shards.ShardedFollower`). Each part of
:mod:`server.store.redis` keeps a reference to it; none opens connections
of its own.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import AuthenticationError, NoScriptError, ResponseError

from server.runtime.metrics import REDIS_SECONDS, redis_error
from server.runtime.redis_url import REDIS_FAILURES

from .base import StoreUnavailable, Versioned, decode_record
from .redis_batch import Batcher
from .redis_clock import RedisClock, unavailable
from .redis_fanout import Follower
from .redis_shards import Nodes, ShardedFollower

__all__ = ["RedisContext", "read_versioned", "unavailable"]

log = logging.getLogger("server.store")


def read_versioned(raw: bytes) -> Versioned:
    """A stored ``b"<rev>\\n<record JSON>"`` as :class:`Versioned`.

    :raises StoreError: the record bytes are not a JSON object.
    """
    rev, _, data = raw.partition(b"\n")
    number = int(rev)
    return Versioned(decode_record(data), number)


class RedisContext:
    """The shared connection of one Redis store (module docstring).

    ``client`` runs commands; ``pubsub_client`` (same server) is used only by
    the follower. ``event_retention``: events kept per room (at least 1);
    ``clock_sync_s``: seconds between clock calibrations; ``batch``: most
    commands of one auto-pipeline (1: no batching). ``nodes``: given on a
    Redis Cluster (``client`` is then a ``RedisCluster``; cross-room keys
    carry the hash tag ``{ix}``). ``wait_replicas``, ``wait_timeout_ms``:
    ``WAIT`` before a write is acknowledged (:mod:`server.store.redis_batch`).
    """

    def __init__(self, client: aioredis.Redis | RedisCluster, pubsub_client: aioredis.Redis | None,
                 *, prefix: str, event_retention: int, clock_sync_s: float, batch: int,
                 nodes: Nodes | None = None, wait_replicas: int = 0,
                 wait_timeout_ms: int = 100) -> None:
        self.redis = client
        self.prefix = prefix
        self.nodes = nodes
        self.ix = prefix + ("{ix}" if nodes is not None else "")
        """The start of every cross-room key (one cluster slot for them all)."""
        self.event_retention = max(1, event_retention)
        self._timed: dict[str, tuple[str, Any]] = {}
        self.batch = Batcher(client, max_batch=batch, nodes=nodes, wait_replicas=wait_replicas,
                             wait_timeout_ms=wait_timeout_ms)
        self.waits = wait_replicas > 0
        self.wait_replicas = wait_replicas
        self._misfit_checked = self._misfit_logged = False
        self._refusal_logged: str | None = None
        """The reason last logged of a Redis refusing the connection (password, db)."""
        """Whether writes are acknowledged only after ``WAIT``."""
        self.clock = RedisClock(client, sync_s=clock_sync_s)
        buffer = max(64, 2 * self.event_retention)
        self.follower: Follower | ShardedFollower
        if nodes is not None:
            self.follower = ShardedFollower(nodes, self._alive_channels, buffer=buffer)
        else:
            assert pubsub_client is not None
            self.follower = Follower(pubsub_client, self._alive_channels, buffer=buffer)

    @property
    def cluster(self) -> bool:
        """Whether the store runs on a Redis Cluster."""
        return self.nodes is not None

    def script(self, source: str, name: str = "script") -> AsyncScript:
        """``source`` registered on the command client (its SHA1, loaded lazily);
        ``name`` labels its calls through :meth:`eval` in the metrics. On a
        cluster its ``PUBLISH`` calls become ``SPUBLISH`` (sharded pub/sub)."""
        if self.cluster:
            source = source.replace("redis.call('PUBLISH'", "redis.call('SPUBLISH'")
        script = self.redis.register_script(source)
        self._timed[script.sha] = (name, REDIS_SECONDS.labels(name))
        return script

    async def eval(self, script: AsyncScript, keys: list[str],
                   args: Sequence[bytes | str | int]) -> Any:
        """Run ``script`` through the batcher (EVALSHA; loaded on first NOSCRIPT),
        timing the call (``lucie_redis_seconds{operation=<script name>}``: queued,
        sent in a pipeline, answered) and counting its failures.

        Raises redis-py errors (the caller maps them with :func:`unavailable`).
        """
        name, timer = self._timed.get(script.sha) or ("script", REDIS_SECONDS.labels("script"))
        started = time.perf_counter()
        try:
            try:
                result = await self.batch.call("EVALSHA", script.sha, len(keys), *keys, *args)
            except NoScriptError:
                await self.redis.script_load(script.script)
                result = await self.batch.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except REDIS_FAILURES as exc:
            redis_error(name, exc)
            raise
        timer.observe(time.perf_counter() - started)
        return result

    # -- keys ----------------------------------------------------------------

    def room_hash(self, room_id: str) -> str:
        """The room's hash: room record, racer records, ``seq``, ``code``."""
        return f"{self.prefix}{{room:{room_id}}}"

    def room_keys(self, room_id: str) -> tuple[str, str, str]:
        """The room's hash, answers hash and events stream."""
        h = self.room_hash(room_id)
        return h, h + ":a", h + ":e"

    def channel(self, room_id: str) -> str:
        """The pub/sub channel the room's writes publish their events on."""
        return self.room_hash(room_id) + ":ch"

    def code_key(self, code: str) -> str:
        """Short code → room id."""
        return f"{self.prefix}{{code:{code}}}"

    @property
    def index_key(self) -> str:
        """Sorted set: live room id → its expiry (Unix ms; ``+inf``: none set)."""
        return f"{self.ix}rooms"

    @property
    def archive_key(self) -> str:
        """Sorted set: finished room id → until when its archive claim holds (0: none)."""
        return f"{self.ix}archive"

    @property
    def lobby_key(self) -> str:
        """Sorted set: room id → until when the lobby lists it (Unix ms)."""
        return f"{self.ix}lobby"

    def quick_key(self, slot: str) -> str:
        """A quick race's forming-lobby pointer (``RoomIndexes.take_seat``)."""
        return f"{self.ix}quick:{slot}"

    @property
    def ending_key(self) -> str:
        """Cluster mode only — sorted set: room id → until when the process ending
        its race holds it (Unix ms): the race-end intent (docs/architecture.md)."""
        return f"{self.ix}ending"

    @property
    def timers_key(self) -> str:
        """Sorted set: room id → its next timer deadline (Unix ms)."""
        return f"{self.ix}timers"

    # -- shared reads ----------------------------------------------------------

    async def live_members(self, key: str, *, latest_first: bool = False) -> list[str]:
        """Members of the sorted set ``key`` whose score (a deadline, Unix ms)
        has not passed; the passed ones are dropped (one pipeline).

        :raises StoreUnavailable:
        """
        now = await self.clock.now_ms()
        with unavailable():
            pipe = self.redis.pipeline(transaction=False)
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zrange(key, 0, -1, desc=latest_first)
            _, ids = await pipe.execute()
        return [i.decode() for i in ids]

    async def _alive_channels(self, channels: list[str]) -> set[str]:
        """The followed channels whose rooms still exist (for the follower)."""
        with unavailable():
            pipe = self.redis.pipeline(transaction=False)
            for channel in channels:
                pipe.exists(channel.removesuffix(":ch"))
            found = await pipe.execute()
        return {c for c, n in zip(channels, found, strict=True) if n}

    # -- life cycle ----------------------------------------------------------

    async def ping(self) -> None:
        """The readiness check. Once, after the first answer, also what the
        settings need of this Redis (:meth:`_misfit`): a mismatch is logged
        once and fails every check after. A Redis that refuses the connection
        (a wrong or missing password, a database it does not have) is logged
        with its reason, once until it answers.

        :raises StoreUnavailable: Redis does not answer, or does not fit.
        """
        with unavailable():
            try:
                await self.redis.ping()
            except (AuthenticationError, ResponseError) as exc:  # it answered, refusing us
                refusal = f"this Redis refuses the connection: {exc} (check REDIS_URL)"
                if self._refusal_logged != refusal:
                    log.error("the store cannot work: %s", refusal)
                    self._refusal_logged = refusal
                raise
        self._refusal_logged = None
        if self._misfit_checked:
            return
        with unavailable():
            misfit = await self._misfit()
        if misfit:
            if not self._misfit_logged:
                log.error("the store cannot work: %s", misfit)
                self._misfit_logged = True
            raise StoreUnavailable(f"redis: {misfit}")
        self._misfit_checked = True

    async def _misfit(self) -> str | None:
        """What makes a single-Redis store unusable on the Redis it reached: a
        Redis Cluster node (its writes would be refused with ``MOVED``: the mode
        was not detected at start, or ``LUCIE_REDIS_CLUSTER=false``), or fewer
        replicas than ``LUCIE_REDIS_WAIT_REPLICAS`` (every write refused)."""
        if self.nodes is not None:
            return None
        info = await self.redis.info("cluster")
        if int(info.get("cluster_enabled", 0)):
            return ("this Redis is a cluster node but the store runs as a single Redis "
                    "(LUCIE_REDIS_CLUSTER=false, or the node did not answer at start): "
                    "restart with LUCIE_REDIS_CLUSTER=true or unset")
        if self.wait_replicas:
            replicas = int((await self.redis.info("replication")).get("connected_slaves", 0))
            if replicas < self.wait_replicas:
                return (f"LUCIE_REDIS_WAIT_REPLICAS={self.wait_replicas} but this Redis has "
                        f"{replicas} connected replica(s): every write would be refused")
        return None

    async def close(self) -> None:
        """Stop the clock and the follower (waking every subscriber), wait for
        the batches in flight, close the command connections."""
        await self.clock.close()
        await self.follower.close()
        await self.batch.aclose()
        if self.nodes is not None:
            await self.nodes.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
