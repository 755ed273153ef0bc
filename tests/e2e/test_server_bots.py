"""End to end against a real ``lucie-server``: the computer racers a room is created
with (``"bots": N``, docs/protocol.md) are run by the server, so they race to the end
after the client that created the room is gone."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from .wire import Api

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory(LUCIE_BOT_THINK_MS="20", LUCIE_MAX_BOTS="5"))


async def _until_over(url: str, code: str, timeout: float = 60) -> dict[str, Any]:
    """The room once its race is over, read by a client that never took part."""
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        async with asyncio.timeout(timeout):
            while True:
                room: dict[str, Any] = (await http.get(f"/rooms/{code}")).json()
                if room["state"] == "over":
                    return room
                await asyncio.sleep(0.2)


async def test_bots_finish_the_race_after_their_creator_is_gone(url: str) -> None:
    creator = Api(url)
    room, host = await creator.create(bots=3, countdown_s=0, time_limit_s=600,
                                      visibility="private")
    assert [r["name"] for r in room["racers"]] == ["bot-Ada", "bot-Bix", "bot-Cog"]
    ann, token = await creator.join(room["code"], "ann")
    assert (await creator.start(room["code"], host))["state"] == "racing"
    r = await creator.http.post(f"/rooms/{room['code']}/racers/{ann}/resign",
                                headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    await creator.aclose()  # the creator (host and racer) is gone

    over = await _until_over(url, room["code"])
    bots = [r for r in over["racers"] if r["name"].startswith("bot-")]
    assert len(bots) == 3
    for bot in bots:  # each played its own game to a final result, well before the limit
        assert bot["final"] and bot["status"] in ("won", "stuck"), bot
        assert bot["moves"] > 0 and bot["finished_ms"] < over["time_limit_ms"]
    async with httpx.AsyncClient(base_url=url + "/api/v1") as http:
        standings = (await http.get(f"/rooms/{room['code']}/standings")).json()
    assert standings["final"] and len(standings["standings"]) == 4


async def test_the_bots_option_is_checked_and_bounded(url: str) -> None:
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        r = await http.post("/rooms", json={"bots": 2, "capacity": 2})
        assert r.status_code == 400 and r.json()["error"]["code"] == "request/invalid"
        assert r.json()["error"]["details"] == {"field": "bots"}
        r = await http.post("/rooms", json={"bots": 64})
        assert r.status_code == 422
        held = await http.post("/rooms", json={"bots": 5, "visibility": "private"})
        assert held.status_code == 201  # LUCIE_MAX_BOTS=5 now run in this process
        r = await http.post("/rooms", json={"bots": 1, "visibility": "private"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "server/full"
        assert int(r.headers["retry-after"]) >= 1
        code, token = held.json()["room"]["code"], held.json()["host_token"]
        closed = await http.post(f"/rooms/{code}/close",
                                 headers={"Authorization": f"Bearer {token}"})
        assert closed.status_code == 200

        async def room_with_one_bot() -> int:
            return (await http.post("/rooms", json={"bots": 1,
                                                    "visibility": "private"})).status_code

        async with asyncio.timeout(10):  # the closed room's bots stop: seats free again
            while (status := await room_with_one_bot()) == 503:
                await asyncio.sleep(0.2)
        assert status == 201


def test_each_bot_costs_its_creator_a_join(server_factory: Any) -> None:
    """One address cannot seat the server's bots faster than it could join
    rooms itself: each bot of a new room spends a join of its budget."""
    url = server_factory(LUCIE_JOIN_PER_MIN="1", LUCIE_JOIN_BURST="6")
    with httpx.Client(base_url=url + "/api/v1", timeout=10) as http:
        first = http.post("/rooms", json={"bots": 5, "capacity": 8})
        assert first.status_code == 201, first.text
        second = http.post("/rooms", json={"bots": 5, "capacity": 8})
        assert second.status_code == 429 and second.json()["error"]["code"] == "rate/limited"
        assert http.post("/rooms", json={"capacity": 8}).status_code == 201  # no bots: fine
