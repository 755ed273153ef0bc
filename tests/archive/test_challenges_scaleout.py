"""Challenges and duels on the scaled-out deployment (issue 35): two
``lucie-server`` processes on one Redis and one PostgreSQL.

- The duel across time (``tests/e2e/challenge_flow.duel_scenario``) with Ada
  on one process and Bob and Carol on the other, the clock of challenges
  moved by the shared offset file.
- kill -9 while duels settle: a dozen duels whose second attempts end at
  once on both processes, one process killed -9 right after — every duel is
  settled exactly once (its race archived once, one rating point per
  player, two notifications, and — each a draw, both resigned at once — one
  tie-break), by whichever process got there.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from tests.e2e.challenge_flow import bearer, duel_scenario, new_player, seen_by, until
from tests.redis.cluster import Cluster

from .conftest import reset_pg

DUELS = 12


def _cluster(pg_database: str, offset: Path) -> Cluster:
    return Cluster(2, LUCIE_DATABASE_URL=pg_database, LUCIE_ARCHIVE_PERIOD_S="0.1",
                   LUCIE_ARCHIVE_LEASE_S="1", LUCIE_CHALLENGE_PERIOD_S="0.1",
                   LUCIE_CLOCK_OFFSET_FILE=str(offset), LUCIE_DUEL_BAND_WIDTH="2")


def test_a_duel_across_time_on_two_processes(pg_database: str, tmp_path: Path) -> None:
    asyncio.run(reset_pg(pg_database))
    offset = tmp_path / "clock-offset"
    cluster = _cluster(pg_database, offset)
    try:
        duel_scenario((cluster.urls[0], cluster.urls[1]), offset, 2.0)
    finally:
        cluster.stop()


def _all_ready(api: httpx.Client, seats: list[dict[str, Any]]) -> None:
    """Ready every attempt, then wait for every start (one countdown for all)."""
    for joined in seats:
        path = f"/api/v1/rooms/{joined['room']['id']}/racers/{joined['racer']['id']}"
        assert api.post(path + "/ready", json={"ready": True},
                        headers=bearer(joined["token"])).status_code == 200
    for joined in seats:
        path = f"/api/v1/rooms/{joined['room']['id']}/racers/{joined['racer']['id']}"
        got = until(lambda p=path, j=joined: api.get(p + "/game", headers=bearer(j["token"])),
                    lambda r: r.status_code == 200 and bool(r.json()["legal_moves"]))
        assert got.status_code == 200, got.text


def _resign(api: httpx.Client, joined: dict[str, Any]) -> None:
    path = f"/api/v1/rooms/{joined['room']['id']}/racers/{joined['racer']['id']}"
    assert api.post(path + "/resign", headers=bearer(joined["token"])).status_code == 200


async def _counts(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url, timeout=3)
    try:
        return {
            "states": dict((r["state"], r["n"]) for r in await conn.fetch(
                "SELECT state, count(*) AS n FROM challenges WHERE kind = 'rated' "
                "GROUP BY state")),
            "tiebreaks": dict((r["state"], r["n"]) for r in await conn.fetch(
                "SELECT state, count(*) AS n FROM challenges WHERE kind = 'tiebreak' "
                "GROUP BY state")),
            "duel_races": int(await conn.fetchval(
                "SELECT count(*) FROM races WHERE race_id LIKE 'duel-%'")),
            "points": [r["n"] for r in await conn.fetch(
                "SELECT count(*) AS n FROM rating_history GROUP BY player_id")],
            "notes": [r["n"] for r in await conn.fetch(
                "SELECT count(*) AS n FROM notifications GROUP BY challenge_id")],
        }
    finally:
        await conn.close()


def test_kill_9_while_duels_settle_settles_each_once(pg_database: str, tmp_path: Path) -> None:
    asyncio.run(reset_pg(pg_database))
    cluster = _cluster(pg_database, tmp_path / "clock-offset")
    try:
        victim, survivor = cluster.urls
        with httpx.Client(base_url=victim, timeout=10) as a, \
                httpx.Client(base_url=survivor, timeout=10) as b:
            creators = [new_player(b, f"Cre{i}") for i in range(DUELS)]
            takers = [new_player(b, f"Tak{i}") for i in range(DUELS)]
            opened = [(a if i % 2 else b).post("/api/v1/duels", json={"variant": "belle-lucie"},
                                               headers=key).json()
                      for i, (_, key) in enumerate(creators)]
            assert [o["matched"] for o in opened] == [False] * DUELS
            _all_ready(b, opened)
            for joined in opened:
                _resign(b, joined)
            for o, (_, key) in zip(opened, creators, strict=True):
                until(lambda o=o, k=key: seen_by(b, o["challenge"]["id"], k),
                      lambda v: v["you"]["finished"])
            taken = [(a if i % 2 else b).post("/api/v1/duels", json={"variant": "belle-lucie"},
                                              headers=key).json()
                     for i, (_, key) in enumerate(takers)]
            assert all(t["matched"] for t in taken)
            assert sorted(t["challenge"]["id"] for t in taken) == sorted(
                o["challenge"]["id"] for o in opened)
            _all_ready(b, taken)
            for joined in taken:  # the second results: archived and settled at once
                _resign(b, joined)
            time.sleep(0.15)  # about one archiver and settler period: some under way
            cluster.kill(0)
            deadline = time.monotonic() + 60
            while True:
                counts = asyncio.run(_counts(pg_database))
                if counts["states"].get("settled") == DUELS or time.monotonic() > deadline:
                    break
                time.sleep(0.3)
            assert counts["states"] == {"settled": DUELS}
            assert counts["tiebreaks"] == {"open": DUELS}  # each a draw: one tie-break each
            assert counts["duel_races"] == DUELS
            assert sorted(counts["points"]) == [1] * (2 * DUELS)  # rated once each
            assert sorted(counts["notes"]) == [2] * DUELS  # told once each
            for player, _ in creators + takers:
                points = b.get(f"/api/v1/players/{player['id']}/ratings/belle-lucie").json()
                assert len(points["points"]) == 1
    finally:
        cluster.stop()
