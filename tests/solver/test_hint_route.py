"""``GET /api/v1/rooms/{room}/racers/{racer}/hint`` through the app (solver pool included)."""

from __future__ import annotations

from starlette.testclient import TestClient

from server.app import create_app
from server.runtime.settings import Settings


def test_hint_route_and_room_options() -> None:
    settings = Settings(max_body=2048, http_rate=1000, http_burst=1000)
    with TestClient(create_app(settings)) as client:
        made = client.post("/api/v1/rooms", json={"deal": 3, "countdown_s": 0, "hints": True})
        assert made.status_code == 201 and made.json()["room"]["hints"] is True
        room, host = made.json()["room"]["id"], made.json()["host_token"]
        joined = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "Ada"}).json()
        racer, token = joined["racer"]["id"], joined["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert client.post(f"/api/v1/rooms/{room}/start",
                           headers={"Authorization": f"Bearer {host}"}).status_code == 200
        got = client.get(f"/api/v1/rooms/{room}/racers/{racer}/hint", headers=auth)
        assert got.status_code == 200, got.text
        game = client.get(f"/api/v1/rooms/{room}/racers/{racer}/game", headers=auth).json()
        assert got.json()["move"] in game["legal_moves"]
        assert got.json()["version"] == game["version"]
        missing = client.get(f"/api/v1/rooms/{room}/racers/{racer}/hint")
        assert (missing.status_code, missing.json()["error"]["code"]) == (401, "auth/missing")
        plain = client.post("/api/v1/rooms", json={"deal": 3, "countdown_s": 0}).json()
        assert plain["room"]["hints"] is False
        doc = client.get("/api/v1/openapi.json").json()
        assert "/api/v1/rooms/{room}/racers/{racer}/hint" in doc["paths"]
