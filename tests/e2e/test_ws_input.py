"""End to end: reconnect with ``since`` and every bad WebSocket input, against a real
``lucie-server`` process with small limits."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from .wire import Api, open_socket, recv, recv_until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory(REDIS_URL="memory://?retention=20", LUCIE_MAX_MESSAGE="2048",
                              LUCIE_WS_RATE="20", LUCIE_WS_BURST="40"))


async def _closed(ws: Any) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as info:
        for _ in range(1000):
            await ws.recv()
    rcvd = info.value.rcvd
    assert rcvd is not None
    return rcvd.code, rcvd.reason


async def test_reconnect_with_since_resumes_without_gaps(url: str) -> None:
    api = Api(url)
    room, _ = await api.create(deal=9)
    async with open_socket(url, room["id"]) as ws:
        seq = (await recv(ws))["d"]["room"]["seq"]
    for name in ("a", "b", "c"):
        await api.join(room["id"], name)
    async with open_socket(url, room["id"], since=seq) as ws:
        welcome = await recv(ws)
        assert welcome["t"] == "welcome" and len(welcome["d"]["room"]["racers"]) == 3
        missed = [await recv(ws) for _ in range(3)]
        assert [m["d"]["seq"] for m in missed] == [seq + 1, seq + 2, seq + 3]
        assert [m["d"]["racer"]["name"] for m in missed] == ["a", "b", "c"]
        await api.join(room["id"], "d")  # live after the backlog
        live = await recv(ws)
        assert live["d"]["seq"] == seq + 4 and live["d"]["type"] == "joined"
    # a room with more events than the server keeps (retention 20) → snapshot
    big, _ = await api.create(deal=9, capacity=64)
    for i in range(30):
        await api.join(big["id"], f"p{i}")
    async with open_socket(url, big["id"], since=1) as ws:
        await recv(ws)
        snap = await recv(ws)
        assert snap["t"] == "snapshot" and len(snap["d"]["room"]["racers"]) == 30
    await api.aclose()


async def test_bad_messages_get_errors_and_change_nothing(url: str) -> None:
    api = Api(url)
    room, host = await api.create(deal=9, countdown_s=0)
    racer, token = await api.join(room["id"], "ada")
    await api.start(room["id"], host)
    async with open_socket(url, room["id"], token) as ws:
        await recv(ws)
        for bad in ("{nope", '{"t":"dance"}', '{"t":"move","d":{"move":"1f"}}',
                    '{"t":"move","d":{"move":"1f","expected_version":0,'
                    '"client_move_id":"x","extra":1}}',
                    '{"t":"move","d":{"move":"1f","expected_version":"0","client_move_id":"x"}}',
                    '{"t":"focus","d":{"lost":false}}', '{"t":"focus","d":{"lost":true,"x":1}}',
                    '[1,2]', b"\x00\x01"):
            await ws.send(bad)
            err = await recv_until(ws, "error")
            assert err["d"]["code"] == "request/invalid", bad
        await ws.send('{"t":"move","d":{"move":"zz","expected_version":0,"client_move_id":"i"}}')
        refused = await recv_until(ws, "refused")
        assert refused["d"]["code"] == "move/invalid"
        await ws.send('{"t":"move","d":{"move":"u","expected_version":4,"client_move_id":"s"}}')
        refused = await recv_until(ws, "refused")
        assert refused["d"]["code"] == "move/stale_version"
        assert refused["d"]["game"]["version"] == 0
        await ws.send('{"t":"ping"}')
        assert (await recv_until(ws, "pong"))["t"] == "pong"
    game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game")
    assert game["version"] == 0
    await api.aclose()


async def test_schema_errors_point_at_the_message_not_at_its_type(url: str) -> None:
    """``loc`` of a socket message's schema errors is the path in the message, as on
    REST (``["d", "expected_version"]``), not led by pydantic's branch (``"move"``)."""
    api = Api(url)
    room, _ = await api.create(deal=9)
    _, token = await api.join(room["id"], "ada")
    async with open_socket(url, room["id"], token) as ws:
        await recv(ws)
        for bad, locs in (('{"t":"move","d":{"move":"1f"}}',
                           [["d", "expected_version"], ["d", "client_move_id"]]),
                          ('{"t":"move","d":{"move":[1],"expected_version":0,"client_move_id":"x"}}',
                           [["d", "move"], ["d", "move"]]),  # not a string, nor an object
                          ('{"t":"ping","x":1}', [["x"]]),
                          ('{"t":"auth"}', [["d"]])):
            await ws.send(bad)
            err = await recv_until(ws, "error")
            assert [e["loc"] for e in err["d"]["details"]["errors"]] == locs, bad
    await api.aclose()


