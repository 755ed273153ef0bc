"""The costly-read attack of issue 33, re-run on a real ``lucie-server`` process:
4 clients hammer the comparison of two long finished games while a probe reads
``GET /rooms``. Every comparison after the first is the kept answer (the
process's cache counters say so), byte for byte; every probe is answered.
Latency targets live in the benchmark (``python -m bench reads``)."""

from __future__ import annotations

import asyncio
import os
import re
import time

import httpx
import pytest

from bench.reads import _fill
from tests.conftest import ServerFactory

pytestmark = pytest.mark.timeout(120)

ENTRIES = 2_000
METRICS_TOKEN = f"metrics-{os.urandom(12).hex()}"


def _counter(text: str, result: str) -> float:
    found = re.search(rf'lucie_read_cache_total{{kind="compare",result="{result}"}} (\S+)',
                      text)
    return float(found.group(1)) if found else 0.0


async def test_four_clients_hammering_a_finished_comparison_get_the_kept_answer(
        server_factory: ServerFactory) -> None:
    url = server_factory(LUCIE_WS_RATE="100000", LUCIE_WS_BURST="100000",
                         LUCIE_METRICS_TOKEN=METRICS_TOKEN)
    scrape = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=30) as http:
        made = (await http.post("/rooms", json={"deal": 5, "countdown_s": 0})).json()
        code, host = made["room"]["code"], made["host_token"]
        seats = [(await http.post(f"/rooms/{code}/racers", json={"name": n})).json()
                 for n in ("ada", "bob")]
        await http.post(f"/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"})
        await asyncio.gather(*(_fill(url, code, s["racer"]["id"], s["token"], ENTRIES)
                               for s in seats))
        for s in seats:
            await http.post(f"/rooms/{code}/racers/{s['racer']['id']}/resign",
                            headers={"Authorization": f"Bearer {s['token']}"})
        first = await http.get(f"/rooms/{code}/compare/ada/bob")
        assert first.status_code == 200 and first.json()["a"]["moves"] == ENTRIES
        before = await http.get(url + "/metrics", headers=scrape)
        stop_at = time.monotonic() + 2.0
        bodies: list[bytes] = []
        probes: list[int] = []

        async def hammer() -> None:
            async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=30) as mine:
                while time.monotonic() < stop_at:
                    bodies.append((await mine.get(f"/rooms/{code}/compare/ada/bob")).content)

        async def probe() -> None:
            while time.monotonic() < stop_at:
                probes.append((await http.get("/rooms")).status_code)
                await asyncio.sleep(0.02)

        await asyncio.gather(*(hammer() for _ in range(4)), probe())
        after = await http.get(url + "/metrics", headers=scrape)
    assert bodies and all(b == first.content for b in bodies)
    assert probes and set(probes) == {200}
    assert _counter(after.text, "hit") - _counter(before.text, "hit") == len(bodies)
    assert _counter(after.text, "miss") == _counter(before.text, "miss")
