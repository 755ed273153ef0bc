"""The client library without a server: URLs, error mapping, typed views, unreachable servers."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from client_cli.api import (
    ApiError,
    GameView,
    LucieClient,
    MoveRefused,
    RoomConnection,
    RoomGone,
    RoomView,
    ServerUnreachable,
    server_url,
)
from client_cli.errors import error_for
from client_cli.room_socket import ws_url


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_url_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LUCIE_SERVER", raising=False)
    assert server_url() == "http://127.0.0.1:8000"
    monkeypatch.setenv("LUCIE_SERVER", "example.org:9000/")
    assert server_url() == "http://example.org:9000"
    assert server_url("https://a.b") == "https://a.b"


def test_ws_url_resumes_from_seq() -> None:
    assert ws_url("http://h:1", "AB CD", None) == "ws://h:1/api/v1/rooms/AB%20CD/ws"
    assert ws_url("https://h", "X", 17) == "wss://h/api/v1/rooms/X/ws?since=17"


def test_error_for_keeps_the_server_code() -> None:
    err = error_for(409, {"error": {"code": "room/full", "message": "the room is full"}})
    assert (err.code, err.message, err.status) == ("room/full", "the room is full", 409)
    assert isinstance(error_for(404, {"error": {"code": "room/not_found", "message": "x"}}),
                      RoomGone)
    refused = error_for(409, {"error": {"code": "move/stale_version", "message": "stale",
                                        "details": {"game": {"racer": "r"}}}})
    assert isinstance(refused, MoveRefused) and refused.game == {"racer": "r"}
    assert error_for(502, "<html>bad gateway</html>").code == "server/error"
    assert error_for(400, ["odd"]).code == "client/protocol"


def test_views_read_the_protocol_shapes_and_ignore_new_fields() -> None:
    room = RoomView.model_validate({
        "id": "r1", "code": "ABCD", "rules": {"variant": "belle-lucie", "redeals": 1},
        "deal_number": 7, "state": "waiting", "capacity": 8, "time_limit_ms": 900000,
        "racers": [{"id": "x", "name": "ann", "join_order": 0, "brand_new": 1}], "seq": 3,
        "future_field": True})
    assert room.rules.rule_set().redeals == 1
    assert room.racer("x") is not None and room.racer("x").name == "ann"  # type: ignore[union-attr]
    game = GameView.model_validate({
        "racer": "x", "version": 0, "status": "playing", "legal_moves": ["1f"],
        "position": {"fans": [["JD", "KS", "4S"], []], "foundations": [["C", 0], ["D", 0],
                     ["H", 0], ["S", 1]], "cells": [], "redeals_used": 0,
                     "merci_used": False, "foundation_cards": 1}})
    pos = game.position.position()
    assert len(pos.fans) == 2 and pos.fans[1] == () and pos.foundation_cards == 1


async def test_rest_client_reports_an_unreachable_server() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    async with LucieClient(url) as client:
        with pytest.raises(ServerUnreachable) as info:
            await client.list_rooms()
    assert info.value.code == "client/unreachable" and url in info.value.message


async def test_room_connection_reports_an_unreachable_server() -> None:
    conn = RoomConnection(f"http://127.0.0.1:{_closed_port()}", "ABCD", "t")
    with pytest.raises(ServerUnreachable):
        await conn.open()
    await conn.close()


async def test_move_on_a_closed_connection_fails_cleanly() -> None:
    conn = RoomConnection("http://127.0.0.1:1", "ABCD", "t")
    await conn.close()
    with pytest.raises(ApiError) as info:
        await conn.move("1f", 0, timeout=0.2)
    assert info.value.code == "client/timeout"


async def test_create_room_sends_the_room_options_asked_for() -> None:
    """``bots`` (run by the server), ``hints`` and ``winnable_only`` of POST /rooms;
    left out when not asked for (an older server refuses fields it does not know)."""
    sent: list[dict[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(201, json={"room": {"id": "r1", "code": "ABCD", "hints": True,
                                                  "winnable_only": True},
                                         "host_token": "h"})

    async with LucieClient("http://h:1", transport=httpx.MockTransport(answer)) as client:
        made = await client.create_room(bots=3, hints=True, winnable_only=True)
        await client.create_room()
    assert {k: sent[0][k] for k in ("bots", "hints", "winnable_only")} == {
        "bots": 3, "hints": True, "winnable_only": True}
    assert not {"bots", "hints", "winnable_only"} & set(sent[1])
    assert made.room.hints and made.room.winnable_only
