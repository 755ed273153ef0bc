"""Must show (issue 20, players): against a real ``lucie-server`` (embedded,
SQLite archive) — a player created, two races raced as that player against a
rival player: ``GET /players/{id}/races`` lists both, ``…/vs/{b}`` counts
them, ratings change after a rated race; the key never shows again; bad
input gets its registry code."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.conftest import SERVER_LOGS, ServerFactory


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _race(api: httpx.Client, a_key: str, b_key: str, *, winner: str) -> str:
    """A two-racer race raced as the two players; ``winner`` ("a" or "b") moves
    a card to a foundation (deal 2 has aces on top of fans), the other resigns."""
    created = api.post("/api/v1/rooms", json={"capacity": 3, "countdown_s": 0,
                                              "deal": 2}).json()
    room, host = created["room"], created["host_token"]
    joined = {}
    for who, key in (("a", a_key), ("b", b_key)):
        got = api.post(f"/api/v1/rooms/{room['id']}/racers", json={}, headers=_bearer(key))
        assert got.status_code == 201, got.text
        joined[who] = got.json()
    assert api.post(f"/api/v1/rooms/{room['id']}/start",
                    headers=_bearer(host)).status_code == 200
    lead = joined[winner]
    game = api.get(f"/api/v1/rooms/{room['id']}/racers/{lead['racer']['id']}/game",
                   headers=_bearer(lead["token"])).json()
    to_foundation = next(m for m in game["legal_moves"] if m.endswith("f"))
    moved = api.post(f"/api/v1/rooms/{room['id']}/racers/{lead['racer']['id']}/moves",
                     headers=_bearer(lead["token"]),
                     json={"move": to_foundation, "expected_version": 0, "client_move_id": "1"})
    assert moved.status_code == 200, moved.text
    for who in ("a", "b"):
        done = api.post(f"/api/v1/rooms/{room['id']}/racers/{joined[who]['racer']['id']}/resign",
                        headers=_bearer(joined[who]["token"]))
        assert done.status_code == 200, done.text
    return str(room["id"])


def _until(fetch: Any, ready: Any, timeout_s: float = 30) -> Any:
    deadline = time.monotonic() + timeout_s
    got = fetch()
    while not ready(got) and time.monotonic() < deadline:
        time.sleep(0.1)
        got = fetch()
    return got


@pytest.fixture(scope="module")
def api(server_factory: ServerFactory) -> Any:
    url = server_factory(LUCIE_ARCHIVE_PERIOD_S="0.2")
    with httpx.Client(base_url=url, timeout=10) as client:
        yield client


def test_two_races_as_a_player_show_in_history_versus_and_ratings(api: httpx.Client) -> None:
    made_a = api.post("/api/v1/players", json={"name": "Ada Player"})
    assert made_a.status_code == 201, made_a.text
    a, a_key = made_a.json()["player"], made_a.json()["key"]
    assert a_key.startswith("lpk_") and a["name"] == "Ada Player"
    made_b = api.post("/api/v1/players", json={"name": "Bea Player"}).json()
    b, b_key = made_b["player"], made_b["key"]

    before = api.get(f"/api/v1/players/{a['id']}").json()
    assert before["races"] == 0 and before["variants"] == []

    first = _race(api, a_key, b_key, winner="a")
    room = api.get(f"/api/v1/rooms/{first}").json()
    assert {r["name"]: r["player"] for r in room["racers"]} == {
        "Ada Player": a["id"], "Bea Player": b["id"]}
    second = _race(api, a_key, b_key, winner="b")

    page = _until(lambda: api.get(f"/api/v1/players/{a['id']}/races").json(),
                  lambda p: len(p["races"]) == 2)
    assert [r["race"] for r in page["races"]] == [second, first]  # newest first
    assert [r["rank"] for r in page["races"]] == [2, 1] and page["next"] is None
    one = api.get(f"/api/v1/players/{a['id']}/races", params={"limit": 1}).json()
    assert [r["race"] for r in one["races"]] == [second] and one["next"]
    rest = api.get(f"/api/v1/players/{a['id']}/races",
                   params={"limit": 1, "cursor": one["next"]}).json()
    assert [r["race"] for r in rest["races"]] == [first] and rest["next"] is None

    vs = api.get(f"/api/v1/players/{a['id']}/vs/{b['id']}").json()
    assert (vs["races"], vs["wins"], vs["losses"], vs["ties"]) == (2, 1, 1, 0)
    comparison = api.get(vs["shared"][0]["comparison"])
    assert comparison.status_code == 200, comparison.text
    by_name = api.get("/api/v1/players/ada player/vs/BEA PLAYER").json()
    assert by_name["races"] == 2

    profile = api.get(f"/api/v1/players/{a['id']}").json()
    (figures,) = profile["variants"]
    assert figures["races"] == 2 and figures["wins"] == 1 and figures["streak"] == 0
    assert figures["rating"]["rated_races"] == 2 and figures["rating"]["provisional"]
    history = api.get(f"/api/v1/players/{a['id']}/ratings/belle-lucie").json()
    assert [p["race"] for p in history["points"]] == [first, second]
    assert history["points"][0]["mu"] > 25  # won the first: up
    assert history["points"][1]["mu"] < history["points"][0]["mu"]  # lost the second: down
    board = api.get("/api/v1/leaderboards/belle-lucie/rating").json()
    assert {e["player"]["id"] for e in board["entries"]} >= {a["id"], b["id"]}

    # the key is shown once: in no other answer, and in no log line
    for path in (f"/api/v1/players/{a['id']}", f"/api/v1/players/{a['id']}/races",
                 f"/api/v1/players/{a['id']}/vs/{b['id']}", f"/api/v1/rooms/{first}",
                 f"/api/v1/races/{first}", "/api/v1/leaderboards/belle-lucie/rating"):
        assert a_key not in api.get(path).text
    assert a_key not in SERVER_LOGS[str(api.base_url).rstrip("/")].read_text()


def test_bad_player_input_gets_registry_codes(api: httpx.Client) -> None:
    made = api.post("/api/v1/players", json={"name": "Cy Twice"}).json()
    cases = [
        (api.post("/api/v1/players", json={"name": "cy  twice"}), 409, "player/name_taken"),
        (api.post("/api/v1/players", json={"name": "Ｃｙ Ｔｗｉｃｅ"}), 409, "player/name_taken"),
        (api.post("/api/v1/players", json={"name": "pаypal"}), 400, "request/invalid"),
        (api.post("/api/v1/players", json={"name": "x"}), 400, "request/invalid"),
        (api.post("/api/v1/players", json={"name": "ok", "extra": 1}), 422, "request/invalid"),
        (api.get("/api/v1/players/nobody-at-all"), 404, "player/not_found"),
        (api.get("/api/v1/players/nobody-at-all/races"), 404, "player/not_found"),
        (api.get(f"/api/v1/players/{made['player']['id']}/races",
                 params={"cursor": "garbage!"}), 400, "request/invalid"),
        (api.get(f"/api/v1/players/{made['player']['id']}/races",
                 params={"limit": "0"}), 400, "request/invalid"),
        (api.get(f"/api/v1/players/{made['player']['id']}/ratings/nope"), 400,
         "request/invalid"),
        (api.get(f"/api/v1/players/{made['player']['id']}/vs/cy twice"), 400,
         "request/invalid"),
        (api.delete(f"/api/v1/players/{made['player']['id']}"), 401, "auth/missing"),
        (api.delete(f"/api/v1/players/{made['player']['id']}", headers=_bearer("lpk_wrong")),
         403, "player/invalid_key"),
    ]
    for answer, status, code in cases:
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), \
            (answer.request.url, answer.text)
    room = api.post("/api/v1/rooms", json={}).json()["room"]
    wrong = api.post(f"/api/v1/rooms/{room['id']}/racers", json={"name": "z"},
                     headers=_bearer("lpk_nobody"))
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "player/invalid_key")
    nameless = api.post(f"/api/v1/rooms/{room['id']}/racers", json={})
    assert (nameless.status_code, nameless.json()["error"]["code"]) == (400, "request/invalid")
    twice = [api.post(f"/api/v1/rooms/{room['id']}/racers", json={},
                      headers=_bearer(made["key"])) for _ in range(2)]
    assert [t.status_code for t in twice] == [201, 409]


def test_forget_me_frees_the_name_and_the_key(api: httpx.Client) -> None:
    made = api.post("/api/v1/players", json={"name": "Dee Gone"}).json()
    pid, key = made["player"]["id"], made["key"]
    rival = api.post("/api/v1/players", json={"name": "Rae Stays"}).json()
    race = _race(api, key, rival["key"], winner="b")
    _until(lambda: api.get(f"/api/v1/players/{pid}/races").json(),
           lambda p: len(p["races"]) == 1)
    gone = api.delete(f"/api/v1/players/{pid}", headers=_bearer(key))
    assert gone.status_code == 204
    # the live room (still there for an hour) forgets the name at once too
    for path in (f"/api/v1/rooms/{race}", f"/api/v1/races/{race}",
                 f"/api/v1/rooms/{race}/standings"):
        answer = api.get(path)
        assert answer.status_code == 200 and "Dee Gone" not in answer.text, answer.text
        assert pid not in answer.text and "Rae Stays" in answer.text
    assert api.get(f"/api/v1/players/{pid}").status_code == 404
    room = api.post("/api/v1/rooms", json={}).json()["room"]
    stale = api.post(f"/api/v1/rooms/{room['id']}/racers", json={}, headers=_bearer(key))
    assert stale.status_code == 403
    again = api.post("/api/v1/players", json={"name": "dee gone"})
    assert again.status_code == 201 and again.json()["key"] != key
