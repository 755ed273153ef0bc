"""Verifiable deals (issue 32) through the real API in process (Starlette TestClient,
real memory store): ``deal_commitment`` in every room view from ``POST /rooms`` on,
the WebSocket's welcome included; no salt nor redeal key for the host, a racer or a
spectator while the race runs; both revealed once it is over — in the room view and
``GET /races/{race}`` — and they hash to what was published."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from server.app import create_app
from server.rules.commitment import deal_commitment
from server.runtime.settings import Settings


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(http_rate=1000, http_burst=1000))) as c:
        yield c


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _no_secret(room: dict[str, Any], published: str) -> None:
    assert room["deal_commitment"] == published
    assert room["deal_salt"] is None and room["redeal_key"] is None


def _recomputed(room: dict[str, Any]) -> str:
    return deal_commitment(room["rules"]["variant"], room["deal_number"], room["redeal_key"],
                           room["deal_salt"])


def test_the_commitment_holds_and_the_salt_waits_for_the_end(client: TestClient) -> None:
    made = client.post("/api/v1/rooms", json={"deal": 11, "countdown_s": 0,
                                               "variant": "trefoil"})
    assert made.status_code == 201, made.text
    room, host = made.json()["room"], made.json()["host_token"]
    published = room["deal_commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", published)
    _no_secret(room, published)
    tokens: dict[str, str | None] = {"host": host, "spectator": None}
    racers = {}
    for name in ("ada", "bob"):
        joined = client.post(f"/api/v1/rooms/{room['code']}/racers", json={"name": name})
        racers[name] = joined.json()["racer"]["id"]
        tokens[name] = joined.json()["token"]
    for who, token in tokens.items():
        got = client.get(f"/api/v1/rooms/{room['id']}", headers=_auth(token))
        assert got.status_code == 200, who
        _no_secret(got.json(), published)
    started = client.post(f"/api/v1/rooms/{room['id']}/start", headers=_auth(host))
    assert started.json()["state"] == "racing"
    _no_secret(started.json(), published)
    for who, token in tokens.items():  # during the race: REST and the socket's welcome
        _no_secret(client.get(f"/api/v1/rooms/{room['id']}", headers=_auth(token)).json(),
                   published)
        if who == "host":
            continue  # a socket is a racer's or a spectator's
        with client.websocket_connect(f"/api/v1/rooms/{room['id']}/ws",
                                      headers=_auth(token)) as ws:
            welcome = ws.receive_json()
            assert welcome["t"] == "welcome", who
            _no_secret(welcome["d"]["room"], published)
    hidden = client.get(f"/api/v1/races/{room['id']}")
    assert hidden.status_code == 403
    assert hidden.json()["error"]["code"] == "race/hidden_until_over"
    replay = client.get(f"/api/v1/rooms/{room['id']}/racers/{racers['ada']}/replay",
                        headers=_auth(tokens["ada"]))
    assert replay.json()["redeal_key"] is None

    for name in ("ada", "bob"):
        r = client.post(f"/api/v1/rooms/{room['id']}/racers/{racers[name]}/resign",
                        headers=_auth(tokens[name]))
        assert r.status_code == 200
    for who, token in tokens.items():
        over = client.get(f"/api/v1/rooms/{room['id']}", headers=_auth(token)).json()
        assert over["state"] == "over" and over["deal_commitment"] == published, who
        assert re.fullmatch(r"[0-9a-f]{32}", over["deal_salt"])
        assert _recomputed(over) == published
    with client.websocket_connect(f"/api/v1/rooms/{room['id']}/ws") as ws:
        assert _recomputed(ws.receive_json()["d"]["room"]) == published
    race = client.get(f"/api/v1/races/{room['code']}").json()
    assert (race["deal_commitment"], race["deal_salt"]) == (published, over["deal_salt"])
    assert (race["deal_number"], race["redeal_key"]) == (11, over["redeal_key"])
    assert race["rules"]["variant"] == "trefoil"
