"""The leaderboard store for a URL: memory (the embedded default) or Redis."""

from __future__ import annotations

from urllib.parse import urlsplit

from server.runtime.redis_url import split_url

from .leaderboard_memory import MemoryLeaderboardStore
from .leaderboard_redis import RedisLeaderboardStore
from .leaderboard_store import LeaderboardStore

__all__ = ["open_leaderboard_store"]


def open_leaderboard_store(url: str | None, *, prefix: str | None = None,
                           default_prefix: str = "lucie:",
                           cluster: bool | None = None) -> LeaderboardStore:
    """The leaderboard store for ``url``: ``None``/``""``/``memory://`` → memory,
    ``redis://…`` / ``rediss://…`` / ``unix://…`` → Redis (keys start with ``prefix``;
    default: the room store's — the URL's ``?prefix=``, else ``default_prefix``,
    the ``redis_prefix`` setting; see :func:`server.runtime.redis_url.split_url`);
    ``cluster``: a Redis Cluster (``None``: ask the server).

    :raises ValueError: unknown scheme.
    """
    scheme = urlsplit(url).scheme if url else "memory"
    if scheme == "memory":
        return MemoryLeaderboardStore()
    if scheme in ("redis", "rediss", "unix"):
        bare, url_prefix, _ = split_url(str(url), default_prefix)
        return RedisLeaderboardStore.from_url(
            bare, prefix=url_prefix if prefix is None else prefix, cluster=cluster)
    raise ValueError(f"unknown leaderboard URL scheme {scheme!r}; use memory:// or redis://")
