"""The REST API in process (Starlette TestClient, real memory store)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from server.app import create_app
from server.runtime.settings import Settings


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(max_body=2048, http_rate=1000, http_burst=1000))) as c:
        yield c


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _racing(client: TestClient, n: int = 1) -> tuple[str, list[tuple[str, str]]]:
    r = client.post("/api/v1/rooms", json={"deal": 11, "countdown_s": 0})
    assert r.status_code == 201, r.text
    room, host = r.json()["room"], r.json()["host_token"]
    racers = []
    for i in range(n):
        j = client.post(f"/api/v1/rooms/{room['code']}/racers", json={"name": f"r{i}"}).json()
        racers.append((j["racer"]["id"], j["token"]))
    assert client.post(f"/api/v1/rooms/{room['id']}/start",
                       headers=_auth(host)).json()["state"] == "racing"
    return room["id"], racers


def test_health_and_ready(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json()["status"] == "ready"


def test_room_life_over_rest(client: TestClient) -> None:
    r = client.post("/api/v1/rooms", json={"deal": 5, "capacity": 2, "undo": False})
    assert r.status_code == 201
    room = r.json()["room"]
    assert room["rules"]["undo"] is False and room["state"] == "waiting"
    listed = client.get("/api/v1/rooms").json()["rooms"]
    assert room["id"] in [x["id"] for x in listed]
    assert client.get(f"/api/v1/rooms/{room['code']}").json()["id"] == room["id"]
    j = client.post(f"/api/v1/rooms/{room['id']}/racers", json={"name": "ada"})
    assert j.status_code == 201
    racer, token = j.json()["racer"], j.json()["token"]
    r = client.post(f"/api/v1/rooms/{room['id']}/racers/{racer['id']}/ready",
                    json={"ready": True}, headers=_auth(token))
    assert r.status_code == 200 and r.json()["ready"] is True
    # single racer ready → countdown
    assert client.get(f"/api/v1/rooms/{room['id']}").json()["state"] == "countdown"


def test_rest_only_play(client: TestClient) -> None:
    room, [(racer, token)] = _racing(client)
    base = f"/api/v1/rooms/{room}/racers/{racer}"
    game = client.get(f"{base}/game", headers=_auth(token)).json()
    for n in range(30):
        if game["final"] or not game["legal_moves"]:
            break
        r = client.post(f"{base}/moves", headers=_auth(token), json={
            "move": game["legal_moves"][0], "expected_version": game["version"],
            "client_move_id": f"c{n}"})
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    assert game["version"] > 0
    resigned = client.post(f"{base}/resign", headers=_auth(token)).json()
    assert resigned["status"] == "resigned" and resigned["final"]
    table = client.get(f"/api/v1/rooms/{room}/standings").json()
    assert table["final"] and table["standings"][0]["racer"] == racer
    rep = client.get(f"{base}/replay").json()
    assert len(rep["moves"]) == game["version"] and len(rep["redeal_key"]) == 64


@pytest.mark.parametrize(("body", "status", "code"), [
    (b"{not json", 400, "request/invalid"),
    (b'{"deal": 5, "colour": "red"}', 422, "request/invalid"),
    (b'{"capacity": "eight"}', 422, "request/invalid"),
    (b'{"capacity": 65}', 422, "request/invalid"),
    (b'{"variant": "chess"}', 400, "request/invalid"),
    (b'{"deal": 0}', 400, "request/invalid"),
    (b'{"variant": "' + b"x" * 4000 + b'"}', 413, "request/too_large"),
])
def test_bad_create_bodies(client: TestClient, body: bytes, status: int, code: str) -> None:
    r = client.post("/api/v1/rooms", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    assert "Traceback" not in r.text
    assert client.get("/api/v1/rooms").json()["rooms"] == []


def test_bad_moves_change_nothing(client: TestClient) -> None:
    room, [(a, ta), (_b, tb)] = _racing(client, 2)
    url = f"/api/v1/rooms/{room}/racers/{a}/moves"
    game = client.get(f"/api/v1/rooms/{room}/racers/{a}/game", headers=_auth(ta)).json()
    good = {"move": game["legal_moves"][0], "expected_version": 0, "client_move_id": "x"}
    cases = [
        ({}, good, 401, "auth/missing"),
        (_auth("nope"), good, 403, "auth/invalid_token"),
        (_auth(tb), good, 403, "auth/forbidden"),
        (_auth(ta), {**good, "expected_version": 3}, 409, "move/stale_version"),
        (_auth(ta), {**good, "move": "99-98"}, 422, "move/illegal"),
        (_auth(ta), {**good, "move": "hello"}, 400, "move/invalid"),
        (_auth(ta), {**good, "extra": 1}, 422, "request/invalid"),
        (_auth(ta), {**good, "expected_version": "0"}, 422, "request/invalid"),
    ]
    for headers, body, status, code in cases:
        r = client.post(url, json=body, headers=headers)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), body
    stale = client.post(url, json={**good, "expected_version": 3}, headers=_auth(ta)).json()
    assert stale["error"]["details"]["game"]["version"] == 0
    assert client.get(f"/api/v1/rooms/{room}/racers/{a}/game",
                      headers=_auth(ta)).json()["version"] == 0
    r = client.post("/api/v1/rooms/NOROOM/racers/x/moves", json=good, headers=_auth(ta))
    assert (r.status_code, r.json()["error"]["code"]) == (404, "room/not_found")
    r = client.delete("/api/v1/rooms")
    assert (r.status_code, r.json()["error"]["code"]) == (405, "request/method_not_allowed")
    assert client.get("/api/v1/nothing").json()["error"]["code"] == "request/not_found"


def test_moves_before_start_and_after_end(client: TestClient) -> None:
    r = client.post("/api/v1/rooms", json={"deal": 11}).json()
    room, host = r["room"]["id"], r["host_token"]
    j = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "a"}).json()
    url = f"/api/v1/rooms/{room}/racers/{j['racer']['id']}/moves"
    body = {"move": "a", "expected_version": 0, "client_move_id": "x"}
    r = client.post(url, json=body, headers=_auth(j["token"]))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "room/not_racing")
    client.post(f"/api/v1/rooms/{room}/close", headers=_auth(host))
    r = client.post(url, json=body, headers=_auth(j["token"]))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "room/over")


def test_openapi_and_ws_schemas(client: TestClient) -> None:
    doc = client.get("/api/v1/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    assert "/api/v1/rooms/{room}/racers/{racer}/moves" in doc["paths"]
    move_op = doc["paths"]["/api/v1/rooms/{room}/racers/{racer}/moves"]["post"]
    assert move_op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "MoveBody")
    assert "MoveBody" in doc["components"]["schemas"]
    assert doc["components"]["schemas"]["MoveBody"]["additionalProperties"] is False
    ws = client.get("/api/v1/schemas/ws.json").json()
    assert {"ClientMessage", "ServerMessage"} <= set(ws["$defs"])


def test_schema_errors_point_at_the_request_not_at_pydantic(client: TestClient) -> None:
    """A union field's errors named pydantic's branches in ``loc``
    (``["deal", "function-before[_integral(), int]"]``): the path is the request's."""
    r = client.post("/api/v1/rooms", json={"deal": "soon"})
    assert r.status_code == 422
    errors = r.json()["error"]["details"]["errors"]
    assert {tuple(e["loc"]) for e in errors} == {("deal",)}
    assert {e["msg"] for e in errors} == {"Input should be a valid integer",
                                          "Input should be 'random' or 'daily'"}
    room, [(a, ta)] = _racing(client)
    r = client.post(f"/api/v1/rooms/{room}/racers/{a}/moves", headers=_auth(ta),
                    json={"move": {"type": ["play"]}, "client_move_id": "x"})
    assert r.status_code == 422
    locs = [e["loc"] for e in r.json()["error"]["details"]["errors"]]
    assert ["move"] in locs and ["move", "type"] in locs, locs
    assert not any("[" in str(part) or part == "str" for loc in locs for part in loc), locs


