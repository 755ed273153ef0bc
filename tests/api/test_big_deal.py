"""Deal numbers beyond 64 bits (up to 10**20 − 1, rules.md) travel and store
exactly, on the memory and the Redis store (the record codec used to raise
``Integer exceeds 64-bit range``: 500 on ``POST /rooms``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import redis
from starlette.testclient import TestClient

from server.app import create_app
from server.runtime.settings import Settings
from server.store.base import decode_record, encode_record

BIG = 10**20 - 1
REDIS = "redis://127.0.0.1:6379/0"


def test_record_codec_keeps_big_integers() -> None:
    for value in (2**64 - 1, 2**64, BIG, -(2**70)):
        data = {"deal_number": value, "log": [["3f", 5]], "name": "Zoë"}
        raw = encode_record(data)
        assert decode_record(raw) == data
        assert type(decode_record(raw)["deal_number"]) is int
    # ordinary records keep orjson's exact bytes
    assert encode_record({"a": 1, "b": "é"}) == '{"a":1,"b":"é"}'.encode()
    # a long run of digits inside a string is not mistaken for a number
    assert decode_record(b'{"k":"12345678901234567890123"}') == {"k": "12345678901234567890123"}


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    url = None
    prefix = f"test:{secrets.token_hex(6)}:"
    if request.param == "redis":
        url = f"{REDIS}?prefix={prefix}"
    with TestClient(create_app(Settings(redis_url=url))) as c:
        yield c
    if url is not None:
        r = redis.Redis.from_url(REDIS)
        keys = list(r.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            r.delete(*keys)
        r.close()


def test_big_deal_number_over_rest_and_socket(client: TestClient) -> None:
    r = client.post("/api/v1/rooms", json={"deal": BIG, "countdown_s": 0})
    assert r.status_code == 201, r.text
    room, host = r.json()["room"], r.json()["host_token"]
    assert room["deal_number"] == BIG
    # before the start only the host sees the deal number (fair play)
    assert client.get(f"/api/v1/rooms/{room['code']}",
                      headers={"Authorization": f"Bearer {host}"}).json()["deal_number"] == BIG
    j = client.post(f"/api/v1/rooms/{room['id']}/racers", json={"name": "ada"}).json()
    rid, token = j["racer"]["id"], j["token"]
    auth = {"Authorization": f"Bearer {token}"}
    started = client.post(f"/api/v1/rooms/{room['id']}/start",
                          headers={"Authorization": f"Bearer {host}"})
    assert started.status_code == 200 and started.json()["state"] == "racing"
    assert started.json()["deal_number"] == BIG
    # once the race is on, everyone sees it: the welcome, and the started event
    with client.websocket_connect(f"/api/v1/rooms/{room['id']}/ws?since=0", headers=auth) as ws:
        welcome = ws.receive_json()
        assert welcome["t"] == "welcome" and welcome["d"]["room"]["deal_number"] == BIG
        events = [ws.receive_json()["d"] for _ in range(welcome["d"]["room"]["seq"])]
        assert events[-1]["type"] == "started" and events[-1]["deal_number"] == BIG
    game = client.get(f"/api/v1/rooms/{room['id']}/racers/{rid}/game", headers=auth).json()
    move = game["legal_moves"][0]
    r = client.post(f"/api/v1/rooms/{room['id']}/racers/{rid}/moves", headers=auth,
                    json={"move": move, "expected_version": 0, "client_move_id": "m1"})
    assert r.status_code == 200, r.text
    assert client.post(f"/api/v1/rooms/{room['id']}/racers/{rid}/resign",
                       headers=auth).status_code == 200
    replay = client.get(f"/api/v1/rooms/{room['id']}/racers/{rid}/replay").json()
    assert replay["deal_number"] == BIG
    assert [m["move"] for m in replay["moves"]] == [move]
    standings = client.get(f"/api/v1/rooms/{room['id']}/standings").json()
    assert standings["final"] is True
