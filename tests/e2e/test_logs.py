"""The server's logs are JSON lines with request ids, and no secret (issue 22).

One real ``lucie-server`` process with ``LUCIE_LOG_FORMAT=json`` at debug
level (the WebSocket library then logs headers and frames too), one whole
race over REST and WebSocket — create, join, start, moves on both
transports, a refused move, a spectator, resignations, race over — then the
whole log file is read: every line is a JSON object with the common fields;
the request lines, socket lines and race lifecycle lines are there with the
request ids the client sent or got back; and none of the tokens the run
created appears anywhere in it.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from tests.conftest import SERVER_LOGS

from .wire import Api, open_socket, recv, recv_until


def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        assert line.strip(), f"line {number} is empty"
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"line {number} is not JSON: {line[:200]!r}") from None
        assert isinstance(record, dict), line
        out.append(record)
    return out


def _wait_for(path: Path, what: str, count: int) -> None:
    """Until ``what`` appears ``count`` times in the log (socket lines are
    written when the server's handler ends, just after the client's close)."""
    deadline = time.monotonic() + 10
    while path.read_text(encoding="utf-8").count(what) < count:
        assert time.monotonic() < deadline, f"{what!r} not {count} times in the log"
        time.sleep(0.05)


async def test_a_race_logs_json_lines_with_request_ids_and_no_secret(
        server_factory: Any) -> None:
    url = str(server_factory(LUCIE_LOG_FORMAT="json", LUCIE_LOG_LEVEL="debug"))
    api = Api(url)
    r = await api.http.post("/rooms", json={"deal": 3, "countdown_s": 0},
                            headers={"X-Request-ID": "e2e-create.1"})
    assert r.status_code == 201 and r.headers["x-request-id"] == "e2e-create.1"
    room, host = r.json()["room"], r.json()["host_token"]
    rid = room["id"]
    ada, ada_token = await api.join(rid, "ada")
    bob, bob_token = await api.join(rid, "bob")
    secrets = (host, ada_token, bob_token)
    # an id that is not sane (spaces, too long) is replaced, and the new one returned
    r = await api.http.get(f"/rooms/{rid}", headers={"X-Request-ID": "bad id " + "x" * 200})
    made = r.headers["x-request-id"]
    assert made != "bad id" and len(made) == 16
    await api.start(rid, host)

    async with open_socket(url, rid, ada_token) as ws:
        assert ws.response.headers["x-request-id"]  # made for the socket, echoed
        ada_socket = ws.response.headers["x-request-id"]
        welcome = await recv(ws)
        game = await api.get(f"/rooms/{rid}/racers/{ada}/game", ada_token)
        await ws.send(json.dumps({"t": "move", "d": {
            "move": game["legal_moves"][0], "expected_version": 0, "client_move_id": "m1"}}))
        assert (await recv_until(ws, "ack"))["d"]["version"] == 1
        await ws.send(json.dumps({"t": "move", "d": {  # stale: refused
            "move": "u", "expected_version": 0, "client_move_id": "m2"}}))
        assert (await recv_until(ws, "refused"))["d"]["code"] == "move/stale_version"

        bob_game = await api.get(f"/rooms/{rid}/racers/{bob}/game", bob_token)
        r = await api.http.post(f"/rooms/{rid}/racers/{bob}/moves", json={
            "move": bob_game["legal_moves"][0], "expected_version": 0, "client_move_id": "b1"},
            headers={"Authorization": f"Bearer {bob_token}", "X-Request-ID": "e2e-bob-move"})
        assert r.status_code == 200 and r.headers["x-request-id"] == "e2e-bob-move"
        async with open_socket(url, rid) as spectator:  # a spectator, then auth as bob
            await recv(spectator)
            await spectator.send(json.dumps({"t": "auth", "d": {"token": bob_token}}))
            await recv_until(spectator, "welcome")
        r = await api.http.post(f"/rooms/{rid}/racers/{bob}/resign",
                                headers={"Authorization": f"Bearer {bob_token}",
                                         "X-Request-ID": "e2e-bob-resign"})
        assert r.status_code == 200
        await ws.send(json.dumps({"t": "resign", "d": {}}))
        await recv_until(ws, "event", type_="race_over")
    assert welcome["t"] == "welcome"
    await api.aclose()

    path = SERVER_LOGS[url]
    _wait_for(path, '"socket_closed"', 2)
    await asyncio.sleep(0.2)
    text = path.read_text(encoding="utf-8")
    for secret in secrets:
        assert secret not in text, "a token is in the log"
    records = _lines(path)
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys(), record
        assert record["time"].endswith("+00:00")

    requests = [r for r in records if r.get("event") == "http_request"]
    by_id = {r["request_id"]: r for r in requests}
    create = by_id["e2e-create.1"]
    assert create | {"duration_ms": 0} == create | {
        "method": "POST", "path": "/api/v1/rooms", "route": "/api/v1/rooms", "status": 201,
        "client": "127.0.0.1", "duration_ms": 0}
    assert create["duration_ms"] > 0
    move = by_id["e2e-bob-move"]
    assert (move["route"], move["room"], move["racer"], move["status"]) == (
        "/api/v1/rooms/{room}/racers/{racer}/moves", rid, bob, 200)
    assert by_id[made]["path"] == f"/api/v1/rooms/{rid}"
    assert all(isinstance(r["request_id"], str) and r["request_id"] for r in requests)

    opened = [r for r in records if r.get("event") == "socket_opened"]
    closed = {r["request_id"]: r for r in records if r.get("event") == "socket_closed"}
    assert {(r["room"], r["racer"]) for r in opened} == {(rid, ada), (rid, None)}
    ada_closed = closed[ada_socket]
    assert (ada_closed["room"], ada_closed["racer"]) == (rid, ada)
    assert ada_closed["messages_in"] == 3 and ada_closed["messages_out"] >= 4
    assert ada_closed["code"] == 1000 and ada_closed["duration_ms"] > 0
    spectator_closed = next(r for k, r in closed.items() if k != ada_socket)
    assert spectator_closed["racer"] == bob  # authenticated on the socket

    lifecycle = [r for r in records if r["logger"] == "server.race" and r.get("room") == rid]
    events = [r["event"] for r in lifecycle]
    assert events[:2] == ["room_created", "race_started"], events
    assert events.count("racer_final") == 2 and events[-1] == "race_ended"
    assert lifecycle[0]["request_id"] == "e2e-create.1"  # logged while serving it
    assert lifecycle[0]["deal_number"] is None  # the host's alone before the start
    assert lifecycle[1]["deal_number"] == 3
    finals = {r["racer"]: r for r in lifecycle if r["event"] == "racer_final"}
    assert finals[bob]["racer_status"] == "resigned"
    assert finals[bob]["request_id"] == "e2e-bob-resign"
    assert finals[ada]["request_id"] == ada_socket  # resigned on the socket
    assert lifecycle[-1]["how"] == "over" and lifecycle[-1]["racers"] == 2
    assert any(r["logger"].startswith("uvicorn") for r in records)  # uvicorn's lines: JSON too
