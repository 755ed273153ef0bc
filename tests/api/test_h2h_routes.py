"""Head-to-head REST routes in process (tiny app: the race routes + these, real memory store)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from datetime import date
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from server.api.admission import Admission
from server.api.errors import exception_handlers
from server.api.h2h_routes import h2h_routes
from server.api.read_cache import FinishedReads
from server.api.rest import routes
from server.race.authority import RaceAuthority
from server.race.ghost_room import GhostRooms
from server.records.ghost import plan_ghost
from server.records.leaderboard import race_over_hook
from server.records.leaderboard_memory import MemoryLeaderboardStore
from server.records.replay_file import export_replay
from server.rules.daily import daily_deal
from server.runtime.settings import Settings
from server.store.memory import MemoryStore
from tests.records.games import record

API = "/api/v1"


def _app() -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = MemoryStore()
        boards = MemoryLeaderboardStore()
        authority = RaceAuthority(store, race_over_hooks=[race_over_hook(boards)])
        ghosts = GhostRooms(authority, plan_ghost)
        app.state.store, app.state.authority = store, authority
        app.state.leaderboards, app.state.ghosts = boards, ghosts
        app.state.finished_reads = FinishedReads()
        app.state.settings = Settings(http_rate=1000, http_burst=1000, create_burst=1000,
                                      upload_burst=1000)
        app.state.admission = Admission(app.state.settings)
        yield
        await ghosts.aclose()
        await store.close()

    return Starlette(routes=[*routes(), *h2h_routes()], exception_handlers=exception_handlers,
                     lifespan=lifespan)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(_app()) as c:
        yield c


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _race(client: TestClient, plans: dict[str, list[str]], deal: int | str = 2) -> str:
    r = client.post(f"{API}/rooms", json={"deal": deal, "countdown_s": 0})
    room, host = r.json()["room"], r.json()["host_token"]
    racers = {}
    for name in plans:
        j = client.post(f"{API}/rooms/{room['code']}/racers", json={"name": name}).json()
        racers[name] = (j["racer"]["id"], j["token"])
    client.post(f"{API}/rooms/{room['id']}/start", headers=_auth(host))
    for name, plan in plans.items():
        rid, token = racers[name]
        for i, move in enumerate(plan):
            r = client.post(f"{API}/rooms/{room['id']}/racers/{rid}/moves", headers=_auth(token),
                            json={"move": move, "expected_version": i,
                                  "client_move_id": f"{name}{i}"})
            assert r.status_code == 200, r.text
        client.post(f"{API}/rooms/{room['id']}/racers/{rid}/resign", headers=_auth(token))
    return str(room["code"])


def _error(r: Any) -> str:
    return str(r.json()["error"]["code"])


def test_compare_two_racers_of_a_room(client: TestClient) -> None:
    code = _race(client, {"ada": ["8f", "15f"], "bob": ["15f"]})
    r = client.get(f"{API}/rooms/{code}/compare/ada/bob")
    assert r.status_code == 200, r.text
    c = r.json()
    assert (c["a"]["name"], c["b"]["name"], c["deal_number"]) == ("ada", "bob", 2)
    assert [p["foundation_cards"] for p in c["a"]["timeline"]] == [1, 2]
    assert c["divergence"]["move_index"] == 1
    assert c["verdict"] == {"winner": "a", "decided_by": "foundation_cards"}
    assert c["rules"]["variant"] == "belle-lucie"
    assert _error(client.get(f"{API}/rooms/{code}/compare/ada/zed")) == "racer/not_found"
    assert _error(client.get(f"{API}/rooms/NOPE99/compare/ada/bob")) == "room/not_found"


def test_compare_across_rooms_and_with_a_replay(client: TestClient) -> None:
    one = _race(client, {"ada": ["8f"]})
    two = _race(client, {"bob": ["8f", "15f"]})
    r = client.post(f"{API}/compare", json={"a": {"room": one, "racer": "ada"},
                                             "b": {"room": two, "racer": "bob"}})
    assert r.status_code == 200, r.text
    assert r.json()["verdict"]["winner"] == "b" and r.json()["a"]["join_order"] is None
    doc = client.get(f"{API}/rooms/{two}/racers/"
                     f"{client.get(f'{API}/rooms/{two}').json()['racers'][0]['id']}/replay").json()
    r = client.post(f"{API}/compare", json={"a": {"replay": doc}, "b": {"room": two,
                                                                        "racer": "bob"}})
    assert r.status_code == 200 and r.json()["divergence"]["move_index"] is None
    other = _race(client, {"cy": ["11f"]}, deal=3)
    r = client.post(f"{API}/compare", json={"a": {"room": one, "racer": "ada"},
                                             "b": {"room": other, "racer": "cy"}})
    assert (r.status_code, _error(r)) == (409, "compare/different_deal")
    r = client.post(f"{API}/compare", json={"a": {"room": one}, "b": {"replay": doc}})
    assert (r.status_code, _error(r)) == (422, "request/invalid")


def test_replay_check(client: TestClient) -> None:
    doc = export_replay(record([("8f", 10), ("15f", 20)], name="ada"))
    r = client.post(f"{API}/replays/check", json={"replay": doc})
    assert r.status_code == 200, r.text
    assert r.json()["valid"] is True and r.json()["moves"] == 2 and r.json()["player"] == "ada"
    doc["moves"][1]["move"] = "2f"
    r = client.post(f"{API}/replays/check", json={"replay": doc})
    assert (r.status_code, _error(r)) == (422, "replay/forged")
    assert r.json()["error"]["details"] == {"move_index": 2}
    r = client.post(f"{API}/replays/check", json={"replay": {"moves": []}})
    assert (r.status_code, _error(r)) == (400, "replay/invalid")


def test_ghost_room_from_a_replay(client: TestClient) -> None:
    doc = export_replay(record([("8f", 30), ("15f", 60)], name="ada", status="resigned",
                               finished_ms=90))
    r = client.post(f"{API}/ghost-rooms", json={"replay": doc, "countdown_s": 0})
    assert r.status_code == 201, r.text
    room, host, ghost = r.json()["room"], r.json()["host_token"], r.json()["ghost"]
    assert ghost["name"] == "👻 ada" and room["deal_number"] == 2
    assert client.post(f"{API}/rooms/{room['code']}/start", headers=_auth(host)).status_code == 200
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        view = client.get(f"{API}/rooms/{room['code']}").json()
        if view["state"] == "over":
            break
        time.sleep(0.02)
    st = client.get(f"{API}/rooms/{room['code']}/standings").json()
    assert st["final"] and st["standings"][0]["foundation_cards"] == 2
    forged = {**doc, "deal_number": 3}
    r = client.post(f"{API}/ghost-rooms", json={"replay": forged})
    assert _error(r) == "replay/forged"


def test_a_refused_ghost_room_leaves_no_room_behind(client: TestClient) -> None:
    """Issue 33: a replay whose racer's name no racer may have was refused 400
    after its room was made (empty, public, listed for 30 minutes)."""
    before = {r["id"] for r in client.get(f"{API}/rooms").json()["rooms"]}
    doc = export_replay(record([("8f", 30)], name="ada", status="resigned", finished_ms=90))
    for name in ("ada\u200b", "a\u0007da"):
        r = client.post(f"{API}/ghost-rooms", json={"replay": {**doc, "player": name}})
        assert r.status_code == 400, r.text
        assert _error(r) in ("request/invalid", "replay/invalid")
    r = client.post(f"{API}/ghost-rooms", json={"replay": doc, "time_limit_s": 1})
    assert r.status_code in (400, 422) and _error(r) == "request/invalid"  # its options
    after = {r["id"] for r in client.get(f"{API}/rooms").json()["rooms"]}
    assert after == before


def test_ghost_room_from_a_running_race_refused(client: TestClient) -> None:
    r = client.post(f"{API}/rooms", json={"deal": 2, "countdown_s": 0})
    room, host = r.json()["room"], r.json()["host_token"]
    client.post(f"{API}/rooms/{room['code']}/racers", json={"name": "ada"})
    j = client.post(f"{API}/rooms/{room['code']}/racers", json={"name": "bob"}).json()
    client.post(f"{API}/rooms/{room['code']}/start", headers=_auth(host))
    # bob resigns but ada still races: the room's redeal key is still secret
    client.post(f"{API}/rooms/{room['code']}/racers/{j['racer']['id']}/resign",
                headers=_auth(j["token"]))
    for racer in ("ada", "bob"):
        r = client.post(f"{API}/ghost-rooms", json={"room": room["code"], "racer": racer})
        assert (r.status_code, _error(r)) == (400, "request/invalid")
        assert r.json()["error"]["details"] == {"field": "room", "state": "racing"}


def test_daily_deal_and_leaderboards(client: TestClient) -> None:
    today = client.get(f"{API}/daily/belle-lucie").json()
    r = client.get(f"{API}/daily/belle-lucie/2026-11-30")
    assert r.json()["deal_number"] == daily_deal("belle-lucie", date(2026, 11, 30))
    code = _race(client, {"ada": ["r"], "bob": []}, deal="daily")
    assert client.get(f"{API}/rooms/{code}").json()["deal_number"] == today["deal_number"]
    board = client.get(f"{API}/leaderboards/belle-lucie/daily").json()
    assert board["date"] == today["date"] and board["board"] == "daily"
    assert [(row["rank"], row["name"]) for row in board["rows"]] == [(1, "bob"), (2, "ada")]
    dated = client.get(f"{API}/leaderboards/belle-lucie/daily/{today['date']}?limit=1").json()
    assert [row["name"] for row in dated["rows"]] == ["bob"]
    assert len(client.get(f"{API}/leaderboards/belle-lucie/all-time").json()["rows"]) == 2
    for bad in ("/daily/chess", "/daily/belle-lucie/2026-02-30",
                "/leaderboards/belle-lucie/all-time?limit=0",
                "/leaderboards/chess/all-time"):
        r = client.get(API + bad)
        assert (r.status_code, _error(r)) == (400, "request/invalid"), bad


def test_openapi_lists_the_head_to_head_routes() -> None:
    from server.api.openapi import openapi

    paths = openapi()["paths"]
    assert "post" in paths[f"{API}/compare"] and "post" in paths[f"{API}/ghost-rooms"]
    op = paths[f"{API}/rooms/{{room}}/compare/{{a}}/{{b}}"]["get"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ComparisonView")
    assert "`replay/forged`" in paths[f"{API}/replays/check"]["post"]["responses"]["422"][
        "description"]
    assert "LeaderboardView" in openapi()["components"]["schemas"]


def test_every_head_to_head_route_is_documented() -> None:
    from pathlib import Path

    from server.api.h2h_routes import H2H_ENDPOINTS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    for ep in H2H_ENDPOINTS:
        path = ep.path
        if path.endswith("/{date}"):
            path = path[: -len("/{date}")] + "[/{date}]"
        assert f"`{ep.method} {path}" in doc, ep.path
