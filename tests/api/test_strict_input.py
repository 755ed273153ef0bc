"""Strict request validation, as docs/protocol.md says: bodies are JSON objects
declared as JSON with distinct keys, ``ready`` is required, names refuse
control and format characters, ``?since`` past the last event closes 1008,
and a plain GET of the socket path answers 426."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.app import create_app
from server.runtime.settings import Settings

JSON = {"content-type": "application/json"}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(http_rate=1000, http_burst=1000))) as c:
        yield c


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


_MEDIA = "request/unsupported_media_type"


@pytest.mark.parametrize(("body", "headers", "status", "code"), [
    (b"null", JSON, 400, "request/invalid"),
    (b"", JSON, 400, "request/invalid"),
    (b"   ", JSON, 400, "request/invalid"),
    (b"[]", JSON, 400, "request/invalid"),
    (b'"deal"', JSON, 400, "request/invalid"),
    (b'{"deal": 5, "deal": 6}', JSON, 400, "request/invalid"),
    (b'{"deal": 5}', {"content-type": "text/plain"}, 415, _MEDIA),
    (b'{"deal": 5}', {"content-type": "application/x-www-form-urlencoded"}, 415, _MEDIA),
    (b'{"deal": 5}', {}, 415, _MEDIA),
])
def test_create_room_needs_a_json_object(client: TestClient, body: bytes,
                                         headers: dict[str, str], status: int,
                                         code: str) -> None:
    r = client.post("/api/v1/rooms", content=body, headers=headers)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    assert client.get("/api/v1/rooms").json()["rooms"] == []


def test_json_content_types_and_empty_object(client: TestClient) -> None:
    for ctype in ("application/json", "application/json; charset=utf-8",
                  "Application/JSON", "application/vnd.lucie+json"):
        r = client.post("/api/v1/rooms", content=b"{}", headers={"content-type": ctype})
        assert r.status_code == 201, (ctype, r.text)


def test_duplicate_keys_at_any_depth_are_refused(client: TestClient) -> None:
    created = client.post("/api/v1/rooms", json={"deal": 11, "countdown_s": 0}).json()
    room, host = created["room"]["id"], created["host_token"]
    j = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "ada"}).json()
    client.post(f"/api/v1/rooms/{room}/start", headers=_auth(host))
    body = (b'{"move": {"type": "autoplay", "type": "redeal"}, "expected_version": 0, '
            b'"client_move_id": "x"}')
    r = client.post(f"/api/v1/rooms/{room}/racers/{j['racer']['id']}/moves", content=body,
                    headers={**JSON, **_auth(j["token"])})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "request/invalid")
    assert "duplicate key" in r.json()["error"]["message"]
    game = client.get(f"/api/v1/rooms/{room}/racers/{j['racer']['id']}/game").json()
    assert game["version"] == 0


def test_ready_needs_its_field(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]["id"]
    j = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "ada"}).json()
    url = f"/api/v1/rooms/{room}/racers/{j['racer']['id']}/ready"
    r = client.post(url, json={}, headers=_auth(j["token"]))
    assert (r.status_code, r.json()["error"]["code"]) == (422, "request/invalid")
    assert client.get(f"/api/v1/rooms/{room}").json()["state"] == "waiting"
    r = client.post(url, json={"ready": False}, headers=_auth(j["token"]))
    assert r.status_code == 200 and r.json()["ready"] is False


@pytest.mark.parametrize("name", ["a\tb", "a\nb", "ada\r", "a\x00b", "a\u200bb",
                                  "a\u2028b", "\u202eada", "a\x7fb",
                                  # invisible but not format characters: a name that
                                  # passes for another, or looks like none
                                  "ada\u034f", "ada\ufe0f", "ada\u180b", "\u3164",
                                  "\u115f\u1160", "a\uffa0b"])
def test_names_refuse_control_and_format_characters(client: TestClient, name: str) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]["id"]
    r = client.post(f"/api/v1/rooms/{room}/racers", json={"name": name})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "request/invalid"), name
    assert "control or invisible" in r.json()["error"]["message"]
    assert client.get(f"/api/v1/rooms/{room}").json()["racers"] == []


def test_names_trim_and_collapse_spaces(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]["id"]
    r = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "  Ada \u00a0  Lovelace "})
    assert r.status_code == 201 and r.json()["racer"]["name"] == "Ada Lovelace"


def test_names_keep_emoji_presentation_selectors(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]["id"]
    for name in ("Ada \u2764\ufe0f", "Bo \u2600\ufe0e", "1\ufe0f\u20e3 Cy"):
        r = client.post(f"/api/v1/rooms/{room}/racers", json={"name": name})
        assert r.status_code == 201 and r.json()["racer"]["name"] == name, name


def test_plain_get_of_the_socket_answers_426(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]["code"]
    r = client.get(f"/api/v1/rooms/{room}/ws")
    assert r.status_code == 426
    assert r.json()["error"]["code"] == "request/upgrade_required"


def test_since_past_the_last_event_closes_1008(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]
    with pytest.raises(WebSocketDisconnect) as info, \
            client.websocket_connect(f"/api/v1/rooms/{room['id']}/ws?since=999999") as ws:
        ws.receive_json()
    assert info.value.code == 1008
    assert info.value.reason.startswith("request/invalid: since")
    with client.websocket_connect(f"/api/v1/rooms/{room['id']}/ws?since=1") as ws:
        assert ws.receive_json()["t"] == "welcome"  # the last event itself is fine


def test_socket_messages_with_duplicate_keys_are_refused(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 3}).json()["room"]
    with client.websocket_connect(f"/api/v1/rooms/{room['id']}/ws") as ws:
        assert ws.receive_json()["t"] == "welcome"
        ws.send_text('{"t": "ping", "t": "ping"}')
        error = ws.receive_json()
        assert error["t"] == "error" and error["d"]["code"] == "request/invalid"
        assert "duplicate key" in error["d"]["message"]
        ws.send_text('{"t": "ping"}')
        assert ws.receive_json() == {"t": "pong"}


@pytest.mark.parametrize("deal", [b"1e19", b"12345678901234567.0", b"5.0", b"1E2",
                                  b"99999999999999999999.0"])
def test_deal_numbers_are_json_integers(client: TestClient, deal: bytes) -> None:
    """Deal numbers reach 10^20 - 1, past what a float holds exactly:
    ``12345678901234567.0`` was taken as deal …568 (issue 33). Written with a
    fraction or an exponent, a deal number is refused, whatever its value."""
    r = client.post("/api/v1/rooms", content=b'{"deal": ' + deal + b"}", headers=JSON)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "request/invalid"
    assert r.json()["error"]["details"]["field"] == "deal"
    assert client.get("/api/v1/rooms").json()["rooms"] == []


def test_a_deal_number_is_kept_to_the_digit(client: TestClient) -> None:
    for deal in (12345678901234567, 10**20 - 1, 2**53 + 1):
        r = client.post("/api/v1/rooms", content=b'{"deal": %d}' % deal, headers=JSON)
        assert r.status_code == 201, r.text
        assert r.json()["room"]["deal_number"] == deal


def test_other_integer_fields_take_whole_numbers_a_float_holds(client: TestClient) -> None:
    """``8.0`` is 8 where a float holds the number exactly (v1 took it; JSON
    Schema's ``integer`` includes it); past 2^53 a float is refused rather
    than read as a neighbour."""
    r = client.post("/api/v1/rooms", content=b'{"capacity": 8.0, "time_limit_s": 1e3}',
                    headers=JSON)
    assert r.status_code == 201, r.text
    assert (r.json()["room"]["capacity"], r.json()["room"]["time_limit_ms"]) == (8, 1_000_000)
    from server.api.models import MoveBody
    with pytest.raises(ValueError, match="valid integer"):
        MoveBody.model_validate_json(b'{"move": "r", "client_move_id": "a", '
                                     b'"expected_version": 9007199254740993.0}')


@pytest.mark.parametrize("field", [b'"capacity": "8"', b'"capacity": true',
                                   b'"time_limit_s": "900"', b'"countdown_s": false'])
def test_ghost_room_numbers_are_strict(client: TestClient, field: bytes) -> None:
    """``POST /ghost-rooms`` took ``"8"`` and ``true`` as numbers; types are strict."""
    body = b'{"replay": {}, ' + field + b"}"
    r = client.post("/api/v1/ghost-rooms", content=body, headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "request/invalid"
    assert r.json()["error"]["details"]["errors"][0]["loc"] == [field.split(b'"')[1].decode()]


@pytest.mark.parametrize("path", ["/api/v1/players/somebody/races",
                                  "/api/v1/players/somebody/vs/other"])
@pytest.mark.parametrize("query", ["cursor=", "cursor=&limit=5", "cursor=" + "x" * 201])
def test_history_cursors_are_one_to_200_characters(client: TestClient, path: str,
                                                   query: str) -> None:
    """An empty ``?cursor=`` was taken for no cursor (the first page), below the
    contract's ``minLength`` 1 (schemathesis, issue 33 item 7): refused as any
    cursor that is not an earlier page's ``next``, before the player is looked up."""
    r = client.get(f"{path}?{query}")
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "request/invalid"
    assert r.json()["error"]["details"] == {"field": "cursor"}
