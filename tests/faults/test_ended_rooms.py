"""Ended rooms leave nothing behind in Redis.

Public reports of this kind: session and room stores on Redis that grow
without bound because finished entries are never expired (the "keys without
TTL pile up" class of report). Here two real ``lucie-server`` processes with
``LUCIE_ENDED_TTL_S=3``: a room closed by its host and a race ended by
resignation. Promise: every key of both rooms (record, answers, events, the
short code, the index entries) is gone within the TTL plus the sweep (we
allow 20 s; measured ~4 s), leaderboards stay; the finished race then
answers from the archive (docs/archive.md: its keys expire once it is
archived), and the room closed before its start answers 404 ``room/not_found``.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis as syncredis

from tests.e2e.wire import Api
from tests.redis.cluster import REDIS_URL, Cluster

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]


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
        r = await a.http.get(f"/rooms/{over['id']}")  # from the archive now
        assert r.status_code == 200 and json.loads(r.text)["state"] == "over"
        r = await b.http.get(f"/races/{over['code']}")
        assert r.status_code == 200 and json.loads(r.text)["live"] is False
        r = await a.http.get(f"/rooms/{closed['id']}")  # never raced: not archived
        assert r.status_code == 404 and json.loads(r.text)["error"]["code"] == "room/not_found"
    finally:
        client.close()
        await a.aclose()
        await b.aclose()
        cluster.stop()
