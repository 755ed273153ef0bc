"""The shared store: rooms, racers and room events in Redis (``redis://…``).

Keeps the :mod:`server.store.base` contract for any number of processes
sharing one Redis. Key layout and the write scripts are in
:mod:`server.store.redis_scripts`: every key of a room carries the hash tag
``{room:<id>}``, and each compare-and-set write (record + answer + events +
publish) is **one** Lua script, so one round trip and all or nothing. The
room's events go to a Redis Stream with ids ``<seq>-0`` (so the stream id is
the sequence number), trimmed to ``event_retention`` entries; live events
reach other processes through :mod:`server.store.redis_fanout`.

Clock: :meth:`RedisStore.now_ms` is Redis ``TIME``, calibrated: the store
reads ``TIME`` at most every ``clock_sync_s`` seconds and adds the local
monotonic time elapsed since, so every process reads the same clock (to
within half a round trip) without a round trip per call.

URL: ``redis://[:password@]host:port/db?prefix=lucie:&retention=1000&batch=512``
plus any redis-py URL option (``socket_timeout`` …). ``prefix`` (default:
the ``LUCIE_REDIS_PREFIX`` environment variable, else ``lucie:``) starts
every key, so several deployments or test runs can share one Redis;
``batch`` caps the commands of one auto-pipeline
(:mod:`server.store.redis_batch`; 1 turns batching off).

Faults: every Redis error or timeout (default 2 s) becomes
:class:`~server.store.base.StoreUnavailable`; the connection pool reconnects
on the next call.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError

from server.runtime.redis_url import int_option, own_options, split_url

from . import redis_scripts as lua
from .base import (
    Event,
    EventsTooOld,
    Record,
    Store,
    StoreUnavailable,
    VersionConflict,
    Versioned,
    decode_record,
    encode_record,
)
from .redis_batch import Batcher
from .redis_fanout import Follower

__all__ = ["RedisStore"]

_CODE_TTL_MS = 24 * 3_600_000
"""A claimed short code vanishes after this unless its room's expiry is set."""

_CLEAR_TIMER = r"""
-- KEYS[1] timers zset; ARGV[1] room id, ARGV[2] the deadline it must still have
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


@contextlib.contextmanager
def _unavailable() -> Iterator[None]:
    """Turn any Redis failure into :class:`StoreUnavailable` (with a retry hint)."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(
            f"redis: {type(exc).__name__}; retry in about a second") from None


def _split(raw: bytes) -> tuple[int, bytes]:
    rev, _, data = raw.partition(b"\n")
    return int(rev), data


