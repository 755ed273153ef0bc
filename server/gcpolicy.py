"""Garbage-collector policy of the server process: short pauses under load.

CPython's full (generation 2) collection scans every tracked object. Under
the load test (issue 8) the server keeps a few million long-lived objects
(cached games, room state), so each full collection stopped the event loop
for hundreds of ms: ack p99 400 ms with the collector on, 32 ms with it off,
at the same 570 moves/s (README, "Capacity").

The policy: every ``freeze_s`` seconds move the survivors into the permanent
generation (:func:`gc.freeze`), so the automatic collections only scan what
was allocated since; objects frozen there are still freed by reference
counting as usual. Every ``full_s`` seconds unfreeze and run one full
collection, so reference cycles that died after a freeze are reclaimed too
(one long pause every ``full_s``, instead of one every few seconds).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

__all__ = ["run_gc_policy"]

log = logging.getLogger("server.gc")


async def run_gc_policy(freeze_s: float, full_s: float) -> None:
    """Run the policy until cancelled; ``freeze_s <= 0`` disables it.

    :param freeze_s: seconds between :func:`gc.freeze` calls.
    :param full_s: seconds between full collections (unfreeze, collect, freeze).
    """
    if freeze_s <= 0:
        return
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(freeze_s)
        if full_s > 0 and time.monotonic() - last_full >= full_s:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            last_full = time.monotonic()
            log.debug("full collection: %d unreachable objects in %.0f ms",
                      found, (time.perf_counter() - started) * 1000)
        gc.freeze()
