"""The live store: rooms, racer games, room event logs, room indexes and the
service clock, behind one small :class:`LiveStore` of five parts (the
Protocols and the contract: :mod:`server.store.base`).

Two backends, twins part for part: :class:`MemoryStore` (``memory://``, one
process) and :class:`server.store.redis.RedisStore` (``redis://``, any number
of processes; imported only when asked for). :func:`open_store` picks one by
URL scheme, as broadcaster does.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from .base import (
    Event,
    EventsTooOld,
    LiveStore,
    RacerGames,
    Record,
    RoomEventLog,
    RoomIndexes,
    RoomRecords,
    ServiceClock,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    Versioned,
    decode_record,
    encode_record,
)
from .memory import MemoryStore

__all__ = [
    "Event",
    "EventsTooOld",
    "LiveStore",
    "MemoryStore",
    "RacerGames",
    "Record",
    "RoomEventLog",
    "RoomIndexes",
    "RoomRecords",
    "ServiceClock",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "Versioned",
    "decode_record",
    "encode_record",
    "open_store",
]


def open_store(url: str | None, *, default_prefix: str = "lucie:", cluster: bool | None = None,
               wait_replicas: int = 0, wait_timeout_ms: int = 100) -> LiveStore:
    """The store for ``url``: ``None``/``""``/``memory://`` → :class:`MemoryStore`
    (``memory://?retention=N`` keeps N events per room, default 1000),
    ``redis://…`` / ``rediss://…`` / ``unix://…`` →
    ``server.store.redis.RedisStore.from_url(url)``, its keys starting with
    the URL's ``?prefix=``, else ``default_prefix`` (the ``redis_prefix`` setting);
    ``cluster`` (``None``: ask the server), ``wait_replicas`` and
    ``wait_timeout_ms`` are passed on (the ``redis_cluster``, ``redis_wait_*``
    settings).

    :raises ValueError: unknown scheme, a malformed option, or the Redis
        backend is not installed.
    """
    parts = urlsplit(url) if url else urlsplit("memory://")
    scheme = parts.scheme
    if scheme == "memory":
        query = parse_qs(parts.query)
        try:
            retention = int(query.get("retention", ["1000"])[0])
        except ValueError:
            raise ValueError("memory://?retention= takes a number of events") from None
        return MemoryStore(event_retention=retention)
    if scheme in ("redis", "rediss", "unix"):
        try:
            from .redis import RedisStore
        except ModuleNotFoundError as exc:
            raise ValueError(f"the Redis store is not available: {exc}") from None
        assert url is not None
        return RedisStore.from_url(url, default_prefix=default_prefix, cluster=cluster,
                                   wait_replicas=wait_replicas,
                                   wait_timeout_ms=wait_timeout_ms)
    raise ValueError(f"unknown store URL scheme {scheme!r}; use memory:// or redis://")
