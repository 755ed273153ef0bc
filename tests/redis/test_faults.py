"""Redis faults under a running race, and expiry of ended rooms.

* ``CLIENT KILL`` of every server connection mid-race: the processes reconnect,
  subscriptions are restored, the race finishes with every event delivered.
* Redis away (a private ``redis-server`` with AOF, stopped and restarted on
  the same port): moves are refused with ``store/unavailable`` and a retry
  hint, REST answers 503 — errors, never hangs — and the race resumes.
* Ended rooms leave no keys behind after their TTL.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis as syncredis

from tests.conftest import free_port, run_dir
from tests.e2e.wire import Api, open_socket, recv, recv_until

from .cluster import REDIS_URL, Cluster
from .racing import Racer, events_of

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]


def _kill_connections(url: str, name: str) -> int:
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


async def _play_through_faults(r: Racer, game: dict[str, Any], limit: int | None = None,
                               seen_errors: list[dict[str, Any]] | None = None
                               ) -> dict[str, Any]:
    """Like :meth:`Racer.play`, resending a move refused with ``store/unavailable``."""
    done = 0
    while not game["final"] and (limit is None or done < limit):
        cmid = await r.send_move(game)
        while True:
            msg = await r._next()
            if msg["t"] == "ack" and msg["d"]["client_move_id"] == cmid:
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


async def test_client_kill_mid_race_recovers_and_delivers_every_event(trio: Cluster) -> None:
    cluster = trio
    apis = [Api(u) for u in cluster.urls[:2]]
    try:
        room, host = await apis[0].create(deal=99, countdown_s=0, undo=False)
        rid, token = await apis[0].join(room["id"], "Ada")
        ada = Racer(room, rid, token)
        await ada.connect(cluster.urls[0])
        watchers = [await open_socket(u, room["id"]).__aenter__() for u in cluster.urls[:2]]
        for w in watchers:
            await recv(w)
        await apis[1].start(room["id"], host)
        await ada.until("event", "started")
        game = await _play_through_faults(ada, await ada.game(), limit=5)
        name = f"lucie-server:{cluster.prefix}"
        assert _kill_connections(REDIS_URL, name) >= 4  # commands + pub/sub, per process
        game = await _play_through_faults(ada, game, limit=5)
        # again, once the processes have reconnected (they reconnect lazily:
        # wait for their connections to come back rather than guess a delay)
        killed = 0
        async with asyncio.timeout(15):
            while killed < 2:
                killed += _kill_connections(REDIS_URL, name)
                if killed < 2:
                    await asyncio.sleep(0.05)
        async with asyncio.timeout(30):
            game = await _play_through_faults(ada, game)
            logs = []
            for w in watchers:
                seen: list[dict[str, Any]] = []
                await recv_until(w, "event", type_="race_over", seen=seen)
                logs.append(events_of(seen))
                await w.close()
        await ada.close()
        assert logs[0] == logs[1]
        seqs = [e["seq"] for e in logs[0]]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert [e["type"] for e in logs[0]].count("progress") == game["version"]
        for x in apis:
            r = await x.http.get("/rooms/" + room["id"])
            assert r.status_code == 200 and r.json()["state"] == "over"
        assert all(p.poll() is None for p in cluster.procs[:3])
    finally:
        for x in apis:
            await x.aclose()


class PrivateRedis:
    """A ``redis-server`` of this test alone (AOF on, fsync always), restartable
    on the same port with its data."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = run_dir("redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        client = syncredis.Redis(port=self.port)
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

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    yield server
    server.remove()


