"""The players part of the archive contract (server/archive/players.py,
ratings.py), run on a real SQLite file and a real PostgreSQL database with
the rest of the contract (``test_sqlite.py``, ``test_postgres.py``)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from sqlalchemy import select

from server.archive import ArchiveDb
from server.archive import migrate as mig
from server.archive.players import anonymous_name
from server.archive.schema import archived_racers
from server.errors import PlayerInvalidKey, PlayerNameTaken, PlayerNotFound, RequestInvalid
from server.records.players import check_player_name, key_digest, new_player_id

__all__ = ["PlayerContract", "linked_race", "new_player"]


async def new_player(db: ArchiveDb, name: str) -> tuple[str, str]:
    """A stored player → (player id, key)."""
    shown, folded = check_player_name(name)
    key = "lpk_" + secrets.token_urlsafe(32)
    made = await db.create_player(new_player_id(), shown, folded, key_digest(key))
    return made["id"], key


def linked_race(players: dict[str, str | None], ranks: dict[str, int], *, ended: int = 2_000,
                ranked: bool = True, cards: dict[str, int] | None = None,
                won: dict[str, int] | None = None, race_id: str | None = None,
                variant: str = "belle-lucie") -> dict[str, Any]:
    """A finished race document whose racers (by name) race as ``players``
    (name → player id or ``None``), ranked ``ranks``; ``won``: name → finish ms."""
    rid = race_id or "r" + secrets.token_hex(7)
    cards = cards or {}
    won = won or {}
    roster, racers, lines = [], {}, []
    for i, name in enumerate(players, 1):
        racer_id = f"x{i}{secrets.token_hex(3)}"
        roster.append({"id": racer_id, "name": name, "join_order": i, "token_digest": "",
                       "ready": False, "player": players[name]})
        count = 52 if name in won else cards.get(name, 10 - ranks[name])
        racers[racer_id] = {
            "id": racer_id, "status": "won" if name in won else "stuck",
            "log": [["3f", 100]], "foundation_cards": count, "redeals_used": 0,
            "merci_used": False, "reach_time_ms": 100, "final": True,
            "finished_ms": won.get(name, 50_000)}
        lines.append({"rank": ranks[name], "racer": racer_id, "name": name,
                      "foundation_cards": count, "points": 5 * count})
    room = {"id": rid, "code": "PL" + secrets.token_hex(2).upper(),
            "rules": {"variant": variant, "redeals": 2}, "deal_number": 9,
            "redeal_key": "cd" * 32, "ranked": ranked, "state": "over",
            "capacity": len(players), "time_limit_ms": 600_000, "visibility": "public",
            "countdown_ms": 0, "host_digest": "", "created_ms": ended - 100_000,
            "start_at_ms": ended - 60_000, "ended_ms": ended, "roster": roster,
            "joins": len(players), "par": None}
    return {"race_id": rid, "room": room, "racers": racers,
            "standings": {"final": True, "par": None, "standings": lines}, "seq": 5}


class PlayerContract:
    """Players, ratings, history and head-to-head (a ``db`` fixture: migrated, empty)."""

    async def test_names_are_unique_after_nfkc_and_case_folding(self, db: ArchiveDb) -> None:
        await new_player(db, "Ann Lee")
        for same in ("ann lee", "ANN  LEE", "Ａｎｎ Ｌｅｅ"):
            with pytest.raises(PlayerNameTaken):
                await new_player(db, same)
        await new_player(db, "Ann Leé")  # another name

    async def test_a_key_finds_its_player_only(self, db: ArchiveDb) -> None:
        pid, key = await new_player(db, "keyholder")
        assert (await db.player_by_key(key_digest(key)))["id"] == pid  # type: ignore[index]
        assert await db.player_by_key(key_digest(key + "x")) is None
        assert (await db.find_player("nobody", "keyholder"))["id"] == pid  # type: ignore[index]
        assert await db.find_player("nobody", "nobody") is None

    async def test_a_rated_race_moves_ratings_and_figures_once(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "winner")
        b, _ = await new_player(db, "loser")
        doc = linked_race({"winner": a, "loser": b, "anon": None},
                          {"winner": 1, "anon": 2, "loser": 3}, won={"winner": 90_000})
        assert await db.write(doc)
        assert not await db.write(doc)  # archived twice: counted once
        pa, pb = await db.profile(a), await db.profile(b)
        (va,), (vb,) = pa["variants"], pb["variants"]
        assert va["rating"]["mu"] > 25 > vb["rating"]["mu"]
        assert va["rating"]["rated_races"] == vb["rating"]["rated_races"] == 1
        assert va["rating"]["provisional"]
        assert (va["races"], va["wins"], va["streak"], va["best_time_ms"]) == (1, 1, 1, 90_000)
        assert (vb["races"], vb["wins"], vb["streak"], vb["best_time_ms"]) == (1, 0, 0, None)
        assert va["average_foundation_cards"] == 52 and vb["average_foundation_cards"] == 7
        history = await db.rating_history(a, "belle-lucie")
        assert [p["race"] for p in history["points"]] == [doc["race_id"]]
        # the rating quick races band by (docs/protocol.md, "Quick race")
        assert await db.player_rating(a, "belle-lucie") == pytest.approx(
            va["rating"]["rating"], abs=1e-3)
        assert await db.player_rating(a, "trefoil") is None  # no rated race there
        anon_only, _ = await new_player(db, "nobody rated")
        assert await db.player_rating(anon_only, "belle-lucie") is None

    async def test_ties_are_kept_and_unrated_races_leave_ratings(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "tie one")
        b, _ = await new_player(db, "tie two")
        await db.write(linked_race({"tie one": a, "tie two": b}, {"tie one": 1, "tie two": 1}))
        ra = (await db.profile(a))["variants"][0]["rating"]
        rb = (await db.profile(b))["variants"][0]["rating"]
        assert ra["mu"] == pytest.approx(rb["mu"]) and ra["rated_races"] == 1
        # one player among anonymous racers: figures, no rating
        await db.write(linked_race({"tie one": a, "bot": None}, {"tie one": 1, "bot": 2}))
        after = (await db.profile(a))["variants"][0]
        assert after["rating"] == ra and after["races"] == 2 and after["wins"] == 2
        # an unranked room (hints, ghosts): no figures either
        await db.write(linked_race({"tie one": a, "tie two": b}, {"tie one": 1, "tie two": 2},
                                   ranked=False))
        assert (await db.profile(a))["variants"][0]["races"] == 2
        assert (await db.profile(a))["races"] == 3  # but it is in the history
        # a ranked room the race authority calls unrated (overridden rules, closed
        # by its host): in the history, not in figures or ratings
        doc = linked_race({"tie one": a, "tie two": b}, {"tie one": 1, "tie two": 2})
        await db.write({**doc, "rated": False})
        assert (await db.profile(a))["variants"][0]["races"] == 2
        assert (await db.profile(a))["races"] == 4

    async def test_history_pages_newest_first_with_a_stable_cursor(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "pager")
        ids = []
        for i in range(5):
            doc = linked_race({"pager": a, "x": None}, {"pager": 1 + i % 2, "x": 2 - i % 2},
                              ended=10_000 + (i // 2) * 1_000)  # two pairs share an end
            ids.append(doc["race_id"])
            await db.write(doc)
        seen, cursor = [], None
        for size in (2, 2, 1):
            page = await db.player_races(a, 2, cursor)
            assert len(page["races"]) == size
            seen += page["races"]
            cursor = page["next"]
        assert cursor is None
        assert sorted(r["race"] for r in seen) == sorted(ids)
        keys = [(r["ended_at_ms"], r["race"]) for r in seen]
        assert keys == sorted(keys, reverse=True)
        assert {r["racers"] for r in seen} == {2}
        with pytest.raises(RequestInvalid):
            await db.player_races(a, 2, "not-a-cursor!")
        with pytest.raises(PlayerNotFound):
            await db.player_races("pnobody", 2, None)

    async def test_versus_counts_every_shared_race(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "alpha")
        b, _ = await new_player(db, "beta")
        c, _ = await new_player(db, "gamma")
        results = [(1, 2, 30, 20), (2, 1, 10, 20), (1, 1, 15, 15), (1, 2, 40, 10)]
        for i, (rank_a, rank_b, ca, cb) in enumerate(results):
            await db.write(linked_race({"alpha": a, "beta": b}, {"alpha": rank_a, "beta": rank_b},
                                       cards={"alpha": ca, "beta": cb}, ended=5_000 + i))
        await db.write(linked_race({"alpha": a, "gamma": c}, {"alpha": 1, "gamma": 2}))
        vs = await db.versus(a, b, 3, None)
        assert (vs["races"], vs["wins"], vs["losses"], vs["ties"]) == (4, 2, 1, 1)
        assert vs["average_card_difference"] == pytest.approx((10 - 10 + 0 + 30) / 4)
        assert len(vs["shared"]) == 3 and vs["next"]
        first = vs["shared"][0]
        assert first["result"] == "win" and first["ended_at_ms"] == 5_003
        assert first["comparison"] == (f"/api/v1/rooms/{first['race']}/compare/"
                                       f"{first['racer_a']}/{first['racer_b']}")
        rest = await db.versus(a, b, 3, vs["next"])
        assert len(rest["shared"]) == 1 and rest["next"] is None
        back = await db.versus(b, a, 10, None)
        assert (back["wins"], back["losses"]) == (1, 2)
        none = await db.versus(b, c, 10, None)
        assert none["races"] == 0 and none["average_card_difference"] is None

    async def test_forgetting_a_player_anonymises_their_rows_only(self, db: ArchiveDb) -> None:
        a, key = await new_player(db, "leaving")
        b, _ = await new_player(db, "staying")
        doc = linked_race({"leaving": a, "staying": b}, {"leaving": 1, "staying": 2})
        await db.write(doc)
        with pytest.raises(PlayerInvalidKey):
            await db.delete_player(a, key_digest("lpk_wrong"))
        await db.delete_player(a, key_digest(key))
        with pytest.raises(PlayerNotFound):
            await db.profile(a)
        with pytest.raises(PlayerNotFound):
            await db.delete_player(a, key_digest(key))
        race = await db.find_race(doc["race_id"])
        assert race is not None
        names = {e["name"] for e in race.room["roster"]}
        gone = next(e["id"] for e in race.room["roster"] if e["name"] != "staying")
        assert names == {"staying", anonymous_name(gone)}
        assert "leaving" not in str(race.room) and "leaving" not in str(race.racers)
        async with db.engine.connect() as conn:
            rows = dict((await conn.execute(
                select(archived_racers.c.name, archived_racers.c.player_id)
                .where(archived_racers.c.race_id == doc["race_id"]))).all())
        assert rows == {"staying": b, anonymous_name(gone): None}
        assert (await db.profile(b))["races"] == 1  # the rival's history is intact
        assert [e["player"]["id"] for e in
                (await db.rating_board("belle-lucie", 10))["entries"]] == [b]
        await new_player(db, "Leaving")  # the name is free again

    async def test_a_race_archived_after_its_player_was_forgotten(self, db: ArchiveDb) -> None:
        a, key = await new_player(db, "quick exit")
        doc = linked_race({"quick exit": a, "other": None}, {"quick exit": 1, "other": 2})
        await db.delete_player(a, key_digest(key))
        assert await db.write(doc)
        race = await db.find_race(doc["race_id"])
        assert race is not None and "quick exit" not in str(race.room)

    async def test_the_rating_board_ranks_by_mu_minus_three_sigma(self, db: ArchiveDb) -> None:
        ids = [(await new_player(db, f"board {n}"))[0] for n in "abc"]
        for _ in range(3):
            await db.write(linked_race({"board a": ids[0], "board b": ids[1], "board c": ids[2]},
                                       {"board a": 1, "board b": 2, "board c": 3}))
        board = await db.rating_board("belle-lucie", 2)
        assert [e["player"]["name"] for e in board["entries"]] == ["board a", "board b"]
        assert [e["rank"] for e in board["entries"]] == [1, 2]
        top = board["entries"][0]["rating"]
        assert top["rating"] == pytest.approx(top["mu"] - 3 * top["sigma"], abs=1e-3)
        assert (await db.rating_board("trefoil", 10))["entries"] == []

    async def test_concurrent_races_of_one_player_both_count(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "busy one")
        b, _ = await new_player(db, "busy two")
        docs = [linked_race({"busy one": a, "busy two": b}, {"busy one": 1, "busy two": 2})
                for _ in range(6)]
        await asyncio.gather(*(db.write(d) for d in docs))
        figures = (await db.profile(a))["variants"][0]
        assert figures["races"] == 6 and figures["rating"]["rated_races"] == 6
        assert len((await db.rating_history(a, "belle-lucie"))["points"]) == 6

    async def test_upgrade_from_the_previous_revision_keeps_races(self, db: ArchiveDb) -> None:
        a, _ = await new_player(db, "old timer")
        doc = linked_race({"old timer": a, "y": None}, {"old timer": 1, "y": 2}, ended=7_777)
        await db.write(doc)
        await mig.downgrade(db.engine, "0001")
        assert await mig.current(db.engine) == "0001"
        await mig.upgrade(db.engine)
        assert await mig.current(db.engine) == mig.HEAD
        async with db.engine.connect() as conn:
            ended = (await conn.execute(select(archived_racers.c.ended_at_ms))).scalars().all()
        assert set(ended) == {7_777}  # filled from races
        assert await db.find_race(doc["race_id"]) is not None

    async def test_forgetting_while_a_race_of_theirs_is_archived(
            self, db: ArchiveDb, monkeypatch: pytest.MonkeyPatch) -> None:
        """The delete and the archiving of one of the player's races overlap (the
        archiving transaction held open): either way the race ends up stored
        with the player forgotten — never named or linked to a gone player."""
        import server.archive.writing as dbmod  # where ArchiveDb.write calls it
        original = dbmod.apply_race

        async def slow(*args: Any, **kwargs: Any) -> None:
            await original(*args, **kwargs)
            await asyncio.sleep(0.6)  # inside the archiving transaction

        monkeypatch.setattr(dbmod, "apply_race", slow)
        a, key = await new_player(db, "mid flight")
        doc = linked_race({"mid flight": a, "other": None}, {"mid flight": 1, "other": 2})
        writing = asyncio.create_task(db.write(doc))
        await asyncio.sleep(0.2)  # the race row and its racers are written, not committed
        await db.delete_player(a, key_digest(key))
        assert await writing
        race = await db.find_race(doc["race_id"])
        assert race is not None and "mid flight" not in str(race.room)
        async with db.engine.connect() as conn:
            linked = (await conn.execute(select(archived_racers.c.player_id, archived_racers.c.name)
                                         .where(archived_racers.c.race_id == doc["race_id"]))).all()
        assert all(pid is None for pid, _ in linked) and "mid flight" not in str(linked)

    async def test_crafted_cursors_and_nul_refs_find_nothing(self, db: ArchiveDb) -> None:
        import base64
        a, _ = await new_player(db, "cursor kid")
        b, _ = await new_player(db, "cursor pal")
        for raw in ("9223372036854775808.x", "1.x\x00y", "-5.x", " 12 .x", "1_000.x", "12.a/b"):
            crafted = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
            with pytest.raises(RequestInvalid):
                await db.player_races(a, 5, crafted)
            with pytest.raises(RequestInvalid):
                await db.versus(a, b, 5, crafted)
        assert await db.find_player("a\x00", "a\x00") is None
        assert await db.find_race("a\x00") is None
