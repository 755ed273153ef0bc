"""The guard around our subclasses of uvicorn's private protocol classes
(``server.runtime.uvicorn_protocols``): inside the known range they run;
outside it the server runs uvicorn's stock protocols, serves sockets all the
same, and says so in one warning line."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
import websockets

from server.app import uvicorn_config
from server.runtime import uvicorn_protocols
from server.runtime.settings import Settings

from .live import live_server


@pytest.fixture
def outside_the_range(monkeypatch: pytest.MonkeyPatch) -> None:
    """An uvicorn release past the known range (as the next one would be)."""
    monkeypatch.setattr(uvicorn_protocols, "uvicorn_version", lambda: (0, 99, 0))
    monkeypatch.setattr(uvicorn_protocols, "_warned", False)


def test_the_range_bounds() -> None:
    low, high = uvicorn_protocols.KNOWN_GOOD
    assert uvicorn_protocols.in_known_range(low)
    assert not uvicorn_protocols.in_known_range(high)
    assert not uvicorn_protocols.in_known_range((0, 52, 0))  # its slow-reader close hangs
    assert not uvicorn_protocols.in_known_range((0, 35, 0))


@pytest.mark.uvicorn_private
def test_the_locked_uvicorn_runs_our_protocols(caplog: pytest.LogCaptureFixture) -> None:
    from server.runtime.http_protocol import UpgradeHttpToolsProtocol
    from server.runtime.ws_protocol import SansIOProtocol

    assert uvicorn_protocols.in_known_range()
    with caplog.at_level(logging.WARNING, "server.runtime"):
        config = uvicorn_config(Settings(ws_rate=12.5, ws_burst=30))
    assert issubclass(config.ws, SansIOProtocol)
    assert issubclass(config.http, UpgradeHttpToolsProtocol)
    assert config.http.limits.max_header == Settings().max_header
    # each server counts its own connections per address
    assert uvicorn_config(Settings()).http.open_by_address is not config.http.open_by_address
    # a class of its own with the server's message budget (server.runtime.ws_protocol)
    assert (config.ws.budget_rate, config.ws.budget_burst) == (12.5, 30)
    assert caplog.records == []


def test_outside_the_range_the_stock_protocols_run_with_one_warning(
        outside_the_range: None, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "server.runtime"):
        configs = [uvicorn_config(Settings(ws_impl=impl))
                   for impl in ("auto", "auto", "wsproto", "websockets")]
    assert [(c.ws, c.http) for c in configs] == [
        ("websockets-sansio", "h11"), ("websockets-sansio", "h11"),
        ("wsproto", "h11"), ("websockets", "h11")]
    # h11: the HTTP protocol whose request heads uvicorn bounds itself
    assert {c.h11_max_incomplete_event_size for c in configs} == {Settings().max_header}
    (line,) = [r.getMessage() for r in caplog.records]
    assert "uvicorn" in line and ">=0.52.1,<0.55.0" in line and "uvicorn's own protocols" in line


async def test_outside_the_range_a_race_socket_still_works(outside_the_range: None) -> None:
    async with live_server(max_header=4096) as (port, room, server):
        assert server.config.ws == "websockets-sansio"
        async with websockets.connect(f"ws://127.0.0.1:{port}/api/v1/rooms/{room}/ws") as ws:
            welcome = json.loads(await ws.recv())
            await ws.send(json.dumps({"t": "ping"}))
            pong = json.loads(await ws.recv())
        # an unfinished request head over the limit is still refused (h11's 400,
        # not our 431): uvicorn's h11 protocol bounds what it buffers
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8192)
        async with asyncio.timeout(5):
            answer = await reader.read()
        writer.close()
    assert (welcome["t"], pong["t"]) == ("welcome", "pong")
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
