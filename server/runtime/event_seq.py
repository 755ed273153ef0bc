"""Where a reader of one room's event log stands: the one rule of sequence and gaps.

Room events carry the room's sequence number, 1, 2, 3, … with no gap and no
repeat (:mod:`server.store.base`, contract point 3). Every server-side reader
that follows a room — the Redis store's subscription over pub/sub
(:mod:`server.store.redis_events`), the memory twin's, the process's room feed
(:mod:`server.api.hub`) and each socket (:mod:`server.api.ws`) — keeps an
:class:`EventCursor` and asks it where the next event falls: already had
(skip it), the next one (take it), or past a gap (read what is missing from
the log first, or resync). The terminal client keeps its own, in
``client_cli.room_socket``.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["GAP", "NEXT", "OLD", "EventCursor", "Place"]

Place = Literal["old", "next", "gap"]
OLD: Final = "old"
"""The reader has had this event (``seq`` ≤ its last): skip it."""
NEXT: Final = "next"
"""The event right after the reader's last: take it."""
GAP: Final = "gap"
"""Events between the reader's last and this one are missing: read them first."""


class EventCursor:
    """The last event number a reader has had (0: none yet)."""

    __slots__ = ("last",)

    def __init__(self, last: int = 0) -> None:
        self.last = last

    def place(self, seq: int) -> Place:
        """Where event ``seq`` falls for this reader (module docstring)."""
        if seq <= self.last:
            return OLD
        return NEXT if seq == self.last + 1 else GAP

    def took(self, seq: int) -> None:
        """The reader has had every event up to ``seq`` (taken, or a resync at it)."""
        self.last = seq

    def __repr__(self) -> str:
        return f"EventCursor({self.last})"
