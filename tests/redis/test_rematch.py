"""Rematch across two ``lucie-server`` processes on one Redis (issue 21, item 2):
every racer offers at once, half to each process — exactly one next room, all
of them in it, one ``rematch`` event, seen by a socket on the other process."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.wire import Api, open_socket, recv, recv_until

from .cluster import Cluster

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]


@pytest.fixture(scope="module")
def duo() -> Iterator[Cluster]:
    cluster = Cluster(2)
    yield cluster
    cluster.stop()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_concurrent_offers_on_two_processes_make_one_room(duo: Cluster) -> None:
    apis = [Api(u) for u in duo.urls]
    try:
        for round_ in range(3):
            room, host = await apis[0].create(countdown_s=0, visibility="public", capacity=9)
            racers = [await apis[i % 2].join(room["code"], f"r{i}") for i in range(8)]
            await apis[1].start(room["id"], host)
            for i, (racer, token) in enumerate(racers):
                r = await apis[i % 2].http.post(
                    f"/rooms/{room['id']}/racers/{racer}/resign", headers=_auth(token))
                assert r.status_code == 200, r.text
            async with open_socket(duo.urls[1], room["id"]) as spectator:
                assert (await recv(spectator))["t"] == "welcome"
                answers = await asyncio.gather(*(
                    apis[i % 2].http.post(f"/rooms/{room['code']}/rematch",
                                          headers=_auth(token))
                    for i, (_, token) in enumerate(racers)))
                assert [a.status_code for a in answers] == [201] * 8, \
                    [a.text for a in answers if a.status_code != 201]
                made: list[dict[str, Any]] = [a.json() for a in answers]
                assert len({m["room"]["id"] for m in made}) == 1, round_
                new = made[0]["room"]
                event = (await recv_until(spectator, "event", type_="rematch"))["d"]
                assert event["rematch"]["room"] == new["id"]
            assert [m["host_token"] is not None for m in made].count(True) == 1
            for api in apis:  # both processes see one room holding everyone
                view = await api.get(f"/rooms/{new['id']}")
                assert sorted(r["id"] for r in view["racers"]) == sorted(r for r, _ in racers)
                assert (await api.get(f"/rooms/{room['id']}"))["rematch"]["room"] == new["id"]
            # the lobby lists the winner only: the discarded rooms are gone
            for api in apis:
                listed = [r["id"] for r in (await api.get("/rooms"))["rooms"]
                          if r["rematch_of"] and r["rematch_of"]["room"] == room["id"]]
                assert listed == [new["id"]]
    finally:
        for api in apis:
            await api.aclose()
