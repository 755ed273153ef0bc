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
from urllib.parse import parse_qsl, urlencode, urlsplit

import redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterException, RedisError

__all__ = ["REDIS_FAILURES", "ClusterClient", "address", "check_options", "cluster_mode_error",
           "detect_cluster", "int_option", "own_options", "split_url"]

REDIS_FAILURES = (RedisError, RedisClusterException, OSError)
"""What a Redis call may raise when Redis (or a cluster) fails: redis-py's
errors, its cluster errors (not ``RedisError``s) and socket errors."""


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
    # not urlunsplit: it writes unix:///run/redis.sock as unix:/run/redis.sock
    # (no host), which redis-py does not take for a unix:// URL
    bare = f"{parts.scheme}://{parts.netloc}{parts.path}"
    query = urlencode(options)
    return bare + (f"?{query}" if query else "") + (
        f"#{parts.fragment}" if parts.fragment else ""), own


def int_option(options: dict[str, str], name: str, default: int) -> int:
    raw = options.get(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        raise ValueError(f"redis://…?{name}= takes a number") from None


def detect_cluster(url: str, timeout_s: float = 2.0) -> bool | None:
    """Whether the Redis at ``url`` (a redis-py URL) has cluster mode enabled;
    ``None`` when it cannot be asked (then ``LUCIE_REDIS_CLUSTER=true`` says so)."""
    client = redis.Redis.from_url(url, socket_timeout=timeout_s,
                                  socket_connect_timeout=timeout_s)
    try:
        info = client.info("cluster")
        return bool(int(info.get("cluster_enabled", 0)))
    except (RedisError, OSError, ValueError):
        return None
    finally:
        client.close()


def address(url: str) -> str:
    """``host:port`` (or the socket path) of a Redis URL, for messages; never
    its password."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}"


def check_options(url: str) -> None:
    """Refuse a redis-py URL whose query names an option no connection takes
    (redis-py would fail only when it first connects, with a ``TypeError``),
    or ``decode_responses`` (every store call would fail). No round trip.

    :raises ValueError: naming the option; a port that is not a number (never
        quoting it: an unencoded ``/``, ``?`` or ``#`` in the password ends
        the host part early, and the start of the password becomes the port).
    """
    try:
        _ = urlsplit(url).port
    except ValueError:
        raise ValueError("the URL's port is not a number from 0 to 65535 (a password "
                         "holding / ? # or @ must be percent-encoded)") from None
    client = redis.Redis.from_url(url)
    try:
        client.connection_pool.make_connection()
    except TypeError as exc:
        raise ValueError(f"an option the URL names is not a Redis option ({exc})") from None
    finally:
        client.close()
    if client.get_encoder().decode_responses:  # any text, "false" too, is true
        raise ValueError("decode_responses: the store reads Redis's replies as bytes; "
                         "remove the option")


def cluster_mode_error(url: str, cluster: bool | None) -> str | None:
    """Why ``LUCIE_REDIS_CLUSTER=true`` cannot be right for ``url`` (a database
    other than 0, or a plain Redis answered, with cluster mode off), else
    ``None``. One blocking round trip when ``cluster`` is true; none otherwise."""
    if not cluster:
        return None
    bare = own_options(url)[0]
    parts = urlsplit(bare)
    named = dict(parse_qsl(parts.query)).get("db") or (
        "" if parts.scheme == "unix" else parts.path.strip("/"))
    db = int(named) if named.isdigit() else 0  # redis-py ignores what is not a number
    if db:
        return (f"LUCIE_REDIS_CLUSTER=true, but REDIS_URL names database {db}: a Redis "
                "Cluster has only database 0")
    if detect_cluster(bare) is False:
        return (f"LUCIE_REDIS_CLUSTER=true, but the Redis at {address(bare)} runs with "
                "cluster mode off (cluster_enabled:0): unset LUCIE_REDIS_CLUSTER, or name "
                "a node of the cluster")
    return None


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

