"""Must show (issue 32, fair play): against a real ``lucie-server`` (embedded,
SQLite archive) — a script racing with ``server.solver.hint`` at a human pace
over several rated races reaches the moderation queue; an honest player
racing it (the computer racers' strategy) does not; an ``assisted`` verdict
takes those races out of the leaderboards and gives the victim their rating
back; the cheat's own profile says so, nobody else's view does; the player
then races unrated. Moderation routes need a moderator token."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from server.rules import REDEAL, Move, Position, RuleSet, position_from_json
from server.solver import hint
from server.solver.strategy import Style, choose_move
from tests.conftest import ServerFactory

pytestmark = pytest.mark.timeout(300)

TOKEN = os.urandom(16).hex()
MODERATOR = f"alice:{TOKEN}"
METRICS_TOKEN = f"metrics-{os.urandom(12).hex()}"
DEALS = (288, 70, 360)
"""Deals whose first layout takes planning (the solver's line finds moves the
plain strategy misses there): a fixed, fast setting for a test."""
RULES = RuleSet.from_json({"variant": "belle-lucie"})
Chooser = Callable[[Position, list[Position]], Move | None]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _cheat(pos: Position, _: list[Position]) -> Move | None:
    return hint(RULES, pos, max_seconds=0.3)


def _honest(style: Style) -> Chooser:
    return lambda pos, seen: choose_move(RULES, pos, seen, style)


async def _play(api: httpx.AsyncClient, room: str, racer: str, token: str,
                choose: Chooser, rng: random.Random) -> None:
    """Play until nothing is worth playing, at a human pace (0.15–0.45 s between
    moves), then resign if the result is not final."""
    seen: list[Position] = []
    for n in range(400):
        game = (await api.get(f"/rooms/{room}/racers/{racer}/game",
                              headers=_bearer(token))).json()
        if game["final"]:
            return
        pos = position_from_json(game["position"])
        seen.append(pos)
        move = choose(pos, seen)
        if move is None or (move == REDEAL and n > 300):
            break
        if move == REDEAL:
            seen = []
        await asyncio.sleep(rng.uniform(0.15, 0.45))
        r = await api.post(f"/rooms/{room}/racers/{racer}/moves", headers=_bearer(token),
                           json={"move": str(move), "expected_version": game["version"],
                                 "client_move_id": f"m{n}"})
        assert r.status_code == 200, r.text
    r = await api.post(f"/rooms/{room}/racers/{racer}/resign", headers=_bearer(token))
    assert r.status_code in (200, 409), r.text


async def _race(api: httpx.AsyncClient, deal: int, players: dict[str, tuple[str, Chooser]],
                seed: int) -> str:
    made = (await api.post("/rooms", json={"deal": deal, "countdown_s": 0,
                                           "time_limit_s": 600})).json()
    room, host = made["room"]["id"], made["host_token"]
    seats = {}
    for name, (key, _) in players.items():
        got = await api.post(f"/rooms/{room}/racers", json={}, headers=_bearer(key))
        assert got.status_code == 201, got.text
        seats[name] = got.json()
    assert (await api.post(f"/rooms/{room}/start", headers=_bearer(host))).status_code == 200
    await asyncio.gather(*(
        _play(api, room, seats[name]["racer"]["id"], seats[name]["token"], choose,
              random.Random(f"{seed}:{name}"))
        for name, (_, choose) in players.items()))
    return str(room)


async def _until(fetch: Callable[[], Any], ready: Callable[[Any], bool],
                 timeout_s: float = 90) -> Any:
    deadline = time.monotonic() + timeout_s
    got = await fetch()
    while not ready(got) and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        got = await fetch()
    return got


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return str(server_factory(LUCIE_MODERATOR_TOKEN=MODERATOR, LUCIE_FAIR_PLAY_MIN_RACES="3",
                              LUCIE_METRICS_TOKEN=METRICS_TOKEN,
                              LUCIE_ARCHIVE_PERIOD_S="0.2",
                              LUCIE_FAIR_PLAY_CONTACT="fairplay@example.org"))


async def test_a_solver_script_reaches_the_queue_and_a_verdict_refunds_its_victim(
        url: str) -> None:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=30) as api:
        made = {name: (await api.post("/players", json={"name": name})).json()
                for name in ("Sly Solver", "Honest Hal")}
        cheat, victim = made["Sly Solver"]["player"], made["Honest Hal"]["player"]
        keys = {name: m["key"] for name, m in made.items()}
        players = {"Sly Solver": (keys["Sly Solver"], _cheat),
                   "Honest Hal": (keys["Honest Hal"], _honest(Style.for_name("hal")))}
        for i, deal in enumerate(DEALS):
            await _race(api, deal, players, i)

        mod = _bearer(TOKEN)
        assert (await api.get("/moderation/queue")).status_code == 401
        bad = await api.post(f"/moderation/players/{cheat['id']}/verdict", json={"x": 1})
        assert bad.status_code == 401, bad.text  # the token before the body
        assert (await api.get("/moderation/queue", headers=_bearer("x" * 32))).status_code \
            == 403

        async def queue() -> list[dict[str, Any]]:
            got = await api.get("/moderation/queue", headers=mod)
            assert got.status_code == 200, got.text
            return got.json()["queue"]  # type: ignore[no-any-return]

        listed = await _until(queue, lambda q: any(e["player"]["id"] == cheat["id"]
                                                   for e in q))
        entry = next(e for e in listed if e["player"]["id"] == cheat["id"])
        assert entry["verdict"] in ("review", "likely_assisted") and entry["races_read"] == 3
        assert len(entry["races"]) == 3 and entry["races"][0]["links"]["replay"]
        # the honest player is assessed too, and never listed
        hal = await api.get(f"/moderation/players/{victim['id']}", headers=mod)
        assert hal.status_code == 200 and hal.json()["judgement"]["verdict"] == "clean"
        assert len(hal.json()["races"]) == 3
        assert all(e["player"]["id"] != victim["id"] for e in listed)
        scraped = (await api.get(url + "/metrics", headers={
            "Authorization": f"Bearer {METRICS_TOKEN}"})).text
        assert 'lucie_racers_assessed_total{verdict="clean"}' in scraped
        # flags are never shown to other players: the public profile says nothing
        assert (await api.get(f"/players/{cheat['id']}")).json()["fair_play"] is None

        rating_before = (await api.get(f"/players/{victim['id']}")).json()["variants"][0]
        assert rating_before["rating"]["rated_races"] == 3
        board = (await api.get("/leaderboards/belle-lucie/all-time",
                               params={"limit": 100})).json()
        assert any(row["name"] == "Sly Solver" for row in board["rows"])

        r = await api.post(f"/moderation/players/{cheat['id']}/verdict", headers=mod,
                           json={"verdict": "assisted", "note": "the solver's line, 3 races"})
        assert r.status_code == 200, r.text
        done = r.json()
        assert (done["moderator"], done["races_removed"]) == ("alice", 3)
        assert victim["id"] in done["refunded"]
        # the victim raced only the cheat: their rating is a new player's again
        after = (await api.get(f"/players/{victim['id']}")).json()["variants"][0]
        assert after["rating"]["rated_races"] == 0 and after["rating"]["mu"] == 25.0
        assert after["races"] == rating_before["races"]  # the races stay in the history
        board = (await api.get("/leaderboards/belle-lucie/all-time",
                               params={"limit": 100})).json()
        assert all(row["name"] != "Sly Solver" for row in board["rows"])
        rating_board = (await api.get("/leaderboards/belle-lucie/rating")).json()
        assert all(e["player"]["id"] != cheat["id"] for e in rating_board["entries"])
        # the cheat's own profile says so (with their key); others see nothing
        own = (await api.get(f"/players/{cheat['id']}",
                             headers=_bearer(keys["Sly Solver"]))).json()["fair_play"]
        assert own["verdict"] == "assisted" and not own["rated"]
        assert own["appeal"] == "fairplay@example.org"
        assert (await api.get(f"/players/{cheat['id']}",
                              headers=_bearer(keys["Honest Hal"]))).json()["fair_play"] is None
        assert all(e["player"]["id"] != cheat["id"] for e in await queue())
        history = (await api.get(f"/moderation/players/{cheat['id']}", headers=mod)).json()
        assert history["fair_play"] == "assisted"
        assert [v["moderator"] for v in history["verdicts"]] == ["alice"]

        # from now on the cheat races unrated: the victim's rating does not move
        await _race(api, DEALS[0], players, 9)
        await asyncio.sleep(1.0)  # archived by then (period 0.2 s)
        later = (await api.get(f"/players/{victim['id']}")).json()["variants"][0]
        assert later["races"] == after["races"] + 1
        assert later["rating"] == after["rating"]


async def test_moderation_is_off_without_a_token(server_factory: ServerFactory) -> None:
    url = server_factory()
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as api:
        for method, path in (("GET", "/moderation/queue"),
                             ("POST", "/moderation/players/x/verdict")):
            # whatever the body: the route does not show it exists
            for body in ({"verdict": "cleared", "note": "x"}, {"verdict": "bad"}, None):
                r = await api.request(method, path, headers=_bearer(TOKEN),
                                      json=body if method == "POST" else None)
                assert r.status_code == 404, r.text
                assert r.json()["error"]["code"] == "request/not_found"
