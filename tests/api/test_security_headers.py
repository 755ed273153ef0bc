"""Every API answer says ``Cache-Control: no-store`` and
``X-Content-Type-Options: nosniff`` — answers that carry a host token, a
racer token or a player key, and errors too — while the browser client's
pages and static files keep their own caching (issue 33, item 6)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.requests import Request
from starlette.testclient import TestClient, WebSocketDenialResponse

from server.api.errors import exception_handlers
from server.app import create_app
from server.runtime.settings import Settings
from server.web import ASSET_MAX_AGE_S


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(http_rate=1000, http_burst=1000,
                                        sockets_per_address=1))) as c:
        yield c


def _api_headers(headers: object) -> None:
    assert headers["cache-control"] == "no-store", headers  # type: ignore[index]
    assert headers["x-content-type-options"] == "nosniff", headers  # type: ignore[index]


def test_api_answers_are_never_stored(client: TestClient) -> None:
    created = client.post("/api/v1/rooms", json={"deal": 5})
    assert created.status_code == 201 and "host_token" in created.json()
    _api_headers(created.headers)
    room = created.json()["room"]["id"]
    joined = client.post(f"/api/v1/rooms/{room}/racers", json={"name": "ada"})
    assert joined.status_code == 201 and "token" in joined.json()
    _api_headers(joined.headers)
    player = client.post("/api/v1/players", json={"name": "Ada Lovelace"})
    assert player.status_code == 201, player.text
    _api_headers(player.headers)
    for path in ("/api/v1/rooms", f"/api/v1/rooms/{room}", "/api/v1/openapi.json",
                 "/api/v1/schemas/ws.json", "/healthz", "/readyz"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        _api_headers(answer.headers)


def test_error_answers_are_never_stored(client: TestClient) -> None:
    for answer in (client.get("/api/v1/rooms/nope"), client.get("/api/v1/no/such/route"),
                   client.delete("/api/v1/rooms"),
                   client.post("/api/v1/rooms", content=b"{", headers={
                       "content-type": "application/json"}),
                   client.post("/api/v1/rooms", json={"capacity": "8"}),
                   client.get("/metrics"), client.get("/static/nope.js")):
        assert answer.status_code >= 400, answer.text
        assert "error" in answer.json()
        _api_headers(answer.headers)


async def test_a_server_error_is_never_stored() -> None:
    """The 500 leaves through Starlette's outermost middleware, outside the one
    that adds the headers: it carries them itself."""
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": []})
    answer = await exception_handlers[Exception](request, RuntimeError("boom"))
    assert answer.status_code == 500
    _api_headers(answer.headers)


def test_a_refused_socket_upgrade_is_never_stored(client: TestClient) -> None:
    room = client.post("/api/v1/rooms", json={"deal": 5}).json()["room"]["id"]
    with client.websocket_connect(f"/api/v1/rooms/{room}/ws") as ws:
        ws.receive_json()
        with pytest.raises(WebSocketDenialResponse) as denied, \
                client.websocket_connect(f"/api/v1/rooms/{room}/ws"):
            pass
    assert denied.value.status_code == 429
    _api_headers(denied.value.headers)


def test_the_client_pages_and_files_keep_their_caching(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-cache"
    asset = client.get("/static/app.js")
    assert asset.status_code == 200
    assert asset.headers["cache-control"] == f"public, max-age={ASSET_MAX_AGE_S}"
    for answer in (page, asset):
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in answer.headers["content-security-policy"]
