"""Token buckets: per WebSocket connection and per HTTP client address."""

from __future__ import annotations

import time
from collections import OrderedDict

__all__ = ["BucketMap", "TokenBucket"]


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


class BucketMap:
    """One bucket per key (client address), the least recently used dropped
    beyond ``max_keys``."""

    def __init__(self, rate: float, burst: int, max_keys: int = 10_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str) -> bool:
        """Spend a token of ``key``'s bucket."""
        return self.take_or_wait(key) is None

    def take_or_wait(self, key: str) -> float | None:
        """Spend a token of ``key``'s bucket (``None``), or the seconds until one."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take_or_wait()
