"""Per-process fan-out of room events to WebSocket connections.

One :class:`RoomFeed` per room with listeners in this process reads the
room's event log through the authority (:class:`EventSource`:
``RaceAuthority.subscribe`` and ``last_seq``), encodes each
event once, and hands it to every listener without waiting: a listener whose
bounded queue is full is told to go (:meth:`Listener.overflow`), so a slow
client never stalls the others. The feed stops when its last listener leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Protocol, cast

from server.errors import CLOSE_TOO_SLOW, EventsTooOld, StoreUnavailable
from server.runtime.event_seq import EventCursor
from server.runtime.metrics import EVENTS_FANNED_OUT, FEED_EVENTS

from .ws_out import encode
from .ws_out import event as event_out

__all__ = ["EventSource", "Hub", "Item", "Listener"]

Event = dict[str, Any]


class EventSource(Protocol):
    """Where room events come from: the race authority."""

    def subscribe(self, room_id: str, since: int) -> AsyncIterator[Event]:
        """Every event with ``seq > since``, then live ones.

        :raises EventsTooOld, StoreUnavailable:
        """
        ...

    async def last_seq(self, room_id: str) -> int:
        """The room's last event number (0: none yet)."""
        ...

log = logging.getLogger("server.api.hub")

Item = tuple[str, int, str]
"""What a connection's queue holds: ``(kind, seq, text)`` — kind ``event`` (text is
the encoded message), ``msg`` (a direct message, seq 0), ``resync``, ``gone`` or ``close``."""


def _ignore() -> None:
    """The overflow callback of a released :class:`Listener`."""


class Listener:
    """One connection's bounded queue of :data:`Item` values.

    A plain list and one future while waiting, not an :class:`asyncio.Queue`:
    thousands of idle sockets each hold one, so it is kept small.

    ``direct``, when set, is offered each item first while nothing is queued
    and the connection's sender is idle (waiting here, or not started): it
    sends the item at once and returns ``True``, or ``False`` to have it
    queued (the connection's ``_direct``: a move's ack and its room's
    events then cost no task switch).
    """

    __slots__ = ("_items", "_on_overflow", "_start", "_waiter", "closing", "dead", "direct",
                 "size")

    def __init__(self, size: int, on_overflow: Callable[[], None]) -> None:
        self.size = size
        self._items: list[Item] = []
        self._waiter: asyncio.Future[None] | None = None
        self._on_overflow = on_overflow
        self._start: Callable[[], object] | None = None
        self.dead = False
        self.closing: tuple[int, str] | None = None
        self.direct: Callable[[Item], bool] | None = None

    def push(self, item: Item) -> None:
        """Queue ``item`` without waiting; a full queue makes the listener overflow."""
        if self.dead:
            return
        if len(self._items) >= self.size:
            self.overflow()
            return
        if not self._items and self.direct is not None \
                and (self._waiter is not None or self._start is not None) and self.direct(item):
            return
        self._items.append(item)
        self._wake()

    def arm(self, start: Callable[[], object] | None) -> None:
        """Call ``start`` once, with the next item queued (at once if one is):
        a connection starts its sender task only when it has something to
        send, so an idle socket holds none (issue 23)."""
        self._start = start
        if start is not None and self._items:
            self._wake()

    def _wake(self) -> None:
        start = self._start
        if start is not None:
            self._start = None
            start()
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Item:
        """The next item, waiting for one."""
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def pending(self) -> list[Item]:
        """A copy of the queued items (for tests and diagnostics)."""
        return list(self._items)

    def overflow(self) -> None:
        """Drop what is queued and ask the connection to close (too slow)."""
        self.close(CLOSE_TOO_SLOW, "too slow: send queue full")
        self._on_overflow()

    def release(self) -> None:
        """Forget the overflow callback, once the connection is over. It is
        usually a method of the connection that owns this listener: a
        reference cycle that left every closed socket's objects (~200, with
        the protocol's and the transport's) to the full collection (issue 8)."""
        self._on_overflow = _ignore
        self._start = self.direct = None

    def close(self, code: int, reason: str) -> None:
        """Drop what is queued; the connection's next item closes it with ``code``."""
        if self.dead:
            return
        self.dead = True
        self.closing = (code, reason)
        self._items = [("close", code, reason)]
        self._wake()