async def test_redis_away_gives_errors_not_hangs_then_resumes(
        private_redis: PrivateRedis) -> None:
    cluster = Cluster(2, redis_url=private_redis.url)
    apis = [Api(u) for u in cluster.urls]
    try:
        room, host = await apis[0].create(deal=42, countdown_s=0, undo=False)
        rid, token = await apis[0].join(room["id"], "Ada")
        ada = Racer(room, rid, token)
        await ada.connect(cluster.urls[0])
        async with open_socket(cluster.urls[1], room["id"]) as watcher:
            await recv(watcher)
            await apis[1].start(room["id"], host)
            await ada.until("event", "started")
            game = await ada.play(await ada.game(), limit=3)

            private_redis.stop()
            started = time.monotonic()
            cmid = await ada.send_move(game)
            async with asyncio.timeout(15):
                while True:
                    msg = await ada._next()
                    if msg["t"] == "refused":
                        break
            assert msg["d"]["client_move_id"] == cmid
            assert msg["d"]["code"] == "store/unavailable"
            assert msg["d"]["details"]["retry_after_ms"] > 0
            r = await apis[1].http.get(f"/rooms/{room['id']}/racers/{rid}/game",
                                       headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 503 and r.json()["error"]["code"] == "store/unavailable"
            assert int(r.headers["Retry-After"]) >= 1
            ready = httpx.get(cluster.urls[0] + "/readyz", timeout=10)
            assert ready.status_code == 503
            assert time.monotonic() - started < 15  # errors came fast, nothing hung

            private_redis.start()
            async with asyncio.timeout(30):
                while httpx.get(cluster.urls[0] + "/readyz", timeout=5).status_code != 200:
                    await asyncio.sleep(0.1)
                await ada.send_move(game, cmid)  # the refused move, resent
                game = (await ada.ack(cmid))["game"]
                assert game["version"] == 4
                game = await _play_through_faults(ada, game)
                seen: list[dict[str, Any]] = []
                # the same spectator socket, its process resubscribed on its own
                await recv_until(watcher, "event", type_="race_over", seen=seen)
        await ada.close()
        seqs = [e["seq"] for e in events_of(seen)]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        table = await apis[0].get(f"/rooms/{room['id']}/standings")
        assert table["final"] and table["standings"][0]["moves"] == game["version"]
        assert all(p.poll() is None for p in cluster.procs)
    finally:
        for x in apis:
            await x.aclose()
        cluster.stop()


async def test_ended_rooms_leave_no_keys_after_their_ttl() -> None:
    cluster = Cluster(2, LUCIE_ENDED_TTL_S="3")
    a, b = (Api(u) for u in cluster.urls)
    client = syncredis.Redis.from_url(REDIS_URL)

    def room_keys() -> list[bytes]:
        return [k for k in client.scan_iter(match=f"{cluster.prefix}*", count=1000)
                if b"{lb:" not in k]  # leaderboards are meant to stay

    try:
        closed, host2 = await b.create(deal=8)
        await b.join(closed["code"], "Bob")
        over, host = await a.create(deal=7, countdown_s=0)
        racer, token = await a.join(over["id"], "Ada")
        await b.start(over["id"], host)
        auth = {"Authorization": f"Bearer {token}"}
        game = await b.get(f"/rooms/{over['id']}/racers/{racer}/game", token)
        r = await b.http.post(f"/rooms/{over['id']}/racers/{racer}/moves", headers=auth,
                              json={"move": game["legal_moves"][0], "expected_version": 0,
                                    "client_move_id": "m1"})
        assert r.status_code == 200
        r = await a.http.post(f"/rooms/{closed['id']}/close",
                              headers={"Authorization": f"Bearer {host2}"})
        assert r.status_code == 200
        r = await a.http.post(f"/rooms/{over['id']}/racers/{racer}/resign", headers=auth)
        assert r.status_code == 200
        keys = room_keys()
        assert any(over["id"].encode() in k for k in keys), keys  # the race's keys...
        deadline = time.monotonic() + 20
        while room_keys() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert room_keys() == []  # ...all gone after the TTL, with the code and index
        r = await a.http.get(f"/rooms/{over['id']}")
        assert r.status_code == 404 and json.loads(r.text)["error"]["code"] == "room/not_found"
    finally:
        client.close()
        await a.aclose()
        await b.aclose()
        cluster.stop()


async def test_redis_hanging_times_out_with_errors_then_recovers(
        private_redis: PrivateRedis) -> None:
    """``CLIENT PAUSE``: Redis accepts connections but answers nothing for 5 s —
    moves are refused after the 2 s socket timeout, not left hanging."""
    cluster = Cluster(1, redis_url=private_redis.url)
    api = Api(cluster.urls[0])
    admin = syncredis.Redis(port=private_redis.port)
    try:
        room, host = await api.create(deal=43, countdown_s=0, undo=False)
        rid, token = await api.join(room["id"], "Ada")
        ada = Racer(room, rid, token)
        await ada.connect(cluster.urls[0])
        await api.start(room["id"], host)
        await ada.until("event", "started")
        game = await ada.play(await ada.game(), limit=2)
        admin.execute_command("CLIENT", "PAUSE", "5000", "ALL")
        started = time.monotonic()
        cmid = await ada.send_move(game)
        async with asyncio.timeout(4.5):
            while (msg := await ada._next())["t"] != "refused":
                pass
        assert msg["d"]["code"] == "store/unavailable"
        assert 1.5 < time.monotonic() - started < 4.5  # the timeout, not the pause
        async with asyncio.timeout(20):
            await asyncio.sleep(max(0.0, 5.5 - (time.monotonic() - started)))
            await ada.send_move(game, cmid)
            game = (await ada.ack(cmid))["game"]
        assert game["version"] == 3
        await ada.close()
    finally:
        admin.close()
        await api.aclose()
        cluster.stop()
