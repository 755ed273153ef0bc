"""Small wire helpers for the end-to-end tests: REST calls and room sockets."""

from __future__ import annotations

import json
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from websockets.asyncio.client import ClientConnection, connect

from tests.conftest import REPO

__all__ = ["Api", "check_server_message", "open_socket", "recv", "recv_until"]

_SCHEMA = json.loads((REPO / "docs" / "ws-schema.json").read_text(encoding="utf-8"))
_SERVER_MESSAGES = Draft202012Validator(
    {**_SCHEMA, "oneOf": [{"$ref": "#/$defs/ServerMessage"}]})
"""docs/ws-schema.json, the published contract, as a validator of what the server sends."""


def check_server_message(msg: Any) -> None:
    """Fail unless ``msg`` is a server → client message of docs/ws-schema.json."""
    errors = sorted(_SERVER_MESSAGES.iter_errors(msg), key=lambda e: list(e.path))
    assert not errors, f"not in docs/ws-schema.json: {msg!r}: {errors[0].message}"


class Api:
    """REST calls against a base URL; raises on unexpected statuses."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.AsyncClient(base_url=url + "/api/v1", timeout=10)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def create(self, **body: Any) -> tuple[dict[str, Any], str]:
        r = await self.http.post("/rooms", json=body)
        assert r.status_code == 201, r.text
        return r.json()["room"], r.json()["host_token"]

    async def join(self, room: str, name: str) -> tuple[str, str]:
        r = await self.http.post(f"/rooms/{room}/racers", json={"name": name})
        assert r.status_code == 201, r.text
        return r.json()["racer"]["id"], r.json()["token"]

    async def start(self, room: str, host: str) -> dict[str, Any]:
        r = await self.http.post(f"/rooms/{room}/start",
                                 headers={"Authorization": f"Bearer {host}"})
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    async def get(self, path: str, token: str | None = None) -> Any:
        """GET ``path``, as the holder of ``token`` (a racer's or the host's) if given."""
        headers = {"Authorization": f"Bearer {token}"} if token else None
        r = await self.http.get(path, headers=headers)
        assert r.status_code == 200, r.text
        return r.json()


def open_socket(url: str, room: str, token: str | None = None,
                since: int | None = None) -> Any:
    """``async with open_socket(...) as ws`` — the room WebSocket."""
    ws_url = url.replace("http", "ws", 1) + f"/api/v1/rooms/{room}/ws"
    if since is not None:
        ws_url += f"?since={since}"
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return connect(ws_url, additional_headers=headers, open_timeout=5, close_timeout=2)


async def recv(ws: ClientConnection) -> dict[str, Any]:
    """The next message, decoded and checked against docs/ws-schema.json (every
    end-to-end test's socket frames are: the WebSocket contract holds)."""
    msg = json.loads(await ws.recv())
    check_server_message(msg)
    return msg  # type: ignore[no-any-return]


async def recv_until(ws: ClientConnection, t: str, *, type_: str | None = None,
                     seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Read messages until one with ``t`` (and event ``type_``); keep all in ``seen``."""
    while True:
        msg = await recv(ws)
        if seen is not None:
            seen.append(msg)
        if msg["t"] == t and (type_ is None or msg["d"].get("type") == type_):
            return msg
