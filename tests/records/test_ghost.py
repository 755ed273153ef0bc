"""Ghost racers replay a recorded timeline on the race clock and rank like racers."""

from __future__ import annotations

import time

from server.race.ghost_room import run_ghost
from server.records.ghost import Ghost, GhostProgress

from .games import record

GAME = [("8f", 1000), ("15f", 3000), ("2-3", 4000), ("r", 6000)]


def test_schedule_is_the_recorded_timeline_then_a_final_result() -> None:
    ghost = Ghost(record(GAME, name="ada", status="resigned", finished_ms=7000))
    assert [(p.race_clock_ms, p.foundation_cards, p.moves, p.move, p.final)
            for p in ghost.schedule] == [
        (1000, 1, 1, "8f", False), (3000, 2, 2, "15f", False), (4000, 2, 3, "2-3", False),
        (6000, 2, 4, "r", False), (7000, 2, 4, None, True)]
    assert ghost.result.status == "resigned" and ghost.result.reach_time_ms == 3000
    assert ghost.schedule[3].redeals_used == 1 and ghost.name == "ada"


def test_progress_at_and_due() -> None:
    ghost = Ghost(record(GAME))
    assert ghost.progress_at(0) == ghost.start and ghost.start.foundation_cards == 0
    assert ghost.progress_at(999).moves == 0
    assert ghost.progress_at(1000).moves == 1
    assert ghost.progress_at(5999).foundation_cards == 2 and ghost.progress_at(5999).moves == 3
    assert ghost.progress_at(10**9).final
    assert [p.moves for p in ghost.due(1000, 4000)] == [2, 3]
    assert ghost.due(10**6, 10**7) == []


def test_end_status() -> None:
    assert Ghost(record(GAME)).result.status == "resigned"  # stopped while playing
    assert Ghost(record(GAME)).final_ms == 6000
    assert Ghost(record(GAME, status="timed_out")).result.status == "timed_out"
    assert Ghost(record(GAME, status="left")).result.status == "resigned"


def test_time_limit_cuts_the_ghost() -> None:
    ghost = Ghost(record(GAME), time_limit_ms=3500)
    assert [p.moves for p in ghost.schedule] == [1, 2, 2]
    assert (ghost.result.status, ghost.final_ms, ghost.result.foundation_cards) == (
        "timed_out", 3500, 2)
    whole = Ghost(record(GAME), time_limit_ms=60_000)
    assert whole.result.status == "resigned" and whole.final_ms == 6000


async def test_run_ghost_reproduces_the_timeline_on_a_live_clock() -> None:
    moves = [("8f", 40), ("15f", 90), ("2-3", 90), ("r", 160)]
    ghost = Ghost(record(moves, finished_ms=200))
    start = time.monotonic()

    async def clock() -> int:
        return int((time.monotonic() - start) * 1000)

    seen: list[tuple[int, GhostProgress]] = []

    async def emit(p: GhostProgress) -> None:
        seen.append((await clock(), p))

    await run_ghost(ghost, clock, emit)
    assert [p for _, p in seen] == list(ghost.schedule)
    for at, p in seen:
        # due at its stamp, never early, late by at most the scheduler's resolution
        assert p.race_clock_ms <= at <= p.race_clock_ms + 40


async def test_run_ghost_resumes_after_a_stamp() -> None:
    ghost = Ghost(record(GAME))
    got: list[int] = []

    async def clock() -> int:
        return 10**6

    async def emit(p: GhostProgress) -> None:
        got.append(p.moves)

    await run_ghost(ghost, clock, emit, after_ms=3000)
    assert got == [3, 4, 4]
