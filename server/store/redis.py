"""The shared store: rooms, racers and room events in Redis (``redis://…``).

Keeps the :mod:`server.store.base` contract for any number of processes
sharing one Redis. :class:`RedisStore` is the bundle: six parts over one
:class:`~server.store.redis_context.RedisContext` (client, key prefix,
auto-pipeline, calibrated clock, fan-out follower) —

- :class:`~server.store.redis_rooms.RedisRoomRecords` (``rooms``),
- :class:`~server.store.redis_games.RedisRacerGames` (``racers``),
- :class:`~server.store.redis_events.RedisEventLog` (``events``),
- :class:`~server.store.redis_indexes.RedisIndexes` (``indexes``),
- :class:`~server.store.redis_archive.RedisPendingArchive` (``archive``),
- :class:`~server.store.redis_clock.RedisClock` (``clock``: Redis ``TIME``,
  calibrated, so every process reads the same clock).

Key layout and the write scripts are in :mod:`server.store.redis_scripts`:
every key of a room carries the hash tag ``{room:<id>}``, and each
compare-and-set write (record + answer + events + publish) is **one** Lua
script, so one round trip and all or nothing.

URL: ``redis://[:password@]host:port/db?prefix=lucie:&retention=1000&batch=512``
plus any redis-py URL option (``socket_timeout`` …). ``prefix`` (default:
the caller's, from the ``redis_prefix`` setting, else ``lucie:``) starts
every key, so several deployments or test runs can share one Redis;
``batch`` caps the commands of one auto-pipeline
(:mod:`server.store.redis_batch`; 1 turns batching off).

Redis Cluster: when the server at the URL runs in cluster mode (detected
with ``INFO cluster``, or said by ``cluster=True``) the store runs on
redis-py's ``RedisCluster``: room keys keep their ``{room:R}`` hash tag,
cross-room keys share the tag ``{ix}``, the auto-pipeline goes per node and
the fan-out uses sharded pub/sub (:mod:`server.store.redis_shards`;
docs/architecture.md, "Redis Cluster"). ``wait_replicas`` > 0: a write is
acknowledged only once ``WAIT`` counted that many replicas
(:mod:`server.store.redis_batch`).

Faults: every Redis error or timeout (2 s, plus ``wait_timeout_ms`` when
writes wait for replicas) becomes
:class:`~server.store.base.StoreUnavailable`; the connection pool reconnects
on the next call.
"""

from __future__ import annotations

import logging
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from server.runtime.redis_url import (
    ClusterClient,
    address,
    check_options,
    detect_cluster,
    int_option,
    own_options,
    split_url,
)

from .redis_archive import RedisPendingArchive
from .redis_clock import RedisClock
from .redis_conn import connection_options
from .redis_context import RedisContext
from .redis_events import RedisEventLog
from .redis_fanout import Follower
from .redis_games import RedisRacerGames
from .redis_indexes import RedisIndexes
from .redis_rooms import RedisRoomRecords
from .redis_shards import Nodes, ShardedFollower

log = logging.getLogger("server.store")

__all__ = ["RedisStore"]


