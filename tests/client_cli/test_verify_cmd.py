"""``lucie verify`` (issue 32) against a real ``lucie-server`` process: a race with a
computer racer verifies (the commitment, the rules, the race view, the racers, the
standings, every racer's replay), and so do races of every variant closed mid-race
(undo on and off, a racer who left), a race ended by its time limit and a ghost
room's; a saved document with a changed salt, deal number, move or result — or
any forgery of a breaker's (ranks, racers, reach times, clocks, rules, another
room's race view, a replay's own result) — fails with a line naming what did not
hold, every other check still printed; a document out of shape is one clear line;
a race not over and an unknown room are clear errors."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from client_cli.cli import main
from client_cli.verify import NOT_OVER
from server.rules import VARIANTS, RuleSet, new_game, parse_move
from tests.conftest import ServerFactory

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_BOT_THINK_MS="20")


async def _race(url: str, *, finish: bool = True) -> str:
    """A room with one computer racer (bot-Ada, run by the server) and ann, who plays
    a few moves, a redeal among them, then resigns; the room's code once it is over
    (or, ``finish`` false, while it races)."""
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        made = (await http.post("/rooms", json={"bots": 1, "countdown_s": 0, "deal": 4,
                                                "visibility": "private"})).json()
        code, host = made["room"]["code"], made["host_token"]
        joined = (await http.post(f"/rooms/{code}/racers", json={"name": "ann"})).json()
        ann, auth = joined["racer"]["id"], {"Authorization": f"Bearer {joined['token']}"}
        assert (await http.post(f"/rooms/{code}/start", headers={
            "Authorization": f"Bearer {host}"})).json()["state"] == "racing"
        game = (await http.get(f"/rooms/{code}/racers/{ann}/game", headers=auth)).json()
        for i in range(6):
            legal = game["legal_moves"]
            move = "r" if i == 3 and "r" in legal else legal[0]
            answer = await http.post(f"/rooms/{code}/racers/{ann}/moves", headers=auth, json={
                "move": move, "expected_version": game["version"], "client_move_id": f"m{i}"})
            assert answer.status_code == 200, answer.text
            game = answer.json()["game"]
        if not finish:
            return str(code)
        await http.post(f"/rooms/{code}/racers/{ann}/resign", headers=auth)
        async with asyncio.timeout(60):
            while (await http.get(f"/rooms/{code}")).json()["state"] != "over":
                await asyncio.sleep(0.1)
    return str(code)


def _lucie(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def saved(url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A finished race's code and its verification document, saved by ``--save``."""
    code = asyncio.run(_race(url))
    path = tmp_path_factory.mktemp("verify") / "race.json"
    assert main(["verify", code, "--server", url, "--save", str(path)]) == 0
    return code, path


