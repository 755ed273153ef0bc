"""Drawn duels and the first slice's warts (issue 35), on a real embedded
``lucie-server`` (memory store, SQLite archive):

- a drawn duel is rated once, as a draw, and both players get a tie-break
  deal (a fresh one, same variant, theirs only) that names the duel's winner;
  unplayed by both within its life it is void and the duel stays a draw;
- a duel's race ranks as the duel does: a draw shares first place (its own
  standings and race view), not broken by moves or join order;
- a settled duel is listed once in a player's history (its race, not the
  attempt as well);
- forgetting a player anonymises them in challenges too;
- an attempt's room counts against the address's waiting rooms;
- an attempt's racer reads their own attempt once it is archived, while the
  challenge is still open (the others still cannot);
- ``lucie verify`` checks a drawn duel's race by the duel's ranking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from client_cli.cli import main
from tests.conftest import ServerFactory

from .challenge_flow import (
    DAY_MS,
    bearer,
    drawn_duel,
    move_clock,
    new_player,
    play_attempt,
    rating,
    seen_by,
    until,
)


def _server(server_factory: ServerFactory, tmp_path: Path, **env: str) -> tuple[str, Path]:
    offset = tmp_path / "clock-offset"
    url = server_factory(LUCIE_ARCHIVE_PERIOD_S="0.2", LUCIE_CHALLENGE_PERIOD_S="0.2",
                         LUCIE_CLOCK_OFFSET_FILE=str(offset), LUCIE_DUEL_BAND_WIDTH="2",
                         LUCIE_DATA_DIR=str(tmp_path / "data"), **env)
    return url, offset


def _code(got: httpx.Response) -> tuple[int, str]:
    return got.status_code, got.json()["error"]["code"]


def _notes(api: httpx.Client, player: dict[str, Any], key: dict[str, str]
           ) -> list[dict[str, Any]]:
    got = api.get(f"/api/v1/players/{player['id']}/notifications", headers=key)
    assert got.status_code == 200, got.text
    return got.json()["notifications"]  # type: ignore[no-any-return]


def _history(api: httpx.Client, player: dict[str, Any]) -> list[str]:
    got = api.get(f"/api/v1/players/{player['id']}/races")
    assert got.status_code == 200, got.text
    return [r["race"] for r in got.json()["races"]]


@pytest.fixture(scope="module")
def drawn(server_factory: ServerFactory, tmp_path_factory: pytest.TempPathFactory
          ) -> dict[str, Any]:
    """One server and one drawn duel on it (Ada made it, Bob took it)."""
    url, offset = _server(server_factory, tmp_path_factory.mktemp("draws"))
    with httpx.Client(base_url=url, timeout=10) as api:
        ada, ada_key, bob, bob_key, duel = drawn_duel(api)
    return {"url": url, "offset": offset, "ada": ada, "ada_key": ada_key, "bob": bob,
            "bob_key": bob_key, "duel": duel}


def test_a_drawn_duels_race_ranks_both_first(drawn: dict[str, Any]) -> None:
    result = drawn["duel"]["result"]
    assert (result["winner"], result["decided_by"]) == (None, "tie")
    with httpx.Client(base_url=drawn["url"], timeout=10) as api:
        table = api.get(f"/api/v1/rooms/{result['race']}/standings")
        assert table.status_code == 200, table.text
        lines = table.json()["standings"]
        assert [(s["rank"], s["join_order"]) for s in lines] == [(1, 1), (1, 2)]
        race = api.get(f"/api/v1/races/{result['race']}").json()
        assert [s["rank"] for s in race["standings"]["standings"]] == [1, 1]
        assert [a["rank"] for a in drawn["duel"]["attempts"]] == [1, 1]


def test_a_settled_duel_is_listed_once_in_a_history(drawn: dict[str, Any]) -> None:
    duel = drawn["duel"]
    with httpx.Client(base_url=drawn["url"], timeout=10) as api:
        for who in (drawn["ada"], drawn["bob"]):
            assert _history(api, who) == [duel["result"]["race"]]
        versus = api.get(f"/api/v1/players/{drawn['ada']['id']}/vs/{drawn['bob']['id']}")
        assert versus.json()["races"] == 1


def test_a_drawn_duel_is_rated_once_and_its_tiebreak_names_the_winner(
        drawn: dict[str, Any]) -> None:
    ada, ada_key, bob, bob_key = drawn["ada"], drawn["ada_key"], drawn["bob"], drawn["bob_key"]
    duel = drawn["duel"]
    tiebreak = duel["result"]["tiebreak"]
    assert tiebreak is not None
    with httpx.Client(base_url=drawn["url"], timeout=10) as api:
        for who in (ada, bob):  # rated at once, as a draw
            assert rating(api, who)["rated_races"] == 1  # type: ignore[index]
        for who, key in ((ada, ada_key), (bob, bob_key)):
            (note,) = [n for n in _notes(api, who, key) if n["challenge"] == duel["id"]]
            assert note["kind"] == "duel_settled" and "a draw" in note["message"]
            assert "tie-break" in note["message"] and tiebreak in note["message"]
        view = seen_by(api, tiebreak, ada_key)
        assert (view["open_to"], view["tiebreak_of"], view["state"]) == (
            "tiebreak", duel["id"], "open")
        assert view["variant"] == duel["variant"] and view["played"] == 0
        assert view["deal_commitment"] != duel["deal_commitment"]  # a fresh deal
        mine = api.get(f"/api/v1/players/{bob['id']}/challenges", headers=bob_key).json()
        assert tiebreak in [c["id"] for c in mine["challenges"]]  # Bob's to play too

        _, carol_key = new_player(api, "Carol")
        assert _code(api.post(f"/api/v1/challenges/{tiebreak}/attempts",
                              headers=carol_key)) == (409, "challenge/closed")
        ada_go = api.post(f"/api/v1/challenges/{tiebreak}/attempts", headers=ada_key)
        assert ada_go.status_code == 201, ada_go.text
        ada_cards = play_attempt(api, ada_go.json(), cards=True)
        assert _code(api.post(f"/api/v1/challenges/{tiebreak}/attempts",
                              headers=ada_key)) == (409, "challenge/already_played")
        bob_go = api.post(f"/api/v1/challenges/{view['code'].lower()}/attempts",
                          headers=bob_key)
        assert bob_go.status_code == 201, bob_go.text
        assert play_attempt(api, bob_go.json(), cards=False) == 0

        done = until(lambda: seen_by(api, tiebreak, bob_key), lambda v: v["state"] == "settled")
        assert done["state"] == "settled", done
        after = seen_by(api, duel["id"], None)["result"]
        told = {who["id"]: [n for n in _notes(api, who, key) if n["challenge"] == tiebreak]
                for who, key in ((ada, ada_key), (bob, bob_key))}
        if ada_cards > 0:  # Ada won the tie-break: the duel is hers
            assert (done["result"]["winner"], done["result"]["decided_by"]) == (
                ada["id"], "foundation_cards")
            assert (after["winner"], after["decided_by"]) == (ada["id"], "tiebreak")
            assert told[ada["id"]][0]["message"].endswith("the duel is yours")
            assert told[bob["id"]][0]["message"].endswith(f"the duel is {ada['name']}'s")
        else:  # a deal with no card to play at once: a draw again, the duel stays one
            assert after["winner"] is None and after["decided_by"] == "tie"
            assert "stays a draw" in told[ada["id"]][0]["message"]
        assert [n["kind"] for notes in told.values() for n in notes] == ["tiebreak_settled"] * 2
        assert after["race"] == duel["result"]["race"] and after["tiebreak"] == tiebreak
        compared = api.get(done["result"]["comparison"])
        assert compared.status_code == 200, compared.text
        for who in (ada, bob):  # nothing rated again
            assert rating(api, who)["rated_races"] == 1  # type: ignore[index]
            points = api.get(f"/api/v1/players/{who['id']}/ratings/belle-lucie").json()
            assert [p["race"] for p in points["points"]] == [duel["result"]["race"]]
            assert _history(api, who) == [done["result"]["race"], duel["result"]["race"]]


def test_an_unplayed_tiebreak_is_void_and_the_duel_stays_a_draw(
        server_factory: ServerFactory, tmp_path: Path) -> None:
    url, offset = _server(server_factory, tmp_path)
    with httpx.Client(base_url=url, timeout=10) as api:
        ada, ada_key, bob, bob_key, duel = drawn_duel(api)
        tiebreak = duel["result"]["tiebreak"]
        ada_go = api.post(f"/api/v1/challenges/{tiebreak}/attempts", headers=ada_key)
        assert ada_go.status_code == 201, ada_go.text
        play_attempt(api, ada_go.json(), cards=True)  # Bob never plays his
        until(lambda: seen_by(api, tiebreak, ada_key), lambda v: v["you"]["finished"])
        move_clock(offset, 7 * DAY_MS + 1000)
        void = until(lambda: seen_by(api, tiebreak, None), lambda v: v["state"] == "void")
        assert void["state"] == "void" and void["result"] is None
        assert seen_by(api, duel["id"], None)["result"] == duel["result"]  # a draw still
        for who, key in ((ada, ada_key), (bob, bob_key)):
            (note,) = [n for n in _notes(api, who, key) if n["challenge"] == tiebreak]
            assert note["kind"] == "tiebreak_void" and "stays a draw" in note["message"]
            assert rating(api, who)["rated_races"] == 1  # type: ignore[index]
        late = api.post(f"/api/v1/challenges/{tiebreak}/attempts", headers=bob_key)
        assert _code(late) == (409, "challenge/closed")


def test_forgetting_a_player_anonymises_their_challenges(drawn: dict[str, Any]) -> None:
    with httpx.Client(base_url=drawn["url"], timeout=10) as api:
        eve, eve_key = new_player(api, "Eve")
        made = api.post("/api/v1/challenges", json={"variant": "belle-lucie"},
                        headers=eve_key)
        assert made.status_code == 201, made.text
        challenge = made.json()["challenge"]
        play_attempt(api, made.json(), cards=False)
        until(lambda: seen_by(api, challenge["id"], eve_key), lambda v: v["you"]["finished"])
        gone = api.delete(f"/api/v1/players/{eve['id']}", headers=eve_key)
        assert gone.status_code in (200, 204), gone.text
        view = seen_by(api, challenge["id"], None)
        assert eve["name"] not in str(view) and eve["id"] not in str(view)
        assert view["creator"]["name"].startswith("anonymous ")
        _, zed_key = new_player(api, "Zed")
        zeds = api.post(f"/api/v1/challenges/{challenge['id']}/attempts", headers=zed_key)
        play_attempt(api, zeds.json(), cards=False)
        view = until(lambda: seen_by(api, challenge["id"], zed_key),
                     lambda v: v["you"]["finished"])
        assert eve["name"] not in str(view) and eve["id"] not in str(view)
        assert [a["player"]["name"].startswith("anonymous ") for a in view["attempts"]] == [
            True, False]


def test_attempts_count_against_the_addresss_waiting_rooms(
        server_factory: ServerFactory, tmp_path: Path) -> None:
    url, _ = _server(server_factory, tmp_path, LUCIE_WAITING_ROOMS_PER_ADDRESS="2")
    with httpx.Client(base_url=url, timeout=10) as api:
        _, ada_key = new_player(api, "Ada")
        _, bob_key = new_player(api, "Bob")
        first = api.post("/api/v1/challenges", json={"variant": "belle-lucie"},
                         headers=ada_key)
        assert first.status_code == 201, first.text
        duel = api.post("/api/v1/duels", json={"variant": "belle-lucie"}, headers=ada_key)
        assert duel.status_code == 201, duel.text  # two attempts waiting now
        for refused in (
                api.post("/api/v1/challenges", json={"variant": "belle-lucie"},
                         headers=bob_key),
                api.post("/api/v1/duels", json={"variant": "trefoil"}, headers=bob_key),
                api.post(f"/api/v1/challenges/{first.json()['challenge']['id']}/attempts",
                         headers=bob_key),
                api.post("/api/v1/rooms", json={})):
            assert _code(refused) == (429, "rate/limited"), refused.text
            assert refused.json()["error"]["details"]["limit"] == 2
        play_attempt(api, first.json(), cards=False)  # started: no longer waiting
        again = api.post("/api/v1/challenges", json={"variant": "belle-lucie"},
                         headers=bob_key)
        assert again.status_code == 201, again.text


def test_an_attempts_racer_reads_it_once_archived_while_the_challenge_is_open(
        server_factory: ServerFactory, tmp_path: Path) -> None:
    url, _ = _server(server_factory, tmp_path, LUCIE_ENDED_TTL_S="1")
    with httpx.Client(base_url=url, timeout=10) as api:
        _, ada_key = new_player(api, "Ada")
        made = api.post("/api/v1/challenges", json={"variant": "belle-lucie", "deal": 2},
                        headers=ada_key)
        assert made.status_code == 201, made.text
        joined = made.json()
        room, racer, token = joined["room"]["id"], joined["racer"]["id"], joined["token"]
        cards = play_attempt(api, joined, cards=True)
        until(lambda: seen_by(api, joined["challenge"]["id"], ada_key),
              lambda v: v["you"]["finished"])
        path = f"/api/v1/rooms/{room}/racers/{racer}"
        gone = until(lambda: api.post(path + "/resign", headers=bearer(token)),
                     lambda r: r.status_code == 404)  # the live room is gone: archived only
        assert _code(gone) == (404, "room/not_found")
        reads = {"room": f"/api/v1/rooms/{room}", "standings": f"/api/v1/rooms/{room}/standings",
                 "board": path + "/game", "replay": path + "/replay"}
        for name, read in reads.items():
            own = api.get(read, headers=bearer(token))
            assert own.status_code == 200, (name, own.text)
            assert _code(api.get(read)) == (403, "challenge/hidden"), name
            assert _code(api.get(read, headers=bearer("x" * 43))) == (
                403, "challenge/hidden"), name
        replay = api.get(reads["replay"], headers=bearer(token)).json()
        assert replay["redeal_key"] is None  # secret until the challenge closes
        assert len(replay["moves"]) == cards
        table = api.get(reads["standings"], headers=bearer(token)).json()
        assert table["standings"][0]["foundation_cards"] == cards


def test_lucie_verify_checks_a_drawn_duels_race(drawn: dict[str, Any],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    race = drawn["duel"]["result"]["race"]
    assert main(["verify", race, "--server", drawn["url"]]) == 0, capsys.readouterr().out
    assert "ranked as a duel" in capsys.readouterr().out
