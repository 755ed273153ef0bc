"""Helpers of the challenge and duel tests on real server processes (issue 35):
players, an attempt played over REST, a rated race to move a rating, the
clock of challenges moved by its offset file (``LUCIE_CLOCK_OFFSET_FILE``),
and the duel scenario both deployments run."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_player(api: httpx.Client, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A fresh player (a random suffix keeps names unique across runs) and its key header."""
    made = api.post("/api/v1/players", json={"name": f"{name} {secrets.token_hex(3)}"})
    assert made.status_code == 201, made.text
    return made.json()["player"], bearer(made.json()["key"])


def until(fetch: Callable[[], Any], ready: Callable[[Any], bool], timeout_s: float = 30) -> Any:
    """``fetch()`` again until ``ready`` holds (or the time is up: the last answer)."""
    deadline = time.monotonic() + timeout_s
    got = fetch()
    while not ready(got) and time.monotonic() < deadline:
        time.sleep(0.1)
        got = fetch()
    return got


def move_clock(offset_file: Path, ms: int) -> None:
    """Set the challenges' clock ``ms`` ahead of the service clock (every process)."""
    offset_file.write_text(str(ms))


def play_attempt(api: httpx.Client, joined: dict[str, Any], *, cards: bool) -> int:
    """Play an attempt handed out (``ChallengeJoined``): ready, wait for the start,
    then (``cards``) every foundation move there is, and resign → the foundation
    cards at the end."""
    room, racer, token = joined["room"]["id"], joined["racer"]["id"], joined["token"]
    path = f"/api/v1/rooms/{room}/racers/{racer}"
    ready = api.post(path + "/ready", json={"ready": True}, headers=bearer(token))
    assert ready.status_code == 200, ready.text
    game = until(lambda: api.get(path + "/game", headers=bearer(token)),
                 lambda r: r.status_code == 200 and bool(r.json()["legal_moves"]))
    assert game.status_code == 200, game.text
    state = game.json()
    while cards:
        home = [m for m in state["legal_moves"] if m.endswith("f")]
        if not home:
            break
        moved = api.post(path + "/moves", headers=bearer(token), json={
            "move": home[0], "expected_version": state["version"],
            "client_move_id": secrets.token_hex(8)})
        assert moved.status_code == 200, moved.text
        state = moved.json()["game"]
    done = api.post(path + "/resign", headers=bearer(token))
    assert done.status_code == 200, done.text
    return int(state["position"]["foundation_cards"])


def rated_win(api: httpx.Client, winner: dict[str, str], loser: dict[str, str]) -> None:
    """A rated two-racer race (deal 2: aces on top) the first player wins by a card."""
    created = api.post("/api/v1/rooms", json={"capacity": 2, "countdown_s": 0,
                                              "deal": 2}).json()
    room, host = created["room"]["id"], created["host_token"]
    seats = [api.post(f"/api/v1/rooms/{room}/racers", json={}, headers=key).json()
             for key in (winner, loser)]
    assert api.post(f"/api/v1/rooms/{room}/start", headers=bearer(host)).status_code == 200
    lead = seats[0]
    path = f"/api/v1/rooms/{room}/racers/{lead['racer']['id']}"
    game = api.get(path + "/game", headers=bearer(lead["token"])).json()
    home = next(m for m in game["legal_moves"] if m.endswith("f"))
    assert api.post(path + "/moves", headers=bearer(lead["token"]), json={
        "move": home, "expected_version": 0, "client_move_id": "1"}).status_code == 200
    for seat in seats:
        gone = api.post(f"/api/v1/rooms/{room}/racers/{seat['racer']['id']}/resign",
                        headers=bearer(seat["token"]))
        assert gone.status_code == 200, gone.text


def rating(api: httpx.Client, player: dict[str, Any], variant: str = "belle-lucie"
           ) -> dict[str, Any] | None:
    """The player's rating in ``variant`` (``None``: no rated race there)."""
    for row in api.get(f"/api/v1/players/{player['id']}").json()["variants"]:
        if row["variant"] == variant:
            return row["rating"]  # type: ignore[no-any-return]
    return None


def seen_by(api: httpx.Client, challenge: str, key: dict[str, str] | None) -> dict[str, Any]:
    got = api.get(f"/api/v1/challenges/{challenge}", headers=key or {})
    assert got.status_code == 200, got.text
    return got.json()  # type: ignore[no-any-return]


