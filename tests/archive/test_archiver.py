"""The archiver over a real authority (memory store, the test clock) and a real
SQLite archive: finished races archived once, their rooms expiring only then,
reads falling back to the archive, a par found later reaching the archive."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.archive import ArchiveDb, Archiver, database_url
from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.rules.commitment import deal_commitment
from tests.race.helpers import ClockStore

from .contract import race_doc


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[ArchiveDb]:
    archive = ArchiveDb(database_url(None, str(tmp_path)))
    await archive.migrate()
    yield archive
    await archive.close()


@pytest.fixture
async def store() -> AsyncIterator[ClockStore]:
    s = ClockStore()
    yield s
    await s.close()


async def _finished(race: RaceAuthority) -> tuple[str, str, str]:
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    a, ta = await race.join(room.id, "alice")
    b, tb = await race.join(room.id, "bob")
    await race.start(room.code, host)
    await race.move(room.id, a.id, ta, "r", 0, "m1")
    await race.resign(room.id, a.id, ta)
    await race.resign(room.id, b.id, tb)
    return room.id, room.code, a.id


async def test_finished_races_are_archived_once_then_expire(
        store: ClockStore, db: ArchiveDb) -> None:
    race = RaceAuthority(store, archive=db)
    archiver = Archiver(race, db)
    room_id, code, a_id = await _finished(race)
    assert await store.archive.pending() == [room_id]
    live = await race.race(room_id)
    assert await archiver.run_once() == 1
    assert await archiver.run_once() == 0  # nothing left, nothing written twice
    assert await db.count() == 1 and await store.archive.pending() == []
    assert (await race.get_room(room_id)).state == "over"  # still live for a while
    store.advance(race.config.ended_ttl_ms + 1000)
    assert await store.rooms.get_room(room_id) is None  # the live room is gone
    archived = await race.race(code)
    assert archived.live is False and live.live is True
    assert archived.model_dump(exclude={"live"}) == live.model_dump(exclude={"live"})
    replay = await race.replay(code, a_id, "some-old-token")  # tokens are ignored
    assert [m.move for m in replay.moves] == ["r"] and replay.redeal_key
    log = await race.logs_for(None).racer_log(room_id, "ALICE")
    assert log.moves[0][0] == "r" and log.room_id == room_id
    with pytest.raises(err.RoomNotFound):
        await race.race("nosuchrace")


async def test_a_race_not_over_is_no_race(store: ClockStore, db: ArchiveDb) -> None:
    race = RaceAuthority(store, archive=db)
    room, _ = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    with pytest.raises(err.HiddenUntilOver):
        await race.race(room.id)


async def test_a_par_found_after_archiving_reaches_the_archive(
        store: ClockStore, db: ArchiveDb) -> None:
    race = RaceAuthority(store, archive=db, par=True)
    room_id, _, _ = await _finished(race)
    # the par search runs in the background: before, during or after the
    # archive write, the archived race gets it
    assert await Archiver(race, db).run_once() == 1
    for _ in range(200):  # the par search runs in the background (2 s budget)
        got = await db.find_race(room_id)
        if got is not None and got.room["par"] is not None:
            break
        await asyncio.sleep(0.05)
    assert got is not None and isinstance(got.room["par"], int)
    view = await race.archived.race(room_id)
    assert view.par == got.room["par"] and view.standings.par == view.par
    assert all(s.to_par is not None for s in view.standings.standings)


async def test_the_archiver_logs_one_line_per_outage(
        store: ClockStore, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from tests.conftest import free_port
    down = ArchiveDb(f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/none")
    race = RaceAuthority(store)
    archiver = Archiver(race, down, period_s=0.01, max_backoff_s=0.02, lease_ms=1)
    await _finished(race)
    with caplog.at_level(logging.WARNING, logger="server.archive"):
        task = asyncio.create_task(archiver.run())
        async with asyncio.timeout(15):  # a loaded machine connects slowly
            while archiver.outage is None:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)  # many more tries (backoff at most 20 ms)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    await down.close()
    paused = [r for r in caplog.records if "archiving paused" in r.getMessage()]
    assert len(paused) == 1 and archiver.outage == "database"
    assert len(await store.archive.pending()) == 1  # nothing lost


async def test_a_race_closed_by_its_host_is_archived_a_room_closed_early_not(
        store: ClockStore, db: ArchiveDb) -> None:
    race = RaceAuthority(store, archive=db)
    running, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    await race.join(running.id, "alice")
    await race.start(running.code, host)
    await race.close(running.id, host)  # during the race: it ends, then closes
    early, host2 = await race.create_room(RoomOptions(deal=8))
    await race.close(early.id, host2)  # before the start: no race
    assert await store.archive.pending() == [running.id]
    assert await Archiver(race, db).run_once() == 1
    store.advance(race.config.ended_ttl_ms + 1000)
    view = await race.race(running.code)
    assert view.live is False and view.standings.final
    assert [r.status for r in view.racers] == ["timed_out"]
    with pytest.raises(err.RoomNotFound):
        await race.get_room(early.id)


async def test_a_batch_is_archived_in_the_order_its_races_ended() -> None:
    """Streaks and ratings count races in order: a batch claimed out of order
    (the pending set is unordered) is written oldest end first."""
    written: list[str] = []

    class Races:
        async def claim_finished(self, limit: int, lease_ms: int) -> list[dict[str, Any]]:
            return [{"race_id": rid, "room": {"ended_ms": ended}}
                    for rid, ended in (("late", 3_000), ("early", 1_000), ("mid", 2_000))]

        async def mark_archived(self, race_id: str) -> None:
            pass

    class Writer:
        async def write(self, race: dict[str, Any]) -> bool:
            written.append(race["race_id"])
            return True

    assert await Archiver(Races(), Writer()).run_once() == 3
    assert written == ["early", "mid", "late"]


async def test_rematch_links_reach_the_archive_and_an_archived_race_has_none(
        store: ClockStore, db: ArchiveDb) -> None:
    """Issue 21: a rematch made after the archiving is written to the archive
    too (the chain stays walkable from archived rooms); once only the archive
    holds a race, a rematch is a 404 that says so."""
    race = RaceAuthority(store, archive=db)
    archiver = Archiver(race, db)
    room_id, code, _ = await _finished(race)
    tokens = []
    # a second race, archived before anyone offers, and one offered between the
    # archiver's claim and its write (mark_archived passes the link on)
    for _ in range(2):
        room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
        racer, token = await race.join(room.id, "alice")
        await race.start(room.id, host)
        await race.resign(room.id, racer.id, token)
        tokens.append((room.id, token))
    (late_id, late_token), (mid_id, mid_token) = tokens
    claimed = await race.claim_finished(10, 60_000)
    assert {d["race_id"] for d in claimed} == {room_id, late_id, mid_id}
    mid = await race.rematch(mid_id, mid_token)  # after the claim, before the write
    for doc in claimed:
        assert await db.write(doc)
        await race.mark_archived(doc["race_id"])
    late = await race.rematch(late_id, late_token)  # after the archiving
    for ref, made in ((mid_id, mid), (late_id, late)):
        got = await db.find_race(ref)
        assert got is not None
        assert got.room["rematch"] == {"room": made.room.id, "code": made.room.code}
    assert await archiver.run_once() == 0
    store.advance(race.config.ended_ttl_ms + 1000)
    assert await store.rooms.get_room(late_id) is None
    view = await race.get_room(late_id)  # from the archive: both links
    assert view.rematch is not None and view.rematch.room == late.room.id
    assert (await race.get_room(room_id)).rematch is None
    with pytest.raises(err.RoomNotFound) as refused:
        await race.rematch(code, late_token)
    assert refused.value.details["archived"] is True
    assert "archived" in refused.value.message


@pytest.mark.parametrize(("options", "close", "rated"), [
    ({}, False, True),
    ({"hints": True}, False, False),  # hint rooms are not ranked (leaderboards too)
    ({"redeals": 5}, False, False),  # overridden rules
    ({}, True, False),  # closed by its host mid-race
])
async def test_which_races_count_for_players(store: ClockStore, options: dict[str, Any],
                                             close: bool, rated: bool) -> None:
    race = RaceAuthority(store)
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0, **options))
    a, ta = await race.join(room.id, "alice")
    await race.start(room.code, host)
    if close:
        await race.close(room.code, host)
    else:
        await race.resign(room.id, a.id, ta)
    (doc,) = await race.claim_finished(10, 60_000)
    assert doc["rated"] is rated
    assert doc["room"]["ranked"] is not options.get("hints", False)


async def test_an_archived_race_reveals_its_deal_salt_and_commitment(
        store: ClockStore, db: ArchiveDb) -> None:
    """The archive keeps the room record with the salt (issue 32): once the live
    room is gone, the room view and ``GET /races/{race}`` still reveal it, and it
    hashes to the commitment the room published; a race archived before
    commitments (no salt in its room record) reads with nulls."""
    race = RaceAuthority(store, archive=db)
    room_id, code, _ = await _finished(race)
    published = (await race.get_room(room_id)).deal_commitment
    assert await Archiver(race, db).run_once() == 1
    doc = await db.find_race(room_id)  # the document the archive keeps
    assert doc is not None and doc.room["deal_commitment"] == published
    assert doc.room["deal_salt"]
    store.advance(race.config.ended_ttl_ms + 1000)
    assert await store.rooms.get_room(room_id) is None  # only the archive holds it
    view = await race.get_room(code)
    archived = await race.race(code)
    assert archived.live is False
    assert view.deal_salt == archived.deal_salt == doc.room["deal_salt"]
    assert view.redeal_key == archived.redeal_key and view.deal_commitment == published
    assert deal_commitment(view.rules.variant, archived.deal_number, archived.redeal_key,
                           archived.deal_salt or "") == published == archived.deal_commitment
    older = race_doc(code="OLD123")  # a room record of before: no salt, no commitment
    assert "deal_salt" not in older["room"] and await db.write(older)
    old = await race.race("OLD123")
    assert (old.deal_salt, old.deal_commitment) == (None, None)
    assert (await race.get_room("OLD123")).deal_commitment is None
