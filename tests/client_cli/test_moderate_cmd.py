"""``lucie moderate`` (issue 32) against a real ``lucie-server`` process: the queue
lists a player who raced the solver's line, ``show`` reads their file,
``verdict`` records one; a wrong token, a server without moderation and a
missing argument are clear errors."""

from __future__ import annotations

import asyncio
import os
import time

import httpx
import pytest

from client_cli.cli import main
from server.rules import RuleSet, deal
from server.solver import solve
from tests.conftest import ServerFactory

pytestmark = pytest.mark.timeout(120)

TOKEN = os.urandom(16).hex()
RULES = RuleSet.from_json({"variant": "belle-lucie"})


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_MODERATOR_TOKEN=f"carol:{TOKEN}",
                          LUCIE_FAIR_PLAY_MIN_RACES="1", LUCIE_ARCHIVE_PERIOD_S="0.2")


async def _solver_race(url: str) -> None:
    """Sam plays the solver's line of deal 288's first layout and resigns; Pat resigns."""
    line = solve(RULES, deal(RULES, 288), None, mode="one-layout").moves
    async with httpx.AsyncClient(base_url=url + "/api/v1", timeout=10) as http:
        keys = [(await http.post("/players", json={"name": n})).json()["key"]
                for n in ("Sam Solver", "Pat Plain")]
        made = (await http.post("/rooms", json={"deal": 288, "countdown_s": 0})).json()
        room, host = made["room"]["id"], made["host_token"]
        seats = [(await http.post(f"/rooms/{room}/racers", json={},
                                  headers={"Authorization": f"Bearer {k}"})).json()
                 for k in keys]
        await http.post(f"/rooms/{room}/start", headers={"Authorization": f"Bearer {host}"})
        sam, auth = seats[0]["racer"]["id"], {"Authorization": f"Bearer {seats[0]['token']}"}
        for i, move in enumerate(line):
            r = await http.post(f"/rooms/{room}/racers/{sam}/moves", headers=auth, json={
                "move": str(move), "expected_version": i, "client_move_id": f"m{i}"})
            assert r.status_code == 200, r.text
        for seat in seats:
            await http.post(f"/rooms/{room}/racers/{seat['racer']['id']}/resign",
                            headers={"Authorization": f"Bearer {seat['token']}"})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            queue = (await http.get("/moderation/queue",
                                    headers={"Authorization": f"Bearer {TOKEN}"})).json()
            if queue["queue"]:
                return
            await asyncio.sleep(0.25)
    raise AssertionError("Sam never reached the queue")


def test_queue_show_and_verdict(url: str, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    asyncio.run(_solver_race(url))
    assert main(["moderate", "--server", url, "--token", TOKEN]) == 0
    out = capsys.readouterr().out
    assert "Fair-play queue" in out and "Sam Solver" in out and "Pat Plain" not in out
    monkeypatch.setenv("LUCIE_MODERATOR_TOKEN", f"carol:{TOKEN}")  # the token from the env
    assert main(["moderate", "show", "sam solver", "--server", url]) == 0
    out = capsys.readouterr().out
    assert "Sam Solver" in out and "critical positions" in out and "Assessed races" in out
    assert "/api/v1/rooms/" in out and "/replay" in out  # links in full
    assert main(["moderate", "verdict", "Sam Solver", "assisted", "--note", "line of the "
                 "solver", "--yes", "--server", url]) == 0
    out = capsys.readouterr().out
    assert "Recorded: Sam Solver assisted by carol" in out
    assert main(["moderate", "--server", url]) == 0
    assert "Nobody to review" in capsys.readouterr().out
    assert main(["moderate", "show", "Sam Solver", "--server", url]) == 0
    assert "assisted by carol — line of the solver" in capsys.readouterr().out
    assert main(["moderate", "verdict", "Sam Solver", "cleared", "--note",
                 "appeal \x1b]0;pwned\x07 upheld \u202e", "--server", url]) == 0
    capsys.readouterr()
    assert main(["moderate", "show", "Sam Solver", "--server", url]) == 0
    out = capsys.readouterr().out
    assert "appeal ?]0;pwned? upheld ?" in out and "\x1b" not in out


def test_refusals_are_clear(url: str, server_factory: ServerFactory,
                            capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LUCIE_MODERATOR_TOKEN", raising=False)
    assert main(["moderate", "--server", url, "--token", "not-" + TOKEN]) == 1
    assert "does not know that moderator token" in capsys.readouterr().err
    assert main(["moderate", "--server", url]) == 1
    assert "a moderator token is needed" in capsys.readouterr().err
    monkeypatch.setenv("LUCIE_MODERATOR_TOKEN", f"carol:{TOKEN},dan:{TOKEN[::-1]}")
    assert main(["moderate", "--server", url]) == 1  # the server's list: whose is it?
    assert "holds several moderators' tokens" in capsys.readouterr().err
    monkeypatch.delenv("LUCIE_MODERATOR_TOKEN")
    assert main(["moderate", "verdict", "x", "--server", url, "--token", TOKEN]) == 2
    assert "cleared or assisted" in capsys.readouterr().err
    assert main(["moderate", "verdict", "nobody", "cleared", "--server", url,
                 "--token", TOKEN]) == 1
    assert "--note" in capsys.readouterr().err
    assert main(["moderate", "show", "../queue", "--server", url, "--token", TOKEN]) == 2
    assert "is not a player id or name" in capsys.readouterr().err
    assert main(["moderate", "show", "nobody here", "--server", url, "--token", TOKEN]) == 1
    assert "no player 'nobody here'" in capsys.readouterr().err
    plain = server_factory()
    assert main(["moderate", "--server", plain, "--token", TOKEN]) == 1
    assert "has no moderation" in capsys.readouterr().err
