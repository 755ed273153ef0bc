"""The archiver: every server process moves finished races from the live store
to the archive database, off the move path, losing none.

The write that ends a race makes it pending in the live store (same write;
``server.store.base`` contract point 8). :class:`Archiver` claims pending races
through :class:`FinishedRaces` (the race authority: ``claim_finished`` leases
them, so a process killed mid-write leaves them to another once the lease
runs out), writes each idempotently (:meth:`ArchiveWriter.write`: the race id
is the key) and then clears it (``mark_archived``: the live room expires as
before). While the database (or the store) does not answer it retries with
exponential backoff, logging one line when an outage starts and one when it
ends — never one per try.

**Pacing** (docs/archive.md, "Catching up beside moves"): a write costs the
process's event loop several milliseconds of CPU (SQLAlchemy, the driver,
the ratings), time a move arriving meanwhile waits. So after each race the
archiver looks at ``activity`` (a count of the moves this process acked,
:func:`server.runtime.metrics.moves_accepted`): when it moved since the last
look, the archiver pauses so that writing takes at most ``busy_share`` of the
time (a write of *t* s, then a pause of *t*·(1 − share)/share s), and claims
only a few races at a time (they must be written within their lease); when
it did not, the next race follows at once — an idle process catches up at
full speed. The pause is at most ``period_s``: under any load at least one
race is archived every ``period_s`` plus one write's time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server.errors import ArchiveUnavailable, StoreError
from server.runtime import metrics
from server.runtime.cancel import raise_if_cancelled

__all__ = ["ArchiveWriter", "Archiver", "FinishedRaces"]

log = logging.getLogger("server.archive")


class FinishedRaces(Protocol):
    """Pending finished races (the race authority keeps this interface)."""

    async def claim_finished(self, limit: int, lease_ms: int) -> list[dict[str, Any]]:
        """Up to ``limit`` pending races as documents, leased for ``lease_ms``.

        :raises StoreUnavailable:
        """
        ...

    async def mark_archived(self, race_id: str) -> None:
        """The race is archived: no longer pending.

        :raises StoreUnavailable:
        """
        ...


class ArchiveWriter(Protocol):
    """Where races are archived (:class:`server.archive.db.ArchiveDb`)."""

    async def write(self, race: dict[str, Any]) -> bool:
        """Store a race document once (``False``: it was there already).

        :raises ArchiveUnavailable:
        """
        ...


class Archiver:
    """The archiving loop of one process (module docstring).

    ``period_s``: pause between rounds when nothing is pending, and the longest
    pause between two races while paced; ``lease_ms``: how long a claim holds;
    ``batch``: races claimed per round when idle; ``max_backoff_s``: the
    longest pause between tries during an outage; ``activity``: a count that
    grows while the process serves moves (default: none — never paced);
    ``busy_share``: the share of the time, in (0, 1], writing may take while
    it grows (1: no pacing). ``clock`` (seconds) and ``sleep`` are for tests.

    :raises ValueError: ``busy_share`` outside (0, 1].
    """

    def __init__(self, races: FinishedRaces, db: ArchiveWriter, *, period_s: float = 1.0,
                 lease_ms: int = 15_000, batch: int = 50, max_backoff_s: float = 30.0,
                 activity: Callable[[], int] | None = None, busy_share: float = 0.02,
                 clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if not 0 < busy_share <= 1:
            raise ValueError(f"busy_share must be in (0, 1], not {busy_share}")
        self.races = races
        self.db = db
        self.period_s = period_s
        self.lease_ms = lease_ms
        self.batch = batch
        self.max_backoff_s = max_backoff_s
        self.activity = activity
        self.busy_share = busy_share
        self.clock = clock
        self.sleep = sleep
        self.archived = 0
        """Races this process wrote (a race found already stored counts too)."""
        self.outage: str | None = None
        """What is down now (``"database"``, ``"store"``), ``None``: nothing."""
        self.busy = False
        """The activity count moved at the last look (the archiver is paced)."""
        self.paused_s = 0.0
        """Seconds spent in pacing pauses so far (tests, operators)."""
        self._seen = activity() if activity is not None else 0
        self._more = False
        self._last_write_s = 0.0

    def claim_size(self) -> int:
        """Races to claim now: ``batch`` when idle; while busy, as many as paced
        writes (the last one's time, then a pause of at most ``period_s``)
        finish within half their lease (at least 1)."""
        if not self.busy:
            return self.batch
        each = max(self.period_s + self._last_write_s, 1e-3)
        return max(1, min(self.batch, int(self.lease_ms / 2000 / each)))

    async def run_once(self, *, paced: bool = True) -> int:
        """Claim, write and clear one batch; the number archived. ``paced``:
        pause after each race while the process is busy (module docstring).

        :raises ArchiveUnavailable, StoreError:
        """
        done = 0
        if paced:
            self.busy = self._look()
        limit = self.claim_size() if paced else self.batch
        claimed = await self.races.claim_finished(limit, self.lease_ms)
        self._more = len(claimed) >= limit
        started = self.clock()
        # in the order the races ended: players' streaks and ratings count races so
        for race in sorted(claimed, key=lambda r: r["room"].get("ended_ms") or 0):
            if paced and done and self.clock() - started > self.lease_ms / 2000:
                self._more = True  # the rest: claimed again once their lease runs out
                break
            t0 = self.clock()
            await self.db.write(race)
            await self.races.mark_archived(race["race_id"])
            done += 1
            self.archived += 1
            metrics.RACES_ARCHIVED.inc()
            self._last_write_s = self.clock() - t0
            if paced:
                await self._pace(self._last_write_s)
        return done

    def _look(self) -> bool:
        """Whether the activity count moved since the last look."""
        seen = self.activity() if self.activity is not None else 0
        moved, self._seen = seen != self._seen, seen
        return moved

    async def _pace(self, spent_s: float) -> None:
        """After a write of ``spent_s``: the pause the activity calls for."""
        self.busy = self._look()
        if self.busy and self.busy_share < 1:
            pause = min(self.period_s, spent_s * (1 - self.busy_share) / self.busy_share)
            self.paused_s += pause
            await self.sleep(pause)

    async def run(self) -> None:
        """Archive forever (cancel to stop)."""
        backoff = self.period_s
        while True:
            try:
                done = await self.run_once()
                # a cancellation a store call swallowed (Python 3.11) ends the loop
                raise_if_cancelled()
            except (ArchiveUnavailable, StoreError) as exc:
                what = "database" if isinstance(exc, ArchiveUnavailable) else "store"
                if self.outage is None:
                    log.warning("archiving paused: the %s does not answer (%s); finished "
                                "races stay pending and are archived once it is back",
                                what, exc.code)
                self.outage = what
                metrics.ARCHIVE_OUTAGE.set(1)
                await asyncio.sleep(backoff)
                backoff = min(self.max_backoff_s, max(backoff, 0.1) * 2)
                continue
            except Exception as exc:  # a bug: logged, retried later, never fatal
                log.error("archiving failed: %s", type(exc).__name__, exc_info=exc)
                await asyncio.sleep(self.max_backoff_s)
                continue
            # the database is back only once a write went through (a round with
            # nothing pending never reached it); the store, once a claim did
            if self.outage == "store" or (self.outage is not None and done > 0):
                log.warning("archiving resumed: the %s answers again", self.outage)
                self.outage = None
                metrics.ARCHIVE_OUTAGE.set(0)
            backoff = self.period_s
            if not self._more:  # nothing more pending: look again in a while
                await asyncio.sleep(self.period_s)

    async def drain(self, timeout_s: float = 5.0) -> int:
        """Archive what is pending now, until none is left or ``timeout_s``
        passes (at shutdown: the embedded store forgets what is not archived).
        Errors end it quietly (the races stay pending); the number archived."""
        total = 0
        try:
            async with asyncio.timeout(timeout_s):
                while (done := await self.run_once(paced=False)) > 0:
                    total += done
        except (TimeoutError, ArchiveUnavailable, StoreError) as exc:
            log.warning("archiving at shutdown stopped: %s", type(exc).__name__)
        except Exception as exc:  # a bug: logged; the races stay pending
            log.error("archiving at shutdown failed: %s", type(exc).__name__, exc_info=exc)
        return total
