"""Errors every layer raises: the store's failures (more codes join in one registry).

A leaf module: it imports nothing of the service, so the store, the race
authority, the records and the transport can all raise and catch these.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["EventsTooOld", "RaceError", "StoreError", "StoreUnavailable", "VersionConflict"]


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


class RaceError(Exception):
    """A refused request: ``code``, ``status``, ``message``, ``details``."""

    code: ClassVar[str] = "race/error"
    status: ClassVar[int] = 400

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def to_json(self) -> dict[str, Any]:
        """``{"code", "message", "details"?}`` as sent on the wire."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out
