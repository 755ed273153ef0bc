"""Numbers in query strings and moves are ASCII digits, against a real server:
``?since=²``, ``?limit=²`` and a JSON move from fan ``"²"`` were 500s / a 1011
close with a traceback (``str.isdigit`` accepts them, ``int`` does not); ``١``
was read as 1 (found by a trial of bad input)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.conftest import SERVER_LOGS

from .wire import Api, open_socket, recv, recv_until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory())


@pytest.mark.parametrize("since", ["%C2%B2", "%D9%A1", "%E2%91%A0"])
async def test_since_with_other_digits_closes_1008(url: str, since: str) -> None:
    api = Api(url)
    try:
        room, _ = await api.create()
        ws_url = url.replace("http", "ws", 1) + f"/api/v1/rooms/{room['id']}/ws?since={since}"
        async with connect(ws_url, open_timeout=5, close_timeout=2) as ws:
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert closed.value.rcvd.reason.startswith("request/invalid")
    finally:
        await api.aclose()


@pytest.mark.parametrize("limit", ["%C2%B2", "%D9%A1"])
async def test_leaderboard_limit_with_other_digits_is_a_bad_request(url: str,
                                                                   limit: str) -> None:
    api = Api(url)
    try:
        r = await api.http.get(f"/leaderboards/belle-lucie/all-time?limit={limit}")
        assert r.status_code == 400 and r.json()["error"]["code"] == "request/invalid"
    finally:
        await api.aclose()


async def test_json_moves_from_other_digits_are_refused_and_the_socket_stays(url: str) -> None:
    api = Api(url)
    try:
        room, host = await api.create(countdown_s=0)
        racer, token = await api.join(room["id"], "ada")
        r = await api.http.post(f"/rooms/{room['id']}/racers/{racer}/moves",
                                headers={"Authorization": f"Bearer {token}"},
                                json={"move": {"type": "play", "from": "²", "to": "f"},
                                      "expected_version": 0, "client_move_id": "x"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "room/not_racing"
        async with open_socket(url, room["id"], token) as ws:
            await recv(ws)
            await api.start(room["id"], host)
            await recv_until(ws, "event", type_="started")
            for n, place in enumerate(["²", "١", "c²"]):
                r = await api.http.post(f"/rooms/{room['id']}/racers/{racer}/moves",
                                        headers={"Authorization": f"Bearer {token}"},
                                        json={"move": {"type": "play", "from": place, "to": "f"},
                                              "expected_version": 0,
                                              "client_move_id": f"rest-{n}"})
                assert r.status_code == 400, r.text
                assert r.json()["error"]["code"] == "move/invalid"
                await ws.send(json.dumps({"t": "move", "d": {
                    "move": {"type": "play", "from": place, "to": "f"},
                    "expected_version": 0, "client_move_id": f"ws-{n}"}}))
                refused = await recv_until(ws, "refused")
                assert refused["d"]["code"] == "move/invalid"
            await ws.send('{"t":"ping"}')
            assert (await recv_until(ws, "pong"))["t"] == "pong"  # the socket stayed open
        assert "Traceback" not in SERVER_LOGS[url].read_text(errors="replace")
    finally:
        await api.aclose()
