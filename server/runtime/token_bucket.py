"""A token bucket: ``rate`` tokens a second up to ``burst``.

Here (not in :mod:`server.api.ratelimit`, which re-exports it) because the
WebSocket protocol (:mod:`server.runtime.ws_protocol`) spends one per frame
it receives: the connection's message budget, which the room socket's
handler shares (docs/protocol.md, "Limits").
"""

from __future__ import annotations

import time

__all__ = ["TokenBucket"]


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; :meth:`take` spends one."""

    __slots__ = ("_at", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._at = time.monotonic()

    def take(self) -> bool:
        """Spend a token; ``False`` (nothing spent) when the bucket is empty."""
        return self.take_or_wait() is None

    def take_or_wait(self) -> float | None:
        """Spend a token (``None``), or how many seconds until one is there."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1:
            return (1 - self._tokens) / self.rate
        self._tokens -= 1
        return None