@pytest.mark.parametrize(("bots", "levels"), [
    pytest.param(3, ["novice", "club", "expert"], id="a-count-is-a-mix"),
    pytest.param(1, ["club"], id="one-is-club"),
    pytest.param(["expert", "novice"], ["expert", "novice"], id="a-list-of-levels"),
    pytest.param({"level": "club", "count": 2}, ["club", "club"], id="a-level-and-a-count"),
    pytest.param({"level": "expert"}, ["expert"], id="count-1-by-default"),
])
def test_the_bots_option_takes_a_count_levels_or_a_level_and_a_count(
        client: TestClient, bots: object, levels: list[str]) -> None:
    r = client.post("/api/v1/rooms", json={"bots": bots, "visibility": "private"})
    assert r.status_code == 201, r.text
    racers = r.json()["room"]["racers"]
    assert [x["bot_level"] for x in racers] == levels
    assert all(x["bot"] and isinstance(x["bot_rating"], float) for x in racers)
    assert all("seed" not in key for x in racers for key in x)


@pytest.mark.parametrize(("bots", "status"), [
    pytest.param(["club", "grandmaster"], 400, id="an-unknown-level-in-a-list"),
    pytest.param({"level": "master", "count": 2}, 400, id="an-unknown-level"),
    pytest.param({"level": "club", "count": 8}, 400, id="no-seat-left"),
    pytest.param(["club"] * 8, 400, id="no-seat-left-in-a-list"),
    pytest.param("club", 422, id="a-level-alone"),
    pytest.param({"level": "club", "count": 64}, 422, id="too-many"),
    pytest.param({"level": "club", "count": 2, "seed": 1}, 422, id="an-unknown-field"),
    pytest.param(["club"] * 64, 422, id="too-long-a-list"),
])
def test_bad_bots_are_refused_with_request_invalid(client: TestClient, bots: object,
                                                    status: int) -> None:
    r = client.post("/api/v1/rooms", json={"bots": bots, "capacity": 8})
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == "request/invalid"
    if status == 400:  # the field named, the levels listed
        assert error["details"] == {"field": "bots"}
        assert "novice, club, expert" in error["message"] or "capacity" in error["message"]
    assert client.get("/api/v1/rooms").json()["rooms"] == []  # nothing was created
