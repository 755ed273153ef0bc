"""Persistence and fan-out behind one small interface (:class:`Store`).

:func:`open_store` picks the backend by URL scheme, as broadcaster does:
``memory://`` (the embedded default) or ``redis://`` / ``rediss://``.
"""

from __future__ import annotations

import importlib
from urllib.parse import urlsplit

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
    """The store for ``url``: ``None``/``""``/``memory://`` → :class:`MemoryStore`,
    ``redis://…`` / ``rediss://…`` → ``server.store.redis.RedisStore.from_url(url)``.

    :raises ValueError: unknown scheme, or the Redis backend is not installed.
    """
    scheme = urlsplit(url).scheme if url else "memory"
    if scheme == "memory":
        return MemoryStore()
    if scheme in ("redis", "rediss", "unix"):
        try:
            module = importlib.import_module("server.store.redis")
        except ModuleNotFoundError as exc:
            raise ValueError(f"the Redis store is not available: {exc}") from None
        store: Store = module.RedisStore.from_url(url)
        return store
    raise ValueError(f"unknown store URL scheme {scheme!r}; use memory:// or redis://")
