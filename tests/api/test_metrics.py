"""``GET /metrics`` counts what happens (issue 22), on real server processes.

Moves over the WebSocket and over REST move the accepted-moves counter and
the ack histogram by exactly one each; refused moves show under their code;
sockets, rooms, fan-out and HTTP requests are counted; scraping is never
rate-limited. A second server runs on Redis in prometheus-client's
multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``): the same counters, plus the
Redis script timings.

Where ``/metrics`` answers (issue 33): nowhere by default; on the metrics
listener (``LUCIE_METRICS_PORT``), which serves nothing else; on the game port
only with ``LUCIE_METRICS_TOKEN`` set, and then with that Bearer token.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.conftest import free_port, run_dir
from tests.e2e.wire import Api, open_socket, recv, recv_until

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

TOKEN = f"metrics-{os.urandom(12).hex()}"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def _with_metrics_port(server_factory: Any, **env: str) -> tuple[str, str]:
    """A server with a metrics listener: its URL and the listener's."""
    port = free_port()
    return str(server_factory(LUCIE_METRICS_PORT=str(port), **env)), f"http://127.0.0.1:{port}"


async def _scrape(api: Api, metrics_url: str) -> Samples:
    r = await api.http.get(metrics_url + "/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def _value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def _race(api: Api, **room: Any) -> tuple[str, str, str]:
    """A racing room with one racer: ``(room id, racer id, token)``."""
    created, host = await api.create(deal=3, countdown_s=0, **room)
    racer, token = await api.join(created["id"], "ada")
    await api.start(created["id"], host)
    return created["id"], racer, token


async def _ws_move(url: str, room: str, token: str, move: str, version: int,
                   move_id: str) -> dict[str, Any]:
    async with open_socket(url, room, token) as ws:
        await recv(ws)
        await ws.send(json.dumps({"t": "move", "d": {
            "move": move, "expected_version": version, "client_move_id": move_id}}))
        return (await recv_until(ws, "ack")) if move_id.startswith("ok") \
            else (await recv_until(ws, "refused"))


async def test_metrics_count_moves_refusals_sockets_and_requests(server_factory: Any) -> None:
    url, metrics_url = _with_metrics_port(server_factory)
    api = Api(url)
    before = await _scrape(api, metrics_url)
    room, racer, token = await _race(api)
    auth = {"Authorization": f"Bearer {token}"}
    game = await api.get(f"/rooms/{room}/racers/{racer}/game", token)
    ack = await _ws_move(url, room, token, game["legal_moves"][0], 0, "ok-1")
    assert ack["d"]["version"] == 1
    refused = await _ws_move(url, room, token, "9f", 1, "no-1")  # fan 9 is not there
    async with open_socket(url, room) as spectator:  # one socket open during the scrape
        await recv(spectator)
        r = await api.http.post(f"/rooms/{room}/racers/{racer}/moves", headers=auth, json={
            "move": "u", "expected_version": 1, "client_move_id": "ok-2"})
        assert r.status_code == 200
        await recv_until(spectator, "event", type_="progress")  # fanned out to it
        r = await api.http.post(f"/rooms/{room}/racers/{racer}/moves", headers=auth, json={
            "move": "u", "expected_version": 0, "client_move_id": "no-2"})
        assert r.status_code == 409
        during = await _scrape(api, metrics_url)
    after = await _scrape(api, metrics_url)
    for _ in range(100):  # the server's handler ends just after the client's close
        if _value(after, "lucie_sockets_open") == 0:
            break
        await asyncio.sleep(0.05)
        after = await _scrape(api, metrics_url)

    def delta(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert delta("lucie_moves_accepted_total", transport="ws") == 1
    assert delta("lucie_moves_accepted_total", transport="rest") == 1
    assert delta("lucie_ack_seconds_count", transport="ws") == 1
    assert delta("lucie_ack_seconds_count", transport="rest") == 1
    assert 0 < delta("lucie_ack_seconds_sum", transport="ws") < 5
    code = refused["d"]["code"]
    assert code in ("move/illegal", "move/invalid")
    assert delta("lucie_moves_refused_total", transport="ws", code=code) == 1
    assert delta("lucie_moves_refused_total", transport="rest", code="move/stale_version") == 1
    assert _value(during, "lucie_sockets_open") == 1
    assert _value(after, "lucie_sockets_open") == 0
    assert _value(after, "lucie_rooms", state="live") >= 1
    assert _value(after, "lucie_rooms", state="running") >= 1
    assert delta("lucie_rooms_created_total") == 1 and delta("lucie_races_started_total") == 1
    assert delta("lucie_events_fanned_out_total") >= 1  # the REST move's, to the spectator
    assert delta("lucie_http_requests_total", route="/api/v1/rooms/{room}/racers/{racer}/moves",
                 method="POST", status="409") == 1
    assert delta("lucie_http_requests_total", route="/api/v1/rooms", method="POST",
                 status="201") == 1
    assert delta("lucie_http_seconds_count", route="/api/v1/rooms/{room}") == 0

    # the race ends (its only racer resigns): the archiver writes it, the lag drains
    r = await api.http.post(f"/rooms/{room}/racers/{racer}/resign", headers=auth)
    assert r.status_code == 200
    for _ in range(100):
        after = await _scrape(api, metrics_url)
        if delta("lucie_races_archived_total") == 1:
            break
        await asyncio.sleep(0.05)
    assert delta("lucie_races_archived_total") == 1
    assert delta("lucie_races_ended_total", how="over") == 1
    assert _value(after, "lucie_archive_pending") == 0
    assert _value(after, "lucie_archive_outage") == 0
    await api.aclose()


async def test_scraping_is_outside_the_per_client_budgets(server_factory: Any) -> None:
    url = str(server_factory(LUCIE_HTTP_RATE="0.1", LUCIE_HTTP_BURST="2",
                             LUCIE_METRICS_TOKEN=TOKEN))
    async with httpx.AsyncClient(base_url=url) as http:
        statuses = [(await http.get("/api/v1/rooms")).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]  # the address's budget is spent
        for _ in range(10):
            assert (await http.get("/metrics", headers=BEARER)).status_code == 200


async def test_no_metrics_on_the_game_port_by_default(server_factory: Any) -> None:
    url = str(server_factory())
    async with httpx.AsyncClient(base_url=url) as http:
        for method in ("GET", "HEAD"):
            r = await http.request(method, "/metrics")
            assert r.status_code == 404, r.text
        assert (await http.get("/metrics")).json()["error"]["code"] == "request/not_found"


async def test_the_metrics_port_serves_metrics_only(server_factory: Any) -> None:
    url, metrics_url = _with_metrics_port(server_factory)
    async with httpx.AsyncClient() as http:
        r = await http.get(metrics_url + "/metrics")
        assert r.status_code == 200 and "lucie_http_requests_total" in r.text
        assert (await http.get(url + "/metrics")).status_code == 404  # not on the game port
        for path in ("/healthz", "/api/v1/rooms", "/", "/static/app.js", "/metrics/x"):
            r = await http.get(metrics_url + path)
            assert r.status_code == 404, path
            assert r.json()["error"]["code"] == "request/not_found"
        assert (await http.post(metrics_url + "/api/v1/rooms", json={})).status_code == 404
        room = (await http.post(url + "/api/v1/rooms", json={"deal": 3})).json()["room"]["id"]
    ws_url = metrics_url.replace("http", "ws", 1) + f"/api/v1/rooms/{room}/ws"
    with pytest.raises(InvalidStatus):
        async with connect(ws_url, open_timeout=5):
            pass


async def test_a_metrics_token_opens_the_game_port_to_bearers(server_factory: Any) -> None:
    url, metrics_url = _with_metrics_port(server_factory, LUCIE_METRICS_TOKEN=TOKEN)
    async with httpx.AsyncClient() as http:
        for base in (url, metrics_url):  # the token is asked for wherever /metrics is
            missing = await http.get(base + "/metrics")
            assert missing.status_code == 401
            assert missing.json()["error"]["code"] == "auth/missing"
            wrong = await http.get(base + "/metrics",
                                   headers={"Authorization": "Bearer " + "x" * 32})
            assert wrong.status_code == 403
            assert wrong.json()["error"]["code"] == "auth/invalid_token"
            assert (await http.get(base + "/metrics", headers=BEARER)).status_code == 200


@pytest.mark.redis
async def test_metrics_on_redis_in_multiprocess_mode(server_factory: Any) -> None:
    folder = run_dir("metrics-")
    prefix = f"test:{os.urandom(6).hex()}:"
    url, metrics_url = _with_metrics_port(
        server_factory, REDIS_URL="redis://127.0.0.1:6379/0", LUCIE_REDIS_PREFIX=prefix,
        PROMETHEUS_MULTIPROC_DIR=str(folder))
    api = Api(url)
    room, racer, token = await _race(api)
    game = await api.get(f"/rooms/{room}/racers/{racer}/game", token)
    await _ws_move(url, room, token, game["legal_moves"][0], 0, "ok-1")
    after = await _scrape(api, metrics_url)
    await api.aclose()
    assert list(folder.glob("*.db")), "multiprocess mode writes its values to files"
    assert _value(after, "lucie_moves_accepted_total", transport="ws") == 1
    assert _value(after, "lucie_ack_seconds_count", transport="ws") == 1
    assert _value(after, "lucie_redis_seconds_count", operation="save_racer") >= 1
    assert _value(after, "lucie_redis_seconds_count", operation="pipeline") >= 1
    assert _value(after, "lucie_rooms", state="live") == 1  # this test's prefix: one room
    assert not any(name.startswith("process_") for name, _ in after)  # summed files only
    with httpx.Client() as http:
        assert http.get(url + "/readyz").status_code == 200
