"""Players from the terminal against a real server: ``lucie me --create``, racing as
the player with ``lucie join``, ``lucie history``, ``lucie h2h``, ``lucie me``,
the rating board, ``lucie forget-me``, and a key the server no longer knows.

Each "user" is a config folder (``LUCIE_CONFIG_DIR``) of its own. The board is
not run: ``RaceApp.run_async`` is replaced by a stub that notes the seat the
real ``lucie join`` code joined with, and the test races that seat over REST.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli.api import ApiError, LucieClient
from client_cli.board.app import RaceApp
from client_cli.board.state import Seat
from client_cli.cli import main
from client_cli.embedded import server_answers
from client_cli.player_key import key_path, load_key
from server.records.players import KEY_PREFIX
from tests.conftest import free_port


class Users:
    """Switch between users (config folders) and run ``lucie`` as one of them."""

    def __init__(self, url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
        self.url, self.tmp, self.mp, self.capsys = url, tmp_path, monkeypatch, capsys

    def lucie(self, user: str, *argv: str, answer: str | None = None) -> tuple[int, str, str]:
        self.mp.setenv("LUCIE_CONFIG_DIR", str(self.tmp / user))
        if answer is not None:
            self.mp.setattr("builtins.input", lambda _prompt="": answer)
        self.capsys.readouterr()
        rc = main([*argv, "--server", self.url])
        out, err = self.capsys.readouterr()
        assert "Traceback" not in out + err
        return rc, out, err

    def key_file(self, user: str) -> Path:
        self.mp.setenv("LUCIE_CONFIG_DIR", str(self.tmp / user))
        return key_path(self.url)


@pytest.fixture
def users(lucie_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> Users:
    return Users(lucie_server, tmp_path, monkeypatch, capsys)


@pytest.fixture
def seats(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Seat]]:
    """The seats ``lucie play``/``lucie join`` joined with (the board is not run)."""
    taken: list[Seat] = []

    async def no_board(self: RaceApp, *args: object, **kwargs: object) -> int:
        taken.append(self.seat)
        return 0

    monkeypatch.setattr(RaceApp, "run_async", no_board)
    yield taken


def flat(text: str) -> str:
    """``text`` on one line: rich wraps long lines at 80 columns off a terminal."""
    return " ".join(text.split())


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def _room(url: str) -> tuple[str, str]:
    async with LucieClient(url) as client:
        created = await client.create_room(deal=2, countdown_s=0, visibility="private")
        return created.room.code, created.host_token


async def _race(url: str, code: str, host: str, seats: list[Seat]) -> list[str]:
    """Start; the first seat plays one foundation move; everyone resigns. The names."""
    async with LucieClient(url) as client:
        names = [r.name for r in (await client.get_room(code)).racers]
        await client.start(code, host)
        first = seats[0]
        assert first.racer and first.token
        for _ in range(300):
            game = await client.game(code, first.racer, first.token)
            if game.status == "playing":
                break
            await asyncio.sleep(0.02)
        up = next(m for m in game.legal_moves if m.endswith("f"))  # deal 2 opens with 8f
        await client.move(code, first.racer, first.token, up, game.version)
        for seat in seats:
            assert seat.racer and seat.token
            await client.resign(code, seat.racer, seat.token)
        for _ in range(300):
            if (await client.standings(code)).final:
                return names
            await asyncio.sleep(0.05)
    raise AssertionError("the race never ended")


def test_race_as_players_then_history_h2h_me_and_the_rating_board(
        users: Users, seats: list[Seat]) -> None:
    ada, bob = _name("ada"), _name("bob")
    rc, out, _ = users.lucie("ada", "me", "--create", ada)
    assert rc == 0 and f"Created player {ada}" in flat(out)
    rc, _, _ = users.lucie("bob", "me", "--create", bob)
    assert rc == 0

    code, host = asyncio.run(_room(users.url))
    assert users.lucie("ada", "join", code)[0] == 0
    rc, _, err = users.lucie("bob", "join", code, "--name", "robert")
    assert rc == 0 and f"racing as your player {bob}" in err
    assert users.lucie("ada", "join", code, "--anonymous", "--name", "carol")[0] == 0
    rc, _, err = users.lucie("ada", "join", code)  # a second terminal, same player
    assert rc == 1 and f"you (player {ada}) already have a seat in this room" in flat(err)
    # the trial: a second person on this machine was not told how to join as someone else
    assert "someone else on this machine joins with" in flat(err)
    assert f"join {code} --anonymous --name NAME --server {users.url}" in flat(err)
    assert len(seats) == 3  # (the trial: "racer/name_taken: 'Ada' is taken in this room")
    other, _ = asyncio.run(_room(users.url))  # an anonymous racer took the player's name
    assert users.lucie("nobody", "join", other, "--name", ada.upper())[0] == 0
    rc, _, err = users.lucie("ada", "join", other)
    assert rc == 1 and f"another racer in this room is called {ada}" in err
    assert "--anonymous --name OTHER" in err and len(seats) == 4
    seats.pop()
    names = asyncio.run(_race(users.url, code, host, seats))
    assert names == [ada, bob, "carol"]  # a player races under its name; --anonymous not

    deadline = time.monotonic() + 30  # archived about a second after the end
    while True:
        rc, out, err = users.lucie("ada", "history")
        if rc == 0 and code in out:
            break
        assert time.monotonic() < deadline, (rc, out, err)
        time.sleep(0.3)
    assert f"Races of {ada}" in out
    row = next(line for line in out.splitlines() if code in line)
    assert "1/3" in row and "resigned" in row and "belle-lucie" in row
    rc, out, _ = users.lucie("nobody", "history", bob.upper())  # anyone's, by name
    assert rc == 0 and code in out and "2/3" in next(x for x in out.splitlines() if code in x)
    assert f"Races of {bob} on" in out  # as the server stores the name (not as typed)
    rc, _, err = users.lucie("nobody", "history")
    assert rc == 1 and "give a player NAME" in err
    rc, _, err = users.lucie("nobody", "history", "no-such-player-x")
    assert rc == 1 and "no player 'no-such-player-x'" in err
    rc, _, err = users.lucie("ada", "h2h", "bot-Ada")  # a computer racer is not a player
    assert rc == 1 and "no player 'bot-Ada'" in err and "are not players" in flat(err)

    rc, out, _ = users.lucie("ada", "h2h", bob)  # you against bob
    assert rc == 0, out
    summary = flat(out.split("Shared races")[0])
    assert f"{ada} vs {bob}" in summary and "1 shared race" in summary
    assert f"{ada}: 1 win, 0 losses, 0 ties" in summary
    assert "average card difference +1.0" in summary
    line = next(x for x in out.splitlines() if "#1" in x and " compare " in x)
    argv = shlex.split(line.split("#1", 1)[1])
    assert argv[0].endswith("lucie") and argv[1:4] == ["compare", "--server", users.url]
    users.capsys.readouterr()
    rc = main(argv[1:])
    out, err = users.capsys.readouterr()
    assert rc == 0, err
    assert "Head to head" in out and ada in out and bob in out
    rc, out, _ = users.lucie("nobody", "h2h", bob, ada)  # two players by name
    assert rc == 0 and f"{bob}: 0 wins, 1 loss, 0 ties" in flat(out) and "-1.0" in flat(out)

    rc, out, _ = users.lucie("ada", "me")
    assert rc == 0, out
    assert f"{ada} on {users.url}" in out and "· 1 archived race" in flat(out)
    assert "Ratings and figures" in out and re.search(r"┃ +┃ belle-lucie +┃", out)
    rating = next(x for x in out.splitlines() if "│ rating " in x)
    assert re.search(r"│ -?\d+\.\d\* ", rating), rating  # marked provisional
    assert re.search(r"│ rated races +│ 1 ", out) and re.search(r"│ races +│ 1 ", out)
    assert re.search(r"│ wins +│ 1 ", out) and re.search(r"│ average cards +│ 1\.0 ", out)
    assert "rating (mu − 3 sigma) after each rated race" in out and "rated race" in out
    assert "* provisional: fewer than 10 rated races" in flat(out)

    rc, out, _ = users.lucie("nobody", "leaderboard", "--rating", "--limit", "100")
    assert rc == 0 and "Rating leaderboard · belle-lucie" in out
    lines = out.splitlines()
    ada_at = next(i for i, x in enumerate(lines) if ada in x)
    bob_at = next(i for i, x in enumerate(lines) if bob in x)
    assert ada_at < bob_at  # the winner of their one race rates higher
    assert "carol" not in out


def test_create_keep_the_key_private_then_forget_me(users: Users) -> None:
    name = _name("cy")
    rc, out, err = users.lucie("cy", "me")
    assert rc == 1 and "you race anonymously" in err and "me --create NAME" in err
    rc, out, _ = users.lucie("cy", "me", "--create", name)
    assert rc == 0
    path = users.key_file("cy")
    assert str(path) in flat(out).replace(" ", "")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    stored = load_key(users.url)
    assert stored is not None and stored.name == name and stored.key.startswith(KEY_PREFIX)

    rc, _, err = users.lucie("cy", "me", "--create", _name("cy"))
    assert rc == 1 and f"you are player {name}" in err and "forget-me" in err
    rc, _, err = users.lucie("dee", "me", "--create", name.upper())
    assert rc == 1 and "is taken on" in err and not users.key_file("dee").exists()
    rc, _, err = users.lucie("dee", "me", "--create", "x")
    assert rc == 1 and "not a valid player name" in err
    rc, out, _ = users.lucie("cy", "me")
    assert rc == 0 and "0 archived races" in flat(out) and "No ranked race yet" in flat(out)

    rc, out, _ = users.lucie("cy", "forget-me", answer="n")
    assert rc == 1 and "Nothing forgotten" in out and users.key_file("cy").exists()
    rc, out, _ = users.lucie("nobody", "history", name)
    assert rc == 0 and "no archived race" in flat(out)  # the player is still there
    rc, out, _ = users.lucie("cy", "forget-me", answer="y")
    assert rc == 0 and f"Forgot player {name}" in flat(out)
    assert not users.key_file("cy").exists()

    async def gone() -> str:
        async with LucieClient(users.url) as client:
            with pytest.raises(ApiError) as exc:
                await client.player(name)
        return exc.value.code

    assert asyncio.run(gone()) == "player/not_found"
    rc, _, err = users.lucie("cy", "forget-me", "--yes")
    assert rc == 1 and "you race anonymously" in err


def test_a_key_the_server_forgot_is_said_plainly_and_forget_me_clears_it(
        users: Users, seats: list[Seat]) -> None:
    name = _name("eve")
    assert users.lucie("eve", "me", "--create", name)[0] == 0
    stored = load_key(users.url)
    assert stored is not None

    async def forget_elsewhere() -> None:  # e.g. from another machine with the key
        async with LucieClient(users.url) as client:
            await client.forget_player(stored.player_id, stored.key)

    asyncio.run(forget_elsewhere())
    code, _ = asyncio.run(_room(users.url))
    rc, _, err = users.lucie("eve", "join", code)
    assert rc == 1 and "does not accept your player key" in err and "forget-me" in err
    rc, out, err = users.lucie("eve", "play", "--no-embedded")
    assert rc == 1 and "does not accept your player key" in err
    made = re.search(r"Room (\w+) ", out)
    assert made is not None
    assert not seats

    async def states() -> tuple[int, str]:
        async with LucieClient(users.url) as client:
            return (len((await client.get_room(code)).racers),
                    (await client.get_room(made.group(1))).state)

    assert asyncio.run(states()) == (0, "closed")  # nobody joined; play's room is closed
    rc, _, err = users.lucie("eve", "me")
    assert rc == 1 and f"no longer knows your player {name}" in err
    rc, out, _ = users.lucie("eve", "forget-me", "--yes")
    assert rc == 0 and "stale key" in flat(out) and not users.key_file("eve").exists()
    rc, _, _ = users.lucie("eve", "join", code, "--name", "eve-anon")  # anonymous now
    assert rc == 0 and len(seats) == 1


def test_player_commands_start_a_local_server_when_none_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The trial: ``make run`` (whose server stops with it), then ``lucie me
    --create Ada``: "no race server answers". As ``lucie play`` does, a player
    command starts the embedded server for itself when nothing listens at the
    local URL; players live in the archive on disk, so the next command's
    server knows the player."""
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("LUCIE_DATA_DIR", str(tmp_path / "data"))  # the archive
    monkeypatch.setenv("LUCIE_ENV_FILE", os.devnull)
    users = Users(url, tmp_path, monkeypatch, capsys)
    name = _name("zoe")
    rc, out, err = users.lucie("zoe", "me", "--create", name)
    assert rc == 0, err
    assert f"no race server answered at {url}: started one for this command" in flat(err)
    assert f"Created player {name}" in out
    assert not server_answers(url, timeout=0.5)  # stopped with the command
    rc, out, err = users.lucie("zoe", "me")
    assert rc == 0, err
    assert f"{name} on {url}" in flat(out) and "0 archived races" in flat(out)


def test_leaderboard_and_h2h_start_a_local_server_when_none_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The trial: with nothing on the local port, ``lucie leaderboard
    --all-time`` said "no race server answers" (exit 1) though the README
    counts it among the player commands that start one, as ``me`` does."""
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("LUCIE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LUCIE_ENV_FILE", os.devnull)
    users = Users(url, tmp_path, monkeypatch, capsys)
    for argv, shown in ((["leaderboard", "--all-time"], "All-time leaderboard · belle-lucie"),
                        (["leaderboard"], "Daily leaderboard · belle-lucie")):
        rc, out, err = users.lucie("nobody", *argv)
        assert rc == 0, err
        assert f"no race server answered at {url}: started one for this command" in flat(err)
        assert shown in flat(out)
        assert not server_answers(url, timeout=0.5)  # stopped with the command
    rc, _, err = users.lucie("nobody", "h2h", "Ada", "Bob")  # starts one too; no such player
    assert f"no race server answered at {url}: started one for this command" in flat(err)
    assert rc == 1 and "no player 'Ada'" in err
