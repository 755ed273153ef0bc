"""Fair play end to end, against a real ``lucie-server`` process with real sockets:
the rows of docs/protocol.md "Fair play" over REST and over the WebSocket, as a
racer, a rival, a finished racer, the host, a spectator and anonymous callers."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from .wire import Api, open_socket, recv, recv_until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory())


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


async def _get(api: Api, path: str, token: str | None = None) -> httpx.Response:
    return await api.http.get(path, headers=_auth(token))


def _refused(r: httpx.Response, code: str) -> None:
    assert r.status_code == 403, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code  # never a partial body


async def _move(ws: Any, game: dict[str, Any], n: int) -> dict[str, Any]:
    await ws.send(json.dumps({"t": "move", "d": {"move": game["legal_moves"][0],
                                                 "expected_version": game["version"],
                                                 "client_move_id": f"m{n}"}}))
    return (await recv_until(ws, "ack"))["d"]["game"]  # type: ignore[no-any-return]


def _no_board_in(messages: list[dict[str, Any]]) -> None:
    """What a spectator socket got carries progress only: no position, no move."""
    for msg in messages:
        text = json.dumps(msg)
        for field in ('"position"', '"fans"', '"legal_moves"', '"applied"'):
            assert field not in text, msg
        for secret in ('"redeal_key"', '"deal_salt"'):  # the room view's: null until the end
            assert secret not in text.replace(f"{secret}: null", ""), msg
        assert msg["t"] in ("welcome", "event", "snapshot", "pong"), msg


async def test_a_race_as_every_viewer(url: str) -> None:
    api = Api(url)
    try:
        room, host = await api.create(deal=5, countdown_s=0, time_limit_s=120)
        rid = room["id"]
        assert room["deal_number"] == 5  # the host's answer
        ada, ada_t = await api.join(rid, "ada")
        bob, bob_t = await api.join(rid, "bob")
        # before the start: the deal number is the host's, no board for anyone
        assert (await api.get(f"/rooms/{rid}"))["deal_number"] is None
        assert (await _get(api, f"/rooms/{rid}", ada_t)).json()["deal_number"] is None
        assert (await _get(api, f"/rooms/{rid}", host)).json()["deal_number"] == 5
        for token in (ada_t, bob_t, host, None):
            _refused(await _get(api, f"/rooms/{rid}/racers/{ada}/game", token),
                     "race/hidden_until_start")
        spectated: list[dict[str, Any]] = []
        async with open_socket(url, rid) as spectator, open_socket(url, rid, ada_t) as ada_ws:
            welcome = await recv(spectator)
            spectated.append(welcome)
            assert welcome["d"]["room"]["deal_number"] is None
            assert (await recv(ada_ws))["d"]["room"]["deal_number"] is None
            await api.start(rid, host)
            started = await recv_until(spectator, "event", type_="started", seen=spectated)
            assert started["d"]["deal_number"] == 5
            await recv_until(ada_ws, "event", type_="started")
            game = (await _get(api, f"/rooms/{rid}/racers/{ada}/game", ada_t)).json()
            for n in range(3):
                game = await _move(ada_ws, game, n)
            await recv_until(spectator, "event", type_="progress", seen=spectated)
            # during the race: ada's own things live; bob, with his token, sees nothing
            assert (await _get(api, f"/rooms/{rid}/racers/{ada}/game", ada_t)).json()[
                "version"] == 3
            for path in (f"/rooms/{rid}/racers/{ada}/game", f"/rooms/{rid}/racers/{ada}/replay",
                         f"/rooms/{rid}/compare/ada/bob"):
                _refused(await _get(api, path, bob_t), "race/hidden_until_over")
            r = await api.http.post("/compare", headers=_auth(bob_t), json={
                "a": {"room": rid, "racer": "ada"}, "b": {"room": rid, "racer": "bob"}})
            _refused(r, "race/hidden_until_over")
            # spectators and the host: the board a minute late, never newer; no log
            for token in (None, host):
                late = (await _get(api, f"/rooms/{rid}/racers/{ada}/game", token)).json()
                assert late["version"] == 0 and late["legal_moves"] == []
                assert late["race_clock_ms"] == 0 and late["delay_ms"] <= 60_000
                _refused(await _get(api, f"/rooms/{rid}/racers/{ada}/replay", token),
                         "race/hidden_until_over")
            assert (await api.get(f"/rooms/{rid}"))["deal_number"] == 5
            # progress stays public
            table = (await api.get(f"/rooms/{rid}/standings"))["standings"]
            assert {s["name"]: s["moves"] for s in table}["ada"] == 3
            # bob resigns (a spare seat resigned at once): his result is final, yet he
            # sees what a spectator sees until the race is over — ada's board late
            r = await api.http.post(f"/rooms/{rid}/racers/{bob}/resign", headers=_auth(bob_t))
            assert r.status_code == 200, r.text
            late = (await _get(api, f"/rooms/{rid}/racers/{ada}/game", bob_t)).json()
            assert late["version"] == 0 and late["legal_moves"] == []
            assert 0 < late["delay_ms"] <= 60_000
            for path in (f"/rooms/{rid}/racers/{ada}/replay", f"/rooms/{rid}/compare/ada/bob"):
                _refused(await _get(api, path, bob_t), "race/hidden_until_over")
            # ada asking for bob's board on her socket's behalf: still hidden
            _refused(await _get(api, f"/rooms/{rid}/racers/{bob}/game", ada_t),
                     "race/hidden_until_over")
            r = await api.http.post(f"/rooms/{rid}/racers/{ada}/resign", headers=_auth(ada_t))
            assert r.status_code == 200, r.text
            await recv_until(spectator, "event", type_="race_over", seen=spectated)
        _no_board_in(spectated)
        # after the race everything is public, to anyone
        assert (await api.get(f"/rooms/{rid}/racers/{ada}/game"))["version"] == 3
        replay = await api.get(f"/rooms/{rid}/racers/{ada}/replay")
        assert len(replay["moves"]) == 3 and replay["redeal_key"] is not None
        c = await api.get(f"/rooms/{rid}/compare/ada/bob")
        assert c["a"]["moves"] == 3
    finally:
        await api.aclose()


async def test_open_boards_rooms_are_listed_as_such_and_show_boards_live(url: str) -> None:
    api = Api(url)
    try:
        room, host = await api.create(countdown_s=0, open_boards=True)
        listed = {r["id"]: r for r in (await api.get("/rooms"))["rooms"]}
        assert listed[room["id"]]["open_boards"] is True
        assert listed[room["id"]]["spectator_delay_ms"] == 0
        ada, ada_t = await api.join(room["id"], "ada")
        _, bob_t = await api.join(room["id"], "bob")
        async with open_socket(url, room["id"], ada_t) as ws:
            await recv(ws)
            await api.start(room["id"], host)
            await recv_until(ws, "event", type_="started")
            game = (await _get(api, f"/rooms/{room['id']}/racers/{ada}/game", ada_t)).json()
            await _move(ws, game, 0)
        live = await api.get(f"/rooms/{room['id']}/racers/{ada}/game")
        assert live["version"] == 1 and live["delay_ms"] == 0
        _refused(await _get(api, f"/rooms/{room['id']}/racers/{ada}/game", bob_t),
                 "race/hidden_until_over")
        r = await api.http.post("/rooms", json={"spectator_delay_s": 0})
        assert r.status_code == 400 and r.json()["error"]["code"] == "request/invalid"
    finally:
        await api.aclose()


async def test_a_racer_token_on_a_spectator_socket_still_gets_no_boards(url: str) -> None:
    """A racer who opens a second socket without a token, or authenticates on it,
    gets the same room events: progress, never a board or a move."""
    api = Api(url)
    try:
        room, host = await api.create(countdown_s=0)
        ada, ada_t = await api.join(room["id"], "ada")
        _, bob_t = await api.join(room["id"], "bob")
        seen: list[dict[str, Any]] = []
        async with open_socket(url, room["id"], ada_t) as ada_ws, \
                open_socket(url, room["id"]) as bob_second:
            await recv(ada_ws)
            seen.append(await recv(bob_second))
            await bob_second.send(json.dumps({"t": "auth", "d": {"token": bob_t}}))
            seen.append(await recv_until(bob_second, "welcome"))
            await api.start(room["id"], host)
            await recv_until(ada_ws, "event", type_="started")
            game = (await _get(api, f"/rooms/{room['id']}/racers/{ada}/game", ada_t)).json()
            for n in range(2):
                game = await _move(ada_ws, game, n)
            await recv_until(bob_second, "event", type_="progress", seen=seen)
            await recv_until(bob_second, "event", type_="progress", seen=seen)
        _no_board_in(seen)
    finally:
        await api.aclose()


async def test_the_host_kicks_before_the_start_only(url: str) -> None:
    """The host's power over the roster ends at the start: a kicked leader would
    hand a racing host a rated win. Closing stays open (and leaves it unrated)."""
    api = Api(url)
    try:
        room, host = await api.create(countdown_s=0)
        rid = room["id"]
        ada, ada_t = await api.join(rid, "ada")
        await api.join(rid, "bob")
        cy, _ = await api.join(rid, "cy")
        r = await api.http.delete(f"/rooms/{rid}/racers/{cy}", headers=_auth(host))
        assert r.status_code == 204, r.text  # before the start: removed
        await api.start(rid, host)
        r = await api.http.delete(f"/rooms/{rid}/racers/{ada}", headers=_auth(host))
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "room/kick_after_start"
        view = await api.get(f"/rooms/{rid}")
        assert {x["name"]: x["status"] for x in view["racers"]} == {
            "ada": "playing", "bob": "playing"}  # nothing half-applied
        r = await api.http.delete(f"/rooms/{rid}/racers/{ada}", headers=_auth(ada_t))
        assert r.status_code == 204, r.text  # leaving stays every racer's right
        r = await api.http.post(f"/rooms/{rid}/close", headers=_auth(host))
        assert r.status_code == 200, r.text
        assert (await api.get(f"/rooms/{rid}"))["state"] == "closed"
    finally:
        await api.aclose()
