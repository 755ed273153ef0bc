"""End to end against a real ``lucie-server`` process: a whole race over WebSockets."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.race.helpers import pick_move

from .wire import Api, open_socket, recv, recv_until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: Any) -> str:
    return str(server_factory())


async def _race(url: str, room: dict[str, Any], racer: str, token: str,
                rules: dict[str, Any]) -> dict[str, Any]:
    """A scripted racer: legal moves from the engine until the result is final."""
    api = Api(url)
    try:
        async with open_socket(url, room["id"], token) as ws:
            welcome = await recv(ws)
            assert welcome["t"] == "welcome" and welcome["d"]["racer"] == racer
            await recv_until(ws, "event", type_="started")
            game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game", token)
            n = 0
            while not game["final"]:
                move = pick_move(rules, game)
                assert move is not None, "stuck without undo must be final"
                n += 1
                await ws.send(f'{{"t":"move","d":{{"move":"{move}","expected_version":'
                              f'{game["version"]},"client_move_id":"{racer}-{n}"}}}}')
                ack = await recv_until(ws, "ack")
                assert ack["d"]["client_move_id"] == f"{racer}-{n}"
                assert ack["d"]["applied"][0] == move
                game = ack["d"]["game"]
            return game  # type: ignore[no-any-return]
    finally:
        await api.aclose()


async def test_two_racers_and_a_spectator_race_to_final_standings(url: str) -> None:
    api = Api(url)
    room, host = await api.create(deal=123, countdown_s=1, undo=False)
    rules = room["rules"]
    a, ta = await api.join(room["code"], "Ada")
    b, tb = await api.join(room["code"], "Bob")
    seen: list[dict[str, Any]] = []
    async with open_socket(url, room["code"]) as spectator:
        welcome = await recv(spectator)
        assert welcome["d"]["racer"] is None and len(welcome["d"]["room"]["racers"]) == 2
        racers = [asyncio.create_task(_race(url, room, a, ta, rules)),
                  asyncio.create_task(_race(url, room, b, tb, rules))]
        await asyncio.sleep(0.2)
        await api.start(room["id"], host)
        over = await recv_until(spectator, "event", type_="race_over", seen=seen)
        games = await asyncio.gather(*racers)
    assert all(g["final"] and g["status"] in ("won", "stuck") for g in games)
    seqs = [m["d"]["seq"] for m in seen if m["t"] == "event"]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # no gap, no repeat
    types = [m["d"]["type"] for m in seen if m["t"] == "event"]
    assert types[:2] == ["countdown", "started"] and types.count("finished") == 2
    table = await api.get(f"/rooms/{room['id']}/standings")
    assert table["final"] and over["d"]["standings"] == table["standings"]
    # the standings follow rules.md "Race ranking" from each racer's own result
    by_id = {g["racer"]: g for g in games}
    expect = sorted(by_id, key=lambda r: (-by_id[r]["position"]["foundation_cards"],
                                          by_id[r]["reach_time_ms"] or 0, by_id[r]["moves"],
                                          [a, b].index(r)))
    assert [s["racer"] for s in table["standings"]] == expect
    for line in table["standings"]:
        g = by_id[line["racer"]]
        bonus = 500 + max(0, 1200 - (g["reach_time_ms"] or 0) // 1000) if g["status"] == "won" \
            else 0
        assert line["points"] == 5 * g["position"]["foundation_cards"] + bonus
    # replays reproduce each final game, with the redeal key now revealed
    from server.rules import Move, RuleSet, replay
    for racer, game in by_id.items():
        rep = await api.get(f"/rooms/{room['id']}/racers/{racer}/replay")
        again = replay(RuleSet.from_json(rep["rules"]), rep["deal_number"],
                       bytes.fromhex(rep["redeal_key"]),
                       [Move.from_text(m["move"]) for m in rep["moves"]])
        assert again.foundation_cards == game["position"]["foundation_cards"]
        assert [[c for c in f] for f in game["position"]["fans"]] == \
            [[__import__("server.rules", fromlist=["card_str"]).card_str(c) for c in f]
             for f in again.position.fans]
    await api.aclose()


async def test_rest_only_race(url: str) -> None:
    api = Api(url)
    room, host = await api.create(deal=77, countdown_s=0, undo=False)
    racer, token = await api.join(room["id"], "solo")
    await api.start(room["code"], host)
    game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game", token)
    n = 0
    while not game["final"]:
        n += 1
        r = await api.http.post(
            f"/rooms/{room['id']}/racers/{racer}/moves",
            headers={"Authorization": f"Bearer {token}"},
            json={"move": pick_move(room["rules"], game), "expected_version": game["version"],
                  "client_move_id": f"m{n}"})
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    table = await api.get(f"/rooms/{room['id']}/standings")
    assert table["final"] and table["standings"][0]["status"] == game["status"]
    assert (await api.get(f"/rooms/{room['id']}"))["state"] == "over"
    await api.aclose()


async def test_same_move_twice_at_once_applies_once(url: str) -> None:
    api = Api(url)
    room, host = await api.create(deal=5, countdown_s=0)
    racer, token = await api.join(room["id"], "twin")
    await api.start(room["id"], host)
    game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game", token)
    body = {"move": game["legal_moves"][0], "expected_version": 0, "client_move_id": "dup"}
    auth = {"Authorization": f"Bearer {token}"}
    msg = json.dumps({"t": "move", "d": body})
    async with open_socket(url, room["id"], token) as w1, \
            open_socket(url, room["id"], token) as w2:
        await recv(w1)
        await recv(w2)
        rests = [api.http.post(f"/rooms/{room['id']}/racers/{racer}/moves", json=body,
                               headers=auth) for _ in range(3)]
        await asyncio.gather(w1.send(msg), w2.send(msg))
        answers = [r.json() for r in await asyncio.gather(*rests)]
        acks = [(await recv_until(w, "ack"))["d"] for w in (w1, w2)]
    assert all(x == answers[0] for x in answers + acks)
    assert answers[0]["version"] == 1
    game = await api.get(f"/rooms/{room['id']}/racers/{racer}/game", token)
    assert game["version"] == 1
    rep = await api.get(f"/rooms/{room['id']}/racers/{racer}/replay", token)
    assert len(rep["moves"]) == 1
    await api.aclose()
