"""Moderation over a real archive (SQLite file) and the memory boards: who is
queued, in which order, what ``cleared`` silences, what a verdict does to the
boards."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from server.archive import ArchiveDb, database_url
from server.archive.schema import assessments, players
from server.fairplay.moderation import CLEARED_SILENCE_MS, Moderation
from server.fairplay.signals import LayoutFacts, RaceSignals
from server.records.board_upkeep import forget_player_results
from server.records.leaderboard_memory import MemoryLeaderboardStore
from tests.archive.players_contract import linked_race, new_player


def _signals(found: int, critical: int = 12, loss: int = 0, solved: int = 1) -> dict[str, Any]:
    lay = LayoutFacts(0, 20, True, 10, 20 if solved else 12, "redeal")
    return RaceSignals(60, 50, 50, loss, critical, found, 0, (lay,), 1_600.0, 0.6, 0.01,
                       (4_000,), 0).to_json()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[ArchiveDb]:
    archive = ArchiveDb(database_url(None, str(tmp_path / "data")))
    await archive.migrate()
    yield archive
    await archive.close()


async def _raced(db: ArchiveDb, player: str, name: str, signals: dict[str, Any],
                 rival: tuple[str, str] | None = None) -> str:
    names: dict[str, str | None] = {name: player, "anon": None}
    ranks = {name: 1, "anon": 2}
    if rival is not None:
        names[rival[1]] = rival[0]
        ranks[rival[1]] = 3
    doc = linked_race(names, ranks)
    await db.write(doc)
    claimed = {c["race_id"]: c for c in await db.claim_assessments(50, 60_000)}
    rows = [{"racer_id": r["racer_id"], "player_id": r["player_id"], "variant": "belle-lucie",
             "ended_at_ms": 2_000,
             "archived_at_ms": int(claimed[doc["race_id"]]["archived_at_ms"]),
             "signals": signals if r["player_id"] == player else _signals(0, loss=20, solved=0),
             "verdict": "clean", "score": 0.0, "reasons": []}
            for r in claimed[doc["race_id"]]["racers"]]
    await db.store_assessments(doc["race_id"], rows)
    return str(doc["race_id"])


async def test_the_queue_lists_strong_evidence_first_and_only_after_min_races(
        db: ArchiveDb) -> None:
    boards = MemoryLeaderboardStore()
    mod = Moderation(db, functools.partial(forget_player_results, boards), boards, min_races=3)
    cheat, _ = await new_player(db, "cheat")
    half, _ = await new_player(db, "half")
    honest, _ = await new_player(db, "honest")
    early, _ = await new_player(db, "early")
    for _ in range(3):
        await _raced(db, cheat, "cheat", _signals(12))
        await _raced(db, half, "half", _signals(5, loss=2, solved=0))
        await _raced(db, honest, "honest", _signals(1, loss=20, solved=0))
    for _ in range(2):
        await _raced(db, early, "early", _signals(12))  # two races: no verdict yet
    queue = await mod.queue()
    assert [e["player"]["name"] for e in queue] == ["cheat", "half"]
    assert [e["verdict"] for e in queue] == ["likely_assisted", "review"]
    first = queue[0]
    assert first["races_read"] == 3 and len(first["races"]) == 3 and first["previous"] == []
    assert "found the move that gives nothing up at 36 of 36 critical positions" in \
        first["reasons"]
    assert first["races"][0]["links"]["replay"].startswith("/api/v1/rooms/")
    honest_file = await mod.player({"id": honest, "name": "honest"})
    assert honest_file["judgement"]["verdict"] == "clean" and len(honest_file["races"]) == 3


async def test_cleared_silences_the_player_then_counts_only_later_races(
        db: ArchiveDb) -> None:
    boards = MemoryLeaderboardStore()
    mod = Moderation(db, functools.partial(forget_player_results, boards), boards, min_races=3)
    strong, _ = await new_player(db, "strong")
    before = [await _raced(db, strong, "strong", _signals(12)) for _ in range(3)]
    assert [e["player"]["name"] for e in await mod.queue()] == ["strong"]
    done = await mod.decide({"id": strong, "name": "strong"}, "cleared", "a fine player", "bo")
    assert (done["verdict"], done["races_removed"], done["moderator"]) == ("cleared", 0, "bo")
    for _ in range(3):
        await _raced(db, strong, "strong", _signals(12))
    assert await mod.queue() == []  # silenced for 30 days
    async with db.engine.begin() as conn:  # 30 days on: the verdict (and what it read) is old
        await conn.execute(update(players).where(players.c.player_id == strong).values(
            fair_play_at_ms=2_000))
        await conn.execute(update(assessments).where(assessments.c.race_id.in_(before))
                           .values(archived_at_ms=1_000))
    (again,) = await mod.queue()
    assert again["races_read"] == 3 and again["previous"][0]["verdict"] == "cleared"
    assert CLEARED_SILENCE_MS == 30 * 86_400_000


async def test_assisted_takes_the_races_off_the_boards_and_cleared_lets_them_back(
        db: ArchiveDb) -> None:
    boards = MemoryLeaderboardStore()
    mod = Moderation(db, functools.partial(forget_player_results, boards), boards, min_races=3)
    cheat, _ = await new_player(db, "cheat")
    rival, _ = await new_player(db, "rival")
    for _ in range(3):
        await _raced(db, cheat, "cheat", _signals(12), rival=(rival, "rival"))
    await boards.submit("all:belle-lucie", '["cheat", 9]', 1, {"name": "cheat"})
    done = await mod.decide({"id": cheat, "name": "cheat"}, "assisted", "solver", "alice")
    assert done["races_removed"] == 3 and rival in done["refunded"]
    assert await boards.size("all:belle-lucie") == 0
    assert await boards.barred({cheat}) == {cheat}
    assert await mod.queue() == []  # decided: off the queue
    file = await mod.player({"id": cheat, "name": "cheat"})
    assert file["fair_play"] == "assisted" and file["verdicts"][0]["moderator"] == "alice"
    await mod.decide({"id": cheat, "name": "cheat"}, "cleared", "appeal upheld", "bob")
    assert await boards.barred({cheat}) == set()
