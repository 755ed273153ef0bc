"""Limits per client against a real ``lucie-server`` process (docs/protocol.md,
"Limits"): one address flooding room creation or sockets is refused past its
budget, while a second address (127.0.0.2, same machine) still creates and
connects, and a class of 30 behind one address still joins and races."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.conftest import SERVER_LOGS

pytestmark = pytest.mark.timeout(90)

DEFAULTS = {  # the shipped defaults, set explicitly (the suite raises them elsewhere)
    "LUCIE_CREATE_PER_MIN": "20", "LUCIE_CREATE_BURST": "10",
    "LUCIE_JOIN_PER_MIN": "120", "LUCIE_JOIN_BURST": "60",
    "LUCIE_UPLOAD_PER_MIN": "60", "LUCIE_UPLOAD_BURST": "20",
    "LUCIE_SOCKETS_PER_ADDRESS": "256", "LUCIE_SPECTATORS_PER_ROOM": "40",
    "LUCIE_AUTH_GRACE_S": "1",  # past the spectator cap (the shipped 5 s: a slower test)
}


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory(**DEFAULTS))


def _http(url: str, source: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    return httpx.AsyncClient(base_url=url + "/api/v1", transport=transport, timeout=10)


def _ws(url: str, room: str, source: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return connect(url.replace("http", "ws", 1) + f"/api/v1/rooms/{room}/ws",
                   additional_headers=headers, open_timeout=10, close_timeout=1,
                   local_addr=(source, 0))


async def test_a_room_creation_flood_is_refused_past_the_budget(url: str) -> None:
    async with _http(url) as flooder, _http(url, "127.0.0.2") as other:
        created, refused = 0, []
        for _ in range(200):  # bounded: a few seconds at most
            r = await flooder.post("/rooms", json={"visibility": "private"})
            if r.status_code == 201:
                created += 1
            else:
                refused.append(r)
        assert created <= 12  # burst 10, plus at most a token or two refilled meanwhile
        assert len(refused) >= 188
        last = refused[-1]
        assert last.status_code == 429 and last.json()["error"]["code"] == "rate/limited"
        assert int(last.headers["Retry-After"]) >= 1
        assert last.json()["error"]["details"]["retry_after_ms"] > 0
        # reads are not spent by creation: the flooder still reads; another address creates
        assert (await flooder.get("/rooms")).status_code == 200
        r = await other.post("/rooms", json={"visibility": "private"})
        assert r.status_code == 201, r.text


async def test_a_class_behind_one_address_joins_and_connects(url: str) -> None:
    async with _http(url, "127.0.0.3") as school:
        r = await school.post("/rooms", json={"capacity": 30, "visibility": "private"})
        assert r.status_code == 201, r.text
        room = r.json()["room"]["id"]
        joined = [await school.post(f"/rooms/{room}/racers", json={"name": f"pupil {i}"})
                  for i in range(30)]
        assert [j.status_code for j in joined] == [201] * 30
        tokens = [j.json()["token"] for j in joined]
        sockets = [await _ws(url, room, "127.0.0.3", t).__aenter__() for t in tokens]
        try:
            for ws in sockets:
                assert (await ws.recv())  # a welcome each
        finally:
            await asyncio.gather(*(ws.close() for ws in sockets))


async def test_a_socket_flood_gets_at_most_the_cap_and_others_still_connect(url: str) -> None:
    async with _http(url, "127.0.0.4") as http:
        rooms = []
        for _ in range(8):
            r = await http.post("/rooms", json={"visibility": "private"})
            assert r.status_code == 201, r.text
            rooms.append(r.json()["room"]["id"])
    opened: list[Any] = []
    statuses: list[int] = []
    try:
        for i in range(300):  # 256 per address; spectators spread over 8 rooms (40 each)
            try:
                opened.append(await _ws(url, rooms[i % 8], "127.0.0.5").__aenter__())
            except InvalidStatus as exc:
                statuses.append(exc.response.status_code)
        assert len(opened) == 256 and statuses == [429] * 44
        refused = None
        try:
            await _ws(url, rooms[0], "127.0.0.5").__aenter__()
        except InvalidStatus as exc:
            refused = exc.response
        assert refused is not None and refused.status_code == 429
        assert b"rate/limited" in refused.body and refused.headers["Retry-After"]
        # another address still connects, to the same room
        async with _ws(url, rooms[1], "127.0.0.6") as ws:
            assert await ws.recv()
    finally:
        await asyncio.gather(*(ws.close() for ws in opened))
    # closed sockets are given back: the flooder may connect again
    await asyncio.sleep(0.2)
    async with _ws(url, rooms[0], "127.0.0.5") as ws:
        assert await ws.recv()


async def test_spectators_per_room_are_capped_but_racers_still_connect(url: str) -> None:
    async with _http(url, "127.0.0.7") as http:
        room = (await http.post("/rooms", json={"visibility": "private"})).json()["room"]["id"]
        token = (await http.post(f"/rooms/{room}/racers", json={"name": "ada"})).json()["token"]
    opened: list[Any] = []
    try:
        for source in ("127.0.0.8", "127.0.0.9"):
            for _ in range(25):
                opened.append(await _ws(url, room, source).__aenter__())
        # past the cap a socket without a token is let in on probation (a racer's
        # older page sends auth next), given nothing, and closed when its grace ends
        welcomed, turned_away = [], []
        for ws in opened:
            try:
                async with asyncio.timeout(5):
                    welcomed.append(await ws.recv())
            except ConnectionClosed as exc:
                turned_away.append(exc.rcvd)
        assert len(welcomed) == 40  # LUCIE_SPECTATORS_PER_ROOM, whatever the addresses
        assert len(turned_away) == 10
        assert all(c is not None and c.code == 1008 and c.reason.startswith("rate/limited")
                   for c in turned_away), turned_away
        async with _ws(url, room, "127.0.0.8", token) as racer:
            assert b'"racer":' in (await racer.recv()).encode()
    finally:
        await asyncio.gather(*(ws.close() for ws in opened))


async def test_past_the_process_ceiling_sockets_wait_with_server_full(server_factory: Any) -> None:
    url = server_factory(LUCIE_MAX_SOCKETS="5")
    async with _http(url) as http:
        room = (await http.post("/rooms", json={"visibility": "private"})).json()["room"]["id"]
    opened = [await _ws(url, room, f"127.0.1.{i}").__aenter__() for i in range(5)]
    try:
        with pytest.raises(InvalidStatus) as full:
            await _ws(url, room, "127.0.1.9").__aenter__()
        assert full.value.response.status_code == 503
        assert b"server/full" in full.value.response.body
        assert full.value.response.headers["Retry-After"]
    finally:
        await asyncio.gather(*(ws.close() for ws in opened))


async def test_waiting_rooms_per_address_are_capped_and_started_ones_free_a_slot(
        server_factory: Any) -> None:
    url = server_factory(**{**DEFAULTS, "LUCIE_WAITING_ROOMS_PER_ADDRESS": "3"})
    async with _http(url, "127.0.2.1") as host, _http(url, "127.0.2.2") as other:
        made = []
        for _ in range(3):
            r = await host.post("/rooms", json={"visibility": "private", "countdown_s": 0})
            assert r.status_code == 201, r.text
            made.append(r.json())
        r = await host.post("/rooms", json={"visibility": "private"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate/limited"
        assert "waiting" in r.json()["error"]["message"] and r.headers["Retry-After"]
        assert (await other.post("/rooms", json={})).status_code == 201  # others go on
        # a room that started no longer waits: the host may open another
        room, token = made[0]["room"]["id"], made[0]["host_token"]
        assert (await host.post(f"/rooms/{room}/racers", json={"name": "ada"})).status_code == 201
        r = await host.post(f"/rooms/{room}/start", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        assert (await host.post("/rooms", json={"visibility": "private"})).status_code == 201


async def test_past_the_room_ceiling_creation_waits_with_server_full(
        server_factory: Any) -> None:
    url = server_factory(**{**DEFAULTS, "LUCIE_MAX_ROOMS": "4"})
    for i in range(4):
        async with _http(url, f"127.0.3.{i + 1}") as http:
            assert (await http.post("/rooms", json={})).status_code == 201
    async with _http(url, "127.0.3.9") as http:
        r = await http.post("/rooms", json={})
        assert r.status_code == 503 and r.json()["error"]["code"] == "server/full"
        assert int(r.headers["Retry-After"]) >= 1


async def test_behind_a_trusted_balancer_limits_key_on_the_forwarded_client(
        server_factory: Any) -> None:
    """Behind HAProxy every client comes from the balancer's address: without
    ``X-Forwarded-For`` from a trusted proxy, one user's flood would throttle
    everyone (issue 22). Header values are documentation addresses only."""
    url = server_factory(**DEFAULTS, LUCIE_TRUSTED_PROXIES="127.0.4.1")

    async def creations(source: str, forwarded: str) -> list[int]:
        async with _http(url, source) as http:
            return [(await http.post("/rooms", json={"visibility": "private"},
                                     headers={"X-Forwarded-For": forwarded})).status_code
                    for _ in range(14)]

    flooder = await creations("127.0.4.1", "203.0.113.7")
    assert flooder.count(201) <= 12 and flooder[-1] == 429
    assert (await creations("127.0.4.1", "203.0.113.8"))[0] == 201  # another client
    # from an untrusted peer the header is ignored: spoofing it buys nothing
    spoofed = [await creations("127.0.4.2", f"198.51.100.{i}") for i in range(2)]
    assert sum(r.count(201) for r in spoofed) <= 12
    # sockets too: the forwarded client is who the per-address cap counts
    async with _http(url, "127.0.4.1") as http:
        room = (await http.post("/rooms", json={}, headers={
            "X-Forwarded-For": "203.0.113.9"})).json()["room"]["id"]
    ws_url = url.replace("http", "ws", 1) + f"/api/v1/rooms/{room}/ws"
    async with connect(ws_url, additional_headers={"X-Forwarded-For": "203.0.113.9"},
                       local_addr=("127.0.4.1", 0), open_timeout=10) as ws:
        assert await ws.recv()


async def test_a_refused_upgrade_is_no_server_error(server_factory: Any) -> None:
    """A socket past a cap is refused with its 429 (an HTTP answer to the upgrade):
    a client's refusal, logged as such — uvicorn's sans-I/O protocol logged
    "ASGI callable returned without completing handshake." at ERROR for each."""
    url = str(server_factory(**{**DEFAULTS, "LUCIE_SOCKETS_PER_ADDRESS": "2",
                                "LUCIE_LOG_LEVEL": "info"}))
    async with _http(url) as http:
        room = (await http.post("/rooms", json={})).json()["room"]["id"]
    opened: list[Any] = []
    statuses: list[int] = []
    try:
        for _ in range(5):
            try:
                opened.append(await _ws(url, room, "127.0.0.1").__aenter__())
            except InvalidStatus as exc:
                statuses.append(exc.response.status_code)
    finally:
        await asyncio.gather(*(ws.close() for ws in opened))
    assert len(opened) == 2 and statuses == [429] * 3
    await asyncio.sleep(0.2)
    log = SERVER_LOGS[url].read_text()
    assert '"WebSocket /api/v1/rooms/' in log and "429" in log  # the refusals, at INFO
    assert "without completing handshake" not in log and '"level": "ERROR"' not in log