class RedisStore:
    """The :class:`~server.store.base.LiveStore` on Redis (module docstring).

    ``client`` runs commands; ``pubsub_client`` (same server) is used only
    by the per-process follower. ``event_retention``: events kept per room
    (at least 1); ``clock_sync_s``: seconds between clock calibrations;
    ``batch``: most commands of one auto-pipeline; ``nodes`` (cluster mode),
    ``wait_replicas``, ``wait_timeout_ms``: see :class:`RedisContext`.
    Prefer :meth:`from_url`.
    """

    def __init__(self, client: aioredis.Redis | RedisCluster,
                 pubsub_client: aioredis.Redis | None, *,
                 prefix: str = "lucie:", event_retention: int = 1000,
                 clock_sync_s: float = 1.0, batch: int = 512, nodes: Nodes | None = None,
                 wait_replicas: int = 0, wait_timeout_ms: int = 100) -> None:
        self._ctx = RedisContext(client, pubsub_client, prefix=prefix,
                                 event_retention=event_retention,
                                 clock_sync_s=clock_sync_s, batch=batch, nodes=nodes,
                                 wait_replicas=wait_replicas, wait_timeout_ms=wait_timeout_ms)
        self.rooms = RedisRoomRecords(self._ctx)
        self.racers = RedisRacerGames(self._ctx)
        self.events = RedisEventLog(self._ctx)
        self.indexes = RedisIndexes(self._ctx)
        self.archive = RedisPendingArchive(self._ctx, self.rooms)
        self.clock: RedisClock = self._ctx.clock

    @classmethod
    def from_url(cls, url: str, *, prefix: str | None = None, default_prefix: str = "lucie:",
                 event_retention: int | None = None,
                 client_name: str | None = None, cluster: bool | None = None,
                 wait_replicas: int = 0, wait_timeout_ms: int = 100) -> RedisStore:
        """A store for ``url`` (module docstring for the query options); keys
        start with ``prefix`` if given, else the URL's ``?prefix=``, else
        ``default_prefix`` (the ``redis_prefix`` setting). Its
        connections are named ``client_name`` (default ``lucie-server:<prefix>``,
        shown by ``CLIENT LIST``). ``cluster``: ``None`` asks the server
        (:func:`~server.store.redis_shards.detect_cluster`, one blocking round
        trip); ``wait_replicas``/``wait_timeout_ms``: ``WAIT`` before a write's
        acknowledgement (0: none).

        :raises ValueError: a malformed ``retention``, an option that is not Redis's.
        """
        bare, url_prefix, url_retention = split_url(url, default_prefix)
        batch = int_option(own_options(url)[1], "batch", 512)
        prefix = url_prefix if prefix is None else prefix
        event_retention = url_retention if event_retention is None else event_retention
        # a pipeline ending in WAIT is answered only after WAIT's own timeout
        timeout_s = 2.0 + (wait_timeout_ms / 1000 if wait_replicas > 0 else 0)
        common: dict[str, Any] = {"socket_timeout": timeout_s, "socket_connect_timeout": 2.0,
                                  "health_check_interval": 10,
                                  "client_name": client_name or f"lucie-server:{prefix}"}
        retry_kw: dict[str, Any] = {
            # a dropped connection is retried (reconnect); a timeout is not: the
            # write may have run, and the caller gets StoreUnavailable at once
            "retry": Retry(ExponentialBackoff(cap=0.2, base=0.02), 2,
                           supported_errors=(RedisConnectionError,))}
        check_options(bare)
        if cluster is None:
            detected = detect_cluster(bare)
            if detected is None:
                log.warning("cannot ask the Redis at %s whether it is a cluster node: running "
                            "as a single Redis (LUCIE_REDIS_CLUSTER=true names a cluster)",
                            address(bare))
            cluster = bool(detected)
        if cluster:
            # max_connections per node: redis-py's async cluster raises at once
            # (MaxConnectionsError) when a node's pool is full, and before the fix of
            # redis-py#4110 leaks a connection per write error in a failover
            nodes = Nodes(ClusterClient.from_url(bare, max_connections=1024, **common),
                          {**common, **retry_kw, "max_connections": 256}, bare)
            return cls(nodes.cluster, None, prefix=prefix, event_retention=event_retention,
                       batch=batch, nodes=nodes, wait_replicas=wait_replicas,
                       wait_timeout_ms=wait_timeout_ms)
        client = aioredis.Redis.from_url(bare, max_connections=256, **retry_kw, **common,
                                         **connection_options(bare))
        pubsub = aioredis.Redis.from_url(bare, retry=Retry(NoBackoff(), 0),
                                         **{**common, "socket_timeout": 2.0},
                                         **connection_options(bare))
        return cls(client, pubsub, prefix=prefix, event_retention=event_retention, batch=batch,
                   wait_replicas=wait_replicas, wait_timeout_ms=wait_timeout_ms)

    @property
    def prefix(self) -> str:
        """The key prefix every key of this store starts with."""
        return self._ctx.prefix

    @property
    def client(self) -> aioredis.Redis | RedisCluster:
        """The client that runs this store's commands, for parts of the service
        that keep their own keys beside the rooms' (the leaderboards): one
        connection pool per process, closed with the store."""
        return self._ctx.redis

    @property
    def cluster(self) -> bool:
        """Whether the store runs on a Redis Cluster."""
        return self._ctx.cluster

    @property
    def follower(self) -> Follower | ShardedFollower:
        """This process's pub/sub follower (fan-out of live events)."""
        return self._ctx.follower

    async def ping(self) -> None:
        await self._ctx.ping()

    async def close(self) -> None:
        await self._ctx.close()
