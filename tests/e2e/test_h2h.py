"""End to end against a real ``lucie-server`` process: two scripted racers on one deal,
their comparison, replay export/check, a ghost race of one of them, the leaderboards,
and the ``lucie compare`` / ``lucie leaderboard`` commands."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.timeout(60)

ADA = ["8f", "15f", "2-3"]  # deal 2: A♦, A♠, then a tableau move
BOB = ["15f", "17-18"]  # A♠, then a tableau move
GAP_S = 0.15


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory())


@pytest.fixture(scope="module")
def http(url: str) -> Any:
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as client:
        yield client


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _race(http: httpx.Client, deal: int | str = 2) -> dict[str, Any]:
    """Ada and Bob race on ``deal``, taking turns a little apart, then resign."""
    r = http.post("/rooms", json={"deal": deal, "countdown_s": 0})
    room, host = r.json()["room"], r.json()["host_token"]
    racers = {}
    for name in ("ada", "bob"):
        j = http.post(f"/rooms/{room['code']}/racers", json={"name": name}).json()
        racers[name] = (j["racer"]["id"], j["token"])
    assert http.post(f"/rooms/{room['code']}/start", headers=_auth(host)).status_code == 200
    plans = {"ada": ADA, "bob": BOB} if deal == 2 else {"ada": ["r"], "bob": []}
    for i in range(max(len(p) for p in plans.values())):
        for name, plan in plans.items():
            if i < len(plan):
                time.sleep(GAP_S)
                rid, token = racers[name]
                r = http.post(f"/rooms/{room['id']}/racers/{rid}/moves", headers=_auth(token),
                              json={"move": plan[i], "expected_version": i,
                                    "client_move_id": f"{name}-{i}"})
                assert r.status_code == 200, r.text
    for rid, token in racers.values():
        http.post(f"/rooms/{room['id']}/racers/{rid}/resign", headers=_auth(token))
    assert http.get(f"/rooms/{room['code']}").json()["state"] == "over"
    return {"code": room["code"], "id": room["id"], "racers": racers}


def test_comparison_of_two_scripted_racers(http: httpx.Client) -> None:
    race = _race(http)
    r = http.get(f"/rooms/{race['code']}/compare/ada/bob")
    assert r.status_code == 200, r.text
    c = r.json()
    a, b = c["a"], c["b"]
    assert [p["move"] for p in a["timeline"]] == ADA
    assert [p["foundation_cards"] for p in a["timeline"]] == [1, 2, 2]
    assert [p["foundation_cards"] for p in b["timeline"]] == [1, 1]
    times = [p["race_clock_ms"] for p in a["timeline"]]
    assert times == sorted(times) and times[0] >= GAP_S * 1000
    assert a["reach_time_ms"] == times[1] and a["moves"] == 3 and a["join_order"] == 1
    assert c["divergence"] == {"move_index": 1, "reason": "moves", "a_move": "8f",
                               "b_move": "15f"}
    assert c["verdict"] == {"winner": "a", "decided_by": "foundation_cards"}
    # Ada leads from her A♦ until Bob's A♠ levels it, then again from her A♠ on
    assert c["lead"]["a_ms"] > 0 and c["lead"]["b_ms"] == 0
    assert a["layouts"][0]["cards_to_foundation"] == 2 and not a["layouts"][1]["reached"]
    assert sum(s["end_ms"] - s["start_ms"] for s in c["lead"]["segments"]) == max(
        a["end_ms"], b["end_ms"])


def test_replay_export_check_and_forgery(http: httpx.Client) -> None:
    race = _race(http)
    ada_id = race["racers"]["ada"][0]
    doc = http.get(f"/rooms/{race['id']}/racers/{ada_id}/replay").json()
    assert doc["redeal_key"] and [m["move"] for m in doc["moves"]] == ADA
    r = http.post("/replays/check", json={"replay": doc})
    assert r.status_code == 200 and r.json()["valid"] is True, r.text
    doc["result"]["foundation_cards"] = 52
    r = http.post("/replays/check", json={"replay": doc})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "replay/forged")


def test_ghost_race_reproduces_the_recorded_timeline(http: httpx.Client) -> None:
    race = _race(http)
    recorded = http.get(f"/rooms/{race['code']}/compare/ada/bob").json()["a"]
    r = http.post("/ghost-rooms", json={"room": race["code"], "racer": "ada",
                                         "countdown_s": 0})
    assert r.status_code == 201, r.text
    room, ghost = r.json()["room"], r.json()["ghost"]
    assert ghost["name"] == "👻 ada" and room["deal_number"] == 2
    j = http.post(f"/rooms/{room['code']}/racers", json={"name": "cy"}).json()
    cy, token = j["racer"]["id"], j["token"]
    http.post(f"/rooms/{room['code']}/racers/{cy}/ready", headers=_auth(token),
              json={"ready": True})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        view = http.get(f"/rooms/{room['code']}").json()
        if next(x for x in view["racers"] if x["id"] == ghost["id"])["final"]:
            break
        time.sleep(0.05)
    # the ghost's move log is hidden from its rival until the race is over
    http.post(f"/rooms/{room['code']}/racers/{cy}/resign", headers=_auth(token))
    replay = http.get(f"/rooms/{room['code']}/racers/{ghost['id']}/replay").json()
    assert [m["move"] for m in replay["moves"]] == ADA
    for got, want in zip(replay["moves"], recorded["timeline"], strict=True):
        assert want["race_clock_ms"] <= got["race_clock_ms"] <= want["race_clock_ms"] + 150
    assert replay["result"]["status"] == "resigned"
    assert replay["result"]["foundation_cards"] == 2
    standings = http.get(f"/rooms/{room['code']}/standings").json()
    assert standings["final"] and standings["standings"][0]["name"] == "👻 ada"
    # the ghost room is not ranked: nothing of it reaches the leaderboards
    rows = http.get("/leaderboards/belle-lucie/all-time?limit=100").json()["rows"]
    assert "cy" not in [row["name"] for row in rows]


def _lucie(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "client_cli.cli", *args, "--server", url],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=30,
                          check=False)


def test_daily_leaderboard_and_commands(http: httpx.Client, url: str) -> None:
    today = http.get("/daily/belle-lucie").json()
    race = _race(http, deal="daily")
    board = http.get("/leaderboards/belle-lucie/daily").json()
    assert board["date"] == today["date"]
    assert [(row["rank"], row["name"], row["room"]) for row in board["rows"]] == [
        (1, "bob", race["code"]), (2, "ada", race["code"])]

    out = _lucie(url, "leaderboard")
    assert out.returncode == 0, out.stderr
    assert f"(deal {today['deal_number']})" in out.stdout and "bob" in out.stdout
    out = _lucie(url, "daily")
    assert str(today["deal_number"]) in out.stdout

    duel = _race(http)
    out = _lucie(url, "compare", duel["code"], "ada", "bob")
    assert out.returncode == 0, out.stderr
    assert "race clock (s)" in out.stdout  # the chart
    assert "foundation cards" in out.stdout and "time in the lead" in out.stdout
    assert "They part at move 1: ada played 8f, bob played 15f." in out.stdout
    assert "Verdict: ada ahead by more foundation cards." in out.stdout
    out = _lucie(url, "compare", duel["code"], "ada", "zed")
    assert out.returncode == 1 and "no racer 'zed'" in out.stderr


@pytest.mark.redis
def test_leaderboards_and_ghosts_on_a_redis_backed_server(server_factory: Any) -> None:
    import redis

    prefix = f"test:{os.urandom(6).hex()}:"
    url = server_factory(REDIS_URL="redis://127.0.0.1:6379/0", LUCIE_REDIS_PREFIX=prefix)
    try:
        with httpx.Client(base_url=url + "/api/v1", timeout=10) as http:
            _race(http, deal="daily")
            rows = http.get("/leaderboards/belle-lucie/daily").json()["rows"]
            assert [row["name"] for row in rows] == ["bob", "ada"]
            with redis.Redis.from_url("redis://127.0.0.1:6379/0") as r:
                boards = [k.decode() for k in r.scan_iter(match=f"{prefix}{{lb:*:z")]
                assert len(boards) == 2 and all(r.type(k) == b"zset" for k in boards)
            race = _race(http)
            ghost = http.post("/ghost-rooms", json={"room": race["code"], "racer": "ada",
                                                     "countdown_s": 0})
            assert ghost.status_code == 201, ghost.text
            assert ghost.json()["ghost"]["name"] == "👻 ada"
    finally:
        with redis.Redis.from_url("redis://127.0.0.1:6379/0") as client:
            keys = list(client.scan_iter(match=f"{prefix}*"))
            if keys:
                client.delete(*keys)


def test_replay_file_round_trip_through_the_commands(http: httpx.Client, url: str,
                                                     tmp_path: Any) -> None:
    race = _race(http)
    out = _lucie(url, "replay", race["code"], "ada", "--json")
    assert out.returncode == 0, out.stderr
    path = tmp_path / "ada.json"
    path.write_text(out.stdout)
    out = _lucie(url, "compare", race["code"], "bob", "--replay", str(path))
    assert out.returncode == 0, out.stderr
    assert "They part at move 1: bob played 15f, ada played 8f." in out.stdout
    out = _lucie(url, "compare", "--replay", str(path), "--replay", str(path))
    assert "The two games are the same move for move." in out.stdout
    out = _lucie(url, "ghost", "--replay", str(path), "--countdown", "0")
    assert out.returncode == 0, out.stderr
    assert "racing 👻 ada" in out.stdout and "lucie join " in out.stdout  # as the README joins
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    out = _lucie(url, "ghost", "--replay", str(bad))
    assert out.returncode == 1 and "not a replay document" in out.stderr
