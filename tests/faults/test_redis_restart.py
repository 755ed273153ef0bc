"""Redis away (stopped, restarted with its AOF) and Redis hanging (``CLIENT PAUSE``).

Public reports of this kind: clients of a Redis that restarts or stalls
hang for ever, or fail with unhandled errors, instead of failing fast and
recovering (redis-py's reconnect/timeout reports; a paused Redis is how
``CLIENT PAUSE`` and a long fork or failover look to a client). Here real
``lucie-server`` processes run on a private ``redis-server`` (AOF, fsync
always) that the test stops and restarts on the same port, or pauses.

Promises:

* Redis away: moves are refused with ``store/unavailable`` and a retry hint,
  REST answers 503 ``store/unavailable`` with ``Retry-After`` (the only 5xx),
  ``/readyz`` turns 503 — errors within seconds, never hangs; once Redis is
  back the refused move, resent with its client move id, applies once, and a
  spectator on *another* process sees every later move on the same socket.
* Redis hanging: a move is refused after the 2 s store timeout (not the 5 s
  pause); resent afterwards with the same client move id it applies exactly
  once (the game's version and log say so).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from tests.e2e.wire import Api, open_socket, recv, recv_until
from tests.race.helpers import pick_move
from tests.redis.cluster import Cluster
from tests.redis.racing import Racer, events_of

from .parts import PrivateRedis, play_through_faults

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]


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
            refused_s = time.monotonic() - started
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
            back = time.monotonic()
            async with asyncio.timeout(30):
                while httpx.get(cluster.urls[0] + "/readyz", timeout=5).status_code != 200:
                    await asyncio.sleep(0.1)
                ready_after = time.monotonic() - back
                await ada.send_move(game, cmid)  # the refused move, resent
                game = (await ada.ack(cmid))["game"]
                assert game["version"] == 4
                game = await play_through_faults(ada, game)
                seen: list[dict[str, Any]] = []
                # the same spectator socket, its process resubscribed on its own
                await recv_until(watcher, "event", type_="race_over", seen=seen)
        await ada.close()
        seqs = [e["seq"] for e in events_of(seen)]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        # the spectator on the other process saw every move made after the
        # restart, each once, in order
        later = [e["moves"] for e in events_of(seen)
                 if e["type"] == "progress" and e["racer"] == rid]
        assert later[-(game["version"] - 3):] == list(range(4, game["version"] + 1))
        assert later == sorted(set(later))
        rep = await apis[1].get(f"/rooms/{room['id']}/racers/{rid}/replay")
        assert [m["version"] for m in rep["moves"]] == list(range(1, game["version"] + 1))
        assert ready_after < 10, ready_after
        print(f"fault-figure: Redis away: refused after {refused_s:.3f} s, "
              f"ready {ready_after:.2f} s after Redis came back")
        table = await apis[0].get(f"/rooms/{room['id']}/standings")
        assert table["final"] and table["standings"][0]["moves"] == game["version"]
        assert all(p.poll() is None for p in cluster.procs)
    finally:
        for x in apis:
            await x.aclose()
        cluster.stop()


async def test_redis_hanging_times_out_with_errors_then_recovers(
        private_redis: PrivateRedis) -> None:
    """``CLIENT PAUSE``: Redis accepts connections but answers nothing for 5 s —
    moves are refused after the 2 s socket timeout, not left hanging; the
    same client move id afterwards applies exactly once."""
    cluster = Cluster(1, redis_url=private_redis.url)
    api = Api(cluster.urls[0])
    admin = private_redis.client()
    try:
        room, host = await api.create(deal=43, countdown_s=0, undo=False)
        rid, token = await api.join(room["id"], "Ada")
        ada = Racer(room, rid, token)
        await ada.connect(cluster.urls[0])
        await api.start(room["id"], host)
        await ada.until("event", "started")
        game = await ada.play(await ada.game(), limit=2)
        move = pick_move(room["rules"], game)
        admin.execute_command("CLIENT", "PAUSE", "5000", "ALL")
        started = time.monotonic()
        cmid = await ada.send_move(game)
        async with asyncio.timeout(4.5):
            while (msg := await ada._next())["t"] != "refused":
                pass
        assert msg["d"]["code"] == "store/unavailable"
        refused_s = time.monotonic() - started
        assert 1.5 < refused_s < 4.5  # the timeout, not the pause
        print(f"fault-figure: CLIENT PAUSE 5 s: move refused after {refused_s:.2f} s")
        async with asyncio.timeout(20):
            await asyncio.sleep(max(0.0, 5.5 - (time.monotonic() - started)))
            await ada.send_move(game, cmid)
            game = (await ada.ack(cmid))["game"]
        assert game["version"] == 3
        assert (await ada.game())["version"] == 3  # applied once, not twice
        again = await api.http.post(  # the same id once more, over REST: the first answer
            f"/rooms/{room['id']}/racers/{rid}/moves",
            headers={"Authorization": f"Bearer {token}"},
            json={"move": move, "expected_version": 2, "client_move_id": cmid})
        assert again.status_code == 200 and again.json()["version"] == 3, again.text
        assert (await ada.game())["version"] == 3
        await ada.close()
    finally:
        admin.close()
        await api.aclose()
        cluster.stop()
