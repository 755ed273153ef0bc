"""Server-run bots in a Redis deployment: the process that created the room runs
them (docs/protocol.md, "Computer racers"). When it stops (SIGTERM) they resign, so
the race ends without them; when it dies nobody adopts them, and the room's time
limit ends their race like any silent racer's."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import pytest

from tests.e2e.wire import Api

from .cluster import Cluster

pytestmark = [pytest.mark.redis, pytest.mark.timeout(90)]

BOT_THINK_MS = "100"
"""The bots' think-time unit in the process that runs them (issue 38 made the
default a person's pace, 1.6 s and longer reading a layout: both bots' first
moves could take most of the 10 s time limit this test races against)."""


def _bots(room: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in room["racers"] if r["name"].startswith("bot-")]


async def test_bots_stop_with_their_process_and_time_out_at_the_limit(trio: Cluster) -> None:
    bots_url = trio.add(LUCIE_BOT_THINK_MS=BOT_THINK_MS)
    other = Api(trio.urls[0])
    owner = Api(bots_url)
    try:
        room, host = await owner.create(bots=2, countdown_s=0, time_limit_s=10,
                                        visibility="private")
        ann, token = await other.join(room["code"], "ann")
        await other.start(room["code"], host)  # another process serves the room too

        async def moved() -> dict[str, Any]:
            async with asyncio.timeout(15):
                while True:
                    seen = await other.get(f"/rooms/{room['code']}")
                    if all(b["moves"] > 0 for b in _bots(seen)):
                        return seen  # type: ignore[no-any-return]
                    await asyncio.sleep(0.1)

        await moved()
        trio.kill(trio.urls.index(bots_url))  # kill -9: no resignation, no hand-over
        await asyncio.sleep(0.5)
        at_death = {b["id"]: b["moves"] for b in _bots(await other.get(f"/rooms/{room['code']}"))}
        await asyncio.sleep(2.5)  # the other processes do not run them
        later = await other.get(f"/rooms/{room['code']}")
        assert {b["id"]: b["moves"] for b in _bots(later)} == at_death
        assert later["state"] == "racing" and not any(b["final"] for b in _bots(later))
        r = await other.http.post(f"/rooms/{room['code']}/racers/{ann}/resign",
                                  headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        async with asyncio.timeout(20):  # the time limit ends their race, with their cards
            while (over := await other.get(f"/rooms/{room['code']}"))["state"] != "over":
                await asyncio.sleep(0.2)
        for bot in _bots(over):
            assert bot["status"] == "timed_out" and bot["finished_ms"] == 10_000, bot
            assert bot["moves"] == at_death[bot["id"]]
    finally:
        await other.aclose()
        await owner.aclose()
        trio.kill(trio.urls.index(bots_url))


async def test_bots_resign_when_their_process_stops(trio: Cluster) -> None:
    bots_url = trio.add(LUCIE_BOT_THINK_MS=BOT_THINK_MS)
    other = Api(trio.urls[0])
    owner = Api(bots_url)
    try:
        room, host = await owner.create(bots=2, countdown_s=0, time_limit_s=600,
                                        visibility="private")
        ann, token = await other.join(room["code"], "ann")
        await other.start(room["code"], host)
        doomed = trio.procs[trio.urls.index(bots_url)]
        doomed.send_signal(signal.SIGTERM)  # a clean stop (a deploy, a scale-in)
        doomed.wait(20)
        after = await other.get(f"/rooms/{room['code']}")
        assert [(b["status"], b["final"]) for b in _bots(after)] == [("resigned", True)] * 2
        assert after["state"] == "racing"  # ann races on; her result ends the race
        r = await other.http.post(f"/rooms/{room['code']}/racers/{ann}/resign",
                                  headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        assert (await other.get(f"/rooms/{room['code']}"))["state"] == "over"
    finally:
        await other.aclose()
        await owner.aclose()
        trio.kill(trio.urls.index(bots_url))
