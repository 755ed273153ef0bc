"""The archive contract (server/archive/db.py), one suite for every database:
``tests/archive/test_sqlite.py`` and ``test_postgres.py`` run it on a real
SQLite file and a real PostgreSQL database."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from sqlalchemy import inspect

from server.archive import ArchiveDb
from server.archive import migrate as mig
from server.errors import ArchiveUnavailable

__all__ = ["ArchiveContract", "race_doc"]


def race_doc(race_id: str | None = None, code: str = "ABC123", ended: int = 2_000,
             deal: int = 7) -> dict[str, Any]:
    """A finished race document as the race authority writes one (two racers)."""
    rid = race_id or "r" + secrets.token_hex(7)
    roster = [{"id": "a1", "name": "alice", "join_order": 1, "token_digest": "", "ready": False},
              {"id": "b2", "name": "bob", "join_order": 2, "token_digest": "", "ready": False}]
    room = {"id": rid, "code": code, "rules": {"variant": "belle-lucie", "redeals": 2},
            "deal_number": deal, "redeal_key": "ab" * 32, "ranked": True, "state": "over",
            "capacity": 2, "time_limit_ms": 60_000, "visibility": "public", "countdown_ms": 0,
            "host_digest": "", "created_ms": 1_000, "start_at_ms": 1_500, "ended_ms": ended,
            "roster": roster, "joins": 2, "par": 40}
    racers = {
        "a1": {"id": "a1", "status": "resigned", "log": [["3f", 120], ["r", 900]],
               "foundation_cards": 1, "redeals_used": 1, "merci_used": False,
               "reach_time_ms": 120, "finished_ms": 950, "final": True},
        "b2": {"id": "b2", "status": "timed_out", "log": [], "foundation_cards": 0,
               "redeals_used": 0, "merci_used": False, "reach_time_ms": None,
               "finished_ms": 60_000, "final": True},
    }
    standings = {"final": True, "par": 40, "standings": [
        {"rank": 1, "racer": "a1", "name": "alice", "foundation_cards": 1, "points": 5},
        {"rank": 2, "racer": "b2", "name": "bob", "foundation_cards": 0, "points": 0}]}
    return {"race_id": rid, "room": room, "racers": racers, "standings": standings, "seq": 17}


class ArchiveContract:
    """Subclass with a ``db`` fixture yielding a migrated, empty :class:`ArchiveDb`
    and an ``empty_db`` fixture yielding one never migrated."""

    async def test_migrates_from_empty_to_head(self, empty_db: ArchiveDb) -> None:
        assert await mig.current(empty_db.engine) is None
        await empty_db.migrate()
        assert await mig.current(empty_db.engine) == mig.HEAD
        async with empty_db.engine.connect() as conn:
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
            indexes = await conn.run_sync(
                lambda c: {i["name"] for i in inspect(c).get_indexes("races")})
        assert {"races", "archived_racers", "alembic_version"} <= tables
        assert {"ix_races_room_code_ended", "ix_races_room_id"} <= indexes
        await empty_db.migrate()  # again: nothing to do, still head
        assert await mig.current(empty_db.engine) == mig.HEAD

    async def test_downgrade_and_upgrade_round_trip(self, db: ArchiveDb) -> None:
        doc = race_doc()
        assert await db.write(doc)
        await mig.downgrade(db.engine, "base")
        assert await mig.current(db.engine) is None
        async with db.engine.connect() as conn:
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        assert "races" not in tables and "archived_racers" not in tables
        await mig.upgrade(db.engine)
        assert await mig.current(db.engine) == mig.HEAD
        assert await db.find_race(doc["race_id"]) is None  # empty again
        assert await db.write(doc)
        assert await db.find_race(doc["race_id"]) is not None

    async def test_write_then_read_back_by_race_room_and_code(self, db: ArchiveDb) -> None:
        doc = race_doc(code="QZ7K2P")
        assert await db.write(doc) is True
        for ref in (doc["race_id"], "QZ7K2P", "qz7k2p"):
            got = await db.find_race(ref)
            assert got is not None, ref
            assert got.room == doc["room"] and got.seq == 17
            # with the focus losses (kept for a settled duel's assessment: issue 35)
            assert got.racers == {rid: {**r, "focus_losses": 0}
                                  for rid, r in doc["racers"].items()}

    async def test_writes_are_idempotent(self, db: ArchiveDb) -> None:
        doc = race_doc()
        results = await asyncio.gather(*(db.write(doc) for _ in range(5)))
        assert sorted(results) == [False, False, False, False, True]
        assert await db.write(doc) is False
        assert await db.count() == 1
        got = await db.find_race(doc["race_id"])
        assert got is not None and set(got.racers) == {"a1", "b2"}

    async def test_a_reused_code_names_the_latest_race(self, db: ArchiveDb) -> None:
        old, new = race_doc(code="REUSE1", ended=1_000), race_doc(code="REUSE1", ended=9_000)
        await db.write(new)
        await db.write(old)
        got = await db.find_race("REUSE1")
        assert got is not None and got.room["id"] == new["race_id"]
        older = await db.find_race(old["race_id"])
        assert older is not None and older.room["id"] == old["race_id"]

    async def test_unknown_refs_find_nothing(self, db: ArchiveDb) -> None:
        await db.write(race_doc())
        for ref in ("nope", "ZZZZZZ", "x" * 64, "'; DROP TABLE races; --"):
            assert await db.find_race(ref) is None
        assert await db.count() == 1

    async def test_deal_numbers_of_any_size_survive(self, db: ArchiveDb) -> None:
        big = 10**30 + 7
        doc = race_doc(deal=big)
        await db.write(doc)
        got = await db.find_race(doc["race_id"])
        assert got is not None and got.room["deal_number"] == big

    async def test_a_par_found_later_is_stored(self, db: ArchiveDb) -> None:
        doc = race_doc()
        doc["room"]["par"] = None
        await db.write(doc)
        room = {**doc["room"], "par": 44}
        standings = {**doc["standings"], "par": 44}
        assert await db.update_par(doc["race_id"], 44, room, standings) is True
        got = await db.find_race(doc["race_id"])
        assert got is not None and got.room["par"] == 44
        assert await db.update_par("nosuchrace", 1, room, standings) is False

    async def test_a_rematch_link_made_later_is_stored(self, db: ArchiveDb) -> None:
        doc = race_doc()
        await db.write(doc)
        room = {**doc["room"], "rematch": {"room": "next-room-id-16c", "code": "NEXT23"}}
        assert await db.update_room(doc["race_id"], room) is True
        got = await db.find_race(doc["race_id"])
        assert got is not None and got.room["rematch"] == room["rematch"]
        assert got.room["deal_number"] == doc["room"]["deal_number"]
        assert await db.update_room("nosuchrace", room) is False

    async def test_the_first_read_migrates(self, empty_db: ArchiveDb) -> None:
        # a server whose database was down at start migrates on first contact
        assert await empty_db.find_race("x") is None
        assert await mig.current(empty_db.engine) == mig.HEAD


async def test_an_unreachable_database_is_unavailable_fast() -> None:
    from tests.conftest import free_port
    db = ArchiveDb(f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/nothing")
    try:
        for call in (db.find_race("x"), db.write(race_doc()), db.ping()):
            started = asyncio.get_running_loop().time()
            try:
                await call
            except ArchiveUnavailable as exc:
                assert exc.code == "archive/unavailable" and exc.status == 503
            else:
                raise AssertionError("an unreachable database answered")
            assert asyncio.get_running_loop().time() - started < 5
    finally:
        await db.close()
