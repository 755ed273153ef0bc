"""Redis out of memory (``maxmemory`` reached, ``noeviction``).

Public reports of this kind: applications on a full Redis that crash or
answer 500 on ``OOM command not allowed when used memory > 'maxmemory'``,
or half-apply a multi-key write when only some of its commands are refused.
Here one real ``lucie-server`` runs on a private ``redis-server`` with
``--maxmemory 4mb --maxmemory-policy noeviction``; the test fills it with
junk keys until a write is refused.

Promise: while Redis refuses writes, moves (WebSocket and REST) and room
creation are refused with ``store/unavailable`` (WebSocket ``refused``, HTTP
503 with ``Retry-After``: the only 5xx), reads — the room, the standings,
the racer's own game — go on answering 200, and no move is half-applied:
once memory is freed the same client move id applies exactly once and the
racer's version, its log and the room's standings agree.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
import redis as syncredis

from tests.e2e.wire import Api
from tests.race.helpers import pick_move
from tests.redis.cluster import Cluster
from tests.redis.racing import Racer

from .parts import PrivateRedis

pytestmark = [pytest.mark.redis, pytest.mark.timeout(60)]

JUNK = b"x" * 32_768


@pytest.fixture
def small_redis() -> Iterator[PrivateRedis]:
    server = PrivateRedis("--maxmemory", "4mb", "--maxmemory-policy", "noeviction", aof=False)
    yield server
    server.remove()


def _fill(client: syncredis.Redis) -> int:
    """Write junk keys until Redis refuses a write (OOM); how many it took.

    Right at the limit, used memory moves with the connections' buffers (the
    refused write's own buffer is freed), so a write may still slip through:
    the limit is then set 256 KB below what is used, for a Redis that stays
    full.
    """
    for n in range(10_000):
        try:
            client.set(f"junk:{n}", JUNK)
        except syncredis.exceptions.OutOfMemoryError:
            used = int(client.info("memory")["used_memory"])
            client.config_set("maxmemory", str(used - 262_144))
            return n
    raise AssertionError("Redis never ran out of memory")


async def test_redis_out_of_memory_refuses_writes_serves_reads(
        small_redis: PrivateRedis) -> None:
    cluster = Cluster(1, redis_url=small_redis.url)
    url = cluster.urls[0]
    api = Api(url)
    admin = small_redis.client()
    try:
        room, host = await api.create(deal=44, countdown_s=0, undo=False)
        rid, token = await api.join(room["id"], "Ada")
        auth = {"Authorization": f"Bearer {token}"}
        ada = Racer(room, rid, token)
        await ada.connect(url)
        await api.start(room["id"], host)
        await ada.until("event", "started")
        game = await ada.play(await ada.game(), limit=3)

        waiting, _ = await api.create(deal=46)
        assert _fill(admin) > 0
        # a move over the socket: refused, with a retry hint
        cmid = await ada.send_move(game)
        async with asyncio.timeout(10):
            while (msg := await ada._next())["t"] != "refused":
                assert msg["t"] != "ack", msg
        assert msg["d"]["client_move_id"] == cmid
        assert msg["d"]["code"] == "store/unavailable", msg
        assert msg["d"]["details"]["retry_after_ms"] > 0
        print(f"fault-figure: OOM ws refusal: {msg['d']}")
        # the same move over REST, and a new room: 503 store/unavailable
        move = pick_move(room["rules"], game)
        body = {"move": move, "expected_version": 3, "client_move_id": cmid}
        r = await api.http.post(f"/rooms/{room['id']}/racers/{rid}/moves", headers=auth,
                                json=body)
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "store/unavailable"
        assert int(r.headers["Retry-After"]) >= 1
        print(f"fault-figure: OOM REST move: {r.status_code} {r.text}")
        r = await api.http.post("/rooms", json={"deal": 45})
        assert r.status_code == 503 and r.json()["error"]["code"] == "store/unavailable", r.text
        r = await api.http.post(f"/rooms/{waiting['id']}/racers", json={"name": "Late"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "store/unavailable", r.text
        # reads go on
        started = time.monotonic()
        assert (await api.get(f"/rooms/{room['id']}"))["state"] == "racing"
        assert (await api.get(f"/rooms/{waiting['id']}"))["racers"] == []
        table = await api.get(f"/rooms/{room['id']}/standings")
        assert table["standings"][0]["moves"] == 3
        assert (await api.get(f"/rooms/{room['id']}/racers/{rid}/game", token))["version"] == 3
        assert time.monotonic() - started < 2  # reads are not waiting on a timeout
        # /readyz only PINGs, which a full Redis answers: it stays 200
        assert (await api.http.get(url + "/readyz")).status_code == 200

        # memory freed: the same client move id applies once
        admin.delete(*[k for k in admin.scan_iter(match="junk:*", count=1000)])
        freed = time.monotonic()
        await ada.send_move(game, cmid)
        ack = await ada.ack(cmid)
        recovered_s = time.monotonic() - freed
        assert ack["version"] == 4
        r = await api.http.post(f"/rooms/{room['id']}/racers/{rid}/moves", headers=auth,
                                json=body)  # again, over REST: the first answer
        assert r.status_code == 200 and r.json()["version"] == 4, r.text
        game = await ada.play(ack["game"], limit=2)
        assert game["version"] == 6
        await ada.close()
        assert (await api.get(f"/rooms/{room['id']}/racers/{rid}/game", token))["version"] == 6
        table = await api.get(f"/rooms/{room['id']}/standings")
        assert table["standings"][0]["moves"] == 6
        r = await api.http.post(f"/rooms/{room['id']}/racers/{rid}/resign", headers=auth)
        assert r.status_code == 200, r.text
        rep = await api.get(f"/rooms/{room['id']}/racers/{rid}/replay")
        assert [m["version"] for m in rep["moves"]] == [1, 2, 3, 4, 5, 6]
        assert rep["moves"][3]["move"] == ack["applied"][0]
        assert recovered_s < 2, recovered_s
        print(f"fault-figure: OOM recovery after freeing: {recovered_s:.3f} s")
        assert cluster.procs[0].poll() is None
    finally:
        admin.close()
        await api.aclose()
        cluster.stop()
