"""``lucie verify`` (issue 32) against a real ``lucie-server`` process: a race with a
computer racer verifies (the commitment, every racer's replay); a saved document
with a changed salt, deal number, move or result fails with a message naming what
did not hold; a race not over and an unknown room are clear errors."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from client_cli.cli import main
from client_cli.verify import NOT_OVER
from server.rules import RuleSet, new_game, parse_move
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
    racers = sorted(line.split(":")[0] for line in lines[2:4])
    assert racers == ["ok    racer ann", "ok    racer bot-Ada"]
    assert "6 moves replayed" in next(line for line in lines if "racer ann" in line)
    assert lines[-1] == "verified: all 3 checks hold"
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
    published = json.loads(saved[1].read_text())["room"]["deal_commitment"]
    rc, out, _ = _lucie(capsys, "verify", "--file", _tampered(saved[1], tmp_path, change))
    assert rc == 1
    said = re.search(r"^FAIL  commitment mismatch: sha256 of the revealed deal is ([0-9a-f]{64}) "
                     rf"but the room published {published}$", out, re.M)
    assert said is not None and said.group(1) != published, out
    assert "not verified: 1 of 1 checks failed" in out


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
