"""Persistence and fan-out behind one small interface (:class:`Store`).

:func:`open_store` picks the backend by URL scheme, as broadcaster does:
``memory://`` (the embedded default) or ``redis://`` / ``rediss://``.
"""

from __future__ import annotations

import importlib
from urllib.parse import parse_qs, urlsplit

from .base import (
    Event,
    EventsTooOld,
    Record,
    Store,
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
    "MemoryStore",
    "Record",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "Versioned",
    "decode_record",
    "encode_record",
    "open_store",
]


def open_store(url: str | None) -> Store:
    """The store for ``url``: ``None``/``""``/``memory://`` → :class:`MemoryStore`
    (``memory://?retention=N`` keeps N events per room, default 1000),
    ``redis://…`` / ``rediss://…`` → ``server.store.redis.RedisStore.from_url(url)``.

    :raises ValueError: unknown scheme, or the Redis backend is not installed.
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
            module = importlib.import_module("server.store.redis")
        except ModuleNotFoundError as exc:
            raise ValueError(f"the Redis store is not available: {exc}") from None
        store: Store = module.RedisStore.from_url(url)
        return store
    raise ValueError(f"unknown store URL scheme {scheme!r}; use memory:// or redis://")