async def test_spectators_cannot_move_and_bad_tokens_are_closed(url: str) -> None:
    api = Api(url)
    room, host = await api.create(deal=9, countdown_s=0)
    racer, _ = await api.join(room["id"], "ada")
    other, other_token = await api.join(room["id"], "bob")
    await api.start(room["id"], host)
    async with open_socket(url, room["id"]) as ws:
        await recv(ws)
        await ws.send('{"t":"move","d":{"move":"a","expected_version":0,"client_move_id":"x"}}')
        assert (await recv_until(ws, "refused"))["d"]["code"] == "auth/missing"
        await ws.send('{"t":"focus","d":{"lost":true}}')  # racers only, as ready and resign
        assert (await recv_until(ws, "error"))["d"]["code"] == "auth/missing"
        await ws.send(json.dumps({"t": "auth", "d": {"token": other_token}}))
        welcome = await recv_until(ws, "welcome")
        assert welcome["d"]["racer"] == other  # auth by message: this socket is bob's now
    async with open_socket(url, room["id"], "not-a-token") as ws:
        assert await _closed(ws) == (1008, "auth/invalid_token")
    async with open_socket(url, "NOSUCH") as ws:
        assert (await _closed(ws))[0] == 4004
    async with open_socket(url, room["id"]) as ws:
        await recv(ws)
        await ws.send('{"t":"auth","d":{"token":"forged"}}')
        assert (await _closed(ws))[0] == 1008
    game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game")
    assert game["version"] == 0
    await api.aclose()


async def test_oversize_message_and_flood_close_the_socket(url: str) -> None:
    api = Api(url)
    room, _ = await api.create(deal=9)
    async with open_socket(url, room["id"]) as ws:
        await recv(ws)
        await ws.send('{"t":"ping","d":{"x":"' + "y" * 5000 + '"}}')
        code, reason = await _closed(ws)  # the documented reason, not the library's
        assert code == 1009 and reason.startswith("request/too_large"), reason
    async with open_socket(url, room["id"]) as ws:
        await recv(ws)
        await ws.send('{"t":"ping","d":{"x":"' + "y" * 20_000 + '"}}')
        code, reason = await _closed(ws)
        assert code == 1009 and reason.startswith("request/too_large: "), reason
    async with open_socket(url, room["id"]) as ws:
        await recv(ws)
        for _ in range(200):
            await ws.send('{"t":"ping"}')
        code, reason = await _closed(ws)
        assert code == 1008 and reason.startswith("rate/limited")
    # the server still serves
    assert (await api.get(f"/rooms/{room['id']}"))["id"] == room["id"]
    await api.aclose()


async def test_moves_before_the_start_are_refused(url: str) -> None:
    api = Api(url)
    room, _ = await api.create(deal=9)
    _, token = await api.join(room["id"], "early")
    async with open_socket(url, room["id"], token) as ws:
        await recv(ws)
        await ws.send('{"t":"move","d":{"move":"a","expected_version":0,"client_move_id":"x"}}')
        assert (await recv_until(ws, "refused"))["d"]["code"] == "room/not_racing"
    await asyncio.sleep(0)
    await api.aclose()