def duel_scenario(urls: tuple[str, str], offset_file: Path, band: float) -> None:
    """The must-show (issue 35): Ada opens a duel and plays; Carol, far in rating,
    does not get it; the clock moves on hours; Bob (near) asks, gets Ada's deal
    and plays; both see the settled result and the comparison; each rating
    changed once; Bob's second attempt is refused. ``urls``: Ada's process and
    Bob's (and Carol's); ``band``: the servers' ``LUCIE_DUEL_BAND_WIDTH``."""
    with httpx.Client(base_url=urls[0], timeout=10) as one, \
            httpx.Client(base_url=urls[1], timeout=10) as two:
        ada, ada_key = new_player(one, "Ada")
        bob, bob_key = new_player(two, "Bob")
        carol, carol_key = new_player(two, "Carol")
        _, dan_key = new_player(two, "Dan")
        for _ in range(2):
            rated_win(two, carol_key, dan_key)
        far = until(lambda: rating(two, carol),
                    lambda r: r is not None and r["rated_races"] == 2)
        assert far["rating"] > band  # Carol is out of Ada's band at age 0

        opened = one.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=ada_key)
        assert opened.status_code == 201, opened.text
        assert opened.json()["matched"] is False
        duel = opened.json()["challenge"]
        assert duel["open_to"] == "rated" and duel["deal_number"] is None
        ada_cards = play_attempt(one, opened.json(), cards=True)
        mine = until(lambda: seen_by(one, duel["id"], ada_key), lambda v: v["you"]["finished"])
        assert mine["played"] == 1 and mine["redeal_key"] is None
        deal = mine["deal_number"]

        early = two.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=carol_key)
        assert early.status_code == 201, early.text
        assert early.json()["matched"] is False and early.json()["challenge"]["id"] != duel["id"]

        move_clock(offset_file, 3 * HOUR_MS)
        got = two.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=bob_key)
        assert got.status_code == 201, got.text
        assert got.json()["matched"] is True and got.json()["challenge"]["id"] == duel["id"]
        assert got.json()["challenge"]["attempts"] is None  # nothing of Ada's yet
        assert got.json()["room"]["deal_number"] is None  # dealt at the start
        ada_room = mine["you"]["room"]
        for path in (f"/rooms/{ada_room}", f"/rooms/{ada_room}/standings", f"/races/{ada_room}"):
            hidden = two.get("/api/v1" + path)
            assert (hidden.status_code, hidden.json()["error"]["code"]) == (
                403, "challenge/hidden"), path
        bob_cards = play_attempt(two, got.json(), cards=False)
        bob_room = two.get(f"/api/v1/rooms/{got.json()['room']['id']}",
                           headers=bearer(got.json()["token"])).json()
        assert bob_room["deal_number"] == deal  # Ada's deal

        settled = until(lambda: seen_by(two, duel["id"], bob_key),
                        lambda v: v["state"] == "settled")
        assert settled["state"] == "settled", settled
        for key in (ada_key, bob_key, None):
            view = seen_by(one, duel["id"], key)
            assert view["state"] == "settled" and view["redeal_key"] is not None
            result = view["result"]
            if ada_cards > bob_cards:
                assert (result["winner"], result["decided_by"]) == (ada["id"], "foundation_cards")
                assert result["margin_cards"] == ada_cards - bob_cards
            else:
                assert (result["winner"], result["decided_by"]) == (None, "tie")
            assert [a["player"]["id"] for a in view["attempts"]] == [ada["id"], bob["id"]]
        compared = two.get(result["comparison"])
        assert compared.status_code == 200, compared.text
        sides = compared.json()
        assert (sides["a"]["name"], sides["b"]["name"]) == (ada["name"], bob["name"])
        assert sides["a"]["foundation_cards"] == ada_cards and sides["deal_number"] == deal
        assert sides["a"]["moves"] == ada_cards and sides["b"]["moves"] == 0

        time.sleep(2.5)  # more sweeps of both processes: nothing is rated twice
        for who in (ada, bob):
            points = one.get(f"/api/v1/players/{who['id']}/ratings/belle-lucie").json()["points"]
            assert [p["race"] for p in points] == [result["race"]]
            assert rating(two, who)["rated_races"] == 1  # type: ignore[index]
        versus = one.get(f"/api/v1/players/{ada['id']}/vs/{bob['id']}").json()
        assert versus["races"] == 1 and versus["shared"][0]["race"] == result["race"]

        again = two.post(f"/api/v1/challenges/{duel['id']}/attempts", headers=bob_key)
        assert (again.status_code, again.json()["error"]["code"]) == (
            409, "challenge/already_played")
        told = one.get(f"/api/v1/players/{ada['id']}/notifications", headers=ada_key).json()
        (note,) = [n for n in told["notifications"] if n["challenge"] == duel["id"]]
        assert note["kind"] == "duel_settled" and note["message"].startswith(
            f"{bob['name']} played your duel")
        if ada_cards > bob_cards:
            n = ada_cards - bob_cards
            assert note["message"].endswith(f"you won by {n} card{'s' if n != 1 else ''}")


def drawn_duel(api: httpx.Client) -> tuple[dict[str, Any], dict[str, str], dict[str, Any],
                                           dict[str, str], dict[str, Any]]:
    """A duel of two fresh players (rating 0: matched at once) that both resign
    before any move — as many cards (0), no reach time: a draw. Waits until it
    is settled → Ada, her key, Bob, his key, the settled duel as Ada sees it."""
    ada, ada_key = new_player(api, "Ada")
    bob, bob_key = new_player(api, "Bob")
    opened = api.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=ada_key)
    assert opened.status_code == 201 and not opened.json()["matched"], opened.text
    duel = opened.json()["challenge"]
    assert play_attempt(api, opened.json(), cards=False) == 0
    until(lambda: seen_by(api, duel["id"], ada_key), lambda v: v["you"]["finished"])
    got = api.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=bob_key)
    assert got.status_code == 201 and got.json()["matched"], got.text
    assert got.json()["challenge"]["id"] == duel["id"]
    assert play_attempt(api, got.json(), cards=False) == 0
    settled = until(lambda: seen_by(api, duel["id"], ada_key), lambda v: v["state"] == "settled")
    assert settled["state"] == "settled", settled
    return ada, ada_key, bob, bob_key, settled
