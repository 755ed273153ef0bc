"""Store URLs: ``redis://[:password@]host:port/db?prefix=lucie:&retention=1000&batch=512``.

Our own query options (``prefix``, ``retention``, ``batch``) are taken out of
the URL; the rest is redis-py's (``socket_timeout`` …). ``prefix`` defaults to
the ``redis_prefix`` setting (``LUCIE_REDIS_PREFIX``, ``lucie:``), which the
caller passes on. Used by the live store
(:mod:`server.store.redis`) and the leaderboard store
(:mod:`server.records.leaderboard_redis`) alike, as is
:func:`detect_cluster`: ``REDIS_URL`` pointing at any node of a Redis Cluster
needs no other setting.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

__all__ = ["ClusterClient", "detect_cluster", "int_option", "own_options", "split_url"]


def split_url(url: str, default_prefix: str = "lucie:") -> tuple[str, str, int]:
    """``(redis-py URL, key prefix, event retention)`` of a store URL: our own
    query options (``prefix``, ``retention``, ``batch``) taken out (module
    docstring); the prefix is ``default_prefix`` where the URL names none.

    :raises ValueError: a malformed ``retention``.
    """
    bare, options = own_options(url)
    prefix = options.get("prefix") or default_prefix
    return bare, prefix, int_option(options, "retention", 1000)


def own_options(url: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(url)
    options = dict(parse_qsl(parts.query))
    own: dict[str, str] = {k: options.pop(k) for k in ("prefix", "retention", "batch")
                           if k in options}
    return urlunsplit(parts._replace(query=urlencode(options))), own


def int_option(options: dict[str, str], name: str, default: int) -> int:
    raw = options.get(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        raise ValueError(f"redis://…?{name}= takes a number") from None


def detect_cluster(url: str, timeout_s: float = 2.0) -> bool:
    """Whether the Redis at ``url`` (a redis-py URL) has cluster mode enabled;
    ``False`` when it cannot be asked (then ``LUCIE_REDIS_CLUSTER=true`` says so)."""
    client = redis.Redis.from_url(url, socket_timeout=timeout_s,
                                  socket_connect_timeout=timeout_s)
    try:
        info = client.info("cluster")
        return bool(int(info.get("cluster_enabled", 0)))
    except (RedisError, OSError, ValueError):
        return False
    finally:
        client.close()


class ClusterClient(RedisCluster):
    """redis-py's asyncio ``RedisCluster``, its slot map loaded before a command
    is routed. redis-py 8.1 routes the commands that arrive before its first
    ``initialize()`` with no slot map; a burst of them at start (50 at once
    here) makes it reload the map under them and some fail with
    ``AttributeError: 'NoneType' object has no attribute 'writelines'`` (not a
    ``RedisError``). ``initialize()`` is idempotent and locked: after the first
    call it returns at once. Pipelines load the map themselves first.
    """

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        await self.initialize()
        return await super().execute_command(*args, **kwargs)