def test_a_finished_race_verifies(url: str, saved: tuple[str, Path],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, path = saved
    rc, out, err = _lucie(capsys, "verify", code, "--server", url)
    lines = out.splitlines()
    assert rc == 0, out + err
    assert lines[0].startswith(f"Race of room {code} · La Belle Lucie · deal 4")
    assert lines[1].startswith("ok    commitment: sha256 of belle-lucie deal 4 ")
    assert lines[2] == ("ok    rules: La Belle Lucie (belle-lucie, redeals 2, merci off, undo "
                        "on), the same in the room view, the race view and every replay")
    assert lines[3] == f"ok    race: the race view is of room {code}, time limit 900000 ms"
    assert lines[4] in (f"ok    racers: 2 ({a}, {b}), the same in the room view, the race "
                        "view, the standings and the replays"
                        for a, b in (("ann", "bot-Ada"), ("bot-Ada", "ann")))
    assert lines[5] == ("ok    standings: ranks 1 to 2 in the race ranking's order (foundation "
                        "cards, reach time, moves, join), points as seed 003")
    racers = sorted(line.split(":")[0] for line in lines[6:8])
    assert racers == ["ok    racer ann", "ok    racer bot-Ada"]
    assert "6 moves replayed" in next(line for line in lines if "racer ann" in line)
    ann_line = next(line for line in lines[6:8] if "racer ann" in line)
    bot_line = next(line for line in lines[6:8] if "racer bot-Ada" in line)
    assert ann_line.endswith(", resigned, as the standings say")
    # the bot played to no move left (stuck, issue 38) — or, now and then, won
    assert bot_line.endswith((", stuck, as the standings say", ", won, as the standings say"))
    assert lines[-1] == "verified: all 7 checks hold"
    doc = json.loads(path.read_text())
    assert (doc["format"], doc["format_version"], doc["server"]) == ("lucie-verify", 1, url)
    assert doc["room"]["deal_salt"] and doc["room"]["deal_commitment"]
    assert {r["name"] for r in doc["race"]["racers"]} == {"ann", "bot-Ada"}
    assert set(doc["replays"]) == {r["id"] for r in doc["race"]["racers"]}
    rc, out, _ = _lucie(capsys, "verify", "--file", str(path))  # offline, the same
    assert rc == 0 and out.splitlines()[1:] == lines[1:]


def _tampered(path: Path, tmp_path: Path, change: Any) -> str:
    doc = json.loads(path.read_text())
    change(doc)
    copied = tmp_path / "tampered.json"
    copied.write_text(json.dumps(doc))
    return str(copied)


def _flip(hex_text: str) -> str:
    return ("1" if hex_text[0] == "0" else "0") + hex_text[1:]


def _salt(doc: dict[str, Any]) -> None:
    doc["room"]["deal_salt"] = _flip(doc["room"]["deal_salt"])


def _deal(doc: dict[str, Any]) -> None:
    doc["room"]["deal_number"] += 1


@pytest.mark.parametrize("change", [_salt, _deal], ids=["salt", "deal-number"])
def test_a_changed_salt_or_deal_breaks_the_commitment(
        saved: tuple[str, Path], tmp_path: Path, change: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The commitment fails; every other check still runs and prints its line."""
    published = json.loads(saved[1].read_text())["room"]["deal_commitment"]
    rc, out, _ = _lucie(capsys, "verify", "--file", _tampered(saved[1], tmp_path, change))
    assert rc == 1
    said = re.search(r"^FAIL  commitment mismatch: sha256 of the revealed deal is ([0-9a-f]{64}) "
                     rf"but the room published {published}$", out, re.M)
    assert said is not None and said.group(1) != published, out
    for check in ("rules", "race", "racers", "standings"):
        assert f"\nok    {check}: " in out, out
    if change is _salt:  # the racers replay as before
        assert "\nok    racer ann: 6 moves replayed" in out
        assert "not verified: 1 of 7 checks failed" in out
    else:  # the move logs are of another deal than the one revealed
        assert "\nFAIL  racer ann: the move log is for deal 4 " in out
        assert "not verified: 3 of 7 checks failed" in out


def test_a_changed_move_is_named(saved: tuple[str, Path], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    def illegal_move(doc: dict[str, Any]) -> None:
        """bot-Ada's move 3 becomes a build that is not legal where it stands."""
        room = doc["room"]
        rid = next(r["id"] for r in doc["race"]["racers"] if r["name"] == "bot-Ada")
        moves = doc["replays"][rid]["moves"]
        assert len(moves) >= 3
        game = new_game(RuleSet.from_json(room["rules"]), room["deal_number"],
                        bytes.fromhex(room["redeal_key"]))
        for entry in moves[:2]:
            game = game.play(parse_move(entry["move"]))
        legal = {str(m) for m in game.legal_moves()}
        fans = [i + 1 for i, fan in enumerate(game.position.fans) if fan]
        moves[2]["move"] = next(f"{a}-{b}" for a in fans for b in fans
                                if a != b and f"{a}-{b}" not in legal)
        doc["wrong"] = moves[2]["move"]

    path = _tampered(saved[1], tmp_path, illegal_move)
    wrong = json.loads(Path(path).read_text())["wrong"]
    rc, out, _ = _lucie(capsys, "verify", "--file", path)
    assert rc == 1
    assert f"FAIL  racer bot-Ada: move 3 ({wrong}) is illegal in the engine: " in out, out
    assert "ok    commitment" in out and "ok    racer ann" in out  # the rest still holds


def test_a_changed_result_is_named(saved: tuple[str, Path], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    def more_cards(doc: dict[str, Any]) -> None:
        line = next(s for s in doc["race"]["standings"]["standings"] if s["name"] == "ann")
        line["foundation_cards"] += 2

    cards = next(s["foundation_cards"] for s in json.loads(saved[1].read_text())["race"][
        "standings"]["standings"] if s["name"] == "ann")
    rc, out, _ = _lucie(capsys, "verify", "--file", _tampered(saved[1], tmp_path, more_cards))
    assert rc == 1
    assert (f"FAIL  racer ann: replay reaches {cards} foundation cards, standings say "
            f"{cards + 2}") in out, out


def test_a_race_not_over_and_an_unknown_room_are_clear_errors(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = asyncio.run(_race(url, finish=False))
    rc, out, err = _lucie(capsys, "verify", code, "--server", url)
    assert rc == 1 and out == ""
    assert f"lucie verify: {NOT_OVER} (room {code} is racing)" in err
    assert NOT_OVER == "the race is not over: the deal is revealed when it ends"
    rc, _, err = _lucie(capsys, "verify", "NOSUCH", "--server", url)
    assert rc == 1 and f"lucie verify: no room or race 'NOSUCH' on {url}" in err


def test_usage_and_unreadable_files_are_clear_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _lucie(capsys, "verify")
    assert rc == 1 and "give ROOM (a room code or id, or a race id), or --file PATH" in err
    rc, _, err = _lucie(capsys, "verify", "ABCD", "--file", "x.json")
    assert rc == 1 and "--file checks a saved document: give it alone" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    rc, _, err = _lucie(capsys, "verify", "--file", str(bad))
    assert rc == 1 and f"lucie verify: cannot read {bad}" in err
    bad.write_text('{"room": {}}')
    rc, _, err = _lucie(capsys, "verify", "--file", str(bad))
    assert rc == 1 and "not a verification document" in err
    assert "Traceback" not in err


# -- forgeries: each kind of change a breaker made to a genuine document ------------

Doc = dict[str, Any]


def _line(doc: Doc, name: str) -> dict[str, Any]:
    return next(s for s in doc["race"]["standings"]["standings"] if s["name"] == name)


def _id(doc: Doc, name: str) -> str:
    return str(next(r["id"] for r in doc["race"]["racers"] if r["name"] == name))


def _moves(doc: Doc, name: str) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = doc["replays"][_id(doc, name)]["moves"]
    assert len(moves) >= 3, "bot-Ada plays more than a few moves"
    return moves


def _swapped_ranks(doc: Doc) -> str:
    lines = doc["race"]["standings"]["standings"]
    first, second = sorted(lines, key=lambda s: s["rank"])
    first["rank"], second["rank"] = 2, 1
    lines.sort(key=lambda s: s["rank"])
    return re.escape(f"FAIL  standings: rank 1 is {second['name']}'s, but the race ranking "
                     f"gives it to {first['name']} (")


def _inflated_points(doc: Doc) -> str:
    line = _line(doc, "ann")
    line["points"] += 500
    return re.escape(f"FAIL  standings: ann has {line['points']} points, seed 003 gives "
                     f"{line['points'] - 500}")


def _extra_racer(doc: Doc) -> str:
    """D, a copy of bot-Ada, in the standings with a replay, in neither view."""
    line = copy.deepcopy(_line(doc, "bot-Ada"))
    line.update(racer="DDDDDDDD", name="D", rank=3, join_order=3)
    doc["race"]["standings"]["standings"].append(line)
    doc["replays"]["DDDDDDDD"] = copy.deepcopy(doc["replays"][_id(doc, "bot-Ada")])
    return re.escape("FAIL  racers: D is missing from the room view and the race view; the "
                     "replay filed under D is bot-Ada's")


def _missing_racer(doc: Doc) -> str:
    """ann out of the race view and the standings (the room view still lists her)."""
    rid = _id(doc, "ann")
    doc["race"]["racers"] = [r for r in doc["race"]["racers"] if r["id"] != rid]
    table = doc["race"]["standings"]
    table["standings"] = [s for s in table["standings"] if s["racer"] != rid]
    return re.escape("FAIL  racers: ann is missing from the race view and the standings")


def _no_replay(doc: Doc) -> str:
    del doc["replays"][_id(doc, "ann")]
    return re.escape("FAIL  racers: ann has no replay")


def _duplicated_line(doc: Doc) -> str:
    doc["race"]["standings"]["standings"].append(copy.deepcopy(_line(doc, "ann")))
    return re.escape("FAIL  racers: ann is listed 2 times in the standings")


def _no_racers(doc: Doc) -> str:
    doc["room"]["racers"] = doc["race"]["racers"] = doc["race"]["standings"]["standings"] = []
    doc["replays"] = {}
    return re.escape("FAIL  racers: none in the room view, the race view, the standings or "
                     "the replays — a race nobody raced proves nothing")


def _reach_time(doc: Doc) -> str:
    line = _line(doc, "bot-Ada")
    reach = line["reach_time_ms"]
    assert isinstance(reach, int)
    line["reach_time_ms"] = reach + 1
    return (r"FAIL  racer bot-Ada: the foundation count last changed at move \d+ "
            + re.escape(f"({reach} ms of race clock), standings say reach time {reach + 1} ms"))


def _clock_disorder(doc: Doc) -> str:
    moves = _moves(doc, "bot-Ada")
    second = moves[1]["race_clock_ms"]
    moves[0]["race_clock_ms"] = second + 1
    return "FAIL  racer bot-Ada: .*" + re.escape(
        f"move 2 at {second} ms of race clock, before move 1 ({second + 1} ms)")


def _negative_clock(doc: Doc) -> str:
    _moves(doc, "bot-Ada")[0]["race_clock_ms"] = -5
    return "FAIL  racer bot-Ada: .*" + re.escape("move 1 at -5 ms of race clock, before the start")


def _beyond_time_limit(doc: Doc) -> str:
    """The time limit cut, in both views, to bot-Ada's last move."""
    moves = _moves(doc, "bot-Ada")
    last = moves[-1]["race_clock_ms"]
    doc["room"]["time_limit_ms"] = doc["race"]["time_limit_ms"] = last
    first = next(i for i, m in enumerate(moves, 1) if m["race_clock_ms"] >= last)
    return "FAIL  racer bot-Ada: .*" + re.escape(
        f"move {first} at {last} ms of race clock, at or after the time limit ({last} ms)")


def _finished_early(doc: Doc) -> str:
    last = _moves(doc, "bot-Ada")[-1]["race_clock_ms"]
    rid = _id(doc, "bot-Ada")
    views = [r for r in doc["room"]["racers"] + doc["race"]["racers"] if r["id"] == rid]
    for view in [*views, doc["replays"][rid]["result"]]:
        view["finished_ms"] = last - 1
    return "FAIL  racer bot-Ada: .*" + re.escape(
        f"the race view, the room view and the replay's result say finished_ms {last - 1}, "
        f"before the last move ({last} ms)")


def _race_view_rules(doc: Doc) -> str:
    doc["race"]["rules"]["undo"] = False
    return re.escape("FAIL  rules: the rules of the race view differ from the room's: undo "
                     "false (the room's: true)")


def _replay_rules(doc: Doc) -> str:
    doc["replays"][_id(doc, "bot-Ada")]["rules"]["redeals"] = 0
    return re.escape("FAIL  rules: the rules of bot-Ada's replay differ from the room's: "
                     "redeals 0 (the room's: 2)")


def _room_rules(doc: Doc) -> str:
    doc["room"]["rules"]["merci"] = True
    return re.escape("FAIL  rules: the rules of the race view differ from the room's: merci "
                     "false (the room's: true)")


def _rules_not_the_engines(doc: Doc) -> str:
    """Two decks written everywhere: not La Belle Lucie as the engine plays it."""
    for rules in [doc["room"]["rules"], doc["race"]["rules"],
                  *(r["rules"] for r in doc["replays"].values())]:
        rules["decks"] = 2
    return re.escape("FAIL  rules: the room's rules are not a rule set of the engine: decks 2 "
                     "(belle-lucie in the engine: 1)")


def _another_rooms_race(doc: Doc) -> str:
    room = doc["room"]
    doc["race"].update(room_id="another-room", room_code="ZZZZZZ")
    return re.escape(f"FAIL  race: the race view is of room ZZZZZZ (id another-room), not of "
                     f"room {room['code']} (id {room['id']})")


def _replay_result_cards(doc: Doc) -> str:
    result = doc["replays"][_id(doc, "bot-Ada")]["result"]
    cards = result["foundation_cards"]
    result["foundation_cards"] += 3
    return re.escape(f"FAIL  racer bot-Ada: replay reaches {cards} foundation cards, the "
                     f"replay's result says {cards + 3}")


def _replay_result_won(doc: Doc) -> str:
    doc["replays"][_id(doc, "bot-Ada")]["result"]["status"] = "won"
    return r"FAIL  racer bot-Ada: the replay ends (playing|stuck), the replay's result says won"


def _race_view_racer(doc: Doc) -> str:
    racer = next(r for r in doc["race"]["racers"] if r["name"] == "bot-Ada")
    racer["foundation_cards"] += 1
    return re.escape(f"FAIL  racer bot-Ada: replay reaches {racer['foundation_cards'] - 1} "
                     f"foundation cards, the race view says {racer['foundation_cards']}")


def _status_in_one_view(doc: Doc) -> str:
    _line(doc, "ann")["status"] = "timed_out"
    return re.escape('FAIL  racer ann: the views disagree on status: standings say '
                     '"timed_out", the race view, the room view and the replay\'s result say '
                     '"resigned"')


def _not_final(doc: Doc) -> str:
    doc["race"]["standings"]["final"] = False
    return re.escape("FAIL  standings: they are not final although the race is over")


FORGERIES: list[Callable[[Doc], str]] = [
    _swapped_ranks, _inflated_points, _extra_racer, _missing_racer, _no_replay,
    _duplicated_line, _no_racers, _reach_time, _clock_disorder, _negative_clock,
    _beyond_time_limit, _finished_early, _race_view_rules, _replay_rules, _room_rules,
    _rules_not_the_engines, _another_rooms_race, _replay_result_cards, _replay_result_won,
    _race_view_racer, _status_in_one_view, _not_final,
]


@pytest.mark.parametrize("forge", FORGERIES, ids=[f.__name__.strip("_") for f in FORGERIES])
def test_a_forged_document_fails_naming_what_did_not_hold(
        saved: tuple[str, Path], tmp_path: Path, forge: Callable[[Doc], str],
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(saved[1].read_text())
    said = forge(doc)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(doc))
    rc, out, err = _lucie(capsys, "verify", "--file", str(path))
    assert rc == 1 and err == "", out + err
    assert re.search(f"^{said}", out, re.M), out
    lines = out.splitlines()
    assert lines[1].startswith("ok    commitment: ")  # the deal is genuine: the rest lies
    assert re.fullmatch(r"not verified: \d+ of \d+ checks failed", lines[-1]), lines[-1]


# -- documents out of shape: one clear line, never a traceback ----------------------

def _set(*path: str | int, value: Any = None, delete: bool = False) -> Callable[[Doc], Any]:
    def change(doc: Doc) -> Any:
        where: Any = doc
        for key in path[:-1]:
            where = where[key] if key != "ANN" else where[_id(doc, "ann")]
        last = path[-1] if path[-1] != "ANN" else _id(doc, "ann")
        if delete:
            del where[last]
        else:
            where[last] = value
        return doc
    return change


SHAPES: list[tuple[str, Callable[[Doc], Any], str]] = [
    ("top-level list", lambda doc: [doc], "not a JSON object"),
    ("room a list", _set("room", value=[]), "room is not an object"),
    ("race text", _set("race", value="x"), "race is not an object"),
    ("replays a list", _set("replays", value=[]), "replays is not an object"),
    ("rules a list", _set("room", "rules", value=[1]), "room.rules is not an object"),
    ("rules text", _set("room", "rules", value="belle-lucie"), "room.rules is not an object"),
    ("rules empty", _set("room", "rules", value={}),
     "room.rules.variant is missing (and 10 more problems)"),
    ("redeals text", _set("room", "rules", "redeals", value="2"),
     "room.rules.redeals is not a whole number"),
    ("undo a number", _set("race", "rules", "undo", value=1),
     "race.rules.undo is not true or false"),
    ("deal number float", _set("room", "deal_number", value=1.5),
     "room.deal_number is not a whole number"),
    ("deal number text", _set("room", "deal_number", value="4"),
     "room.deal_number is not a whole number"),
    ("redeal key a number", _set("room", "redeal_key", value=5), "room.redeal_key is not text"),
    ("redeal key not hex", _set("room", "redeal_key", value="zz"), "room.redeal_key is not hex"),
    ("salt an object", _set("room", "deal_salt", value={}), "room.deal_salt is not text"),
    ("commitment a list", _set("room", "deal_commitment", value=[1]),
     "room.deal_commitment is not text"),
    ("racers a number", _set("race", "racers", value=5), "race.racers is not a list"),
    ("racer id a list", _set("race", "racers", 0, "id", value=[1]),
     "race.racers[0].id is not text"),
    ("standings a list", _set("race", "standings", value=[]), "race.standings is not an object"),
    ("standing racer a list", _set("race", "standings", "standings", 0, "racer", value=[1]),
     "race.standings.standings[0].racer is not text"),
    ("standing moves text", _set("race", "standings", "standings", 0, "moves", value="6"),
     "race.standings.standings[0].moves is not a whole number"),
    ("moves of text", _set("replays", "ANN", "moves", value=["3f"]),
     "replays.ANN.moves[0] is not an object"),
    ("move an object", _set("replays", "ANN", "moves", 0, "move", value={"from": 1}),
     "replays.ANN.moves[0].move is not text"),
    ("race salt missing", _set("race", "deal_salt", delete=True), "race.deal_salt is missing"),
    ("time limit missing", _set("room", "time_limit_ms", delete=True),
     "room.time_limit_ms is missing"),
    ("start null", _set("race", "started_at_ms", value=None), "race.started_at_ms is null"),
]


@pytest.mark.parametrize(("change", "said"), [(c, s) for _, c, s in SHAPES],
                         ids=[name for name, _, _ in SHAPES])
def test_a_document_out_of_shape_is_one_clear_line(
        saved: tuple[str, Path], tmp_path: Path, change: Callable[[Doc], Any], said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(saved[1].read_text())
    said = said.replace("ANN", _id(doc, "ann"))
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(change(doc)))
    rc, out, err = _lucie(capsys, "verify", "--file", str(path))
    assert rc == 1 and out == "", out
    assert err == f"lucie verify: not a verification document: {said}\n"


# -- genuine races of every kind still verify ---------------------------------------

async def _join(http: httpx.AsyncClient, code: str, name: str) -> tuple[str, dict[str, str]]:
    joined = (await http.post(f"/rooms/{code}/racers", json={"name": name})).json()
    return joined["racer"]["id"], {"Authorization": f"Bearer {joined['token']}"}


async def _play(http: httpx.AsyncClient, code: str, racer: str, auth: dict[str, str], moves: int,
                *, undo: bool = False) -> None:
    """``moves`` moves of ``racer``, a foundation move when there is one — each
    taken back by the next move when ``undo``."""
    game = (await http.get(f"/rooms/{code}/racers/{racer}/game", headers=auth)).json()
    took_up = False
    for i in range(moves):
        legal = game["legal_moves"]
        up = [m for m in legal if m.endswith("f")]
        if undo and took_up and game["can_undo"]:
            move, took_up = "u", False
        elif legal:
            move, took_up = (up or legal)[0], bool(up)
        else:
            return
        answer = await http.post(f"/rooms/{code}/racers/{racer}/moves", headers=auth, json={
            "move": move, "expected_version": game["version"], "client_move_id": f"g{i}"})
        assert answer.status_code == 200, answer.text
        game = answer.json()["game"]


async def _wait_over(http: httpx.AsyncClient, code: str, seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while (await http.get(f"/rooms/{code}")).json()["state"] not in ("over", "closed"):
            await asyncio.sleep(0.1)


async def _closed_mid_race(url: str, variant: str, undo: bool) -> str:
    """A room of ``variant`` with a computer racer, ann (who plays, undoing her
    foundation moves when ``undo``) and bob (who leaves); the host closes it while
    the computer racer still plays (unless every result is final by then)."""
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        made = (await http.post("/rooms", json={
            "variant": variant, "undo": undo, "bots": 1, "countdown_s": 0, "deal": 11,
            "visibility": "private"})).json()
        code, host = made["room"]["code"], {"Authorization": f"Bearer {made['host_token']}"}
        ann, ann_auth = await _join(http, code, "ann")
        bob, bob_auth = await _join(http, code, "bob")
        assert (await http.post(f"/rooms/{code}/start", headers=host)).status_code == 200
        await _play(http, code, ann, ann_auth, 8, undo=undo)
        await _play(http, code, bob, bob_auth, 2)
        left = await http.delete(f"/rooms/{code}/racers/{bob}", headers=bob_auth)
        assert left.status_code == 204, left.text
        await asyncio.sleep(0.2)  # the computer racer plays a few moves
        closed = await http.post(f"/rooms/{code}/close", headers=host)
        # or every result became final before (stuck without undo): the race is over
        assert closed.status_code == 200 or closed.json()["error"]["code"] == "room/over", \
            closed.text
        await _wait_over(http, code, 10)
    return str(code)


def _verifies(capsys: pytest.CaptureFixture[str], url: str, code: str) -> list[str]:
    rc, out, err = _lucie(capsys, "verify", code, "--server", url)
    assert rc == 0, out + err
    lines = out.splitlines()
    assert re.fullmatch(r"verified: all \d+ checks hold", lines[-1]), out
    return lines


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_races_of_every_variant_closed_mid_race_verify(
        url: str, variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    undo = list(VARIANTS).index(variant) % 2 == 0
    lines = _verifies(capsys, url, asyncio.run(_closed_mid_race(url, variant, undo)))
    assert f"undo {'on' if undo else 'off'})" in lines[2]
    assert lines[-1] == "verified: all 8 checks hold"  # five, and three racers
    assert any(line.startswith("ok    racer bob: ") and line.endswith(", left, as the "
                                                                      "standings say")
               for line in lines), lines


def test_a_race_ended_by_its_time_limit_verifies(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    async def race() -> str:
        async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
            made = (await http.post("/rooms", json={"time_limit_s": 10, "countdown_s": 0,
                                                    "deal": 7, "visibility": "private"})).json()
            code = made["room"]["code"]
            ann, auth = await _join(http, code, "ann")
            await _join(http, code, "bob")  # who never moves
            assert (await http.post(f"/rooms/{code}/start", headers={
                "Authorization": f"Bearer {made['host_token']}"})).status_code == 200
            await _play(http, code, ann, auth, 5)
            await _wait_over(http, code, 20)
        return str(code)

    lines = _verifies(capsys, url, asyncio.run(race()))
    assert sum(line.endswith(", timed_out, as the standings say") for line in lines) == 2


def test_a_ghost_rooms_race_verifies(url: str, saved: tuple[str, Path],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    async def race() -> str:
        async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
            made = await http.post("/ghost-rooms", json={
                "room": saved[0], "racer": "ann", "countdown_s": 0, "visibility": "private"})
            assert made.status_code == 201, made.text
            code = made.json()["room"]["code"]
            gina, auth = await _join(http, code, "gina")
            assert (await http.post(f"/rooms/{code}/start", headers={
                "Authorization": f"Bearer {made.json()['host_token']}"})).status_code == 200
            await _play(http, code, gina, auth, 3)
            await http.post(f"/rooms/{code}/racers/{gina}/resign", headers=auth)
            await _wait_over(http, code, 30)
        return str(code)

    lines = _verifies(capsys, url, asyncio.run(race()))
    assert any(line.startswith("ok    racer 👻 ann: 6 moves replayed") for line in lines), lines
