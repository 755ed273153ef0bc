"""The Redis store's connection writes a command in the caller's task
(``server.store.redis_conn``, issue 23), against the real Redis: no
``asyncio.wait_for`` on the write path, the socket timeout kept for reads,
a write that cannot finish still times out; ``rediss://`` and ``unix://``
URLs get redis-py's classes with the store's handshake and read fixes."""

from __future__ import annotations

import asyncio
import secrets
import signal
import time
import weakref
from typing import Any

import pytest
import redis.asyncio as aioredis
import redis.asyncio.connection as redis_connection
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import StoreUnavailable, open_store
from server.store.redis import RedisStore
from server.store.redis_conn import (
    LeanConnection,
    StoreSSLConnection,
    StoreUnixConnection,
    connection_options,
)
from tests.conftest import freed_once_cancelled
from tests.faults.parts import PrivateRedis

URL = "redis://127.0.0.1:6379/0"
pytestmark = pytest.mark.redis


def test_connection_class_by_scheme() -> None:
    assert connection_options("redis://127.0.0.1:6379/0") == {"connection_class": LeanConnection}
    # TLS and Unix sockets: redis-py's classes, with the store's handshake and read fixes
    assert connection_options("rediss://127.0.0.1:6380/0") == {
        "connection_class": StoreSSLConnection}
    assert connection_options("unix:///run/redis.sock") == {
        "connection_class": StoreUnixConnection}
    assert connection_options("memory://") == {}


async def test_a_store_on_a_unix_socket() -> None:
    """``unix:///path/redis.sock`` (the documented form): taking the store's own
    options out of it dropped its ``//`` (``unix:/path``), which redis-py
    refused — ``lucie-server`` would not start on a Unix socket."""
    server = PrivateRedis(aof=False)
    sock = server.dir / "redis.sock"
    server.stop()
    server.args += ["--unixsocket", str(sock), "--unixsocketperm", "700"]
    server.start()
    try:
        store = open_store(f"unix://{sock}?prefix=u:&retention=5", cluster=False)
        assert isinstance(store, RedisStore)
        try:
            await store.ping()
            await store.rooms.save_room("r1", {"n": 1}, 0, [{"type": "created"}])
            got = await store.rooms.get_room("r1")
            assert got is not None and got.data == {"n": 1}
            assert store.events.event_retention == 5
        finally:
            await store.close()
    finally:
        server.remove()


async def test_wait_longer_than_the_socket_timeout_is_waited_for() -> None:
    """``LUCIE_REDIS_WAIT_TIMEOUT_MS`` above the 2 s socket timeout (the setting
    allows 10 000): a replica that does not answer made the pipeline time out
    at 2 s (``TimeoutError``, the connection dropped) instead of ``WAIT``
    answering after its own timeout (``ReplicasBehind``)."""
    primary = PrivateRedis(aof=False)
    replica = PrivateRedis("--replicaof", "127.0.0.1", str(primary.port), aof=False)
    store = RedisStore.from_url(f"{primary.url}?prefix=w{secrets.token_hex(4)}:",
                                cluster=False, wait_replicas=1, wait_timeout_ms=2500)
    try:
        async with asyncio.timeout(20):
            while True:
                try:
                    await store.ping()  # the replica counted
                    break
                except StoreUnavailable:
                    await asyncio.sleep(0.1)
            await store.rooms.save_room("w", {}, 0)
            assert replica.proc is not None
            replica.proc.send_signal(signal.SIGSTOP)
            try:
                started = time.monotonic()
                with pytest.raises(StoreUnavailable, match="ReplicasBehind"):
                    await store.racers.save_racer("w", "x", {}, 0, answer=("m", {}))
                assert time.monotonic() - started >= 2.4
            finally:
                replica.proc.send_signal(signal.SIGCONT)
    finally:
        await store.close()
        replica.remove()
        primary.remove()


async def test_commands_are_written_without_wait_for(monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = f"test:{secrets.token_hex(6)}:"
    store = RedisStore.from_url(f"{URL}?prefix={prefix}")
    client: aioredis.Redis = store._ctx.redis
    assert client.connection_pool.connection_class is LeanConnection
    try:
        await client.ping()  # connected (and health-checked) the usual way
        calls: list[Any] = []
        real = asyncio.wait_for

        async def counted(fut: Any, timeout: Any) -> Any:
            calls.append(timeout)
            return await real(fut, timeout)

        monkeypatch.setattr(redis_connection.asyncio, "wait_for", counted)
        for i in range(20):
            await client.set(f"{prefix}k{i}", str(i))
        assert [await client.get(f"{prefix}k{i}") for i in range(20)] == [
            str(i).encode() for i in range(20)]
        assert await store._ctx.batch.call("GET", f"{prefix}k3") == b"3"  # the auto-pipeline
        assert calls == []
    finally:
        await client.delete(*[f"{prefix}k{i}" for i in range(20)])
        await store.close()


async def test_a_write_that_cannot_finish_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = LeanConnection(host="127.0.0.1", port=6379, socket_timeout=0.2)
    try:
        await conn.connect()
        await conn.send_command("PING")
        assert await conn.read_response() in (b"PONG", "PONG", True)
        assert conn.socket_timeout == 0.2  # put back: reads keep their timeout

        async def stuck() -> None:  # a peer that stopped reading: drain never returns
            await asyncio.sleep(10)

        assert conn._writer is not None
        monkeypatch.setattr(conn._writer, "drain", stuck)
        with pytest.raises(RedisTimeoutError):
            await asyncio.wait_for(conn.send_command("PING"), 5)
        assert conn.socket_timeout == 0.2
        assert not conn.is_connected  # dropped, as redis-py drops it
    finally:
        await conn.disconnect()


async def test_an_error_reply_leaves_no_cycle(no_collector: None) -> None:
    """redis-py raises an error reply from a local of its read's frame: the
    exception held itself through its traceback until a full collection."""
    conn = LeanConnection(host="127.0.0.1", port=6379, socket_timeout=2)
    try:
        await conn.connect()
        await conn.send_command("NO-SUCH-COMMAND")
        with pytest.raises(ResponseError) as caught:
            await conn.read_response()
        gone = weakref.ref(caught.value)
        del caught
        assert gone() is None
        await conn.send_command("PING")  # the connection still serves
        assert await conn.read_response() in (b"PONG", "PONG", True)
    finally:
        await conn.disconnect()


async def test_a_read_cancelled_midway_leaves_no_cycle(no_collector: None) -> None:
    """A task cancelled while it waits for a reply (a room feed whose last
    socket closed): the read's frame held its ``asyncio.Timeout``, which holds
    the task, which keeps the CancelledError whose traceback holds the frame."""
    conn = LeanConnection(host="127.0.0.1", port=6379, socket_timeout=30)
    try:
        await conn.connect()
        reading = asyncio.Event()

        async def wait_for_a_reply() -> None:
            reading.set()
            await conn.read_response()  # nothing was asked: waits

        assert await freed_once_cancelled(wait_for_a_reply(), reading)
    finally:
        await conn.disconnect()
