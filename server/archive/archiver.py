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
"""

from __future__ import annotations

import asyncio
import logging
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

    ``period_s``: pause between rounds when nothing is pending; ``lease_ms``:
    how long a claim holds; ``batch``: races claimed per round;
    ``max_backoff_s``: the longest pause between tries during an outage.
    """

    def __init__(self, races: FinishedRaces, db: ArchiveWriter, *, period_s: float = 1.0,
                 lease_ms: int = 15_000, batch: int = 50, max_backoff_s: float = 30.0) -> None:
        self.races = races
        self.db = db
        self.period_s = period_s
        self.lease_ms = lease_ms
        self.batch = batch
        self.max_backoff_s = max_backoff_s
        self.archived = 0
        """Races this process wrote (a race found already stored counts too)."""
        self.outage: str | None = None
        """What is down now (``"database"``, ``"store"``), ``None``: nothing."""

    async def run_once(self) -> int:
        """Claim, write and clear one batch; the number archived.

        :raises ArchiveUnavailable, StoreError:
        """
        done = 0
        claimed = await self.races.claim_finished(self.batch, self.lease_ms)
        # in the order the races ended: players' streaks and ratings count races so
        for race in sorted(claimed, key=lambda r: r["room"].get("ended_ms") or 0):
            await self.db.write(race)
            await self.races.mark_archived(race["race_id"])
            done += 1
        self.archived += done
        metrics.RACES_ARCHIVED.inc(done)
        return done

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
            if done < self.batch:
                await asyncio.sleep(self.period_s)

    async def drain(self, timeout_s: float = 5.0) -> int:
        """Archive what is pending now, until none is left or ``timeout_s``
        passes (at shutdown: the embedded store forgets what is not archived).
        Errors end it quietly (the races stay pending); the number archived."""
        total = 0
        try:
            async with asyncio.timeout(timeout_s):
                while (done := await self.run_once()) > 0:
                    total += done
        except (TimeoutError, ArchiveUnavailable, StoreError) as exc:
            log.warning("archiving at shutdown stopped: %s", type(exc).__name__)
        except Exception as exc:  # a bug: logged; the races stay pending
            log.error("archiving at shutdown failed: %s", type(exc).__name__, exc_info=exc)
        return total
