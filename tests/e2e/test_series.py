"""A series of races end to end (issue 21, item 3): a real ``lucie-server``
process, three bots (``client_cli.bot``, over the socket) racing a 3-race
series to its end — every next room made by the server, the bots following
the ``rematch`` links — and ``GET /series/{id}`` matching the rule of
docs/protocol.md "Series" computed here from each room's final standings.
Plus the REST checks: 422 out of range, 404 for no series, the table's links."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client_cli.bot import run_bot

from .wire import Api, open_socket, recv, recv_until

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory())


def expected_table(standings: list[list[dict[str, Any]]],
                   first: list[dict[str, Any]]) -> list[tuple[int, str, int, int]]:
    """docs/protocol.md "Series", rule by rule: sums of cards and reach times over
    the races (absent: 0 and 0), more cards first, then less time, ties share a
    rank and keep the first race's join order."""
    totals: dict[str, tuple[int, int]] = {}
    for racer in first:
        cards = time = 0
        for table in standings:
            row = next((s for s in table if s["racer"] == racer["id"]), None)
            if row is not None:
                cards += row["foundation_cards"]
                time += row["reach_time_ms"] or 0
        totals[racer["id"]] = (cards, time)
    order = sorted((r["id"] for r in first),
                   key=lambda rid: (-totals[rid][0], totals[rid][1],
                                    next(r["join_order"] for r in first if r["id"] == rid)))
    out: list[tuple[int, str, int, int]] = []
    for i, rid in enumerate(order):
        rank = out[-1][0] if out and totals[out[-1][1]] == totals[rid] else i + 1
        out.append((rank, rid, *totals[rid]))
    return out


async def test_three_bots_race_a_three_race_series(url: str) -> None:
    api = Api(url)
    try:
        room, host = await api.create(countdown_s=0, time_limit_s=120, visibility="private",
                                      undo=False, series={"races": 3, "break_s": 0})
        assert room["series"] == {"id": room["id"], "race": 1, "races": 3}
        names = ["bot-Ada", "bot-Bix", "bot-Cog"]
        async with open_socket(url, room["id"]) as spectator:
            assert (await recv(spectator))["t"] == "welcome"
            bots = [asyncio.create_task(run_bot(url, room["code"], n, think_s=0, seed=i))
                    for i, n in enumerate(names)]
            while len((await api.get(f"/rooms/{room['id']}"))["racers"]) < 3:
                await asyncio.sleep(0.05)
            first = (await api.get(f"/rooms/{room['id']}"))["racers"]
            # the bots say ready and the race starts by itself (countdown 0): quick
            # bots may even have raced it to its end before the host's start
            started = await api.http.post(f"/rooms/{room['id']}/start",
                                          headers={"Authorization": f"Bearer {host}"})
            assert started.status_code == 200 or \
                started.json()["error"]["code"] == "room/over", started.text
            event = (await recv_until(spectator, "event", type_="rematch"))["d"]
            assert event["series"] == {"id": room["id"], "race": 2, "races": 3}
        results = await asyncio.wait_for(asyncio.gather(*bots), 90)
        assert all(r.status in ("won", "stuck", "resigned") for r in results)
        view = await api.get(f"/series/{room['code']}")
        assert view["state"] == "over" and view["final"] and view["played"] == 3
        rooms = [r["room"] for r in view["rooms"]]
        assert rooms[0] == room["id"] and None not in rooms and len(set(rooms)) == 3
        assert [r["race"] for r in view["rooms"]] == [1, 2, 3]
        deals, tables = set(), []
        for k, rid in enumerate(rooms, 1):
            info = await api.get(f"/rooms/{rid}")
            assert info["series"] == {"id": room["id"], "race": k, "races": 3}
            assert sorted(r["id"] for r in info["racers"]) == sorted(r["id"] for r in first)
            assert info["state"] == "over"
            deals.add(info["deal_number"])
            table = await api.get(f"/rooms/{rid}/standings")
            assert table["final"]
            tables.append(table["standings"])
        assert len(deals) == 3  # three deals
        got = [(r["rank"], r["racer"], r["foundation_cards"], r["time_ms"])
               for r in view["table"]]
        assert got == expected_table(tables, first)
        for row in view["table"]:
            assert len(row["races"]) == 3 and not row["left"]
            for k, score in enumerate(row["races"]):
                line = next(s for s in tables[k] if s["racer"] == row["racer"])
                assert score == {"foundation_cards": line["foundation_cards"],
                                 "time_ms": line["reach_time_ms"] or 0,
                                 "status": line["status"]}
        # the same table from any room of the series, and the last room has no next
        assert await api.get(f"/series/{rooms[2]}") == view
        assert (await api.get(f"/rooms/{rooms[2]}"))["rematch"] is None
    finally:
        await api.aclose()


async def test_series_refusals(url: str) -> None:
    api = Api(url)
    try:
        for races in (1, 10, "3"):
            r = await api.http.post("/rooms", json={"series": {"races": races}})
            assert r.status_code == 422 and r.json()["error"]["code"] == "request/invalid"
        r = await api.http.post("/rooms", json={"series": {"races": 3, "break_s": 301}})
        assert r.status_code == 422
        r = await api.http.post("/rooms", json={"series": {"races": 3, "extra": 1}})
        assert r.status_code == 422
        single, _ = await api.create()
        assert single["series"] is None
        for ref in (single["id"], "ZZZZZZ"):
            r = await api.http.get(f"/series/{ref}")
            assert r.status_code == 404 and r.json()["error"]["code"] == "series/not_found"
    finally:
        await api.aclose()
