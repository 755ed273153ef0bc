"""No input crashes a handler: random bodies and socket messages get a stable error
code (never 500, never a traceback) and leave the game unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from server.app import create_app
from server.runtime.settings import Settings

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                max_size=4),
    max_leaves=12,
)
move_like = st.fixed_dictionaries({}, optional={
    "move": json_values | st.sampled_from(["1f", "u", "a", "r", "m 5H f", "3-7", "c1f"]),
    "expected_version": json_values | st.integers(-1, 3),
    "client_move_id": json_values | st.text(max_size=70),
    "t": st.sampled_from(["move", "ping", "auth", "ready", "resign", "x"]),
    "d": json_values,
})


@pytest.fixture(scope="module")
def seat() -> Iterator[tuple[TestClient, str, str, str]]:
    with TestClient(create_app(Settings(http_rate=1e6, http_burst=10**6, ws_rate=1e6,
                                        ws_burst=10**6))) as client:
        r = client.post("/api/v1/rooms", json={"deal": 8, "countdown_s": 0}).json()
        room, host = r["room"]["id"], r["host_token"]
        j = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "fuzz"}).json()
        client.post(f"/api/v1/rooms/{room}/start", headers={"Authorization": f"Bearer {host}"})
        yield client, room, j["racer"]["id"], j["token"]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=move_like | json_values)
def test_random_move_bodies(seat: tuple[TestClient, str, str, str], body: Any) -> None:
    client, room, racer, token = seat
    before = client.get(f"/api/v1/rooms/{room}/racers/{racer}/game").json()["version"]
    r = client.post(f"/api/v1/rooms/{room}/racers/{racer}/moves", content=json.dumps(body),
                    headers={"Authorization": f"Bearer {token}",
                             "content-type": "application/json"})
    assert r.status_code < 500, r.text
    if r.status_code != 200:
        assert r.json()["error"]["code"].count("/") == 1
        after = client.get(f"/api/v1/rooms/{room}/racers/{racer}/game").json()["version"]
        assert after == before


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(move_like | json_values, min_size=1, max_size=4))
def test_random_socket_messages(seat: tuple[TestClient, str, str, str],
                                messages: list[Any]) -> None:
    client, room, _, token = seat
    with client.websocket_connect(f"/api/v1/rooms/{room}/ws",
                                  headers={"Authorization": f"Bearer {token}"}) as ws:
        assert ws.receive_json()["t"] == "welcome"
        for message in messages:
            ws.send_text(json.dumps(message))
        ws.send_text('{"t":"ping"}')
        while True:  # every message is answered or ignored; the socket stays usable
            reply = ws.receive_json()
            assert reply["t"] in ("event", "ack", "refused", "error", "pong", "welcome")
            if reply["t"] in ("error", "refused"):
                assert reply["d"]["code"].count("/") == 1
            if reply["t"] == "pong":
                break
