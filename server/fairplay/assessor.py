"""The assessor: every server process assesses archived rated races, off the
event loop, paced like the archiver (docs/fair-play.md, "Cost").

The transaction that archives a rated race with players queues it
(``server.archive.writing``). :class:`Assessor` leases a few queued races
from the archive (:class:`AssessmentArchive`), computes each player-racer's
signals in a solver worker process (:func:`server.fairplay.signals.race_signals`
through :class:`~server.solver.pool.SolverPool`: never on the event loop),
judges the race (:func:`server.fairplay.verdict.judge_race`) and stores the
assessments, taking the race off the queue. A race whose assessment fails
(the worker timed out or died, a bug) stays queued and is tried again when
its lease runs out, :data:`~server.archive.fairplay_db.MAX_TRIES` times,
then dropped with a log line. A race of a variant the solver does not handle
(two decks, free cells: ``house-in-the-wood``, ``fan-with-reserve``) leaves
the queue unassessed.

**Pacing**: the solver pool also answers racers' hints. While the process
serves moves (``activity`` moved since the last look), each racer's
assessment is followed by a pause so that assessing takes at most
``busy_share`` of the worker's time (at most ``period_s``); an idle process
assesses at full speed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from server.errors import ArchiveUnavailable
from server.rules import RulesError, RuleSet, deal
from server.runtime import metrics
from server.runtime.cancel import raise_if_cancelled
from server.solver.board import check_supported
from server.solver.pool import SolverBusyError, SolverPool

from .signals import race_signals
from .verdict import judge_race

__all__ = ["JOB_BUDGET_S", "MAX_TRIES", "AssessmentArchive", "Assessor"]

log = logging.getLogger("server.fairplay")

JOB_BUDGET_S = 30.0
"""The longest one racer's assessment may take in a worker (s)."""
MAX_TRIES = 3
"""Failed tries before a race leaves the queue (the archive's ``MAX_TRIES``)."""


class AssessmentArchive(Protocol):
    """The archive's assessment queue (:class:`server.archive.db.ArchiveDb`)."""

    async def claim_assessments(self, limit: int, lease_ms: int) -> list[dict[str, Any]]:
        """Queued races, leased. :raises ArchiveUnavailable:"""
        ...

    async def store_assessments(self, race_id: str, rows: list[dict[str, Any]]) -> None:
        """Store and dequeue. :raises ArchiveUnavailable:"""
        ...

    async def drop_assessment(self, race_id: str) -> None:
        """Dequeue without assessing. :raises ArchiveUnavailable:"""
        ...


class Assessor:
    """The assessing loop of one process (module docstring). ``lease_ms``: how
    long a claim holds; ``batch``: races claimed per round; ``budget_s``: one
    solver search's budget in an assessment."""

    def __init__(self, archive: AssessmentArchive, pool: SolverPool, *,
                 period_s: float = 2.0, lease_ms: int = 120_000, batch: int = 4,
                 budget_s: float = 0.25, activity: Callable[[], int] | None = None,
                 busy_share: float = 0.5) -> None:
        self.archive = archive
        self.pool = pool
        self.period_s = period_s
        self.lease_ms = lease_ms
        self.batch = batch
        self.budget_s = budget_s
        self.activity = activity
        self.busy_share = busy_share
        self.assessed = 0
        """Racers this process assessed."""
        self.failed = 0
        """Race assessments that failed (retried later, or dropped)."""
        self._seen = activity() if activity is not None else 0

    async def run_once(self) -> int:
        """Claim and assess one batch; the number of races assessed.

        :raises ArchiveUnavailable:
        """
        claimed = await self.archive.claim_assessments(self.batch, self.lease_ms)
        done = 0
        for race in claimed:
            try:
                rules = RuleSet.from_json(race["rules"])
                check_supported(rules, deal(rules, int(race["deal_number"])))
            except RulesError:  # two decks, free cells: nothing the solver can weigh
                await self.archive.store_assessments(race["race_id"], [])
                continue
            try:
                rows = await self._assess(rules, race)
            except ArchiveUnavailable:
                raise
            except Exception as exc:  # a worker timed out or died, a bug: try again later
                self.failed += 1
                if isinstance(exc, SolverBusyError | RulesError | KeyError | ValueError):
                    log.warning("fair play: race %s not assessed (%s), try %d",
                                race["race_id"], type(exc).__name__, race.get("tries", 1))
                else:
                    log.error("fair play: assessing race %s failed: %s", race["race_id"],
                              type(exc).__name__, exc_info=exc)
                if race.get("tries", 1) >= MAX_TRIES:
                    log.warning("fair play: race %s dropped after %d tries", race["race_id"],
                                race["tries"])
                    await self.archive.drop_assessment(race["race_id"])
                continue
            await self.archive.store_assessments(race["race_id"], rows)
            done += 1
        return done

    async def _assess(self, rules: RuleSet, race: dict[str, Any]) -> list[dict[str, Any]]:
        number, key = int(race["deal_number"]), bytes.fromhex(race["redeal_key"])
        rows = []
        for racer in race["racers"]:
            started = time.perf_counter()
            signals = await self.pool.run(
                JOB_BUDGET_S, race_signals, rules, number, key,
                [(str(m), int(t)) for m, t in racer["moves"]], status=racer["status"],
                focus_losses=int(racer.get("focus_losses") or 0), budget_s=self.budget_s,
                total_s=JOB_BUDGET_S * 0.8)
            judged = judge_race(signals)
            metrics.RACERS_ASSESSED.labels(judged.verdict).inc()
            rows.append({"racer_id": racer["racer_id"], "player_id": racer["player_id"],
                         "variant": rules.id, "ended_at_ms": int(race["ended_at_ms"]),
                         "archived_at_ms": int(race["archived_at_ms"]),
                         "signals": signals.to_json(), "verdict": judged.verdict,
                         "score": judged.score, "reasons": list(judged.reasons)})
            self.assessed += 1
            await self._pace(time.perf_counter() - started)
        return rows

    async def _pace(self, spent_s: float) -> None:
        seen = self.activity() if self.activity is not None else 0
        busy, self._seen = seen != self._seen, seen
        if busy and self.busy_share < 1:
            await asyncio.sleep(min(self.period_s,
                                    spent_s * (1 - self.busy_share) / self.busy_share))

    async def run(self) -> None:
        """Assess forever (cancel to stop); a database outage waits it out."""
        down = False
        while True:
            try:
                done = await self.run_once()
                raise_if_cancelled()
            except ArchiveUnavailable:
                if not down:
                    log.warning("fair play: assessments paused, the archive does not answer")
                down = True
                await asyncio.sleep(self.period_s * 5)
                continue
            except Exception as exc:  # a bug: logged, never fatal
                log.error("fair play: assessing failed: %s", type(exc).__name__, exc_info=exc)
                await asyncio.sleep(self.period_s * 5)
                continue
            if down:
                log.warning("fair play: assessments resumed")
                down = False
            if done < self.batch:
                await asyncio.sleep(self.period_s)
