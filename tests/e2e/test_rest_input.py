"""End to end: every bad REST input gets its stable code and changes nothing
(a real ``lucie-server`` process)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .wire import Api, open_socket, recv_until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory(LUCIE_MAX_BODY="4096"))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_bad_rest_inputs(url: str) -> None:
    api = Api(url)
    http = api.http
    room, host = await api.create(deal=21, countdown_s=0, time_limit_s=10)
    a, ta = await api.join(room["id"], "ada")
    _, tb = await api.join(room["id"], "bob")
    moves = f"/rooms/{room['id']}/racers/{a}/moves"
    good = {"move": "a", "expected_version": 0, "client_move_id": "x"}
    early = await http.post(moves, json=good, headers=_bearer(ta))
    assert early.json()["error"]["code"] == "room/not_racing"
    await api.start(room["id"], host)
    game = await api.get(f"/rooms/{room['id']}/racers/{a}/game", ta)
    good["move"] = game["legal_moves"][0]
    cases: list[tuple[dict[str, Any], dict[str, str], int, str]] = [
        ({"content": b"{oops"}, _bearer(ta), 400, "request/invalid"),
        ({"json": {**good, "colour": 1}}, _bearer(ta), 422, "request/invalid"),
        ({"json": {**good, "expected_version": "0"}}, _bearer(ta), 422, "request/invalid"),
        ({"json": {**good, "client_move_id": "x" * 65}}, _bearer(ta), 422, "request/invalid"),
        ({"content": b'{"move":"' + b"3" * 5000 + b'"}'}, _bearer(ta), 413, "request/too_large"),
        ({"json": good}, {}, 401, "auth/missing"),
        ({"json": good}, {"Authorization": "Basic abc"}, 401, "auth/missing"),
        ({"json": good}, _bearer("forged"), 403, "auth/invalid_token"),
        ({"json": good}, _bearer(tb), 403, "auth/forbidden"),
        ({"json": good}, _bearer(host), 403, "auth/forbidden"),
        ({"json": {**good, "expected_version": 7}}, _bearer(ta), 409, "move/stale_version"),
        ({"json": {**good, "move": "1-1"}}, _bearer(ta), 422, "move/illegal"),
        ({"json": {**good, "move": {"type": "fly"}}}, _bearer(ta), 400, "move/invalid"),
    ]
    for kwargs, headers, status, code in cases:
        r = await http.post(moves, headers={"content-type": "application/json", **headers},
                            **kwargs)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), kwargs
        assert "Traceback" not in r.text
    r = await http.get("/rooms/ZZZZZZ")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "room/not_found")
    r = await http.post(f"/rooms/{room['id']}/racers/nobody/moves", json=good,
                        headers=_bearer(ta))
    assert r.json()["error"]["code"] == "racer/not_found"
    r = await http.post(f"/rooms/{room['id']}/racers", json={"name": "late"})
    assert r.json()["error"]["code"] == "room/not_waiting"
    assert (await api.get(f"/rooms/{room['id']}/racers/{a}/game", ta))["version"] == 0
    await api.aclose()


async def test_moves_after_the_time_limit(url: str) -> None:
    api = Api(url)
    room, host = await api.create(deal=21, countdown_s=0, time_limit_s=10)
    a, ta = await api.join(room["id"], "ada")
    await api.start(room["id"], host)
    async with open_socket(api.url, room["id"]) as spectator:
        # nobody calls the server: the background sweep ends the race on time
        over = await asyncio.wait_for(recv_until(spectator, "event", type_="race_over"), 15)
    assert over["d"]["race_clock_ms"] == 10_000
    assert over["d"]["standings"][0]["status"] == "timed_out"
    r = await api.http.post(f"/rooms/{room['id']}/racers/{a}/moves", headers=_bearer(ta),
                            json={"move": "a", "expected_version": 0, "client_move_id": "z"})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "room/over")
    table = await api.get(f"/rooms/{room['id']}/standings")
    assert table["final"] and table["standings"][0]["status"] == "timed_out"
    await api.aclose()


async def test_http_flood_is_rate_limited(server_factory: Any) -> None:
    api = Api(str(server_factory(LUCIE_HTTP_RATE="5", LUCIE_HTTP_BURST="20")))
    answers = [await api.http.get("/rooms") for _ in range(60)]
    assert answers[0].status_code == 200
    limited = [r for r in answers if r.status_code == 429]
    assert limited
    assert {r.json()["error"]["code"] for r in limited} == {"rate/limited"}
    await api.aclose()
