"""``lucie challenge``, ``lucie duel`` and ``lucie challenges`` against a real
server (issue 35): the seats they take and the lines they print, the board of
``lucie play`` on an attempt (sealed to everyone else: the board reads with
its token) through to the start, the list with its results and news, and the
parser."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from client_cli.api import ApiError, LucieClient
from client_cli.board.app import RaceApp
from client_cli.board.state import Seat
from client_cli.challenge_cmd import challenge_seat, list_challenges
from client_cli.cli import build_parser
from client_cli.player_key import PlayerKey
from tests.conftest import ServerFactory

from .helpers import until

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_ARCHIVE_PERIOD_S="0.2", LUCIE_CHALLENGE_PERIOD_S="0.2")


def _args(command: str, code: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(command=command, code=code, variant="belle-lucie")


async def _player(client: LucieClient, url: str, name: str) -> PlayerKey:
    made = await client.create_player(name)
    return PlayerKey(url, made["player"]["id"], name, made["key"], Path("-"))


async def test_challenge_attempt_and_duel_seats(url: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    async with LucieClient(url) as client:
        with pytest.raises(ApiError, match="as a player"):
            await challenge_seat(client, _args("challenge"), None)
        ada = await _player(client, url, "Chal Ada")
        bob = await _player(client, url, "Chal Bob")
        mine, room_code = await challenge_seat(client, _args("challenge"), ada)
        out = capsys.readouterr().out
        code = out.split("Challenge ", 1)[1].split(" ", 1)[0]
        assert "0 played it so far. Others play it with:  " in out
        assert f"challenge {code} --server {url}" in out and "Type ready" in out
        assert mine.racer.name == "Chal Ada" and len(room_code) == 6
        theirs, _ = await challenge_seat(client, _args("challenge", code), bob)
        assert theirs.racer.name == "Chal Bob"
        with pytest.raises(ApiError) as again:
            await challenge_seat(client, _args("challenge", code), bob)
        assert again.value.code == "challenge/already_played"
        duel, _ = await challenge_seat(client, _args("duel"), bob)
        assert "a fresh duel: a rival of your rating plays it later" in capsys.readouterr().out
        assert duel.racer.name == "Chal Bob"


async def test_the_board_plays_an_attempt_and_the_list_shows_it(
        url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    async with LucieClient(url) as client:
        cy = await _player(client, url, "Chal Cy")
        joined, _ = await challenge_seat(client, _args("challenge"), cy)
        seats = await client._call("GET", f"/players/{cy.player_id}/challenges", token=cy.key)
        (made,) = seats["challenges"]
        room = made["you"]["room"]
        app = RaceApp(Seat(url, room, joined.racer.id, joined.token))
        async with app.run_test(size=(110, 40)):
            await until(lambda: app.room is not None, what="the attempt's room")
            await client.ready(room, joined.racer.id, joined.token)
            await until(lambda: app.game is not None, timeout=10, what="the start")
            assert app.room is not None and app.room.state == "racing"
            await client.resign(room, joined.racer.id, joined.token)
            await until(lambda: app.room is not None and app.room.state == "over",
                        what="the end")
    monkeypatch.setattr("client_cli.challenge_cmd.load_key", lambda _: cy)
    capsys.readouterr()
    for _ in range(50):
        assert await list_challenges(url) == 0
        out = capsys.readouterr().out
        if "waiting" in out:
            break
        await asyncio.sleep(0.2)
    assert "Challenges of Chal Cy" in out and "waiting" in out and "link" in out


def test_the_parser() -> None:
    args = build_parser().parse_args(["challenge", "H6HCAS7E"])
    assert (args.command, args.code, args.seat_with) == ("challenge", "H6HCAS7E", challenge_seat)
    args = build_parser().parse_args(["challenge", "--variant", "trefoil"])
    assert args.code is None and args.variant == "trefoil" and not args.embedded
    args = build_parser().parse_args(["duel"])
    assert args.command == "duel" and args.seat_with is challenge_seat
    assert callable(build_parser().parse_args(["challenges"]).func)
