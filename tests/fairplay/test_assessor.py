"""The assessor over a real archive (SQLite file) and a real solver pool: a
queued race is assessed in a worker process and stored; a race whose
assessment keeps failing leaves the queue after MAX_TRIES."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.archive import ArchiveDb, database_url
from server.fairplay.assessor import MAX_TRIES, Assessor
from server.rules import REDEAL, RuleSet, apply, deal
from server.solver import SolverPool, play_layouts
from server.solver.pool import SolverBusyError
from server.solver.strategy import choose_move
from tests.archive.players_contract import linked_race, new_player

RULES = RuleSet.from_json({"variant": "belle-lucie"})
KEY = bytes.fromhex("cd" * 32)  # linked_race's redeal key


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[ArchiveDb]:
    archive = ArchiveDb(database_url(None, str(tmp_path / "data")))
    await archive.migrate()
    yield archive
    await archive.close()


def _logs() -> tuple[list[list[Any]], list[list[Any]]]:
    """A solver line and a plain-strategy game on deal 9 (linked_race's deal)."""
    solved = play_layouts(RULES, deal(RULES, 9), KEY)
    line = [[str(m), 1_000 * (i + 1)] for i, m in enumerate(solved.moves)]
    pos, seen, plain = deal(RULES, 9), [], []
    for i in range(300):
        move = choose_move(RULES, pos, seen)
        if move is None:
            break
        pos = apply(RULES, pos, move, KEY)
        seen = [] if move == REDEAL else [*seen, pos]
        plain.append([str(move), 1_000 * (i + 1)])
    return line, plain


async def test_a_queued_race_is_assessed_in_a_worker_and_stored(db: ArchiveDb) -> None:
    a, _ = await new_player(db, "liner")
    b, _ = await new_player(db, "planner")
    doc = linked_race({"liner": a, "planner": b, "anon": None},
                      {"liner": 1, "planner": 2, "anon": 3})
    line, plain = _logs()
    ids = [e["id"] for e in doc["room"]["roster"]]
    doc["racers"][ids[0]].update(log=line, status="stuck")
    doc["racers"][ids[1]].update(log=plain, status="stuck", focus_losses=2)
    await db.write(doc)
    pool = SolverPool(workers=1)
    try:
        assessor = Assessor(db, pool)
        assert await assessor.run_once() == 1
    finally:
        pool.close()
    assert assessor.assessed == 2 and await db.pending_assessments() == 0
    (liner,) = await db.player_assessments(a, 20)
    (planner,) = await db.player_assessments(b, 20)
    assert liner["signals"]["loss_cards"] == 0 and liner["signals"]["moves"] == len(line)
    assert liner["signals"]["found"] == liner["signals"]["critical"]
    assert planner["signals"]["focus_losses"] == 2
    assert liner["score"] > planner["score"]
    assert liner["verdict"] in ("clean", "review", "likely_assisted") and liner["reasons"]


class _BusyPool:
    """A pool whose worker never answers in time (the timeout path)."""

    async def run(self, *_: Any, **__: Any) -> Any:
        raise SolverBusyError("the solver did not answer in time")


async def test_a_race_that_keeps_failing_leaves_the_queue(db: ArchiveDb) -> None:
    a, _ = await new_player(db, "unlucky")
    await db.write(linked_race({"unlucky": a, "x": None}, {"unlucky": 1, "x": 2}))
    assessor = Assessor(db, _BusyPool(), lease_ms=1)  # type: ignore[arg-type]
    for _ in range(MAX_TRIES):
        assert await assessor.run_once() == 0
        await asyncio.sleep(0.01)  # the lease runs out
    assert assessor.failed == MAX_TRIES
    assert await db.pending_assessments() == 0 and await db.player_assessments(a, 20) == []


async def test_a_variant_the_solver_cannot_weigh_leaves_the_queue_unassessed(
        db: ArchiveDb) -> None:
    a, _ = await new_player(db, "housebound")
    await db.write(linked_race({"housebound": a, "x": None}, {"housebound": 1, "x": 2},
                               variant="house-in-the-wood"))
    assert await db.pending_assessments() == 1
    assessor = Assessor(db, _BusyPool())  # type: ignore[arg-type]
    assert await assessor.run_once() == 0 and assessor.failed == 0
    assert await db.pending_assessments() == 0 and await db.player_assessments(a, 20) == []
