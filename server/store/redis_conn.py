"""The Redis store's TCP connection: a command is written at once, without a
task per write.

redis-py bounds each write with ``asyncio.wait_for(…, socket_timeout)``. On
Python 3.11 ``wait_for`` runs the write in a task of its own: every command
(every auto-pipeline of :mod:`server.store.redis_batch`, every pub/sub
``PING``) cost a task, a timer and three turns of the event loop before its
reply could even be read — under load a turn lasts milliseconds, and the
profile showed the wrapper task beside the write itself (issue 23,
docs/capacity.md "Latency: where an ack's time goes"). :class:`LeanConnection`
writes in the caller's task, still bounded by the same timeout
(``asyncio.timeout``: no task); connecting and the health check (a ``PING``
every ``health_check_interval``) keep redis-py's own path.

A read that ends in an exception (an error reply, a timeout, a cancellation
mid-read) clears the frames it leaves behind: redis-py's ``read_response``
frame holds the exception it raises (an error reply is raised from a local)
and the read's ``asyncio.Timeout``, which holds the reading task — a cycle
through the task, its coroutine and everything they hold, freed only by a
full collection, which the server runs every ten minutes
(``server.runtime.gcpolicy``): a room feed cancelled mid-read kept its room's
listeners and sockets in memory until then.

The handshake is a connection's health check: redis-py before 6 checked
health inside its own handshake (its ``CLIENT SETNAME`` sent a ``PING``
first), and a Redis that refuses the connection there (``NOAUTH``: a
password missing from the URL) made that ``PING`` fail, reconnect and
handshake again without end — the readiness check hung and grew instead of
failing. These two fixes hold for every scheme: :func:`connection_options`
gives ``rediss://`` and ``unix://`` URLs redis-py's classes with them.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Iterable
from typing import Any

from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["LeanConnection", "StoreSSLConnection", "StoreUnixConnection",
           "connection_options"]


class _StoreConnection(AbstractConnection):
    """What every connection of the store adds to redis-py's (module docstring):
    no health check inside the handshake, no cycle left by a failed read."""

    async def on_connect(self) -> None:
        if self.health_check_interval:  # the handshake itself shows the connection works
            self.next_health_check = (asyncio.get_running_loop().time()
                                      + self.health_check_interval)
        await super().on_connect()

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        """redis-py's read; an exception leaves no cycle behind (module docstring)."""
        try:
            return await super().read_response(*args, **kwargs)
        except BaseException as exc:
            traceback.clear_frames(exc.__traceback__)  # the frames below this one
            raise


class LeanConnection(_StoreConnection, Connection):
    """redis-py's asyncio TCP connection; a write needs no task (module docstring)."""

    async def send_packed_command(self, command: bytes | str | Iterable[bytes],
                                  check_health: bool = True) -> None:
        timeout = self.socket_timeout
        if not timeout or not self.is_connected or (
                check_health and self.health_check_interval
                and asyncio.get_running_loop().time() > self.next_health_check):
            await super().send_packed_command(command, check_health)
            return
        # redis-py writes directly when it has no socket timeout; the timeout
        # is put back before anything else can use the connection
        self.socket_timeout = None
        try:
            async with asyncio.timeout(timeout):
                await super().send_packed_command(command, check_health=False)
        except TimeoutError:  # redis-py has dropped the connection (a write cut short)
            raise RedisTimeoutError("Timeout writing to socket") from None
        finally:
            self.socket_timeout = timeout


class StoreSSLConnection(_StoreConnection, SSLConnection):
    """redis-py's TLS connection (``rediss://``) with the store's two fixes."""


class StoreUnixConnection(_StoreConnection, UnixDomainSocketConnection):
    """redis-py's Unix socket connection (``unix://``) with the store's two fixes."""


_BY_SCHEME: dict[str, type[AbstractConnection]] = {
    "redis": LeanConnection, "rediss": StoreSSLConnection, "unix": StoreUnixConnection}


def connection_options(url: str) -> dict[str, Any]:
    """``connection_class`` for the URL's scheme: :class:`LeanConnection` for
    ``redis://``, :class:`StoreSSLConnection` for ``rediss://``,
    :class:`StoreUnixConnection` for ``unix://``; nothing for another."""
    found = _BY_SCHEME.get(url.partition("://")[0].lower())
    return {"connection_class": found} if found is not None else {}
