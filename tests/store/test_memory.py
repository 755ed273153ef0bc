"""The memory twin of every live-store part keeps its contract; plus the memory
store's own cases (closing, the size of what it keeps)."""

from __future__ import annotations

import tracemalloc
from collections.abc import AsyncIterator

import pytest

from server.store import MemoryStore, open_store
from server.store.base import StoreUnavailable

from .contract import (
    RETENTION,
    AtomicityContract,
    PendingArchiveContract,
    RacerGamesContract,
    RoomEventLogContract,
    RoomIndexesContract,
    RoomRecordsContract,
    ServiceClockContract,
)


class MemoryTwin:
    """The ``store`` fixture of the contract classes: a fresh memory store."""

    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = MemoryStore(event_retention=RETENTION)
        yield store
        await store.close()


class TestMemoryRoomRecords(MemoryTwin, RoomRecordsContract):
    pass


class TestMemoryRacerGames(MemoryTwin, RacerGamesContract):
    pass


class TestMemoryEventLog(MemoryTwin, RoomEventLogContract):
    pass


class TestMemoryIndexes(MemoryTwin, RoomIndexesContract):
    pass


class TestMemoryClock(MemoryTwin, ServiceClockContract):
    pass


class TestMemoryAtomicity(MemoryTwin, AtomicityContract):
    pass


class TestMemoryPendingArchive(MemoryTwin, PendingArchiveContract):
    pass


def test_open_store_by_scheme() -> None:
    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store("memory://"), MemoryStore)
    with pytest.raises(ValueError, match="scheme"):
        open_store("ftp://x")


async def test_closed_store_is_unavailable() -> None:
    store = MemoryStore()
    await store.close()
    with pytest.raises(StoreUnavailable):
        await store.ping()


async def test_stored_records_cost_their_size_not_a_serializer_buffer() -> None:
    """orjson 3.12+ returns bytes that keep a 4 KiB buffer: a 50-byte answer
    held ~4.1 KB until the store copied records to their exact size."""
    store = MemoryStore(event_retention=10_000)
    await store.rooms.save_room("r1", {"id": "r1"}, 0)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1000):
            await store.racers.save_racer("r1", f"racer{i}", {"moves": i}, 0,
                                          answer=(f"m{i}", {"version": 1, "applied": True,
                                                            "reach_time_ms": i}),
                                          events=[{"type": "racer/progress", "racer": f"racer{i}"}])
        per_move = (tracemalloc.get_traced_memory()[0] - before) / 1000
    finally:
        tracemalloc.stop()
    # three small records and their dict slots per move: ~0.5 KB (12 KB before)
    assert per_move < 1500, per_move


async def test_events_are_kept_with_seq_first_and_the_rest_in_order() -> None:
    """An event's stored bytes: ``seq`` first, then its other keys in order, a
    ``seq`` it came with dropped (the fast path for events without one)."""
    from server.store.base import encode_record

    store = MemoryStore()
    events = [{"type": "a", "x": 1, "y": [2, "é"]}, {"type": "b", "seq": 99, "z": None}]
    _, stored = await store.racers.save_racer("r", "p", {"log": []}, 0, events=events)
    assert stored == [{"seq": 1, "type": "a", "x": 1, "y": [2, "é"]},
                      {"seq": 2, "type": "b", "z": None}]
    room = store._state.rooms["r"]
    assert list(room.events) == [encode_record(e) for e in stored]
    assert events[1]["seq"] == 99  # the caller's event is not changed
    await store.close()
