"""Issue 33: a rematch offer that makes the next room is a room creation — the
address's waiting-rooms cap and the create budget hold for it as for
``POST /rooms`` (40 rematch rooms went through in 0.5 s after ``POST /rooms``
had answered 429)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from server.app import create_app
from server.runtime.settings import Settings

API = "/api/v1"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _finished(client: TestClient) -> tuple[str, str, str]:
    """A room whose race is over: (code, racer id, racer token)."""
    made = client.post(f"{API}/rooms", json={"countdown_s": 0}).json()
    code, host = made["room"]["code"], made["host_token"]
    joined = client.post(f"{API}/rooms/{code}/racers", json={"name": "ada"}).json()
    assert client.post(f"{API}/rooms/{code}/start", headers=_auth(host)).status_code == 200
    racer, token = joined["racer"]["id"], joined["token"]
    assert client.post(f"{API}/rooms/{code}/racers/{racer}/resign",
                       headers=_auth(token)).status_code == 200
    return code, racer, token


def test_a_rematch_that_makes_a_room_counts_as_a_creation(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=str(tmp_path), waiting_rooms_per_address=1))
    with TestClient(app) as client:
        code, _, token = _finished(client)
        waiting = client.post(f"{API}/rooms", json={}).json()  # the address's one waiting room
        r = client.post(f"{API}/rooms/{code}/rematch", headers=_auth(token))
        assert r.status_code == 429, r.text
        assert r.json()["error"]["code"] == "rate/limited"
        assert client.get(f"{API}/rooms/{code}").json()["rematch"] is None  # nothing made
        client.post(f"{API}/rooms/{waiting['room']['code']}/close",
                    headers=_auth(waiting["host_token"]))
        r = client.post(f"{API}/rooms/{code}/rematch", headers=_auth(token))
        assert r.status_code == 201, r.text
        # the rematch room now waits: it is the address's one waiting room
        r = client.post(f"{API}/rooms", json={})
        assert r.status_code == 429, r.text
