"""Room fan-out: a slow listener is cut off (close 4000) without stalling the others."""

from __future__ import annotations

import asyncio

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
