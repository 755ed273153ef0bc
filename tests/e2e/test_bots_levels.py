"""Must show (issue 38), against a real ``lucie-server``: a room with computer
racers of the three levels races to the end; the room, its events and the
standings name each bot's level and rating; a bot with no move left is
``stuck``, never ``resigned``; the race stays unrated for the person who raced
them; a lone quick racer's bots match a player's rating band, a mix otherwise.

The bots think in units of ``LUCIE_BOT_THINK_MS`` (20 ms here, 1,600 ms by
default: docs/protocol.md, "Computer racers")."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from server.solver.levels import RATINGS
from tests.conftest import ServerFactory

from .wire import Api, open_socket, recv_until

pytestmark = pytest.mark.timeout(120)

LEVELS = ("novice", "club", "expert")


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return str(server_factory(LUCIE_BOT_THINK_MS="20", LUCIE_ARCHIVE_PERIOD_S="0.2",
                              LUCIE_QUICK_FILL_S="1", LUCIE_QUICK_WAIT_S="1"))


async def _until(fetch: Any, ready: Any, timeout: float = 60) -> Any:
    async with asyncio.timeout(timeout):
        while not ready(got := await fetch()):
            await asyncio.sleep(0.2)
    return got


async def test_bots_of_three_levels_race_to_the_end_stuck_not_resigned(url: str) -> None:
    api = Api(url)
    try:
        made = (await api.http.post("/players", json={"name": "Lone Lou"})).json()
        key = made["key"]
        room, host = await api.create(bots=list(LEVELS), countdown_s=0, time_limit_s=600,
                                      visibility="private")
        assert [(r["name"], r["bot_level"], r["bot_rating"]) for r in room["racers"]] == [
            ("bot-Ada", "novice", RATINGS["novice"]), ("bot-Bix", "club", RATINGS["club"]),
            ("bot-Cog", "expert", RATINGS["expert"])]
        lou = await api.http.post(f"/rooms/{room['code']}/racers", json={},
                                  headers={"Authorization": f"Bearer {key}"})
        assert lou.status_code == 201, lou.text
        lou_id, lou_token = lou.json()["racer"]["id"], lou.json()["token"]
        async with open_socket(url, room["code"], lou_token) as ws:
            await api.start(room["code"], host)
            await api.http.post(f"/rooms/{room['code']}/racers/{lou_id}/resign",
                                headers={"Authorization": f"Bearer {lou_token}"})
            async with asyncio.timeout(90):
                over = await recv_until(ws, "event", type_="race_over")
        finished = {}
        async with open_socket(url, room["code"], lou_token, since=0) as ws:  # the room's log
            async with asyncio.timeout(10):
                while len(finished) < 4:
                    msg = await recv_until(ws, "event", type_="finished")
                    finished[msg["d"]["racer"]] = msg["d"]["status"]
        standings = (await api.get(f"/rooms/{room['code']}/standings"))["standings"]
        def rows(table: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
            return [(s["name"], s["status"], s["bot_level"], s["bot_rating"]) for s in table]
        assert rows(over["d"]["standings"]) == rows(standings)  # to_par: once par is known
        bots = {s["name"]: s for s in standings if s["racer"] != lou_id}
        assert {n: (s["bot_level"], s["bot_rating"]) for n, s in bots.items()} == {
            "bot-Ada": ("novice", RATINGS["novice"]), "bot-Bix": ("club", RATINGS["club"]),
            "bot-Cog": ("expert", RATINGS["expert"])}
        for s in bots.values():  # each played until it won or had no move left
            assert s["final"] and s["status"] in ("won", "stuck"), s
            assert finished[s["racer"]] == s["status"]
        # all three winning one deal: about 1 in 10,000 (python -m bench bots: wins per level)
        assert "stuck" in {s["status"] for s in bots.values()}
        assert "resigned" not in {st for r, st in finished.items() if r != lou_id}
        race = await api.get(f"/races/{room['code']}")
        assert {r["name"]: r["status"] for r in race["racers"]} == {
            **{n: s["status"] for n, s in bots.items()}, "Lone Lou": "resigned"}

        # the race counts for Lou's history, never for a rating: bots are nobody to rate against
        async def profile() -> dict[str, Any]:
            got: dict[str, Any] = await api.get(f"/players/{made['player']['id']}")
            return got
        figures = await _until(profile, lambda p: p["races"] == 1)
        (variant,) = figures["variants"]
        assert variant["rating"]["rated_races"] == 0
        points = await api.get(f"/players/{made['player']['id']}/ratings/belle-lucie")
        assert points["points"] == []
    finally:
        await api.aclose()


async def test_a_lone_quick_racers_bots_match_a_players_band_or_mix(url: str) -> None:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        made = (await http.post("/players", json={"name": "Quick Newcomer"})).json()
        mine = await http.post("/quick", json={"variant": "no-redeal"},
                               headers={"Authorization": f"Bearer {made['key']}"})
        assert mine.status_code == 201 and mine.json()["room"]["quick"]["band"] == 0

        async def seated(room: str) -> list[dict[str, Any]]:
            async def racers() -> list[dict[str, Any]]:
                return list((await http.get(f"/rooms/{room}")).json()["racers"])
            return await _until(racers, lambda rs: len(rs) == 4, timeout=20)

        racers = await seated(mine.json()["room"]["id"])
        # a player new to the variant has rating 0 (band 0): the nearest level, novice
        assert [r["bot_level"] for r in racers[1:]] == ["novice"] * 3
        anon = await http.post("/quick", json={"variant": "fan-with-reserve", "name": "anon"})
        racers = await seated(anon.json()["room"]["id"])
        assert [r["bot_level"] for r in racers[1:]] == list(LEVELS)  # anonymous: a mix
