"""Room fan-out: a slow listener is cut off (close 4000) without stalling the others."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator
from typing import Any

from server.api.hub import Hub, Listener
from server.store.memory import MemoryStore


async def _drain(listener: Listener, n: int) -> list[tuple[str, int, str]]:
    out = []
    async with asyncio.timeout(5):
        while len(out) < n:
            out.append(await listener.get())
    return out


async def test_slow_listener_is_closed_and_fast_one_gets_everything() -> None:
    store = MemoryStore()
    await store.rooms.save_room("r", {}, 0)
    hub = Hub(store.events)
    overflowed: list[str] = []
    fast = Listener(100, lambda: overflowed.append("fast"))
    slow = Listener(4, lambda: overflowed.append("slow"))
    await hub.attach("r", fast)
    await hub.attach("r", slow)
    assert hub.rooms == 1
    await store.events.append_events("r", [{"type": "progress", "i": i} for i in range(10)])
    got = await _drain(fast, 10)
    assert [seq for _, seq, _ in got] == list(range(1, 11))
    assert all(kind == "event" and text.startswith('{"t":"event"') for kind, _, text in got)
    assert overflowed == ["slow"] and slow.dead
    assert slow.pending() == [("close", 4000, "too slow: send queue full")]
    hub.detach("r", slow)
    hub.detach("r", fast)
    assert hub.rooms == 0
    await hub.close()
    await store.close()


async def test_feed_says_gone_when_the_room_expires() -> None:
    store = MemoryStore()
    await store.rooms.save_room("r", {}, 0)
    hub = Hub(store.events)
    listener = Listener(10, lambda: None)
    await hub.attach("r", listener)
    await store.rooms.expire_room("r", 0)
    kind, _, _ = (await _drain(listener, 1))[0]
    assert kind == "gone"
    await hub.close()
    await store.close()



class _WaitingSource:
    """An event source that waits under ``asyncio.timeout``, as redis-py's
    reads do: the waiting frame holds the timeout (a local, as in redis-py's
    ``read_response``), which holds the task."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()

    async def subscribe(self, room_id: str, since: int) -> AsyncIterator[dict[str, Any]]:
        async with asyncio.timeout(60) as deadline:  # noqa: F841 - held, as redis-py holds it
            self.waiting.set()
            await asyncio.sleep(60)
        yield {"seq": since + 1}  # not reached

    async def last_seq(self, room_id: str) -> int:
        return 0


async def test_a_feed_cancelled_midway_is_freed_at_once() -> None:
    """The last listener leaves while the feed waits: the cancelled task kept
    its CancelledError, whose traceback holds the waiting frames, whose
    ``asyncio.Timeout`` holds the task — a cycle, and the feed with it, until
    a full collection (the server runs one every ten minutes:
    ``server.runtime.gcpolicy``)."""
    source = _WaitingSource()
    hub = Hub(source)
    gc.collect()
    gc.disable()
    try:
        listener = Listener(10, lambda: None)
        await hub.attach("r", listener)
        async with asyncio.timeout(5):
            await source.waiting.wait()
        task = hub._feeds["r"].task
        assert task is not None
        feed_gone, task_gone = weakref.ref(hub._feeds["r"]), weakref.ref(task)
        hub.detach("r", listener)
        await asyncio.wait([task], timeout=5)  # does not take the task's exception
        assert task.cancelled()
        del task
        await asyncio.sleep(0)  # its done callbacks run
        assert (feed_gone(), task_gone()) == (None, None)
    finally:
        gc.enable()
        await hub.close()
