"""Garbage-collector policy of the server process: short pauses under load.

CPython's full (generation 2) collection scans every tracked object. Under
the load test (issue 8) the server keeps a few hundred thousand long-lived
objects (cached games, room state, connections), so each full collection
stopped the event loop for hundreds of ms: ack p99 400 ms with the collector
on, 32 ms with it off, at the same 570 moves/s (README, "Capacity").

The policy: every ``freeze_s`` seconds (1 s) move the survivors into the
permanent generation (:func:`gc.freeze`, a constant-time list splice), so the
automatic collections only scan what was allocated since; objects frozen
there are still freed by reference counting as usual. The youngest
generation's threshold is raised to ``gen0`` (10,000 container allocations,
CPython's default is 700): with the freeze resetting the count every second,
the steady load of 2,000 racers on two processes triggers no automatic
collection at all; a burst of allocations still does.

Every ``full_s`` seconds (10 min) unfreeze and run one full collection, so
reference cycles that died after a freeze are reclaimed. The server leaves
(almost) none: closed sockets and room feeds break their cycles
(:mod:`server.api.ws`, :mod:`server.api.hub`, :mod:`server.runtime.http_protocol`,
:mod:`server.runtime.ws_protocol`),
which is what makes this work. Measured on the two-process Redis load:

- collector time per server: ~175 ms per second with a 10 s freeze and
  CPython's thresholds; ~35 ms (one 25–70 ms pause a second) collecting
  generations 0 and 1 before each freeze; none with this policy (server
  move p99 65–140 → 15–70 ms);
- the full collection every 10 min: 2.7 s when closed sockets were left in
  cycles (770,000 garbage objects per server at minute 10), 0.6–0.8 s after.

A cycle the server starts leaving again (say at 1,000 objects a second) is
not a leak: it is freed by the next full collection, which takes longer.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

__all__ = ["run_gc_policy"]

log = logging.getLogger("server.gc")


async def run_gc_policy(freeze_s: float, full_s: float, gen0: int = 0) -> None:
    """Run the policy until cancelled; ``freeze_s <= 0`` disables it.

    :param freeze_s: seconds between :func:`gc.freeze` calls.
    :param full_s: seconds between full collections (unfreeze, collect, freeze).
    :param gen0: the youngest generation's threshold while the policy runs
        (:func:`gc.set_threshold`; 0 keeps CPython's); restored when cancelled.
    """
    if freeze_s <= 0:
        return
    before = gc.get_threshold()
    if gen0 > 0:
        gc.set_threshold(gen0, *before[1:])
    try:
        await _freeze_and_collect(freeze_s, full_s)
    finally:
        gc.set_threshold(*before)


async def _freeze_and_collect(freeze_s: float, full_s: float) -> None:
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(freeze_s)
        if full_s > 0 and time.monotonic() - last_full >= full_s:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            last_full = time.monotonic()
            log.info("full collection: %d unreachable objects in %.0f ms",
                      found, (time.perf_counter() - started) * 1000)
        gc.freeze()
