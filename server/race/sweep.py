"""The background sweep of due room timers (the app runs :meth:`Sweep.tick` every
few hundred ms in every process, :func:`run_sweeps`).

Only rooms with a due timer in the store's index are read
(:meth:`~server.store.base.RoomIndexes.due_timers`), so idle, waiting and
finished rooms cost nothing; each is read through :meth:`Applier.read
<server.race.apply.Applier.read>`, which applies its due
:class:`~server.race.commands.Tick` (the countdown's end, the time limit, a
quick-race lobby's step) — the room's compare-and-set makes each happen once
however many processes sweep.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from server.errors import StoreError
from server.runtime.cancel import raise_if_cancelled
from server.store.base import LiveStore

from . import errors as err
from .apply import Applier
from .timers import deadline

__all__ = ["Sweep", "run_sweeps"]

log = logging.getLogger("server.race")

_SWEEP_BATCH: Final = 32
_SWEEP_LIMIT: Final = 10_000
"""Most due timers one sweep handles (the rest: the next sweep, a tick later)."""


class Sweep:
    """Applies the due timers of one store's rooms."""

    def __init__(self, store: LiveStore, applier: Applier) -> None:
        self.store = store
        self.applier = applier

    async def tick(self) -> int:
        """Apply the timers that are due (countdown end, time limit, quick-race
        lobbies); returns how many rooms were looked at. Only rooms with a due
        timer in the store's index are read (:meth:`RoomIndexes.due_timers`), so
        idle, waiting and finished rooms cost nothing. Safe to run in every
        process at once."""
        now = await self.store.clock.now_ms()
        due_now = await self.store.indexes.due_timers(now, _SWEEP_LIMIT)
        failed: BaseException | None = None
        # rooms in batches, concurrently: one store round trip per room one after
        # another took seconds on a busy event loop (countdowns ended late); each
        # batch also lets sockets in between (the memory store never suspends)
        for at in range(0, len(due_now), _SWEEP_BATCH):
            results = await asyncio.gather(
                *(self._visit(room_id, timer)
                  for room_id, timer in due_now[at:at + _SWEEP_BATCH]),
                return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and failed is None:
                    failed = result
        if failed is not None:
            raise failed
        return len(due_now)

    async def _visit(self, room_id: str, at: int) -> None:
        """Advance one room whose timer ``at`` is due, then leave its index entry
        right: the next deadline of its state, or none (compare-and-delete, so a
        deadline another process set meanwhile stays)."""
        try:
            room, _, _ = await self.applier.read(room_id)
        except err.RoomNotFound:
            if await self.store.rooms.get_room(room_id) is None:  # gone (not just busy)
                await self.store.indexes.clear_timer(room_id, at)
            return
        timer = deadline(room)
        if timer is None:
            await self.store.indexes.clear_timer(room_id, at)
        elif timer != at:
            await self.store.indexes.set_timer(room_id, timer)


async def run_sweeps(tick: Callable[[], Awaitable[int]], period_s: float) -> None:
    """Run ``tick`` (:meth:`Sweep.tick`) every ``period_s`` until cancelled. A
    store outage is logged when it starts and when it ends, not every sweep."""
    failing = False
    while True:
        try:
            await tick()
            if failing:
                log.warning("room timer sweep resumed: the store answers again")
                failing = False
        except StoreError as exc:
            if not failing:
                log.warning("room timer sweep paused: %s (%s); retried every %g s until "
                            "the store answers", type(exc).__name__, exc.code, period_s)
            failing = True
        except Exception as exc:
            log.error("room timer sweep crashed: %s", type(exc).__name__, exc_info=exc)
        # a cancellation the sweep's Redis call swallowed (Python 3.11) ends
        # the loop here, or shutdown would wait for it for good
        raise_if_cancelled()
        await asyncio.sleep(period_s)