class RedisStore(Store):
    """:class:`~server.store.base.Store` on Redis (module docstring).

    ``client`` runs commands; ``pubsub_client`` (same server) is used only
    by the per-process follower. Prefer :meth:`from_url`.
    """

    def __init__(self, client: aioredis.Redis, pubsub_client: aioredis.Redis, *,
                 prefix: str = "lucie:", event_retention: int = 1000,
                 clock_sync_s: float = 1.0, batch: int = 512) -> None:
        self.event_retention = max(1, event_retention)
        self.prefix = prefix
        self._redis = client
        self._clock_sync_s = clock_sync_s
        self._offset_ms: float | None = None
        self._synced = 0.0
        self._last_ms = 0
        self._sync_task: asyncio.Task[None] | None = None
        self._save_room = client.register_script(lua.SAVE_ROOM)
        self._save_racer = client.register_script(lua.SAVE_RACER)
        self._append = client.register_script(lua.APPEND)
        self._expire = client.register_script(lua.EXPIRE_ROOM)
        self._claim = client.register_script(lua.CLAIM_CODE)
        self._expire_code = client.register_script(lua.EXPIRE_CODE)
        self._clear_timer = client.register_script(_CLEAR_TIMER)
        self._batch = Batcher(client, max_batch=batch)
        self.follower = Follower(pubsub_client, self._alive_channels,
                                 buffer=max(64, 2 * self.event_retention))

    @classmethod
    def from_url(cls, url: str, *, prefix: str | None = None,
                 event_retention: int | None = None,
                 client_name: str | None = None) -> RedisStore:
        """A store for ``url`` (module docstring for the query options). Its
        connections are named ``client_name`` (default ``lucie-server:<prefix>``,
        shown by ``CLIENT LIST``).

        :raises ValueError: a malformed ``retention``.
        """
        bare, url_prefix, url_retention = split_url(url)
        batch = int_option(own_options(url)[1], "batch", 512)
        prefix = url_prefix if prefix is None else prefix
        event_retention = url_retention if event_retention is None else event_retention
        common: dict[str, Any] = {"socket_timeout": 2.0, "socket_connect_timeout": 2.0,
                                  "health_check_interval": 10,
                                  "client_name": client_name or f"lucie-server:{prefix}"}
        client = aioredis.Redis.from_url(
            bare, max_connections=256,
            # a dropped connection is retried (reconnect); a timeout is not: the
            # write may have run, and the caller gets StoreUnavailable at once
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 2,
                        supported_errors=(RedisConnectionError,)),
            **common)
        pubsub = aioredis.Redis.from_url(bare, retry=Retry(NoBackoff(), 0), **common)
        return cls(client, pubsub, prefix=prefix, event_retention=event_retention, batch=batch)

    async def _eval(self, script: AsyncScript, keys: list[str],
                    args: Sequence[bytes | str | int]) -> Any:
        """Run ``script`` through the batcher (EVALSHA; loaded on first NOSCRIPT)."""
        try:
            return await self._batch.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self._redis.script_load(script.script)
            return await self._batch.call("EVALSHA", script.sha, len(keys), *keys, *args)

    # -- keys ----------------------------------------------------------------

    def _hash(self, room_id: str) -> str:
        return f"{self.prefix}{{room:{room_id}}}"

    def _keys(self, room_id: str) -> tuple[str, str, str]:
        """Hash, answers, events."""
        h = self._hash(room_id)
        return h, h + ":a", h + ":e"

    def _channel(self, room_id: str) -> str:
        return self._hash(room_id) + ":ch"

    def _code_key(self, code: str) -> str:
        return f"{self.prefix}{{code:{code}}}"

    @property
    def _index(self) -> str:
        return f"{self.prefix}rooms"

    @property
    def _lobby(self) -> str:
        """Sorted set: room id → until when the lobby lists it (Unix ms)."""
        return f"{self.prefix}lobby"

    @property
    def _timers(self) -> str:
        """Sorted set: room id → its next timer deadline (Unix ms)."""
        return f"{self.prefix}timers"

    # -- clock ---------------------------------------------------------------

    async def now_ms(self) -> int:
        mono = time.monotonic() * 1000
        if self._offset_ms is None:
            await self._sync_clock()
            mono = time.monotonic() * 1000
        elif mono - self._synced > self._clock_sync_s * 1000 and (
                self._sync_task is None or self._sync_task.done()):
            # re-calibrate in the background; meanwhile the last offset serves
            self._sync_task = asyncio.create_task(self._resync_clock(), name="redis-clock")
        assert self._offset_ms is not None
        now = max(int(mono + self._offset_ms), self._last_ms)
        self._last_ms = now
        return now

    async def _resync_clock(self) -> None:
        self._synced = time.monotonic() * 1000  # one attempt per period, even failing
        with contextlib.suppress(StoreUnavailable):
            await self._sync_clock()

    async def _sync_clock(self) -> None:
        before = time.monotonic() * 1000
        with _unavailable():
            sec, usec = await self._redis.time()
        after = time.monotonic() * 1000
        self._offset_ms = sec * 1000 + usec / 1000 - (before + after) / 2
        self._synced = after

    # -- rooms ---------------------------------------------------------------

    async def claim_code(self, code: str, room_id: str) -> bool:
        with _unavailable():
            won = await self._claim(keys=[self._code_key(code)], args=[room_id, _CODE_TTL_MS])
            if won:
                await self._redis.hset(self._hash(room_id), "code", code)  # type: ignore[misc]
        return bool(won)

    async def find_room_by_code(self, code: str) -> str | None:
        with _unavailable():
            raw = await self._redis.get(self._code_key(code))
        return None if raw is None else raw.decode()

    async def get_room(self, room_id: str) -> Versioned | None:
        with _unavailable():
            raw = await self._batch.call("HGET", self._hash(room_id), "room")
        if raw is None:
            return None
        rev, data = _split(raw)
        return Versioned(decode_record(data), rev)

    @staticmethod
    def _encode_events(events: Sequence[Event]) -> list[bytes]:
        return [encode_record({k: v for k, v in e.items() if k != "seq"}) for e in events]

    @staticmethod
    def _stored(events: Sequence[Event], first: int) -> list[Event]:
        return [{"seq": first + i, **{k: v for k, v in e.items() if k != "seq"}}
                for i, e in enumerate(events)]

    async def save_room(
        self, room_id: str, data: Record, expected_rev: int, events: Sequence[Event] = ()
    ) -> tuple[int, list[Event]]:
        h, _, e = self._keys(room_id)
        args: list[bytes | str | int] = [
            expected_rev, encode_record(data), self.event_retention, self._channel(room_id),
            *self._encode_events(events)]
        with _unavailable():
            rev, first = await self._eval(self._save_room, [h, e], args)
        if rev < 0:
            raise VersionConflict(f"room {room_id}: rev {first}, expected {expected_rev}")
        if expected_rev == 0:
            with _unavailable():
                await self._redis.zadd(self._index, {room_id: "+inf"}, nx=True)
        return rev, self._stored(events, first)

    async def _live_members(self, key: str, *, latest_first: bool = False) -> list[str]:
        """Members of the sorted set ``key`` whose score (a deadline, Unix ms)
        has not passed; the passed ones are dropped."""
        now = await self.now_ms()
        with _unavailable():
            pipe = self._redis.pipeline(transaction=False)
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zrange(key, 0, -1, desc=latest_first)
            _, ids = await pipe.execute()
        return [i.decode() for i in ids]

    async def room_ids(self) -> list[str]:
        return await self._live_members(self._index)

    async def add_to_lobby(self, room_id: str, until_ms: int) -> None:
        with _unavailable():
            await self._redis.zadd(self._lobby, {room_id: until_ms})

    async def lobby_room_ids(self) -> list[str]:
        return await self._live_members(self._lobby, latest_first=True)

    async def remove_from_lobby(self, room_ids: Sequence[str]) -> None:
        if room_ids:
            with _unavailable():
                await self._redis.zrem(self._lobby, *room_ids)

    async def expire_room(self, room_id: str, after_ms: int) -> None:
        with _unavailable():
            found = await self._expire(keys=list(self._keys(room_id)), args=[after_ms])
            if not found[0]:
                return
            code: bytes = found[1]
            deadline = await self.now_ms() + after_ms
            pipe = self._redis.pipeline(transaction=False)
            if after_ms <= 0:
                pipe.zrem(self._index, room_id)
            else:
                pipe.zadd(self._index, {room_id: deadline}, xx=True)
            if code:
                await self._expire_code(keys=[self._code_key(code.decode())],
                                        args=[room_id, after_ms], client=pipe)
            await pipe.execute()

    # -- room timers -----------------------------------------------------------

    async def set_timer(self, room_id: str, at_ms: int) -> None:
        with _unavailable():
            await self._redis.zadd(self._timers, {room_id: at_ms})

    async def clear_timer(self, room_id: str, at_ms: int | None = None) -> None:
        with _unavailable():
            if at_ms is None:
                await self._redis.zrem(self._timers, room_id)
            else:
                await self._clear_timer(keys=[self._timers], args=[room_id, at_ms])

    async def due_timers(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        with _unavailable():
            pipe = self._redis.pipeline(transaction=False)
            # the sweep calls this every tick: also drop expired rooms from the
            # room index (as room_ids does) and the lobby, so a room leaves no key
            now = await self.now_ms()
            pipe.zremrangebyscore(self._index, "-inf", now)
            pipe.zremrangebyscore(self._lobby, "-inf", now)
            pipe.zrangebyscore(self._timers, "-inf", now_ms, start=0, num=limit,
                               withscores=True)
            _, _, rows = await pipe.execute()
        return [(rid.decode(), int(at)) for rid, at in rows]

    # -- racers --------------------------------------------------------------

    async def get_racer(self, room_id: str, racer_id: str) -> Versioned | None:
        with _unavailable():
            raw = await self._batch.call("HGET", self._hash(room_id), "r:" + racer_id)
        if raw is None:
            return None
        rev, data = _split(raw)
        return Versioned(decode_record(data), rev)

    async def get_racers(self, room_id: str) -> dict[str, Versioned]:
        with _unavailable():
            fields = await self._batch.call("HGETALL", self._hash(room_id))
        out: dict[str, Versioned] = {}
        for name, raw in fields.items():
            if name.startswith(b"r:"):
                rev, data = _split(raw)
                out[name[2:].decode()] = Versioned(decode_record(data), rev)
        return out

    async def save_racer(
        self,
        room_id: str,
        racer_id: str,
        data: Record,
        expected_rev: int,
        *,
        answer: tuple[str, Record] | None = None,
        events: Sequence[Event] = (),
        room_rev: int | None = None,
    ) -> tuple[int, list[Event]]:
        h, a, e = self._keys(room_id)
        field, body = ("", b"") if answer is None else (
            f"{racer_id}\n{answer[0]}", encode_record(answer[1]))
        args: list[bytes | str | int] = [
            "r:" + racer_id, expected_rev, encode_record(data), field, body,
            self.event_retention, self._channel(room_id),
            "" if room_rev is None else room_rev, *self._encode_events(events)]
        with _unavailable():
            rev, first = await self._eval(self._save_racer, [h, a, e], args)
        if rev == -1:
            raise VersionConflict(f"racer {racer_id}: rev {first}, expected {expected_rev}")
        if rev == -2:
            raise VersionConflict(f"racer {racer_id}: client move id {field!r} answered")
        if rev == -3:
            raise VersionConflict(f"room {room_id}: rev {first}, expected {room_rev}")
        return rev, self._stored(events, first)

    async def get_move_state(
        self, room_id: str, racer_id: str, client_move_id: str
    ) -> tuple[Versioned | None, Record | None, Versioned | None]:
        """See :meth:`Store.get_move_state`: one pipeline (HMGET + HGET), one round trip."""
        h, a, _ = self._keys(room_id)
        with _unavailable():
            both = self._batch.call("HMGET", h, "room", "r:" + racer_id)
            one = self._batch.call("HGET", a, f"{racer_id}\n{client_move_id}")
            got = await asyncio.gather(both, one, return_exceptions=True)
            for item in got:
                if isinstance(item, BaseException):
                    raise item
            (room_raw, racer_raw), answer = cast(tuple[list[bytes | None], bytes | None],
                                                 tuple(got))
        room = racer = None
        if room_raw is not None:
            rev, data = _split(room_raw)
            room = Versioned(decode_record(data), rev)
        if racer_raw is not None:
            rev, data = _split(racer_raw)
            racer = Versioned(decode_record(data), rev)
        return room, None if answer is None else decode_record(answer), racer

    async def get_answer(self, room_id: str, racer_id: str, client_move_id: str) -> Record | None:
        with _unavailable():
            raw = await self._batch.call("HGET", self._keys(room_id)[1],
                                         f"{racer_id}\n{client_move_id}")
        return None if raw is None else decode_record(raw)

    # -- events --------------------------------------------------------------

    async def append_events(self, room_id: str, events: Sequence[Event]) -> list[Event]:
        if not events:
            return []
        h, _, e = self._keys(room_id)
        with _unavailable():
            _, first = await self._eval(self._append, [h, e], [
                self.event_retention, self._channel(room_id), *self._encode_events(events)])
        return self._stored(events, first)

    async def last_seq(self, room_id: str) -> int:
        with _unavailable():
            raw = await self._batch.call("HGET", self._hash(room_id), "seq")
        return int(raw or 0)

    async def _read_since(self, room_id: str, since: int) -> tuple[bool, list[Event]]:
        """Whether the room exists, and its retained events after ``since``.

        :raises EventsTooOld:
        """
        h, _, e = self._keys(room_id)
        with _unavailable():
            pipe = self._redis.pipeline(transaction=False)
            pipe.hget(h, "seq")
            pipe.xrange(e, f"{since + 1}-0", "+")
            last_raw, entries = await pipe.execute()
        if last_raw is None:
            return False, []
        last = int(last_raw)
        if since >= last:
            return True, []
        events = [decode_record(fields[b"e"]) for _, fields in entries]
        if not events or events[0]["seq"] > since + 1:
            oldest = events[0]["seq"] if events else last + 1
            raise EventsTooOld(f"events after {since} are gone (oldest kept: {oldest})")
        return True, events

    async def events_since(self, room_id: str, since: int) -> list[Event]:
        return (await self._read_since(room_id, since))[1]

    async def subscribe(self, room_id: str, since: int) -> AsyncIterator[Event]:
        channel = self._channel(room_id)
        sub = await self.follower.join(channel)
        pos = since
        try:
            while not self.follower.is_closed():
                if sub.resync:
                    sub.resync = False
                    alive, events = await self._read_since(room_id, pos)
                    if not alive and await self._gone(room_id):
                        return
                    for event in events:
                        pos = event["seq"]
                        yield event
                while sub.queue and not sub.resync:
                    for line in sub.queue.popleft().split(b"\n"):
                        event = decode_record(line)
                        if event["seq"] <= pos:
                            continue
                        if event["seq"] > pos + 1:
                            sub.resync = True  # a gap: read it from the stream
                            break
                        pos = event["seq"]
                        yield event
                await sub.wait()
        finally:
            self.follower.leave(channel, sub)

    async def _gone(self, room_id: str) -> bool:
        with _unavailable():
            return not await self._redis.exists(self._hash(room_id))

    async def _alive_channels(self, channels: list[str]) -> set[str]:
        with _unavailable():
            pipe = self._redis.pipeline(transaction=False)
            for channel in channels:
                pipe.exists(channel.removesuffix(":ch"))
            found = await pipe.execute()
        return {c for c, n in zip(channels, found, strict=True) if n}

    # -- life cycle ----------------------------------------------------------

    async def ping(self) -> None:
        with _unavailable():
            await self._redis.ping()

    async def close(self) -> None:
        if self._sync_task is not None:
            self._sync_task.cancel()
            await asyncio.gather(self._sync_task, return_exceptions=True)
        await self.follower.close()
        await self._batch.aclose()
        with contextlib.suppress(Exception):
            await self._redis.aclose()
