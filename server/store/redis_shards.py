"""Redis Cluster plumbing of the Redis store: the node map and the per-node
fan-out (the mode is detected by :func:`server.runtime.redis_url.detect_cluster`).

- :class:`Nodes` — over redis-py's asyncio ``RedisCluster`` (its slot map:
  ``get_node_from_key``): one plain client per node, for what must run on one
  node's connection — an auto-pipeline followed by ``WAIT``
  (:class:`~server.store.redis_batch.Batcher`), a sharded pub/sub
  connection — and a rate-limited refresh of the slot map after a fault
  (a failover moves the slots of the dead master to its replica);
- :class:`ShardedFollower` — the fan-out follower on a cluster: one
  :class:`~server.store.redis_fanout.Follower` (``SSUBSCRIBE``) per node
  serving followed rooms, each following its node across a failover.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import ClusterDownError, RedisError

from server.errors import StoreUnavailable

from .redis_conn import connection_options
from .redis_fanout import AliveCheck, Follower
from .redis_subscription import Subscription

__all__ = ["Nodes", "ShardedFollower"]


class Nodes:
    """The nodes of ``cluster`` (module docstring); ``options``: the keyword
    arguments of each node's plain client (timeouts, client name); ``url``:
    the cluster's redis-py URL, whose scheme, user, password and query options
    (TLS …) each node's client takes, its host and port replaced."""

    def __init__(self, cluster: RedisCluster, options: dict[str, Any],
                 url: str = "redis://") -> None:
        self.cluster = cluster
        self._options = options
        self._url = urlsplit(url)
        self._clients: dict[str, aioredis.Redis] = {}
        self._refreshed = 0.0

    async def ready(self) -> None:
        """Load the slot map once.

        :raises RedisError: no node answers.
        """
        await self.cluster.initialize()

    def node_of_key(self, key: str) -> ClusterNode:
        """The primary serving ``key``'s slot (slot map as last loaded; call
        :meth:`ready` first).

        :raises ClusterDownError: no node serves it.
        """
        node = self.cluster.get_node_from_key(key)
        if node is None:
            raise ClusterDownError(f"no node serves the slot of {key!r}")
        return node

    def client_of_key(self, key: str | bytes) -> aioredis.Redis:
        """The plain client of the primary serving ``key``'s slot (:meth:`node_of_key`)."""
        node = self.node_of_key(key.decode() if isinstance(key, bytes) else key)
        return self.client(node.host, int(node.port))

    def client(self, host: str, port: int) -> aioredis.Redis:
        """The plain client of node ``host:port`` (one per node, reused): the
        cluster URL's scheme, user, password and options (TLS …) with that
        node's address (without them every write was refused: ``NOAUTH``),
        the store's options, the lean connection on plain TCP."""
        name = f"{host}:{port}"
        found = self._clients.get(name)
        if found is None:
            login, _, _ = self._url.netloc.rpartition("@")
            where = f"[{host}]:{port}" if ":" in host else name
            url = urlunsplit(self._url._replace(netloc=f"{login}@{where}" if login else where))
            found = self._clients[name] = aioredis.Redis.from_url(url, **self._options,
                                                                **connection_options(url))
        return found

    async def refresh(self, min_gap_s: float = 0.3) -> None:
        """Reload the slot map after a fault (at most once per ``min_gap_s``);
        errors are left to the next call."""
        now = time.monotonic()
        if now - self._refreshed < min_gap_s:
            return
        self._refreshed = now
        with contextlib.suppress(RedisError, OSError):
            await self.cluster.nodes_manager.initialize()

    async def aclose(self) -> None:
        """Close every node client."""
        for client in self._clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()
        self._clients.clear()


class ShardedFollower:
    """The fan-out follower on a cluster (module docstring); the same interface
    as :class:`~server.store.redis_fanout.Follower`. A channel is followed on
    the node serving its slot when it is first joined."""

    def __init__(self, nodes: Nodes, alive: AliveCheck, *, buffer: int = 1000,
                 check_s: float = 2.0) -> None:
        self._nodes = nodes
        self._alive = alive
        self._buffer = buffer
        self._check_s = check_s
        self._by_node: dict[str, Follower] = {}
        self._of_channel: dict[str, Follower] = {}
        self._closed = False

    @property
    def channels(self) -> int:
        """Channels followed now."""
        return sum(f.channels for f in self._by_node.values())

    @property
    def reconnects(self) -> int:
        """Reconnects of every node's follower."""
        return sum(f.reconnects for f in self._by_node.values())

    def is_closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    async def join(self, channel: str) -> Subscription:
        """See :meth:`Follower.join`.

        :raises StoreUnavailable: the cluster or the node does not answer in time.
        """
        if self._closed:
            raise StoreUnavailable("the Redis store is closed")
        follower = self._of_channel.get(channel)
        if follower is None:
            try:
                await self._nodes.ready()
                node = self._nodes.node_of_key(channel)
            except (RedisError, OSError) as exc:
                raise StoreUnavailable(
                    f"redis: {type(exc).__name__}; retry in about a second") from None
            follower = self._by_node.get(node.name)
            if follower is None:
                follower = self._by_node[node.name] = Follower(
                    self._nodes.client(node.host, int(node.port)), self._alive,
                    buffer=self._buffer, check_s=self._check_s, sharded=True,
                    resolve=self._resolver(channel))
            self._of_channel[channel] = follower
        try:
            return await follower.join(channel)
        finally:
            if not follower.follows(channel):  # refused or cancelled: forget it
                self._of_channel.pop(channel, None)

    def _resolver(self, anchor: str) -> Any:
        first = True

        async def resolve() -> aioredis.Redis:
            nonlocal first
            if not first:  # a reconnect: the slot may have moved (failover)
                await self._nodes.refresh()
            first = False
            return self._nodes.client_of_key(anchor)
        return resolve

    def leave(self, channel: str, sub: Subscription) -> None:
        """See :meth:`Follower.leave`."""
        follower = self._of_channel.get(channel)
        if follower is None:
            return
        follower.leave(channel, sub)
        if not follower.follows(channel):
            del self._of_channel[channel]

    async def close(self) -> None:
        """Stop every node's follower (waking every subscriber)."""
        self._closed = True
        for follower in self._by_node.values():
            await follower.close()
