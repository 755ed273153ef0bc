"""The terminal's choice and view of the computer racers' levels (issue 38):
``lucie play --bots N --level L`` against a real server, ``lucie bot --level``,
and every screen naming a bot's level and rating beside it, ``stuck`` included."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from client_cli.api import LucieClient, RacerView, StandingView
from client_cli.board.app import RaceApp
from client_cli.board.model import is_final, racer_label, standing_rows
from client_cli.board.widgets import OpponentsPanel
from client_cli.bot import bot_levels_of, bots_option
from client_cli.cli import build_parser, main
from client_cli.play_report import exit_report
from server.solver.levels import RATINGS
from tests.conftest import ServerFactory


def test_the_level_option_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["play", "--bots", "3", "--level", "grandmaster"],
                 ["bot", "ABCD", "--level", "mix"]):  # lucie bot: one level for its bots
        with pytest.raises(SystemExit) as exc:
            build_parser().parse_args(argv)
        assert exc.value.code == 2
        assert "invalid choice" in capsys.readouterr().err
    args = build_parser().parse_args(["play", "--bots", "3"])
    assert args.level == "mix"
    assert build_parser().parse_args(["bot", "ABCD"]).level == "club"


def test_the_bots_option_sent_for_each_level() -> None:
    assert bots_option(3, "mix") == 3  # the server mixes: one of each level
    assert bots_option(3, "club") == {"level": "club", "count": 3}
    assert bots_option(0, "expert") == 0
    assert bot_levels_of(3, "mix") == ("novice", "club", "expert")
    assert bot_levels_of(2, "expert") == ("expert", "expert")


def test_every_screen_shows_a_bots_level_and_rating_beside_its_name(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    club = RATINGS["club"]
    assert racer_label("bot-Ada", "club", club) == f"bot-Ada · club ≈ {club:.1f}"
    assert racer_label("ann") == "ann"
    standings = [
        StandingView(rank=1, racer="a", name="ann", foundation_cards=20, status="stuck",
                     final=True),
        StandingView(rank=2, racer="b", name="bot-Ada", foundation_cards=12, status="stuck",
                     final=True, bot_level="club", bot_rating=club)]
    rows = standing_rows(standings)
    assert [(r[1], r[5]) for r in rows] == [("ann", "stuck"),
                                            (f"bot-Ada · club ≈ {club:.1f}", "stuck")]
    exit_report("ABCD", standings, None, False, [])
    out = capsys.readouterr().out
    assert f"bot-Ada · club ≈ {club:.1f}" in out and "stuck" in out
    panel = OpponentsPanel()
    racers = [RacerView(id="b", name="bot-Cog", status="stuck", final=True,
                        bot_level="expert", bot_rating=RATINGS["expert"])]
    panel.show(racers, None, 52)
    text = panel.plain_text(120)
    assert f"bot-Cog · expert ≈ {RATINGS['expert']:.1f}" in text and "stuck" in text
    # a racer stuck who conceded is final, though "stuck" alone may still undo
    assert is_final(racers[0]) and not is_final(RacerView(id="c", name="c", status="stuck"))


@pytest.fixture(scope="module")
def quick_bots_server(server_factory: ServerFactory) -> str:
    """A server whose bots think fast (the levels' pauses in units of 20 ms)."""
    return server_factory(LUCIE_BOT_THINK_MS="20")


def _play_and_leave(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str,
                    *argv: str) -> list[RacerView]:
    """``lucie play ARGV`` whose board closes at once (before the start); the
    computer racers of the room it made."""
    rooms: list[str] = []

    async def leave_at_once(self: RaceApp, *args: object, **kwargs: object) -> int:
        rooms.append(self.seat.room)
        return 0

    monkeypatch.setattr(RaceApp, "run_async", leave_at_once)
    monkeypatch.setenv("LUCIE_CONFIG_DIR", str(tmp_path))  # no player: anonymous
    assert main(["play", *argv, "--name", "ann", "--private", "--no-embedded",
                 "--server", url]) == 0
    (room,) = rooms

    async def racers() -> list[RacerView]:
        async with LucieClient(url) as client:
            return [r for r in (await client.get_room(room)).racers if r.name != "ann"]
    return asyncio.run(racers())


def test_play_bots_of_one_level(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                quick_bots_server: str) -> None:
    racers = _play_and_leave(monkeypatch, tmp_path, quick_bots_server,
                             "--bots", "3", "--level", "club")
    assert [(r.name, r.bot, r.bot_level) for r in racers] == [
        ("bot-Ada", True, "club"), ("bot-Bix", True, "club"), ("bot-Cog", True, "club")]
    assert all(r.bot_rating == RATINGS["club"] for r in racers)


def test_play_bots_3_is_one_of_each_level(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          quick_bots_server: str) -> None:
    """``make run`` (``lucie play --bots 3``): a novice, a club player, an expert."""
    racers = _play_and_leave(monkeypatch, tmp_path, quick_bots_server, "--bots", "3")
    assert [r.bot_level for r in racers] == ["novice", "club", "expert"]


def test_results_show_the_levels_and_stuck_bots(
        quick_bots_server: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Three bots of the three levels race alone to the end (their host starts
    them); ``lucie results`` names each one's level and rating, and a bot with
    no move left is ``stuck``, never ``resigned``."""
    monkeypatch.setenv("COLUMNS", "160")

    async def race() -> str:
        async with LucieClient(quick_bots_server) as client:
            created = await client.create_room(
                deal=123, countdown_s=0, visibility="private", redeals=0,
                bots=["novice", "club", "expert"])
            code = created.room.code
            await client.start(code, created.host_token)
            async with asyncio.timeout(60):
                while (await client.get_room(code)).state != "over":
                    await asyncio.sleep(0.2)
            return code

    code = asyncio.run(race())
    assert main(["results", code, "--server", quick_bots_server]) == 0
    out = capsys.readouterr().out
    for name, level in (("bot-Ada", "novice"), ("bot-Bix", "club"), ("bot-Cog", "expert")):
        assert f"{name} · {level} ≈ {RATINGS[level]:.1f}" in out, out
    assert "stuck" in out and "resigned" not in out, out