class RoomFeed:
    """The events of one room for this process's listeners."""

    def __init__(self, source: EventSource, room_id: str, since: int) -> None:
        self.source = source
        self.room_id = room_id
        self.seen = EventCursor(since)
        """The last event fanned out (the store's subscription keeps them in order)."""
        self.listeners: set[Listener] = set()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        while self.listeners:
            try:
                subscription = cast(AsyncGenerator[Event, None],
                                    self.source.subscribe(self.room_id, self.seen.last))
                async with contextlib.aclosing(subscription) as events:
                    async for event in events:
                        self.seen.took(event["seq"])
                        text = encode(event_out(event))  # once, for every listener
                        listeners = list(self.listeners)
                        for listener in listeners:
                            listener.push(("event", event["seq"], text))
                        FEED_EVENTS.inc()
                        EVENTS_FANNED_OUT.inc(len(listeners))
                for listener in list(self.listeners):
                    listener.push(("gone", 0, ""))
                return
            except EventsTooOld:
                self.seen.took(await self.source.last_seq(self.room_id))
                for listener in list(self.listeners):
                    listener.push(("resync", self.seen.last, ""))
            except StoreUnavailable:
                log.warning("room feed %s: store unavailable, retrying", self.room_id)
                await asyncio.sleep(0.5)
            except Exception as exc:  # never let a feed die silently: resync and go on
                log.error("room feed %s failed: %s", self.room_id, type(exc).__name__,
                          exc_info=exc)
                await asyncio.sleep(0.5)
                for listener in list(self.listeners):
                    listener.push(("resync", self.seen.last, ""))


def _let_go(task: asyncio.Task[None]) -> None:
    """Done callback of a feed task: drop the :class:`asyncio.CancelledError`
    a cancelled task keeps (taking it from the task is how asyncio lets it go).
    Its traceback holds the feed's frames, and a frame cancelled mid-read holds
    the read's ``asyncio.Timeout``, which holds the task: a cycle, freed only by
    a full collection (``server.runtime.gcpolicy``: every ten minutes)."""
    if task.cancelled():
        with contextlib.suppress(asyncio.CancelledError):
            task.exception()


class Hub:
    """Room feeds of this process, started on the first listener of a room."""

    def __init__(self, source: EventSource) -> None:
        self.source = source
        self._feeds: dict[str, RoomFeed] = {}

    async def attach(self, room_id: str, listener: Listener) -> None:
        """Deliver every event of the room committed from now on to ``listener``."""
        feed = self._feeds.get(room_id)
        if feed is None or feed.task is None or feed.task.done():
            since = await self.source.last_seq(room_id)
            feed = self._feeds.get(room_id)
            if feed is None or feed.task is None or feed.task.done():
                feed = self._feeds[room_id] = RoomFeed(self.source, room_id, since)
                feed.listeners.add(listener)
                # a fresh context: the feed outlives the socket that started it,
                # whose request id and socket note are not the feed's
                feed.task = asyncio.create_task(feed.run(), name=f"feed:{room_id}",
                                                context=contextvars.Context())
                feed.task.add_done_callback(_let_go)
                return
        feed.listeners.add(listener)

    def detach(self, room_id: str, listener: Listener) -> None:
        """Stop delivering to ``listener``; the feed stops with its last listener."""
        feed = self._feeds.get(room_id)
        if feed is None:
            return
        feed.listeners.discard(listener)
        if not feed.listeners:
            del self._feeds[room_id]
            if feed.task is not None:
                feed.task.cancel()
                # the cancelled task keeps its CancelledError, whose traceback holds
                # the feed: without this, a reference cycle (issue 8)
                feed.task = None

    async def close(self) -> None:
        """Stop every feed."""
        tasks = [f.task for f in self._feeds.values() if f.task is not None]
        self._feeds.clear()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    @property
    def rooms(self) -> int:
        """Rooms with a running feed."""
        return len(self._feeds)
