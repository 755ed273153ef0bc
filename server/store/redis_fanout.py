"""Per-process fan-out for the Redis store: one pub/sub connection follows the
rooms this process's clients watch.

Every write script publishes the events it appends on the room's channel
(:mod:`server.store.redis_scripts`). A :class:`Follower` keeps one pub/sub
connection per process, subscribed to the channels of the rooms that have
local subscribers, and pushes each message to those subscribers' buffers
(:class:`Subscription`). Pub/sub alone loses messages during a gap, so the
buffers are only the fast path: each subscriber re-reads the room's stream
from its last sequence number whenever it is told to **resync** — when its
channel subscription is (re)confirmed, when it sees a gap in the sequence
numbers, when its buffer overflows, or when the room may have vanished.

One task, the reader, is the only user of the pub/sub connection: it
connects, sends every ``SUBSCRIBE``/``UNSUBSCRIBE`` and ``PING``, and reads.
:meth:`Follower.join` and :meth:`Follower.leave` only note what is wanted and
wake the reader (they cut its read short, or its wait between reconnects).
redis-py's asyncio ``PubSub`` must not be used from several tasks: its
``connect`` takes a new pool connection whenever it has none yet, so commands
sent while the reader was still connecting each opened — and leaked, still
subscribed — a connection of their own (issue 25).

On a Redis Cluster (``sharded=True``) the follower of one node sends
``SSUBSCRIBE``/``SUNSUBSCRIBE`` (sharded pub/sub: a room's events only go
through the node serving its slot) and, on each reconnect, asks ``resolve``
for the client of the node serving its channels now (after a failover: the
promoted replica); :class:`~server.store.redis_shards.ShardedFollower` keeps
one such follower per node. A ``sunsubscribe`` Redis sends on its own (the
slot moved) drops the connection too: the reconnect follows the slot.

Faults: any error on the pub/sub connection (``CLIENT KILL``, Redis
restart, a silent peer caught by the ping watchdog) drops it; the follower
reconnects with capped backoff, resubscribes every channel and so resyncs
every subscriber. Joining while Redis is away fails within ``join_timeout_s``
with :class:`~server.store.base.StoreUnavailable`, never hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from server.errors import StoreUnavailable

from .redis_subscription import Subscription

__all__ = ["Follower", "Subscription"]

log = logging.getLogger("server.store.redis")

_YIELD_EVERY = 32
"""Messages the follower reads in a row before it lets other tasks run."""

AliveCheck = Callable[[list[str]], Awaitable[set[str]]]
"""Given channels, the subset whose rooms still exist."""

Resolve = Callable[[], Awaitable[aioredis.Redis]]
"""The client of the node to follow now (cluster mode)."""


class _ReaderPubSub(PubSub):
    """redis-py's ``PubSub``, except that a failed read or send only drops the
    connection: redis-py would reconnect it (and resubscribe) on its own, inside
    the call that failed; the follower reconnects with a new one instead."""

    async def _reconnect(self, conn: Connection, *_: object, **__: object) -> None:
        # redis-py 6 calls it with the connection only, 7+ with the error,
        # failure count, start time and command name too: ignored here
        await conn.disconnect(nowait=True)


class Follower:
    """The pub/sub follower of one process (module docstring).

    ``client`` is a Redis client used only for pub/sub (it should not retry
    on its own: the follower reconnects and resyncs). ``alive`` reports which
    followed rooms still exist; it is called every ``check_s`` seconds so
    that subscribers of vanished rooms end. ``sharded``: sharded pub/sub
    (Redis 7 cluster); ``resolve``: called before each connect, the client
    to use from then on (module docstring).
    """

    def __init__(self, client: aioredis.Redis, alive: AliveCheck, *, buffer: int = 1000,
                 join_timeout_s: float = 3.0, ping_s: float = 5.0, check_s: float = 2.0,
                 sharded: bool = False, resolve: Resolve | None = None) -> None:
        self._client = client
        self._sharded = sharded
        self._resolve = resolve
        self._moved = False
        self._alive = alive
        self._buffer = buffer
        self._join_timeout = join_timeout_s
        self._ping_s = ping_s
        self._check_s = check_s
        self._subs: dict[str, set[Subscription]] = {}
        self._confirmed: dict[str, asyncio.Event] = {}
        self._sent: set[str] = set()
        self._dirty = True
        self._ps: aioredis.client.PubSub | None = None
        self._task: asyncio.Task[None] | None = None
        self._backoff = 0.05
        self._reading: asyncio.Timeout | None = None
        """The reader's current read, cut short by :meth:`_wake`."""
        self._kick = asyncio.Event()
        """Set by a join of a channel not yet sent: the wait between reconnects ends
        early (still at least 50 ms after the last attempt)."""
        self._closed = False
        self.reconnects = 0
        """How many times the pub/sub connection was re-established."""

    @property
    def channels(self) -> int:
        """Channels followed now."""
        return len(self._subs)

    async def join(self, channel: str) -> Subscription:
        """A new subscription to ``channel``, returned once Redis confirmed the
        channel subscription (so nothing published afterwards is missed).

        :raises StoreUnavailable: not confirmed within ``join_timeout_s``.
        """
        if self._closed:
            raise StoreUnavailable("the Redis store is closed")
        sub = Subscription(self._buffer)
        self._subs.setdefault(channel, set()).add(sub)
        confirmed = self._confirmed.setdefault(channel, asyncio.Event())
        try:
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._run(), name="redis-follower")
            if channel not in self._sent:
                self._kick.set()  # reconnecting: try now
                self._wake()  # the reader subscribes it: never this task (module docstring)
            async with asyncio.timeout(self._join_timeout):
                await confirmed.wait()
        except TimeoutError:
            self.leave(channel, sub)
            raise StoreUnavailable(
                "redis: room feed subscription not confirmed; retry in about a second") from None
        except BaseException:  # cancelled (the room's last listener left): leak nothing
            self.leave(channel, sub)
            raise
        return sub

    def leave(self, channel: str, sub: Subscription) -> None:
        """Drop ``sub``; the channel is unsubscribed when its last subscriber leaves."""
        subs = self._subs.get(channel)
        if subs is None:
            return
        subs.discard(sub)
        if not subs:
            # the channel stays subscribed (and confirmed) until the reader
            # unsubscribes it: a join meanwhile keeps it, with nothing to wait for
            del self._subs[channel]
            self._wake()

    def follows(self, channel: str) -> bool:
        """Whether ``channel`` has a subscriber here."""
        return channel in self._subs

    def is_closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    async def close(self) -> None:
        """Stop following; every subscriber is woken (and should end)."""
        self._closed = True
        for subs in self._subs.values():
            for sub in subs:
                sub.poke()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self._drop()
        with contextlib.suppress(Exception):
            await self._client.aclose()

    # -- the reader ----------------------------------------------------------------

    def _wake(self) -> None:
        """The wanted channels changed: have the reader send the difference now."""
        self._dirty = True
        reading = self._reading
        if reading is not None and not reading.expired():
            # ends the read as its own ``get_message(timeout=...)`` would: redis-py's
            # parsers keep what they read of a reply when cancelled, so no reply is lost
            reading.reschedule(asyncio.get_running_loop().time())

    async def _drop(self) -> None:
        ps, self._ps = self._ps, None
        self._sent.clear()
        self._dirty = True
        for channel in list(self._confirmed):
            if channel in self._subs:
                self._confirmed[channel].clear()
            else:
                del self._confirmed[channel]
        if ps is not None:
            with contextlib.suppress(Exception):
                await ps.aclose()  # type: ignore[no-untyped-call]

    async def _run(self) -> None:
        self._backoff = 0.05
        while not self._closed:
            try:
                await self._follow()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, StoreUnavailable) as exc:
                log.warning("redis follower: %s; reconnecting", type(exc).__name__)
            await self._drop()
            if self._closed:
                return
            self._kick.clear()
            await asyncio.sleep(0.05)  # at least this between attempts, joins or not
            # the rest of the backoff, unless a new join wants the feed now
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._backoff - 0.05):
                    await self._kick.wait()
            self._backoff = min(self._backoff * 2, 1.0)
            self.reconnects += 1

    async def _sync_channels(self, ps: aioredis.client.PubSub) -> None:
        if not self._dirty:
            return
        self._dirty = False
        wanted = set(self._subs)
        new = wanted - self._sent
        if new:
            self._sent |= new
            if self._sharded:  # one slot per command: one channel each
                for channel in sorted(new):
                    await ps.execute_command("SSUBSCRIBE", channel)
            else:
                await ps.subscribe(*sorted(new))
        old = self._sent - wanted
        if old:
            # forgotten before the await: a join meanwhile subscribes anew and
            # waits for that confirmation (Redis answers in order)
            self._sent -= old
            for channel in old:
                self._confirmed.pop(channel, None)
            if self._sharded:
                for channel in sorted(old):
                    await ps.execute_command("SUNSUBSCRIBE", channel)
            else:
                await ps.unsubscribe(*sorted(old))

    async def _read(self, ps: aioredis.client.PubSub) -> dict[str, object] | None:
        """The next message within 0.25 s, or None (also when :meth:`_wake` cut it short)."""
        conn = ps.connection
        if conn is None or not conn.is_connected:
            # dropped by a read or a send cut short: the reader reconnects, not redis-py
            raise RedisConnectionError("redis follower: pub/sub connection lost")
        if self._dirty:
            return None
        try:
            async with asyncio.timeout(None) as reading:
                self._reading = reading
                try:
                    return await ps.get_message(timeout=0.25)
                finally:
                    self._reading = None
        except TimeoutError:
            return None

    async def _follow(self) -> None:
        # only this task ever touches ``ps``: it is made, connected, subscribed and
        # read here, so redis-py takes exactly one connection for it (issue 25)
        if self._resolve is not None:
            self._client = await self._resolve()
        self._moved = False
        ps = self._ps = _ReaderPubSub(self._client.connection_pool)
        await ps.ping()  # connects; an error here means Redis is away
        self._backoff = 0.05  # connected: the next fault retries quickly again
        heard = checked = time.monotonic()
        pinged = False
        run = 0
        while not self._closed:
            await self._sync_channels(ps)
            msg = await self._read(ps)
            now = time.monotonic()
            if msg is None:
                run = 0
            if msg is not None:
                heard, pinged = now, False
                self._dispatch(msg)
                if self._moved:
                    raise RedisConnectionError("redis follower: a followed slot moved")
                run += 1
                if run >= _YIELD_EVERY:
                    # buffered messages are read without suspending: let the
                    # sockets in between, or a backlog stalls the event loop
                    run = 0
                    await asyncio.sleep(0)
            elif now - heard > self._ping_s:
                if pinged and now - heard > 2 * self._ping_s:
                    raise StoreUnavailable("redis follower: no answer to ping")
                if not pinged:
                    pinged = True
                    await ps.ping()
            if now - checked > self._check_s and self._subs:
                checked = now
                await self._check_alive()

    def _dispatch(self, msg: dict[str, object]) -> None:
        kind = msg.get("type")
        channel = msg.get("channel")
        if isinstance(channel, bytes):
            channel = channel.decode()
        if not isinstance(channel, str):
            return  # pong
        subs = self._subs.get(channel, ())
        if kind in ("message", "smessage"):
            data = msg.get("data")
            if isinstance(data, bytes):
                for sub in subs:
                    sub.push(data)
        elif kind == "sunsubscribe" and channel in self._sent:
            self._moved = True  # not asked for: Redis moved the slot elsewhere
        elif kind in ("subscribe", "ssubscribe"):
            event = self._confirmed.get(channel)
            if event is not None:
                event.set()
            for sub in subs:
                sub.poke()

    async def _check_alive(self) -> None:
        channels = list(self._subs)
        try:
            alive = await self._alive(channels)
        except StoreUnavailable:
            return
        for channel in channels:
            if channel not in alive:
                for sub in self._subs.get(channel, ()):
                    sub.poke()
