"""Must show (issue 35, challenges and duels) on a real embedded ``lucie-server``
(memory store, SQLite archive): the duel across time (``challenge_flow.
duel_scenario``), an unplayed duel void at 7 days on a moved clock, and fair
play across time — before Bob has played, every read of Ada's attempt is
refused (REST, comparisons, ghosts, the socket); bad input gets its code.
The same duel on two processes, Redis and PostgreSQL, and kill -9 while
duels settle: ``tests/archive/test_challenges_scaleout.py``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tests.conftest import ServerFactory

from .challenge_flow import (
    DAY_MS,
    HOUR_MS,
    bearer,
    duel_scenario,
    move_clock,
    new_player,
    play_attempt,
    rating,
    seen_by,
    until,
)
from .wire import open_socket

BAND = 2.0


def _server(server_factory: ServerFactory, tmp_path: Path) -> tuple[str, Path]:
    offset = tmp_path / "clock-offset"
    url = server_factory(LUCIE_ARCHIVE_PERIOD_S="0.2", LUCIE_CHALLENGE_PERIOD_S="0.2",
                         LUCIE_CLOCK_OFFSET_FILE=str(offset), LUCIE_DUEL_BAND_WIDTH=str(BAND),
                         LUCIE_DATA_DIR=str(tmp_path / "data"))
    return url, offset


@pytest.fixture(scope="module")
def small(server_factory: ServerFactory, tmp_path_factory: pytest.TempPathFactory) -> str:
    """One server for the small tests of this module."""
    return _server(server_factory, tmp_path_factory.mktemp("challenges"))[0]


def test_a_duel_across_time_embedded(server_factory: ServerFactory, tmp_path: Path) -> None:
    url, offset = _server(server_factory, tmp_path)
    duel_scenario((url, url), offset, BAND)


def test_an_unplayed_duel_is_void_at_seven_days(server_factory: ServerFactory,
                                                 tmp_path: Path) -> None:
    url, offset = _server(server_factory, tmp_path)
    with httpx.Client(base_url=url, timeout=10) as api:
        eve, eve_key = new_player(api, "Eve")
        opened = api.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=eve_key)
        assert opened.status_code == 201, opened.text
        duel = opened.json()["challenge"]
        assert duel["expires_at_ms"] - duel["created_at_ms"] == 7 * DAY_MS
        play_attempt(api, opened.json(), cards=True)
        until(lambda: seen_by(api, duel["id"], eve_key), lambda v: v["you"]["finished"])

        move_clock(offset, 7 * DAY_MS - HOUR_MS)  # an hour before: still open
        assert seen_by(api, duel["id"], eve_key)["state"] == "open"
        move_clock(offset, 7 * DAY_MS + 1000)
        void = until(lambda: seen_by(api, duel["id"], eve_key), lambda v: v["state"] == "void")
        assert void["state"] == "void" and void["result"] is None
        assert void["redeal_key"] is not None  # closed: the deal is revealed
        told = api.get(f"/api/v1/players/{eve['id']}/notifications", headers=eve_key).json()
        assert told["unread"] == 1
        (note,) = told["notifications"]
        assert (note["kind"], note["challenge"]) == ("duel_void", duel["id"])
        assert "void, unrated" in note["message"]
        assert api.get(f"/api/v1/players/{eve['id']}/notifications",
                       headers=eve_key).json()["unread"] == 0  # told once
        assert rating(api, eve) is None  # rated nothing
        assert api.get(f"/api/v1/players/{eve['id']}/ratings/belle-lucie").json()["points"] == []
        late = api.post(f"/api/v1/challenges/{duel['id']}/attempts", headers=eve_key)
        assert late.json()["error"]["code"] == "challenge/already_played"
        _, ivy_key = new_player(api, "Ivy")
        late = api.post(f"/api/v1/challenges/{duel['id']}/attempts", headers=ivy_key)
        assert (late.status_code, late.json()["error"]["code"]) == (409, "challenge/closed")
        other = api.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=ivy_key)
        assert other.json()["matched"] is False  # a void duel is nobody's
        mine = api.get(f"/api/v1/players/{eve['id']}/challenges", headers=eve_key).json()
        assert [c["state"] for c in mine["challenges"]] == ["void"]


def _code(got: httpx.Response) -> tuple[int, str]:
    return got.status_code, got.json()["error"]["code"]


async def _socket_refused(url: str, room: str, token: str | None) -> Any:
    async with open_socket(url, room, token) as ws:
        try:
            await ws.recv()
        except ConnectionClosed as closed:
            return closed.rcvd
    raise AssertionError("the socket of a sealed room answered")


def test_before_playing_every_read_of_anothers_attempt_is_refused(
        server_factory: ServerFactory, tmp_path: Path) -> None:
    url, offset = _server(server_factory, tmp_path)
    with httpx.Client(base_url=url, timeout=10) as api:
        ada, ada_key = new_player(api, "Ada")
        bob, bob_key = new_player(api, "Bob")
        made = api.post("/api/v1/challenges", json={"variant": "belle-lucie", "deal": 2,
                                                    "open_to": "link"}, headers=ada_key)
        assert made.status_code == 201, made.text
        challenge = made.json()["challenge"]
        assert challenge["deal_number"] is None  # hidden until you played (or it closed)
        cards = play_attempt(api, made.json(), cards=True)
        assert cards > 0  # deal 2 has aces on top
        room, racer = made.json()["room"]["id"], made.json()["racer"]["id"]
        until(lambda: seen_by(api, challenge["id"], ada_key), lambda v: v["you"]["finished"])

        bobs = api.post(f"/api/v1/challenges/{challenge['code'].lower()}/attempts",
                        headers=bob_key)
        assert bobs.status_code == 201, bobs.text
        bob_token = bobs.json()["token"]
        code = made.json()["room"]["code"]
        source = {"room": room, "racer": racer}
        reads = {
            "room": lambda h: api.get(f"/api/v1/rooms/{room}", headers=h),
            "room by code": lambda h: api.get(f"/api/v1/rooms/{code}", headers=h),
            "standings": lambda h: api.get(f"/api/v1/rooms/{room}/standings", headers=h),
            "board": lambda h: api.get(f"/api/v1/rooms/{room}/racers/{racer}/game", headers=h),
            "replay": lambda h: api.get(f"/api/v1/rooms/{room}/racers/{racer}/replay",
                                        headers=h),
            "race": lambda h: api.get(f"/api/v1/races/{room}", headers=h),
            "comparison": lambda h: api.get(f"/api/v1/rooms/{room}/compare/{racer}/{racer}",
                                            headers=h),
            "comparison across rooms": lambda h: api.post(
                "/api/v1/compare", headers=h, json={"a": source, "b": source}),
            "ghost room": lambda h: api.post("/api/v1/ghost-rooms", headers=h, json=source),
        }
        for name, read in reads.items():
            assert _code(read({})) == (403, "challenge/hidden"), name  # as a spectator
            refused = read(bearer(bob_token))  # with Bob's racer token
            assert refused.status_code == 403, (name, refused.text)
            assert refused.json()["error"]["code"] in ("challenge/hidden", "auth/invalid_token")
        closed = asyncio.run(_socket_refused(url, room, None))
        assert (closed.code, closed.reason.split(":")[0]) == (1008, "challenge/hidden")
        closed = asyncio.run(_socket_refused(url, room, bob_token))
        assert closed.code == 1008
        view = seen_by(api, challenge["id"], bob_key)
        assert view["played"] == 1 and view["attempts"] is None
        assert view["deal_number"] is None and view["redeal_key"] is None
        history = api.get(f"/api/v1/players/{ada['id']}/races").json()["races"]
        assert room not in [r["race"] for r in history]  # not in her history either

        # Bob's own attempt shows to Bob
        own = f"/api/v1/rooms/{bobs.json()['room']['id']}"
        assert api.get(own, headers=bearer(bob_token)).status_code == 200
        assert api.get(own).json()["error"]["code"] == "challenge/hidden"

        bob_cards = play_attempt(api, bobs.json(), cards=False)
        view = until(lambda: seen_by(api, challenge["id"], bob_key),
                     lambda v: v["you"]["finished"])
        assert view["deal_number"] == 2 and view["redeal_key"] is None  # open still
        assert [(a["player"]["id"], a["foundation_cards"], a["rank"])
                for a in view["attempts"]] == [(ada["id"], cards, 1), (bob["id"], bob_cards, 2)]
        assert _code(reads["replay"]({})) == (403, "challenge/hidden")  # until it closes

        move_clock(offset, 7 * DAY_MS + 1000)
        until(lambda: seen_by(api, challenge["id"], None), lambda v: v["state"] == "closed")
        for name, read in reads.items():
            assert read({}).status_code in (200, 201), name
        replay = reads["replay"]({}).json()
        assert replay["redeal_key"] == seen_by(api, challenge["id"], None)["redeal_key"]
        told = api.get(f"/api/v1/players/{ada['id']}/notifications", headers=ada_key).json()
        assert [n["kind"] for n in told["notifications"]] == ["challenge_closed"]


@pytest.mark.parametrize(("body", "field"), [
    ({"variant": "nope"}, "variant"),
    ({"variant": "belle-lucie", "deal": 7, "open_to": "rated"}, "deal"),
    ({"variant": "belle-lucie", "deal": 0}, None),
    ({"variant": "belle-lucie", "expires_in_s": 59}, None),
    ({"variant": "belle-lucie", "open_to": "friends"}, None),
])
def test_bad_input_gets_its_code_and_makes_nothing(small: str, body: dict[str, Any],
                                                   field: str | None) -> None:
    with httpx.Client(base_url=small, timeout=10) as api:
        player, key = new_player(api, "Uma")
        got = api.post("/api/v1/challenges", json=body, headers=key)
        assert got.status_code in (400, 422) and got.json()["error"]["code"] == "request/invalid"
        if field is not None:
            assert got.json()["error"]["details"]["field"] == field
        assert api.get(f"/api/v1/players/{player['id']}/challenges",
                       headers=key).json()["challenges"] == []


def test_who_needs_a_key_and_what_is_not_found(small: str) -> None:
    with httpx.Client(base_url=small, timeout=10) as api:
        assert _code(api.post("/api/v1/challenges", json={"variant": "belle-lucie"})) == (
            401, "auth/missing")
        assert _code(api.post("/api/v1/duels", json={"variant": "belle-lucie"},
                              headers=bearer("lpk_nobody"))) == (403, "player/invalid_key")
        assert _code(api.get("/api/v1/challenges/NOSUCHCH")) == (404, "challenge/not_found")
        ada, ada_key = new_player(api, "Ada")
        _, bob_key = new_player(api, "Bob")
        assert _code(api.post("/api/v1/challenges/NOSUCHCH/attempts", headers=ada_key)) == (
            404, "challenge/not_found")
        assert _code(api.get(f"/api/v1/players/{ada['id']}/notifications",
                             headers=bob_key)) == (403, "player/invalid_key")
        assert _code(api.get(f"/api/v1/players/{ada['id']}/challenges")) == (
            401, "auth/missing")
        duel = api.post("/api/v1/duels", json={"variant": "trefoil"}, headers=ada_key).json()
        refused = api.post(f"/api/v1/challenges/{duel['challenge']['id']}/attempts",
                           headers=bob_key)
        assert _code(refused) == (409, "challenge/closed")  # a duel's rival: POST /duels
        again = api.post(f"/api/v1/challenges/{duel['challenge']['id']}/attempts",
                         headers=ada_key)
        assert _code(again) == (409, "challenge/already_played")
