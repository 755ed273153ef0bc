"""Backend-agnostic contract tests of the live store (:mod:`server.store.base`):
one class per part — :class:`RoomRecordsContract`, :class:`RacerGamesContract`,
:class:`RoomEventLogContract`, :class:`RoomIndexesContract`,
:class:`ServiceClockContract` — and :class:`AtomicityContract` for the writes
that span parts (record + answer + events, one write) and the bundle itself.

Use: in a ``test_*.py`` module, subclass each of :data:`CONTRACTS` together
with a mixin whose ``store`` fixture yields a fresh, open
:class:`~server.store.base.LiveStore` whose events keep :data:`RETENTION`
events (see ``tests/store/test_memory.py``). Room ids are random, so the tests
can share one Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

import pytest

from server.store.base import EventsTooOld, LiveStore, VersionConflict

__all__ = [
    "CONTRACTS",
    "RETENTION",
    "AtomicityContract",
    "PendingArchiveContract",
    "RacerGamesContract",
    "RoomEventLogContract",
    "RoomIndexesContract",
    "RoomRecordsContract",
    "ServiceClockContract",
]

RETENTION = 5
"""The ``event_retention`` the ``store`` fixture must use."""


def _rid() -> str:
    return "t" + secrets.token_hex(6)


async def _take(it: Any, n: int) -> list[dict[str, Any]]:
    out = []
    async with asyncio.timeout(5):
        async for event in it:
            out.append(event)
            if len(out) == n:
                break
    return out


class RoomRecordsContract:
    """RoomRecords: records, compare-and-set, codes, expiry."""

    async def test_room_create_read_cas(self, store: LiveStore) -> None:
        rid = _rid()
        assert await store.rooms.get_room(rid) is None
        rev, events = await store.rooms.save_room(rid, {"a": 1, "é": "ü"}, 0, [{"type": "created"}])
        assert rev == 1
        assert events == [{"seq": 1, "type": "created"}]
        got = await store.rooms.get_room(rid)
        assert got is not None and got.data == {"a": 1, "é": "ü"} and got.rev == 1
        with pytest.raises(VersionConflict):
            await store.rooms.save_room(rid, {"a": 2}, 0, [{"type": "x"}])
        with pytest.raises(VersionConflict):
            await store.rooms.save_room(rid, {"a": 2}, 5)
        # nothing half-written by the failed saves
        got = await store.rooms.get_room(rid)
        assert got is not None and got.data == {"a": 1, "é": "ü"}
        assert await store.events.last_seq(rid) == 1
        rev, _ = await store.rooms.save_room(rid, {"a": 3}, 1)
        assert rev == 2
        assert rid in await store.rooms.room_ids()

    async def test_codes(self, store: LiveStore) -> None:
        rid, other = _rid(), _rid()
        code = "C" + secrets.token_hex(4).upper()
        await store.rooms.save_room(rid, {"code": code}, 0)
        await store.rooms.save_room(other, {}, 0)
        assert await store.rooms.claim_code(code, rid)
        assert not await store.rooms.claim_code(code, other)
        assert await store.rooms.find_room_by_code(code) == rid
        assert await store.rooms.find_room_by_code("NOPE" + code) is None

    async def test_expiry(self, store: LiveStore) -> None:
        rid = _rid()
        code = "E" + secrets.token_hex(4).upper()
        await store.rooms.save_room(rid, {}, 0, [{"type": "a"}])
        await store.rooms.claim_code(code, rid)
        await store.racers.save_racer(rid, "r", {}, 0, answer=("m", {}))
        await store.rooms.expire_room(rid, 50)
        assert await store.rooms.get_room(rid) is not None
        await asyncio.sleep(0.3)
        assert await store.rooms.get_room(rid) is None
        assert await store.racers.get_racer(rid, "r") is None
        assert await store.racers.get_answer(rid, "r", "m") is None
        assert await store.rooms.find_room_by_code(code) is None
        assert rid not in await store.rooms.room_ids()

class RacerGamesContract:
    """RacerGames: racer records, answers, the move read."""

    async def test_racer_cas_and_answers(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {}, 0)
        assert await store.racers.get_racer(rid, "r1") is None
        rev, _ = await store.racers.save_racer(rid, "r1", {"v": 0}, 0)
        assert rev == 1
        rev, events = await store.racers.save_racer(
            rid, "r1", {"v": 1}, 1, answer=("m1", {"ok": 1}), events=[{"type": "progress"}]
        )
        assert rev == 2 and events[0]["seq"] == 1
        assert await store.racers.get_answer(rid, "r1", "m1") == {"ok": 1}
        assert await store.racers.get_answer(rid, "r1", "m2") is None
        assert await store.racers.get_answer(rid, "r2", "m1") is None
        # repeated client move id: refused even with the right rev; first answer kept
        with pytest.raises(VersionConflict):
            await store.racers.save_racer(rid, "r1", {"v": 9}, 2, answer=("m1", {"ok": 2}),
                                          events=[{"type": "x"}])
        with pytest.raises(VersionConflict):
            await store.racers.save_racer(rid, "r1", {"v": 9}, 1, answer=("m3", {"ok": 3}))
        got = await store.racers.get_racer(rid, "r1")
        assert got is not None and got.data == {"v": 1} and got.rev == 2
        assert await store.racers.get_answer(rid, "r1", "m1") == {"ok": 1}
        assert await store.racers.get_answer(rid, "r1", "m3") is None
        assert await store.events.last_seq(rid) == 1
        await store.racers.save_racer(rid, "r2", {"v": 0}, 0)
        racers = await store.racers.get_racers(rid)
        assert set(racers) == {"r1", "r2"} and racers["r1"].data == {"v": 1}

    async def test_move_state_reads_room_answer_and_racer(self, store: LiveStore) -> None:
        rid = _rid()
        assert await store.racers.get_move_state(rid, "r1", "m1") == (None, None, None)
        await store.rooms.save_room(rid, {"a": 1}, 0)
        await store.racers.save_racer(rid, "r1", {"v": 1}, 0, answer=("m1", {"ok": 1}))
        room, answer, racer = await store.racers.get_move_state(rid, "r1", "m1")
        assert room is not None and room.data == {"a": 1} and room.rev == 1
        assert answer == {"ok": 1}
        assert racer is not None and racer.data == {"v": 1} and racer.rev == 1
        room, answer, racer = await store.racers.get_move_state(rid, "r2", "m1")
        assert room is not None and answer is None and racer is None

class RoomEventLogContract:
    """RoomEventLog: numbering, retention, subscriptions."""

    async def test_event_log_since_and_trim(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {}, 0)
        assert await store.events.events_since(rid, 0) == []
        stored = await store.events.append_events(rid, [{"type": "e", "i": i} for i in range(3)])
        assert [e["seq"] for e in stored] == [1, 2, 3]
        assert [e["i"] for e in await store.events.events_since(rid, 1)] == [1, 2]
        assert await store.events.events_since(rid, 3) == []
        await store.events.append_events(
            rid, [{"type": "e", "i": i} for i in range(3, 3 + RETENTION)])
        assert await store.events.last_seq(rid) == 3 + RETENTION
        tail = await store.events.events_since(rid, 3)
        assert [e["seq"] for e in tail] == list(range(4, 4 + RETENTION))
        with pytest.raises(EventsTooOld):
            await store.events.events_since(rid, 0)

    async def test_subscribe_backlog_then_live_in_order(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {}, 0)
        await store.events.append_events(rid, [{"type": "a"}, {"type": "b"}])
        it = store.events.subscribe(rid, 1)
        async with contextlib.aclosing(it):
            first = await _take(it, 1)
            assert first == [{"seq": 2, "type": "b"}]

            async def later() -> None:
                await asyncio.sleep(0.05)
                await store.rooms.save_room(rid, {"x": 1}, 1, [{"type": "c"}])
                await store.racers.save_racer(rid, "r", {}, 0,
                                              events=[{"type": "d"}, {"type": "e"}])

            task = asyncio.create_task(later())
            rest = await _take(it, 3)
            await task
        assert [(e["seq"], e["type"]) for e in rest] == [(3, "c"), (4, "d"), (5, "e")]

    async def test_subscribe_too_old(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {}, 0)
        await store.events.append_events(rid, [{"type": "e"}] * (RETENTION + 2))
        it = store.events.subscribe(rid, 0)
        with pytest.raises(EventsTooOld):
            async with contextlib.aclosing(it):
                await _take(it, 1)

class RoomIndexesContract:
    """RoomIndexes: room timers and the lobby index."""

    async def test_room_timers(self, store: LiveStore) -> None:
        a, b, c = _rid(), _rid(), _rid()
        now = await store.clock.now_ms()
        mine = {a, b, c}

        async def due(at: int) -> list[tuple[str, int]]:
            return [(r, t) for r, t in await store.indexes.due_timers(at) if r in mine]

        assert await due(now + 10**9) == []
        await store.indexes.set_timer(a, now + 200)
        await store.indexes.set_timer(b, now + 100)
        await store.indexes.set_timer(c, now + 5_000)
        assert await due(now) == []
        assert await due(now + 150) == [(b, now + 100)]
        assert await due(now + 200) == [(b, now + 100), (a, now + 200)]  # earliest first
        assert await due(now + 200) == [(b, now + 100), (a, now + 200)]  # listing keeps them
        await store.indexes.set_timer(b, now + 300)  # moved: replaces the earlier deadline
        assert await due(now + 250) == [(a, now + 200)]
        await store.indexes.clear_timer(a, now + 999)  # compare-and-delete: not that deadline
        assert await due(now + 250) == [(a, now + 200)]
        await store.indexes.clear_timer(a, now + 200)
        await store.indexes.clear_timer(c)
        assert await due(now + 10**9) == [(b, now + 300)]
        assert len([r for r, _ in await store.indexes.due_timers(now + 10**9, limit=1)]) <= 1
        await store.indexes.clear_timer(b)
        assert await due(now + 10**9) == []

    async def test_lobby_index_latest_first_until_its_time(self, store: LiveStore) -> None:
        now = await store.clock.now_ms()
        past, a, b = _rid(), _rid(), _rid()
        for rid in (past, a, b):
            await store.rooms.save_room(rid, {}, 0)
        await store.indexes.add_to_lobby(past, now - 1)
        await store.indexes.add_to_lobby(b, now + 60_001)
        await store.indexes.add_to_lobby(a, now + 60_000)
        assert await store.indexes.lobby_room_ids() == [b, a]  # past its time: gone
        await store.indexes.remove_from_lobby([a, "no-such-room"])
        await store.indexes.remove_from_lobby([])
        assert await store.indexes.lobby_room_ids() == [b]

    async def test_room_counts(self, store: LiveStore) -> None:
        """Counts for metrics: live rooms (until they expire), rooms listed in the
        lobby (until their time), rooms with a timer."""
        before = await store.indexes.room_counts()
        assert set(before) == {"live", "lobby", "running"}
        now = await store.clock.now_ms()
        a, b, c = _rid(), _rid(), _rid()
        for rid in (a, b, c):
            await store.rooms.save_room(rid, {}, 0)
        await store.rooms.expire_room(c, 50)
        await store.indexes.add_to_lobby(a, now + 60_000)
        await store.indexes.add_to_lobby(b, now - 1)  # past its time: not counted
        await store.indexes.set_timer(b, now + 60_000)
        counts = await store.indexes.room_counts()
        assert counts == {"live": before["live"] + 3, "lobby": before["lobby"] + 1,
                          "running": before["running"] + 1}
        await asyncio.sleep(0.3)  # c expired
        assert (await store.indexes.room_counts())["live"] == before["live"] + 2
        await store.indexes.clear_timer(b)
        assert (await store.indexes.room_counts())["running"] == before["running"]

    async def test_forming_lobbies_fill_one_after_another(self, store: LiveStore) -> None:
        """200 callers at once, 6 seats a lobby: 34 lobbies, each opened once and
        by one caller, none given more than 6 seats, every caller one seat."""
        slot = "t-" + _rid()
        now = await store.clock.now_ms()

        async def call(i: int) -> Any:
            return await store.indexes.take_seat(slot, 6, open_room=f"room{i}", now_ms=now,
                                                 ttl_ms=60_000)

        seats = await asyncio.gather(*(call(i) for i in range(200)))
        assert all(s is not None for s in seats)
        by_room: dict[str, list[int]] = {}
        for seat in seats:
            by_room.setdefault(seat.room_id, []).append(seat.seat)
        assert len(by_room) == 34
        for room, numbers in by_room.items():
            assert sorted(numbers) == list(range(1, len(numbers) + 1)), room
            openers = [s for s in seats if s.room_id == room and s.opened]
            assert len(openers) == 1 and openers[0].seat == 1 and openers[0].room_id == room
        assert sorted(len(n) for n in by_room.values()) == [2] + [6] * 33
        last = next(r for r, n in by_room.items() if len(n) == 2)
        assert await store.indexes.forming_lobbies([slot, slot + "x"]) == {
            slot: (last, now, 2)}

    async def test_forming_lobby_pointer_compare_and_set(self, store: LiveStore) -> None:
        slot, other = "t-" + _rid(), "t-" + _rid()
        now = await store.clock.now_ms()
        assert await store.indexes.forming_lobbies([slot]) == {}
        assert await store.indexes.take_seat(slot, 2) is None  # no pointer, nothing to open
        assert await store.indexes.take_seat(slot, 2, room_id="a") is None
        first = await store.indexes.take_seat(slot, 2, open_room="a", now_ms=now - 5,
                                              ttl_ms=60_000)
        assert first == ("a", now - 5, 1, True)
        assert await store.indexes.take_seat(slot, 2, room_id="b") is None  # not that room
        assert await store.indexes.take_seat(slot, 2, room_id="a") == ("a", now - 5, 2, False)
        assert await store.indexes.take_seat(slot, 2, room_id="a") is None  # full
        assert (await store.indexes.forming_lobbies([slot]))[slot].seats == 2
        # full: the next caller's room replaces it (compare-and-set on the seat count)
        assert await store.indexes.take_seat(slot, 2, open_room="b", now_ms=now,
                                             ttl_ms=60_000) == ("b", now, 1, True)
        assert not await store.indexes.retire_lobby(slot, "a")  # a replaced room: kept
        assert await store.indexes.forming_lobbies([slot]) == {slot: ("b", now, 1)}
        assert await store.indexes.retire_lobby(slot, "b")
        assert await store.indexes.forming_lobbies([slot]) == {}
        assert not await store.indexes.retire_lobby(slot, "b")
        # a retired slot opens again; a pointer vanishes with its lobby's expiry
        assert await store.indexes.take_seat(slot, 2, open_room="c", now_ms=now,
                                             ttl_ms=100) == ("c", now, 1, True)
        await store.indexes.take_seat(other, 2, open_room="d", now_ms=now, ttl_ms=60_000)
        await asyncio.sleep(0.3)
        assert await store.indexes.forming_lobbies([slot, other]) == {other: ("d", now, 1)}
        assert await store.indexes.take_seat(slot, 2, room_id="c") is None


class ServiceClockContract:
    """ServiceClock: Unix ms, moving forward."""

    async def test_clock(self, store: LiveStore) -> None:
        a = await store.clock.now_ms()
        await asyncio.sleep(0.02)
        b = await store.clock.now_ms()
        assert 10 <= b - a < 5_000
        assert a > 1_600_000_000_000

class AtomicityContract:
    """Across parts: one write stores record, answer and events, or nothing; the bundle."""

    async def test_racer_write_checks_the_room_rev_when_given(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {"s": "racing"}, 0)
        rev, events = await store.racers.save_racer(
            rid, "r1", {"v": 1}, 0, answer=("m1", {"ok": 1}), events=[{"type": "progress"}],
            room_rev=1)
        assert rev == 1 and events[0]["seq"] == 1
        await store.rooms.save_room(rid, {"s": "closed"}, 1)  # the room changed: rev 2
        with pytest.raises(VersionConflict):
            await store.racers.save_racer(rid, "r1", {"v": 2}, 1, answer=("m2", {"ok": 2}),
                                          events=[{"type": "progress"}], room_rev=1)
        got = await store.racers.get_racer(rid, "r1")
        assert got is not None and got.data == {"v": 1} and got.rev == 1
        assert await store.racers.get_answer(rid, "r1", "m2") is None
        assert await store.events.last_seq(rid) == 1  # nothing appended
        rev, events = await store.racers.save_racer(
            rid, "r1", {"v": 2}, 1, answer=("m2", {"ok": 2}), events=[{"type": "progress"}],
            room_rev=2)
        assert rev == 2 and events[0]["seq"] == 2
        assert (await store.racers.get_answer(rid, "r1", "m2")) == {"ok": 2}

    async def test_concurrent_cas_one_winner(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {}, 0)
        await store.racers.save_racer(rid, "r", {"n": 0}, 0)

        async def attempt(i: int) -> bool:
            try:
                await store.racers.save_racer(rid, "r", {"n": i}, 1, answer=(f"id{i}", {"i": i}),
                                              events=[{"type": "progress", "i": i}])
            except VersionConflict:
                return False
            return True

        results = await asyncio.gather(*(attempt(i) for i in range(10)))
        assert sum(results) == 1
        assert await store.events.last_seq(rid) == 1

    async def test_a_refused_write_leaves_every_part_as_it_was(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {"v": 1}, 0, [{"type": "created"}])
        await store.racers.save_racer(rid, "r", {"v": 1}, 0, answer=("m1", {"ok": 1}),
                                      events=[{"type": "p"}])

        async def everything() -> tuple[Any, ...]:
            return (await store.rooms.get_room(rid), await store.racers.get_racers(rid),
                    await store.events.events_since(rid, 0), await store.events.last_seq(rid))

        before = await everything()
        with pytest.raises(VersionConflict):  # stale room rev
            await store.rooms.save_room(rid, {"v": 2}, 0, [{"type": "x"}])
        with pytest.raises(VersionConflict):  # stale racer rev
            await store.racers.save_racer(rid, "r", {"v": 2}, 0, answer=("m2", {}),
                                          events=[{"type": "x"}])
        with pytest.raises(VersionConflict):  # the client move id has its answer
            await store.racers.save_racer(rid, "r", {"v": 2}, 1, answer=("m1", {}),
                                          events=[{"type": "x"}])
        with pytest.raises(VersionConflict):  # the room changed since the move was decided
            await store.racers.save_racer(rid, "r", {"v": 2}, 1, answer=("m2", {}),
                                          events=[{"type": "x"}], room_rev=7)
        assert await everything() == before
        assert await store.racers.get_answer(rid, "r", "m1") == {"ok": 1}
        assert await store.racers.get_answer(rid, "r", "m2") is None

    async def test_events_come_back_as_the_write_stored_them(self, store: LiveStore) -> None:
        rid = _rid()
        _, a = await store.rooms.save_room(rid, {}, 0, [{"type": "created", "seq": 99}])
        _, b = await store.racers.save_racer(rid, "r", {}, 0,
                                             events=[{"type": "p", "n": 1}, {"type": "p", "n": 2}])
        c = await store.events.append_events(rid, [{"type": "x"}])
        assert [e["seq"] for e in a + b + c] == [1, 2, 3, 4]  # the store numbers them
        assert await store.events.events_since(rid, 0) == a + b + c
        assert await store.events.last_seq(rid) == 4

    async def test_ping(self, store: LiveStore) -> None:
        await store.ping()


class PendingArchiveContract:
    """PendingArchive: the race's end makes it pending in the same write; claims
    lease it; no expiry applies until it is archived (contract point 8)."""

    async def test_the_ending_write_makes_it_pending_and_keeps_it(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {"code": "PEND01", "state": "racing"}, 0)
        await store.rooms.expire_room(rid, 150)  # the deadline set at the start
        assert rid not in await store.archive.pending()
        await store.rooms.save_room(rid, {"code": "PEND01", "state": "over"}, 1,
                                    [{"type": "race_over"}], archive=True)
        assert rid in await store.archive.pending()
        await store.rooms.expire_room(rid, 50)  # put off while pending
        await asyncio.sleep(0.3)
        got = await store.rooms.get_room(rid)
        assert got is not None and got.data["state"] == "over"
        assert [e["type"] for e in await store.events.events_since(rid, 0)] == ["race_over"]
        await store.archive.archived(rid, 0)
        assert await store.rooms.get_room(rid) is None
        assert rid not in await store.archive.pending()

    async def test_a_refused_ending_write_marks_nothing(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {"code": "PEND02"}, 0)
        with pytest.raises(VersionConflict):
            await store.rooms.save_room(rid, {"code": "PEND02"}, 7, archive=True)
        assert rid not in await store.archive.pending()

    async def test_claims_lease_and_expired_leases_come_back(self, store: LiveStore) -> None:
        rids = [_rid() for _ in range(3)]
        for rid in rids:
            await store.rooms.save_room(rid, {"code": "PEND03"}, 0, archive=True)
        mine: list[str] = []
        while got := [r for r in await store.archive.claim(2, 400) if r in rids]:
            mine += got
        assert sorted(mine) == sorted(rids)  # each claimed once while leased
        assert not [r for r in await store.archive.claim(100, 400) if r in rids]
        await asyncio.sleep(0.6)  # the leases ran out (a process died mid-write)
        again = [r for r in await store.archive.claim(100, 60_000) if r in rids]
        assert sorted(again) == sorted(rids)
        for rid in rids:
            await store.archive.archived(rid, 60_000)
        assert not set(rids) & set(await store.archive.pending())
        assert not [r for r in await store.archive.claim(100, 400) if r in rids]

    async def test_archived_rooms_expire_again(self, store: LiveStore) -> None:
        rid = _rid()
        await store.rooms.save_room(rid, {"code": "PEND04"}, 0, archive=True)
        await store.archive.archived(rid, 100)
        assert await store.rooms.get_room(rid) is not None
        await asyncio.sleep(0.3)
        assert await store.rooms.get_room(rid) is None
        await store.archive.archived("unknown" + rid, 100)  # ignored


CONTRACTS = (RoomRecordsContract, RacerGamesContract, RoomEventLogContract,
             RoomIndexesContract, ServiceClockContract, AtomicityContract,
             PendingArchiveContract)
"""Every contract class a backend must pass."""
