"""The fair-play part of the archive contract (server/archive/fairplay_db.py,
refund.py), run on a real SQLite file and a real PostgreSQL database with the
rest of the contract (``test_sqlite.py``, ``test_postgres.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openskill.models import PlackettLuce

from server.archive import ArchiveDb
from server.errors import PlayerNotFound

from .players_contract import linked_race, new_player

__all__ = ["FairPlayContract"]

MODEL = PlackettLuce()


def _row(racer: dict[str, Any], player: str) -> dict[str, Any]:
    return {"racer_id": racer["racer_id"], "player_id": player, "variant": "belle-lucie",
            "ended_at_ms": 1_000, "archived_at_ms": 1_000, "signals": {"moves": 1},
            "verdict": "clean", "score": -1.5, "reasons": ["a reason"]}


async def _rating(db: ArchiveDb, player: str) -> dict[str, Any]:
    return (await db.profile(player))["variants"][0]["rating"]  # type: ignore[no-any-return]


class FairPlayContract:
    """Assessment queue, verdicts and the rating refund (a ``db`` fixture: migrated, empty)."""

    async def test_rated_races_with_players_are_queued_once_and_leased(
            self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "queued one")
        doc = linked_race({"queued one": a, "anon": None}, {"queued one": 1, "anon": 2})
        await db.write(doc)
        await db.write(doc)  # archived twice: queued once
        await db.write(linked_race({"x": None, "y": None}, {"x": 1, "y": 2}))  # no player
        await db.write(linked_race({"queued one": a, "z": None}, {"queued one": 1, "z": 2},
                                   ranked=False))  # not rated
        assert await db.pending_assessments() == 1
        (got,) = await db.claim_assessments(10, 60_000)
        assert got["race_id"] == doc["race_id"] and got["tries"] == 1
        assert got["redeal_key"] == "cd" * 32 and int(got["deal_number"]) == 9
        assert [r["player_id"] for r in got["racers"]] == [a]  # players only
        (racer,) = got["racers"]
        assert racer["moves"] == [["3f", 100]] and racer["focus_losses"] == 0
        assert await db.claim_assessments(10, 60_000) == []  # leased
        await db.store_assessments(doc["race_id"], [_row(racer, a)])
        await db.store_assessments(doc["race_id"], [_row(racer, a)])  # twice: once
        assert await db.pending_assessments() == 0
        (stored,) = await db.player_assessments(a, 20)
        assert (stored["race_id"], stored["verdict"], stored["reasons"]) == (
            doc["race_id"], "clean", ["a reason"])
        assert stored["room_code"] == doc["room"]["code"]
        assert stored["winner"] == racer["racer_id"]  # ranked first
        assert [p["id"] for p in await db.assessed_players()] == [a]

    async def test_an_expired_lease_is_claimed_again_and_a_race_can_be_dropped(
            self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "leased")
        doc = linked_race({"leased": a, "b": None}, {"leased": 1, "b": 2})
        await db.write(doc)
        assert len(await db.claim_assessments(1, 1)) == 1
        await asyncio.sleep(0.01)
        (again,) = await db.claim_assessments(1, 60_000)
        assert again["tries"] == 2
        await db.drop_assessment(doc["race_id"])
        assert await db.pending_assessments() == 0

    async def test_focus_losses_are_archived(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "blurry")
        doc = linked_race({"blurry": a, "b": None}, {"blurry": 1, "b": 2})
        racer_id = doc["room"]["roster"][0]["id"]
        doc["racers"][racer_id]["focus_losses"] = 7
        await db.write(doc)
        (got,) = await db.claim_assessments(1, 60_000)
        assert got["racers"][0]["focus_losses"] == 7

    async def test_assisted_refunds_rivals_and_unrates_the_player(self, db: ArchiveDb) -> None:
        cheat, _ = await new_player(db, "cheat")
        bob, _ = await new_player(db, "bob")
        cy, _ = await new_player(db, "cy")
        r1 = linked_race({"cheat": cheat, "bob": bob}, {"cheat": 1, "bob": 2}, ended=1_000)
        r2 = linked_race({"cheat": cheat, "cy": cy}, {"cheat": 1, "cy": 2}, ended=2_000)
        r3 = linked_race({"bob": bob, "cy": cy}, {"bob": 1, "cy": 2}, ended=3_000)
        for doc in (r1, r2, r3):
            await db.write(doc)
            await asyncio.sleep(0.003)  # archived in this order
        assert (await _rating(db, bob))["rated_races"] == 2
        done = await db.record_verdict(cheat, "assisted", "solver line", "alice",
                                       [r1["race_id"], r2["race_id"]], 42.0)
        assert sorted(done["refunded"]) == sorted([cheat, bob, cy])
        assert sorted(r["race_id"] for r in done["races"]) == sorted(
            [r1["race_id"], r2["race_id"]])
        assert {r["name"] for r in done["races"]} == {"cheat"}
        # as if the cheat had not raced: r1 and r2 rate nobody, r3 rates bob and cy
        (b,), (c,) = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1.0, 2.0])
        got_b, got_c = await _rating(db, bob), await _rating(db, cy)
        assert got_b["mu"] == pytest.approx(b.mu, abs=1e-3) and got_b["rated_races"] == 1
        assert got_c["mu"] == pytest.approx(c.mu, abs=1e-3) and got_c["rated_races"] == 1
        assert [p["race"] for p in (await db.rating_history(bob, "belle-lucie"))["points"]] \
            == [r3["race_id"]]
        got_cheat = await _rating(db, cheat)
        assert got_cheat["rated_races"] == 0 and got_cheat["mu"] == pytest.approx(MODEL.mu)
        board = await db.rating_board("belle-lucie", 20)
        assert cheat not in [e["player"]["id"] for e in board["entries"]]
        assert (await db.fair_play_of(cheat))["fair_play"] == "assisted"  # type: ignore[index]
        (kept,) = await db.verdicts(cheat)  # before the second one below
        assert (kept["verdict"], kept["moderator"], kept["note"], kept["score"]) == (
            "assisted", "alice", "solver line", 42.0)
        assert sorted(kept["races"]) == sorted([r1["race_id"], r2["race_id"]])
        again = await db.record_verdict(cheat, "assisted", "me too", "bob",
                                        [r1["race_id"], r2["race_id"]], 42.0)
        assert again["races"] == [] and again["refunded"] == []  # nothing twice
        assert await _rating(db, bob) == got_b
        assert [v["moderator"] for v in await db.verdicts(cheat)] == ["bob", "alice"]
        # from now on the player races unrated, and is not assessed
        before = await _rating(db, bob)
        r4 = linked_race({"cheat": cheat, "bob": bob}, {"cheat": 1, "bob": 2}, ended=4_000)
        await db.write(r4)
        assert await _rating(db, bob) == before  # one player left: nobody rated
        assert await _rating(db, cheat) == got_cheat
        claimed = {c["race_id"]: c for c in await db.claim_assessments(10, 60_000)}
        assert [r["player_id"] for r in claimed[r4["race_id"]]["racers"]] == [bob]

    async def test_cleared_keeps_everything(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "honest")
        b, _ = await new_player(db, "rival")
        doc = linked_race({"honest": a, "rival": b}, {"honest": 1, "rival": 2})
        await db.write(doc)
        before = await _rating(db, b)
        done = await db.record_verdict(a, "cleared", "a strong player", "bob",
                                       [doc["race_id"]], 7.0)
        assert done["races"] == [] and done["refunded"] == []
        assert await _rating(db, b) == before
        assert (await db.fair_play_of(a))["fair_play"] == "cleared"  # type: ignore[index]
        assert (await db.verdicts(a))[0]["races"] == []

    async def test_a_verdict_on_nobody_is_refused(self, db: ArchiveDb) -> None:
        with pytest.raises(PlayerNotFound):
            await db.record_verdict("nobody", "cleared", "x", "alice", [], None)
        assert await db.fair_play_of("nobody") is None

    async def test_board_results_feed_the_boards_again_without_assisted_results(
            self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "boarder")
        c, _ = await new_player(db, "cheater")
        first = linked_race({"boarder": a, "cheater": c, "anon": None},
                            {"cheater": 1, "boarder": 2, "anon": 3}, ended=1_000)
        await db.write(first)
        await db.write(linked_race({"anon": None, "x": None}, {"anon": 1, "x": 2},
                                   ranked=False, ended=1_500))  # unranked: no board
        await db.record_verdict(c, "assisted", "x", "alice", [first["race_id"]], 1.0)
        races, barred = await db.board_results()
        assert barred == {c} and len(races) == 1
        (race,) = races
        assert race["room"]["id"] == first["room"]["id"] and race["room"]["ranked"]
        assert [r["name"] for r in race["racers"]] == ["boarder", "anon"]  # not the cheater
        assert race["racers"][0] == {"name": "boarder", "final": True, "status": "stuck",
                                     "foundation_cards": 8, "reach_time_ms": 100, "moves": 1,
                                     "bot": False, "player": a}
