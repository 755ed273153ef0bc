"""A clock moved on by a file: the service clock plus the number of ms the file
``LUCIE_CLOCK_OFFSET_FILE`` holds (tests and rehearsals only; unset in
production). Tests of real server processes move the time of challenges and
duels — their ages, expiry, attempts' deadlines — by writing that file
(``tests/e2e/test_challenges.py``); every process of a deployment reads the
same file, so they keep agreeing.
"""

from __future__ import annotations

import os
from typing import Protocol

__all__ = ["OffsetClock"]


class _Clock(Protocol):
    async def now_ms(self) -> int: ...


class OffsetClock:
    """``inner``'s time (Unix ms) plus the integer in the file at ``path`` (0
    while it is missing, empty or not a number), never decreasing. The file is
    read again when its modification time changes."""

    def __init__(self, inner: _Clock, path: str) -> None:
        self.inner = inner
        self.path = path
        self._stamp: int | None = None
        self._offset = 0
        self._last = 0

    def offset_ms(self) -> int:
        """The file's offset now (ms)."""
        try:
            stamp = os.stat(self.path).st_mtime_ns
        except OSError:
            return 0
        if stamp != self._stamp:
            try:
                with open(self.path, encoding="ascii") as f:
                    self._offset = int(f.read().strip() or 0)
            except (OSError, ValueError):
                self._offset = 0
            self._stamp = stamp
        return self._offset

    async def now_ms(self) -> int:
        """The inner clock plus the offset, never less than the last reading."""
        now = max(await self.inner.now_ms() + self.offset_ms(), self._last)
        self._last = now
        return now
