"""The archiver yields to moves (docs/archive.md, "Catching up beside moves"):
with a real authority (memory store) and a real SQLite archive, a fake
activity count and a fake clock — the pauses it asks for, never timings.

Before pacing, a catch-up wrote back to back whatever the process served,
and moves waited behind its writes (the bench's B turns, issue 20)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.archive import ArchiveDb, Archiver, database_url
from server.race.authority import RaceAuthority, RoomOptions
from server.runtime import metrics
from server.runtime.settings import Settings, SettingsError
from tests.race.helpers import ClockStore


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[ArchiveDb]:
    archive = ArchiveDb(database_url(None, str(tmp_path)))
    await archive.migrate()
    yield archive
    await archive.close()


async def _finish(race: RaceAuthority, n: int) -> None:
    for i in range(n):
        room, host = await race.create_room(RoomOptions(deal=7 + i, countdown_s=0))
        a, ta = await race.join(room.id, "alice")
        await race.start(room.code, host)
        await race.resign(room.id, a.id, ta)


class Timed:
    """The real archive, each write taking ``write_s`` of a fake clock; the
    pauses asked for (``sleep``) move the clock too."""

    def __init__(self, db: ArchiveDb, write_s: float) -> None:
        self.db, self.write_s, self.now = db, write_s, 0.0
        self.writes: list[tuple[float, float]] = []  # (start, end) of each write
        self.pauses: list[float] = []
        self.stored: list[str] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds

    async def write(self, race: dict[str, Any]) -> bool:
        start = self.now
        stored = await self.db.write(race)
        if stored:
            self.stored.append(race["race_id"])
        self.now += self.write_s
        self.writes.append((start, self.now))
        return stored


class Moves:
    """A fake activity count: ``flowing`` — it grows at every look."""

    def __init__(self, flowing: bool) -> None:
        self.flowing, self.n = flowing, 0

    def __call__(self) -> int:
        self.n += self.flowing
        return self.n


async def test_an_idle_process_drains_its_backlog_in_one_go(db: ArchiveDb) -> None:
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 6)
    timed = Timed(db, 0.010)
    archiver = Archiver(race, timed, activity=Moves(flowing=False), busy_share=0.05,
                        clock=timed.clock, sleep=timed.sleep)
    assert await archiver.run_once() == 6
    assert timed.pauses == [] and archiver.busy is False and archiver.paused_s == 0
    assert await db.count() == 6 and await store.archive.pending() == []
    await store.close()


async def test_while_moves_flow_writing_takes_at_most_its_share(db: ArchiveDb) -> None:
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 5)
    timed = Timed(db, 0.010)
    archiver = Archiver(race, timed, activity=Moves(flowing=True), busy_share=0.1,
                        period_s=1.0, clock=timed.clock, sleep=timed.sleep)
    assert await archiver.run_once() == 5
    assert timed.pauses == [pytest.approx(0.09)] * 5  # 10 ms written, 90 ms paused
    writing = sum(end - start for start, end in timed.writes)
    assert writing / timed.now <= 0.1 + 1e-9
    assert archiver.busy is True
    assert len(set(timed.stored)) == 5 and await db.count() == 5
    await store.close()


async def test_moves_starting_mid_catch_up_slow_it_down(db: ArchiveDb) -> None:
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 4)
    timed = Timed(db, 0.010)
    moves = Moves(flowing=False)
    archiver = Archiver(race, timed, activity=moves, busy_share=0.5,
                        clock=timed.clock, sleep=timed.sleep)
    original = timed.write

    async def write(doc: dict[str, Any]) -> bool:
        moves.flowing = len(timed.writes) >= 1  # moves from the second write on
        return await original(doc)

    timed.write = write  # type: ignore[method-assign]
    assert await archiver.run_once() == 4
    assert timed.pauses == [pytest.approx(0.010)] * 3  # after writes 2, 3 and 4


async def test_under_constant_load_a_race_is_archived_every_period(db: ArchiveDb) -> None:
    """A slow database (1 s a write) at a 5 % share would pause 19 s; the pause
    is capped at ``period_s``, and a paced round claims only what it can write
    within half the lease."""
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 12)
    timed = Timed(db, 1.0)
    archiver = Archiver(race, timed, activity=Moves(flowing=True), busy_share=0.05,
                        period_s=2.0, lease_ms=10_000, clock=timed.clock, sleep=timed.sleep)
    rounds = []
    while done := await archiver.run_once():
        rounds.append(done)
    assert timed.pauses and max(timed.pauses) == 2.0
    starts = [start for start, _ in timed.writes]
    assert all(b - a <= 2.0 + 1.0 for a, b in itertools.pairwise(starts))
    # busy: 10 s lease / 2 / (2 s pause + 1 s write) = one race a round (after the
    # first, claimed before any write was timed: 5 s / 2 s)
    assert rounds[0] <= 2 and all(n == 1 for n in rounds[1:])
    assert sum(rounds) == 12 and sorted(timed.stored) == sorted(set(timed.stored))
    assert await db.count() == 12 and await store.archive.pending() == []
    await store.close()


async def test_a_paced_round_stops_at_half_its_lease(db: ArchiveDb) -> None:
    """Races claimed idle and written paced: past half the lease the rest is
    left to its lease (claimed again later), never written by two processes."""
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 6)
    timed = Timed(db, 1.0)
    moves = Moves(flowing=False)
    archiver = Archiver(race, timed, activity=moves, busy_share=0.5, period_s=1.0,
                        lease_ms=6_000, clock=timed.clock, sleep=timed.sleep)
    original = timed.write

    async def write(doc: dict[str, Any]) -> bool:
        moves.flowing = True  # the round claimed all 6 (idle at its start); now moves
        return await original(doc)

    timed.write = write  # type: ignore[method-assign]
    done = await archiver.run_once()
    assert done == 2  # 2 s per race (1 s written, 1 s paused): stopped past 3 s
    assert len(await store.archive.pending()) == 6 - done
    store.advance(6_000 + 1)  # the lease runs out: the rest is claimed again
    while await archiver.run_once():
        # a race each round now: 3 s (half the lease) / (1 s pause + 1 s write)
        assert archiver.claim_size() == 1
    assert await db.count() == 6 and len(timed.stored) == 6
    assert await store.archive.pending() == []
    await store.close()


async def test_drain_at_shutdown_is_not_paced(db: ArchiveDb) -> None:
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 3)
    timed = Timed(db, 0.010)
    archiver = Archiver(race, timed, activity=Moves(flowing=True), clock=timed.clock,
                        sleep=timed.sleep)
    assert await archiver.drain() == 3 and timed.pauses == []
    await store.close()


async def test_the_run_loop_archives_everything_once_while_moves_flow(
        db: ArchiveDb) -> None:
    """The loop itself (real sleeps, tiny periods): paced rounds back to back
    until nothing is pending, each race stored once."""
    store = ClockStore()
    race = RaceAuthority(store)
    await _finish(race, 8)
    writes: list[str] = []
    real = db.write

    async def write(doc: dict[str, Any]) -> bool:
        writes.append(doc["race_id"])
        return await real(doc)

    db.write = write  # type: ignore[method-assign]
    archiver = Archiver(race, db, activity=Moves(flowing=True), busy_share=0.5,
                        period_s=0.01, lease_ms=100)
    task = asyncio.create_task(archiver.run())
    async with asyncio.timeout(20):
        while await db.count() < 8:
            await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert sorted(writes) == sorted(set(writes)) and len(writes) == 8
    assert archiver.busy and archiver.paused_s > 0
    assert await store.archive.pending() == []
    await store.close()


def test_the_busy_share_setting_and_the_move_count() -> None:
    assert Settings.from_env({}).archive_busy_share == 0.02
    with pytest.raises(SettingsError):
        Settings.from_env({"LUCIE_ARCHIVE_BUSY_SHARE": "0"})
    with pytest.raises(ValueError, match="busy_share"):
        Archiver(None, None, busy_share=1.5)  # type: ignore[arg-type]
    before = metrics.moves_accepted()
    metrics.move_accepted("ws", 0.0)
    assert metrics.moves_accepted() == before + 1
