"""Real parts the fault tests start and break: a private ``redis-server``,
a racer that rides out store refusals, reads of a process's memory.

Every helper here starts real processes on 127.0.0.1 only and cleans up what
it started (the fixtures are in ``conftest.py``).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import redis as syncredis

from tests.conftest import free_port, run_dir
from tests.redis.racing import Racer

__all__ = ["PrivateRedis", "kill_connections", "play_through_faults", "pubsub_channels",
           "rss_kb"]


class PrivateRedis:
    """A ``redis-server`` of this test alone (AOF on, fsync always, unless
    ``aof=False``), restartable on the same port with its data; ``extra``:
    more ``redis-server`` arguments (``--maxmemory 4mb`` …)."""

    def __init__(self, *extra: str, aof: bool = True) -> None:
        self.port = free_port()
        self.dir = run_dir("redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.args = ["--appendonly", "yes" if aof else "no", "--appendfsync", "always",
                     *extra]
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--dir", str(self.dir), *self.args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        client = self.client()
        try:
            while time.monotonic() < deadline:
                try:
                    if client.ping():
                        return
                except syncredis.RedisError:
                    time.sleep(0.05)
        finally:
            client.close()
        raise RuntimeError("private redis-server did not start")

    def client(self) -> syncredis.Redis:
        """A new synchronous client (close it)."""
        return syncredis.Redis(port=self.port, socket_timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def kill_connections(url: str, name: str) -> int:
    """``CLIENT KILL`` every connection named ``name``; how many there were."""
    admin = syncredis.Redis.from_url(url)
    try:
        killed = 0
        for client in admin.client_list():
            if client.get("name") == name:
                admin.client_kill_filter(_id=client["id"])
                killed += 1
        return killed
    finally:
        admin.close()


def pubsub_channels(url: str, prefix: str) -> list[bytes]:
    """``PUBSUB CHANNELS <prefix>*``: the channels someone is subscribed to."""
    admin = syncredis.Redis.from_url(url)
    try:
        return list(admin.pubsub_channels(f"{prefix}*"))
    finally:
        admin.close()


def rss_kb(pid: int) -> int:
    """The resident set of process ``pid`` (``VmRSS``, kB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


async def play_through_faults(r: Racer, game: dict[str, Any], limit: int | None = None,
                              seen_errors: list[dict[str, Any]] | None = None
                              ) -> dict[str, Any]:
    """Like :meth:`Racer.play`, resending a move refused with ``store/unavailable``."""
    done = 0
    while not game["final"] and (limit is None or done < limit):
        cmid = await r.send_move(game)
        while True:
            msg = await r._next()
            if msg["t"] == "ack" and msg["d"]["client_move_id"] == cmid:
                r.acked[cmid] = msg["d"]
                game = msg["d"]["game"]
                break
            if msg["t"] == "refused":
                assert msg["d"]["code"] == "store/unavailable", msg
                if seen_errors is not None:
                    seen_errors.append(msg["d"])
                await asyncio.sleep(msg["d"]["details"]["retry_after_ms"] / 1000)
                await r.send_move(game, cmid)
        done += 1
    return game
