"""Rematch end to end against a real ``lucie-server`` process (issue 21, item 2):
the REST answers and refusals, the ``rematch`` event on the old room's socket
(checked against docs/ws-schema.json), the new room raced with the same tokens."""

from __future__ import annotations

from typing import Any

import pytest

from .wire import Api, open_socket, recv, recv_until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory())


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _over(api: Api, names: list[str]) -> tuple[dict[str, Any], str,
                                                     list[tuple[str, str]]]:
    room, host = await api.create(deal=42, countdown_s=0, visibility="private")
    racers = [await api.join(room["code"], n) for n in names]
    await api.start(room["id"], host)
    for racer, token in racers:
        r = await api.http.post(f"/rooms/{room['id']}/racers/{racer}/resign",
                                headers=_auth(token))
        assert r.status_code == 200, r.text
    return room, host, racers


async def test_rematch_over_rest_and_the_socket(url: str) -> None:
    api = Api(url)
    try:
        room, host, [(ada, ada_t), (bob, bob_t)] = await _over(api, ["Ada", "Bob"])
        path = f"/rooms/{room['code']}/rematch"
        # refusals: no token, not a racer's token
        r = await api.http.post(path)
        assert r.status_code == 401 and r.json()["error"]["code"] == "auth/missing"
        for bad in (host, "nobody-" + "x" * 25):
            r = await api.http.post(path, headers=_auth(bad))
            assert r.status_code == 403 and r.json()["error"]["code"] == "auth/invalid_token"
        async with open_socket(url, room["id"]) as spectator:
            assert (await recv(spectator))["t"] == "welcome"
            r = await api.http.post(path, headers=_auth(bob_t))
            assert r.status_code == 201, r.text
            made = r.json()
            assert set(made) == {"room", "racer", "token", "host_token"}
            new = made["room"]
            assert made["racer"]["id"] == bob and made["token"] == bob_t
            assert isinstance(made["host_token"], str) and len(made["host_token"]) == 32
            assert new["rematch_of"] == {"room": room["id"], "code": room["code"]}
            assert new["state"] == "waiting" and new["visibility"] == "private"
            event = (await recv_until(spectator, "event", type_="rematch"))["d"]
            assert event["rematch"] == {"room": new["id"], "code": new["code"]}
            assert event["series"] is None and event["race_clock_ms"] is not None
        old = await api.get(f"/rooms/{room['id']}")
        assert old["rematch"] == {"room": new["id"], "code": new["code"]}
        # a later offer joins; a repeated one answers alike
        r = await api.http.post(path, headers=_auth(ada_t))
        assert r.status_code == 201 and r.json()["room"]["id"] == new["id"]
        assert r.json()["racer"]["id"] == ada and r.json()["host_token"] is None
        again = await api.http.post(path, headers=_auth(bob_t))
        assert again.json()["host_token"] == made["host_token"]
        # the new room races with the same tokens; its host is bob
        async with open_socket(url, new["id"], ada_t) as ws:
            assert (await recv(ws))["d"]["racer"] == ada
        await api.start(new["id"], made["host_token"])
        game = await api.get(f"/rooms/{new['id']}/racers/{ada}/game", ada_t)
        assert game["racer"] == ada and game["status"] == "playing"
        # before the new race is over: 409
        r = await api.http.post(f"/rooms/{new['id']}/rematch", headers=_auth(ada_t))
        assert r.status_code == 409 and r.json()["error"]["code"] == "room/not_over"
    finally:
        await api.aclose()


async def test_rematch_of_an_unknown_room_is_404(url: str) -> None:
    api = Api(url)
    try:
        r = await api.http.post("/rooms/ZZZZZZ/rematch", headers=_auth("x" * 32))
        assert r.status_code == 404 and r.json()["error"]["code"] == "room/not_found"
    finally:
        await api.aclose()
