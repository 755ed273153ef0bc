"""The challenges part of the archive contract (server/archive/challenges_db.py,
challenge_results.py; issue 35), run on a real SQLite file and a real
PostgreSQL database with the rest of the contract (``test_sqlite.py``,
``test_postgres.py``): the upgrade from revision 0003, one attempt per
player, results stored with their races, a duel handed to one taker, settled
and closed once by compare-and-set (also when two callers race), the
matchmaker's band, and histories sealed while a challenge is open."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from typing import Any

import pytest
from sqlalchemy import inspect, select

from server.archive import ArchiveDb
from server.archive import migrate as mig
from server.archive.schema import players
from server.errors import ChallengeAlreadyPlayed, ChallengeClosed, ChallengeExpired
from server.race.duel import duel_race, tiebreak_decides, tiebreak_row

from .players_contract import linked_race, new_player

__all__ = ["ChallengeContract"]

NOW = 1_800_000_000_000
DAY = 24 * 3600 * 1000


def challenge(creator: str, *, kind: str = "rated", rating: float = 0.0, created: int = NOW,
              life: int = 7 * DAY) -> dict[str, Any]:
    cid = "c" + secrets.token_hex(7)
    return {"challenge_id": cid, "code": secrets.token_hex(4).upper(), "kind": kind,
            "variant": "belle-lucie", "deal_number": "9", "redeal_key": "cd" * 32,
            "deal_salt": "00" * 16, "deal_commitment": "ab" * 32, "time_limit_ms": 900_000,
            "creator_id": creator, "creator_name": "creator", "creator_rating": rating,
            "created_ms": created, "expires_ms": created + life, "state": "open",
            "played": 0, "settle_due": False}


def attempt(row: dict[str, Any], player: str, *, now: int = NOW,
            deadline: int | None = None) -> dict[str, Any]:
    return {"challenge_id": row["challenge_id"], "player_id": player, "name": player,
            "room_id": "R" + secrets.token_hex(7), "racer_id": "x1" + secrets.token_hex(3),
            "started_ms": now, "deadline_ms": deadline or now + 3_600_000}


def attempt_race(row: dict[str, Any], att: dict[str, Any], cards: int,
                 ended: int) -> dict[str, Any]:
    """The finished race of an attempt, as the archiver writes it."""
    doc = linked_race({att["name"]: att["player_id"]}, {att["name"]: 1},
                      cards={att["name"]: cards}, ended=ended, ranked=False,
                      race_id=att["room_id"])
    doc["room"]["challenge"] = row["challenge_id"]
    doc["rated"] = False
    return doc


async def _settled_doc(db: ArchiveDb, cid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    (row,) = [r for r in await db.due_settlements(10) if r["challenge_id"] == cid]
    by = {a["player_id"]: a for a in row["attempts"]}
    sides = []
    for pid in (row["creator_id"], row["taker_id"]):
        race = await db.find_race(by[pid]["race_id"])
        assert race is not None
        sides.append((race.room, race.racers[race.room["roster"][0]["id"]]))
    return duel_race(row, sides[0], sides[1])


async def _digest(db: ArchiveDb, player_id: str) -> str:
    async with db.engine.connect() as conn:
        return str((await conn.execute(select(players.c.key_digest).where(
            players.c.player_id == player_id))).scalar_one())


class ChallengeContract:
    """Challenges in the archive (a ``db`` fixture: migrated, empty)."""

    async def test_upgrade_from_0003_adds_challenges_and_keeps_races(self, db: ArchiveDb) -> None:
        doc = linked_race({"kept": None}, {"kept": 1})
        await mig.downgrade(db.engine, "0003")
        async with db.engine.connect() as conn:
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        assert "challenges" not in tables
        assert await db.write(doc)
        await mig.upgrade(db.engine)
        assert await mig.current(db.engine) == mig.HEAD == "0005"
        assert await db.find_race(doc["race_id"]) is not None
        a, _ = await new_player(db, "upgraded")
        row = challenge(a)
        assert await db.create_challenge(row, attempt(row, a))

    async def test_one_attempt_per_player_and_the_refusals(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "maker one")
        b, _ = await new_player(db, "player two")
        row = challenge(a, kind="link")
        assert await db.create_challenge(row, attempt(row, a))
        assert not await db.create_challenge(dict(row), attempt(row, b))  # same id: nothing
        await db.add_attempt(row["challenge_id"], attempt(row, b), NOW)
        with pytest.raises(ChallengeAlreadyPlayed):
            await db.add_attempt(row["challenge_id"], attempt(row, b), NOW)
        with pytest.raises(ChallengeAlreadyPlayed):
            await db.check_attempt(row["code"].lower(), b, NOW)
        c, _ = await new_player(db, "player three")
        with pytest.raises(ChallengeExpired):
            await db.add_attempt(row["challenge_id"], attempt(row, c), NOW + 8 * DAY)
        duel = challenge(a)
        await db.create_challenge(duel, attempt(duel, a))
        with pytest.raises(ChallengeClosed):  # a duel's rival comes from the matchmaker
            await db.check_attempt(duel["challenge_id"], c, NOW)
        found = await db.find_challenge(row["challenge_id"])
        assert found is not None and sorted(x["player_id"] for x in found["attempts"]) == sorted(
            [a, b])

    async def test_a_duel_goes_to_one_taker_and_settles_once(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "duel maker")
        b, _ = await new_player(db, "duel taker")
        c, _ = await new_player(db, "too late")
        row = challenge(a)
        first = attempt(row, a)
        assert await db.create_challenge(row, first)
        assert await db.duel_candidates("belle-lucie", b, 0.0, NOW, 5, 3_600_000, 5) == []
        assert await db.write(attempt_race(row, first, 7, NOW + 1000))
        assert await db.write(attempt_race(row, first, 7, NOW + 1000)) is False  # once
        (offered,) = await db.duel_candidates("belle-lucie", b, 0.0, NOW, 5, 3_600_000, 5)
        assert offered["played"] == 1 and offered["offered_ms"] == NOW + 1000
        racing = [attempt(row, b), attempt(row, c)]
        took = await asyncio.gather(*(db.take_duel(row["challenge_id"], x, NOW)
                                      for x in racing))
        assert sorted(took) == [False, True]  # one taker, whichever got there first
        second = racing[took.index(True)]
        b = second["player_id"]
        assert await db.due_settlements(10) == []
        await db.write(attempt_race(row, second, 3, NOW + 2000))
        doc, result = await _settled_doc(db, row["challenge_id"])
        assert (result["winner"], result["margin_cards"]) == (a, 4)
        notes = [{"player_id": a, "kind": "duel_settled", "message": "you won"}]
        done = await asyncio.gather(*(db.settle(row["challenge_id"], doc, result, notes, NOW)
                                      for _ in range(3)))
        assert sorted(done) == [False, False, True]
        for pid in (a, b):
            assert len((await db.rating_history(pid, "belle-lucie"))["points"]) == 1
        assert len(await db.notifications(a, 10)) == 1
        found = await db.find_challenge(row["challenge_id"])
        assert found is not None and found["state"] == "settled" and found["result"] == result
        assert await db.challenge_closed(row["challenge_id"])
        vs = await db.versus(a, b, 10, None)
        assert vs["races"] == 1 and vs["wins"] == 1

    async def test_expiry_waits_for_an_attempt_under_way_and_closes_once(
            self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "expiring")
        b, _ = await new_player(db, "still playing")
        row = challenge(a, kind="link", life=DAY)
        first = attempt(row, a)
        await db.create_challenge(row, first)
        await db.write(attempt_race(row, first, 5, NOW + 1000))
        late = attempt(row, b, now=NOW + DAY - 1, deadline=NOW + DAY + 600_000)
        await db.add_attempt(row["challenge_id"], late, NOW + DAY - 1)
        assert [r["challenge_id"] for r in await db.due_closings(NOW + DAY, 10)] == []
        after = NOW + DAY + 600_000
        (due,) = await db.due_closings(after, 10)
        assert due["challenge_id"] == row["challenge_id"]
        notes = [{"player_id": a, "kind": "challenge_closed", "message": "closed"}]
        done = await asyncio.gather(*(db.close_challenge(row["challenge_id"], "closed", notes,
                                                         after) for _ in range(3)))
        assert sorted(done) == [False, False, True]
        told = await db.notifications(a, 10)
        assert [(n["kind"], n["read"]) for n in told] == [("challenge_closed", False)]
        assert [n["read"] for n in await db.notifications(a, 10)] == [True]
        assert await db.unread_notifications(a) == 0

    async def test_the_band_widens_with_the_challenges_age(self, db: ArchiveDb) -> None:
        far, _ = await new_player(db, "far maker")
        me, _ = await new_player(db, "asking")
        row = challenge(far, rating=12.0)
        first = attempt(row, far)
        await db.create_challenge(row, first)
        await db.write(attempt_race(row, first, 5, NOW + 1000))
        hour = 3_600_000
        ask = lambda now: db.duel_candidates("belle-lucie", me, 0.0, now, 5, hour, 5)  # noqa: E731
        assert await ask(NOW) == []  # 12 away, band 5
        assert await ask(NOW + hour) == []  # band 10
        assert [r["challenge_id"] for r in await ask(NOW + 2 * hour)] == [row["challenge_id"]]
        assert await db.duel_candidates("belle-lucie", far, 12.0, NOW, 5, hour, 5) == []  # own

    async def test_a_history_leaves_out_attempts_until_the_challenge_closes(
            self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "sealed maker")
        row = challenge(a, kind="link", life=DAY)
        first = attempt(row, a)
        await db.create_challenge(row, first)
        await db.write(attempt_race(row, first, 5, NOW + 1000))
        assert (await db.player_races(a, 10, None))["races"] == []
        assert await db.close_challenge(row["challenge_id"], "closed", [], NOW + DAY)
        races = (await db.player_races(a, 10, None))["races"]
        assert [r["race"] for r in races] == [first["room_id"]]
        assert [c["challenge_id"] for c in await db.player_challenges(a, 10)] == [
            row["challenge_id"]]

    async def test_the_nearest_come_first_from_above_and_below_then_the_oldest(
            self, db: ArchiveDb) -> None:
        me, _ = await new_player(db, "seeking")
        made = {}
        for name, rating, age in (("r10 old", 10.0, 3), ("r10 new", 10.0, 1), ("r13", 13.0, 2),
                                  ("r8", 8.0, 2), ("r11.5", 11.5, 2), ("r30", 30.0, 0)):
            maker, _ = await new_player(db, f"maker {name}")
            row = challenge(maker, rating=rating, created=NOW - age * 3_600_000)
            first = attempt(row, maker, now=row["created_ms"])
            await db.create_challenge(row, first)
            await db.write(attempt_race(row, first, 5, row["created_ms"] + 1000))
            made[row["challenge_id"]] = name
        ask = lambda n: db.duel_candidates("belle-lucie", me, 11.0, NOW, 5, 3_600_000, n)  # noqa: E731
        assert [made[r["challenge_id"]] for r in await ask(5)] == [
            "r11.5", "r10 old", "r10 new", "r13", "r8"]  # r30: 19 away, band 5 at age 0
        assert [made[r["challenge_id"]] for r in await ask(2)] == ["r11.5", "r10 old"]

    async def _drawn(self, db: ArchiveDb) -> tuple[str, str, str, dict[str, Any], dict[str, Any]]:
        """A duel of two players settled as a draw with its tie-break → the
        two players' ids and keys' owner, the duel row, the tie-break row."""
        a, _ = await new_player(db, "draw maker " + secrets.token_hex(2))
        b, _ = await new_player(db, "draw taker " + secrets.token_hex(2))
        row = challenge(a)
        first = attempt(row, a)
        await db.create_challenge(row, first)
        await db.write(attempt_race(row, first, 6, NOW + 1000))
        second = attempt(row, b)
        assert await db.take_duel(row["challenge_id"], second, NOW)
        await db.write(attempt_race(row, second, 6, NOW + 2000))
        doc, result = await _settled_doc(db, row["challenge_id"])
        assert result["winner"] is None and result["decided_by"] == "tie"
        duel = {**row, "taker_id": b}
        tiebreak = tiebreak_row(duel, "t" + secrets.token_hex(7), secrets.token_hex(4).upper(),
                                {"deal_number": "77", "redeal_key": "ef" * 32,
                                 "deal_salt": "11" * 16, "deal_commitment": "cd" * 32},
                                NOW + 3000, 7 * DAY)
        result["tiebreak"] = tiebreak["challenge_id"]
        return a, b, doc["race_id"], {"doc": doc, "result": result, "row": row}, tiebreak

    async def test_a_draw_makes_its_tiebreak_once_and_the_tiebreak_decides_the_duel(
            self, db: ArchiveDb) -> None:
        a, b, duel_race_id, duel, tiebreak = await self._drawn(db)
        cid = duel["row"]["challenge_id"]
        taken = dict(tiebreak, code=duel["row"]["code"])  # a code taken: nothing written
        assert not await db.settle(cid, duel["doc"], duel["result"], [], NOW, tiebreak=taken)
        assert (await db.find_challenge(cid))["state"] == "open"  # type: ignore[index]
        done = await asyncio.gather(*(db.settle(cid, duel["doc"], duel["result"], [], NOW,
                                                tiebreak=tiebreak) for _ in range(3)))
        assert sorted(done) == [False, False, True]
        for pid in (a, b):  # rated once, as a draw
            assert [p["race"] for p in (await db.rating_history(pid, "belle-lucie"))[
                "points"]] == [duel_race_id]
        tb = await db.find_challenge(tiebreak["code"].lower())
        assert tb is not None and (tb["kind"], tb["tiebreak_of"], tb["attempts"]) == (
            "tiebreak", cid, [])
        assert tiebreak["challenge_id"] in [c["challenge_id"]
                                            for c in await db.player_challenges(b, 10)]
        c, _ = await new_player(db, "not in the duel")
        with pytest.raises(ChallengeClosed):
            await db.check_attempt(tiebreak["challenge_id"], c, NOW + 4000)
        results = {}
        for pid, cards in ((a, 9), (b, 4)):
            mine = attempt(tiebreak, pid, now=NOW + 4000)
            await db.add_attempt(tiebreak["challenge_id"], mine, NOW + 4000)
            await db.write(attempt_race(tiebreak, mine, cards, NOW + 5000 + cards))
            results[pid] = mine
        doc, result = await _settled_doc(db, tiebreak["challenge_id"])
        assert doc["rated"] is False and result["winner"] == a
        decided = tiebreak_decides(duel["result"], result)
        assert await db.settle(tiebreak["challenge_id"], doc, result, [], NOW + 6000,
                               decides=(cid, decided))
        after = await db.find_challenge(cid)
        assert after is not None and after["result"]["winner"] == a
        assert after["result"]["decided_by"] == "tiebreak"
        for pid in (a, b):  # nothing rated again; each duel listed once
            assert len((await db.rating_history(pid, "belle-lucie"))["points"]) == 1
            races = (await db.player_races(pid, 10, None))["races"]
            assert [r["race"] for r in races] == [doc["race_id"], duel_race_id]

    async def test_forgetting_a_player_anonymises_their_challenges(self, db: ArchiveDb) -> None:
        a, b, _, duel, tiebreak = await self._drawn(db)
        cid = duel["row"]["challenge_id"]
        notes = [{"player_id": a, "kind": "duel_settled", "message": "a draw"},
                 {"player_id": b, "kind": "duel_settled", "message": "a draw"}]
        assert await db.settle(cid, duel["doc"], {**duel["result"], "winner": a}, notes, NOW,
                               tiebreak=tiebreak)
        digest = await _digest(db, a)
        await db.delete_player(a, digest)
        for ref in (cid, tiebreak["challenge_id"]):
            found = await db.find_challenge(ref)
            assert found is not None and a not in str(found)
            assert found["creator_name"].startswith("anonymous ")
        found = await db.find_challenge(cid)
        assert found is not None and found["result"]["winner"].startswith("anonymous-")
        assert [x["name"].startswith("anonymous ") for x in found["attempts"]] == [True, False]
        assert await db.notifications(a, 10) == [] and len(await db.notifications(b, 10)) == 1
        assert [c["challenge_id"] for c in await db.player_challenges(a, 10)] == []

    async def test_an_attempts_racer_token_is_known_by_its_digest(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "token keeper")
        row = challenge(a, kind="link")
        mine = {**attempt(row, a), "token_digest": hashlib.sha256(b"secret").hexdigest()}
        await db.create_challenge(row, mine)
        assert await db.attempt_racer(mine["room_id"], "secret") == mine["racer_id"]
        assert await db.attempt_racer(mine["room_id"], "other") is None
        assert await db.attempt_racer("nosuchroom", "secret") is None
