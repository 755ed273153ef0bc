"""``lucie quick`` against a real server with short quick-race waits: the client
library's ``quick``, the seat ``lucie quick`` takes (anonymously and as a
player) and the line it prints, the board's waiting line of a quick lobby
through to the start, and the parser."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from client_cli.api import ApiError, LucieClient
from client_cli.board.app import RaceApp
from client_cli.board.state import Seat
from client_cli.cli import build_parser
from client_cli.player_key import PlayerKey
from client_cli.quick_cmd import quick_join
from tests.conftest import ServerFactory

from .helpers import until

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_QUICK_WAIT_S="2", LUCIE_QUICK_FILL_S="30")


def _args(variant: str, name: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(variant=variant, name=name)


async def test_the_library_and_the_seat_lucie_quick_takes(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    async with LucieClient(url) as client:
        first, code = await quick_join(client, _args("no-redeal", "ann"), None)
        out = capsys.readouterr().out
        assert f"Quick race: room {code}, 1/6 racers; computer racers join in" in out
        assert f"quick --variant no-redeal --server {url}  " in out and f"/r/{code}" in out
        made = await client.create_player("Quick Cli")
        player = PlayerKey(url, made["player"]["id"], "Quick Cli", made["key"], Path("-"))
        second, same = await quick_join(client, _args("no-redeal", "ignored"), player)
        assert same == code and second.racer.name == "Quick Cli"
        assert "2/6 racers; it starts in" in capsys.readouterr().out
        with pytest.raises(ApiError, match="already waits in that quick race"):
            await quick_join(client, _args("no-redeal"), player)
        seat = await client.quick("no-redeal", "ann")  # the library: a taken name numbered
        assert seat.room.code == code and first.racer.id in {r.id for r in seat.room.racers}
        assert seat.racer.name == "ann 2" and seat.room.quick is not None
        with pytest.raises(ApiError) as bad:
            await client.quick("no-such-variant", "ann")
        assert bad.value.code == "request/invalid" and bad.value.status == 400


async def test_the_board_shows_a_quick_lobby_until_it_starts(url: str) -> None:
    async with LucieClient(url) as client:
        ann = await client.quick("fan-with-reserve", "ann")
        app = RaceApp(Seat(url, ann.room.id, ann.racer.id, ann.token))
        async with app.run_test(size=(110, 40)):
            await until(lambda: "Quick race" in str(app.w_banner.render()), what="quick line")
            line = str(app.w_banner.render())
            assert "1/6 racers" in line and "computer racers join in" in line
            assert f"quick --variant fan-with-reserve --server {url}," in line
            await client.quick("fan-with-reserve", "bob")
            await until(lambda: "starts in" in str(app.w_banner.render()), what="deadline")
            assert "2/6 racers" in str(app.w_banner.render())
            await until(lambda: app.game is not None, timeout=10, what="the start")
            assert app.room is not None and app.room.state == "racing"


def test_the_parser() -> None:
    args = build_parser().parse_args(["quick", "--variant", "trefoil", "--anonymous"])
    assert args.command == "quick" and args.variant == "trefoil" and args.anonymous
    assert args.seat_with is quick_join and args.embedded and args.bots == 0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["quick", "--variant", "nope"])
