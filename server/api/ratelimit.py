"""Token buckets: per WebSocket connection (:class:`TokenBucket`, from
:mod:`server.runtime.token_bucket`: the socket protocol spends it too) and per
HTTP client address (:class:`BucketMap`)."""

from __future__ import annotations

from collections import OrderedDict

from server.runtime.token_bucket import TokenBucket

__all__ = ["BucketMap", "TokenBucket"]


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
