"""Quick race against a real ``lucie-server`` (docs/protocol.md, "Quick race"):
six callers land in one room that starts by itself, a lone caller gets computer
racers, a player races as the player, bad input gets its registry code. Each
test uses its own variant, so their lobbies never mix."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.conftest import ServerFactory

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_QUICK_WAIT_S="1", LUCIE_QUICK_FILL_S="1.5",
                          LUCIE_BOT_THINK_MS="20")


async def _quick(http: httpx.AsyncClient, variant: str, name: str | None,
                 key: str | None = None) -> dict[str, Any]:
    body = {"variant": variant} if name is None else {"variant": variant, "name": name}
    got = await http.post("/quick", json=body,
                          headers={"Authorization": f"Bearer {key}"} if key else None)
    assert got.status_code == 201, got.text
    return got.json()  # type: ignore[no-any-return]


async def _state(http: httpx.AsyncClient, room: str, want: set[str],
                 timeout: float = 10) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            view: dict[str, Any] = (await http.get(f"/rooms/{room}")).json()
            if view["state"] in want:
                return view
            await asyncio.sleep(0.05)


async def test_six_quick_race_callers_land_in_one_room_that_starts_by_itself(url: str) -> None:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        seats = await asyncio.gather(*(_quick(http, "belle-lucie", f"racer {i}")
                                       for i in range(6)))
        rooms = {s["room"]["id"] for s in seats}
        assert len(rooms) == 1
        assert len({s["racer"]["id"] for s in seats}) == 6
        (room,) = rooms
        started = await _state(http, room, {"countdown", "racing"}, timeout=2)
        assert len(started["racers"]) == 6 and started["capacity"] == 6
        assert started["time_limit_ms"] == 600_000 and started["quick"] is None
        racing = await _state(http, room, {"racing"}, timeout=6)
        assert racing["deal_number"] is not None
        # the racer reads its own board with its token, like any joiner
        mine = seats[0]
        game = await http.get(f"/rooms/{room}/racers/{mine['racer']['id']}/game",
                              headers={"Authorization": f"Bearer {mine['token']}"})
        assert game.status_code == 200 and game.json()["status"] == "playing"
        nxt = await _quick(http, "belle-lucie", "racer 7")
        assert nxt["room"]["id"] != room and nxt["room"]["state"] == "waiting"


async def test_two_callers_start_after_the_wait_and_a_lone_one_gets_bots(url: str) -> None:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        first = await _quick(http, "trefoil", "ann")
        assert first["room"]["quick"]["bots_in_ms"] > 0
        second = await _quick(http, "trefoil", "bob")
        assert second["room"]["id"] == first["room"]["id"]
        assert 0 < second["room"]["quick"]["starts_in_ms"] <= 1000
        view = await _state(http, first["room"]["id"], {"countdown", "racing"}, timeout=3)
        assert [r["name"] for r in view["racers"]] == ["ann", "bob"]

        lone = await _quick(http, "trefoil", "cy")
        assert lone["room"]["id"] != first["room"]["id"]
        view = await _state(http, lone["room"]["id"], {"countdown", "racing"}, timeout=5)
        assert [r["name"] for r in view["racers"]] == ["cy", "bot-Ada", "bot-Bix", "bot-Cog"]
        racing = await _state(http, lone["room"]["id"], {"racing"}, timeout=6)
        assert racing["state"] == "racing"


async def test_a_player_races_as_the_player_and_bad_calls_get_their_codes(url: str) -> None:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        made = (await http.post("/players", json={"name": "Quick Quinn"})).json()
        joined = await _quick(http, "shamrocks", None, key=made["key"])
        assert joined["racer"]["name"] == "Quick Quinn"
        assert joined["racer"]["player"] == made["player"]["id"]
        assert joined["room"]["quick"]["band"] == 0  # no rated race yet: rating 0
        again = await http.post("/quick", json={"variant": "shamrocks"},
                                headers={"Authorization": f"Bearer {made['key']}"})
        assert again.status_code == 409 and again.json()["error"]["code"] == "racer/name_taken"
        anon = await _quick(http, "shamrocks", "Quick Quinn")  # an anonymous namesake
        assert anon["room"]["id"] == joined["room"]["id"]
        assert anon["racer"]["name"] == "Quick Quinn 2" and anon["racer"]["player"] is None

        unknown = await http.post("/quick", json={"variant": "no-such", "name": "x"})
        assert (unknown.status_code, unknown.json()["error"]["details"]) == (
            400, {"field": "variant"})  # as POST /rooms answers it
        for body, status in (({"variant": "no-such"}, 400), ({"name": "x"}, 422),
                             ({"variant": "trefoil"}, 400),
                             ({"variant": "trefoil", "name": "x", "extra": 1}, 422)):
            got = await http.post("/quick", json=body)
            assert got.status_code == status, (body, got.text)
            assert got.json()["error"]["code"] == "request/invalid"
        bad = await http.post("/quick", json={"variant": "trefoil"},
                              headers={"Authorization": "Bearer lpk_nobody"})
        assert bad.status_code == 403 and bad.json()["error"]["code"] == "player/invalid_key"
        listed = (await http.get("/rooms")).json()["rooms"]
        assert joined["room"]["id"] in [r["id"] for r in listed]  # public, like any lobby
