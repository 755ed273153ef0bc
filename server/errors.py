"""Errors every layer raises: the store's failures (more codes join in one registry).

A leaf module: it imports nothing of the service, so the store, the race
authority, the records and the transport can all raise and catch these.
"""

from __future__ import annotations

__all__ = ["EventsTooOld", "StoreError", "StoreUnavailable", "VersionConflict"]


class StoreError(Exception):
    """Base class of store errors; ``code`` is the wire error code."""

    code = "store/error"


class VersionConflict(StoreError):
    """Compare-and-set failed: the stored ``rev`` is not the expected one."""

    code = "store/conflict"


class EventsTooOld(StoreError):
    """Events after the asked sequence number were trimmed from the log."""

    code = "events/too_old"


class StoreUnavailable(StoreError):
    """The backend cannot reach its storage (Redis down, timeout)."""

    code = "store/unavailable"
