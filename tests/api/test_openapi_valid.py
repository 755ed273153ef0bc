"""The served OpenAPI document is valid OpenAPI 3.1 (openapi-spec-validator) and
says what the server does: unique operation ids, every error status of the
registry, ``Allow`` on 405, ``HEAD`` wherever ``GET``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openapi_spec_validator import validate
from starlette.testclient import TestClient

from server.api.openapi import _ALL, error_codes, openapi
from server.app import create_app
from server.errors import REGISTRY


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as c:
        yield c


@pytest.fixture(scope="module")
def served(client: TestClient) -> dict[str, Any]:
    doc: dict[str, Any] = client.get("/api/v1/openapi.json").json()
    return doc


def test_served_document_is_valid_openapi(served: dict[str, Any]) -> None:
    validate(served)  # raises on any error (duplicate operation ids included)
    assert served == openapi()


def test_operation_ids_are_unique_and_named(served: dict[str, Any]) -> None:
    ids = [op["operationId"] for item in served["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids)) == len(_ALL)
    for expected in ("createRoom", "listRooms", "getRoom", "startRoom", "closeRoom", "joinRoom",
                     "leaveRoom", "setReady", "getGame", "submitMove", "resign",
                     "getStandings", "getReplay", "getHint", "compareInRoom", "compareGames",
                     "checkReplay", "createGhostRoom", "getDaily", "getDailyOfDate",
                     "getDailyLeaderboard", "getDailyLeaderboardOfDate",
                     "getAllTimeLeaderboard"):
        assert expected in ids


def test_every_status_comes_from_the_registry(served: dict[str, Any]) -> None:
    for ep in _ALL:
        op = served["paths"]["/api/v1" + ep.path][ep.method.lower()]
        declared = {int(s) for s in op["responses"]} - {ep.status}
        assert declared == set(error_codes(ep)), ep.operation_id
        for code in ep.errors:
            assert REGISTRY[code].status in declared, (ep.operation_id, code)
        assert {429, 500} <= declared
        assert "Retry-After" in op["responses"]["429"]["headers"]
        if ep.body is not None:
            assert {400, 413, 415, 422} <= declared, ep.operation_id
        if ep.store != "none":
            assert "`store/unavailable`" in op["responses"]["503"]["description"]


def test_typed_parameters(served: dict[str, Any]) -> None:
    params = {p["name"]: p["schema"] for item in served["paths"].values()
              for op in item.values() for p in op.get("parameters", [])}
    assert params["date"]["pattern"] == r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
    assert "belle-lucie" in params["variant"]["enum"]
    assert (params["limit"]["type"], params["limit"]["minimum"],
            params["limit"]["maximum"]) == ("integer", 1, 100)
    assert params["room"]["maxLength"] == 64


def test_405_carries_allow(client: TestClient) -> None:
    r = client.put("/api/v1/rooms")
    assert r.status_code == 405 and r.json()["error"]["code"] == "request/method_not_allowed"
    assert r.headers["allow"] == "GET, HEAD, POST"
    r = client.get("/api/v1/rooms/x/racers/y")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE"
    assert client.post("/api/v1/daily/belle-lucie").headers["allow"] == "GET, HEAD"


def test_head_wherever_get(client: TestClient, served: dict[str, Any]) -> None:
    for path in ("/api/v1/rooms", "/api/v1/daily/belle-lucie", "/api/v1/openapi.json",
                 "/api/v1/leaderboards/belle-lucie/all-time", "/healthz"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == get.headers[
            "content-type"]
    assert client.head("/api/v1/rooms/nope").status_code == 404
