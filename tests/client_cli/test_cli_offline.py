"""The ``lucie`` command line without a server: help with examples, clear errors."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from client_cli.api import DEFAULT_SERVER, RacerView, StandingsView, StandingView
from client_cli.cli import build_parser, main
from client_cli.common import lucie_command, lucie_command_for
from client_cli.play_report import exit_report, resigning_with_the_server
from server.rules import DEFAULT_VARIANT, VARIANTS
from tests.conftest import REPO

SUBCOMMANDS = ["play", "join", "watch", "rooms", "results", "replay", "bot", "deal", "solve",
               "compare", "leaderboard", "daily", "ghost", "me", "history", "h2h", "forget-me",
               "verify", "moderate"]


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_has_help_with_examples(name: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([name, "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and f"lucie {name}" in out
    assert "``" not in out  # no reST markup
    assert "lblsolve.cards" not in out  # a module nobody has installed
    description = out.split("\n\n")[1]
    assert not description.lstrip().startswith(("options:", "positional")), name


@pytest.mark.parametrize(("argv", "complaint"), [
    (["solve", "5", "--seconds", "-1"], "--seconds: must be a positive number"),
    (["solve", "5", "--seconds", "nan"], "--seconds: must be a positive number"),
    (["solve", "0"], "must be at least 1"),
    (["deal", "x"], "'x' is not a whole number"),
    (["play", "--bots", "-2"], "--bots: must be 0 or more"),
    (["play", "--time-limit", "0"], "--time-limit: must be at least 1"),
    (["play", "--bot-think", "-1"], "--bot-think: must be 0 or more"),
    (["bot", "ABCD", "--count", "0"], "--count: must be at least 1"),
    (["ghost", "--countdown", "-1"], "--countdown: must be 0 or more"),
    (["leaderboard", "--limit", "500"], "--limit: must be from 1 to 100"),
    (["history", "--limit", "0"], "--limit: must be from 1 to 100"),
    (["h2h", "Bob", "--limit", "x"], "'x' is not a whole number"),
])
def test_numbers_are_checked_with_clear_messages(argv: list[str], complaint: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(argv)
    assert exc.value.code == 2
    assert complaint in capsys.readouterr().err


def test_unreachable_server_gives_a_message_not_a_traceback(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.run([sys.executable, "-m", "client_cli.cli", "rooms", "--server", url],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "no race server answers" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    for argv in (["results", "ABCD"], ["join", "ABCD"], ["play", "--no-embedded"]):
        assert main([*argv, "--server", url]) == 1
        err = capsys.readouterr().err
        assert f"lucie {argv[0]}: no race server answers at {url}" in err


def test_too_many_bots_is_refused_before_any_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--bots", "8", "--server", "http://127.0.0.1:9"]) == 2
    assert "raise --capacity" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["deal", "1", "--format", "lblsolve"], ["deal", "--help"],
                                  ["rooms", "--server", "http://127.0.0.1:9"]])
def test_a_closed_pipe_ends_quietly(argv: list[str]) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line (as `| head` soon is)
    try:
        proc = subprocess.run([sys.executable, "-m", "client_cli.cli", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=30)
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1, 141)
    if argv[0] == "deal" and argv[1] == "1":
        assert proc.returncode == 141


def test_the_printed_lucie_command_works_when_lucie_is_not_on_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / ".venv" / "bin" / "lucie"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "play"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert lucie_command() == os.path.join(".venv", "bin", "lucie")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert lucie_command() == str(script)
    monkeypatch.setenv("PATH", str(script.parent))
    assert lucie_command() == "lucie"


def test_bot_says_joined_only_after_the_join(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    assert main(["bot", "ABCD", "--server", url]) == 1
    out, err = capsys.readouterr()
    assert "join" not in out
    assert f"lucie bot: no race server answers at {url}" in err


def _standing(rank: int, name: str, cards: int, points: int = 0) -> StandingView:
    return StandingView(rank=rank, racer=f"r-{name}", name=name, foundation_cards=cards,
                        status="finished", final=True, points=points)


def test_exit_report_prints_the_race_over_standings_without_the_server(
        capsys: pytest.CaptureFixture[str]) -> None:
    received = [_standing(1, "ann", 52, 10), _standing(2, "bob", 30, 5)]
    exit_report("ABCD", received, None, True, [])  # even when a fetch would fail
    out = capsys.readouterr().out
    assert "Room ABCD · final results" in out and "ann" in out and "bob" in out
    assert "gone" not in out


def test_exit_report_uses_the_fetched_standings(capsys: pytest.CaptureFixture[str]) -> None:
    fetched = StandingsView(final=True, standings=[_standing(1, "ann", 52, 10)])
    exit_report("ABCD", None, fetched, False, [])
    assert "Room ABCD · final results" in capsys.readouterr().out


def test_a_hosts_bots_resigning_with_its_server_say_so_in_the_table(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Quitting ``make run`` while a bot raced printed the bot as ``playing``
    just above the line saying it resigns as the server stops."""
    bot = StandingView(rank=2, racer="r-bot", name="bot-Ada", foundation_cards=9)
    fetched = StandingsView(final=False, standings=[_standing(1, "ann", 52, 10), bot])
    shown, racing = resigning_with_the_server(fetched)
    assert racing == ["bot-Ada"]
    assert [r.status for r in shown.standings] == ["finished", "resigns"]
    exit_report("ABCD", None, shown, False, [])
    out = capsys.readouterr().out
    assert "standings so far" in out and "resigns" in out and "playing" not in out
    assert resigning_with_the_server(StandingsView(final=True, standings=[
        _standing(1, "ann", 52)])) == (StandingsView(final=True, standings=[
            _standing(1, "ann", 52)]), [])


def test_exit_report_says_the_server_is_gone(capsys: pytest.CaptureFixture[str]) -> None:
    racers = [RacerView(id="r1", name="ann", status="finished", foundation_cards=52),
              RacerView(id="r2", name="bob", status="resigned", foundation_cards=20)]
    exit_report("ABCD", None, None, True, racers)
    out = capsys.readouterr().out
    assert "Room ABCD: the server is gone; last known standings:" in out
    assert out.index("ann") < out.index("bob")
    exit_report("ABCD", None, None, True, [])
    assert "Room ABCD: results unavailable: the server is gone." in capsys.readouterr().out


def test_play_without_the_server_packages_says_which_extra_to_install() -> None:
    """A client-only install (``pip install '.[client]'``) cannot start the
    embedded server: ``lucie play`` says so, and names the extra."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # uvicorn and redis absent, as in a client-only install: importing them fails
    code = ("import sys; sys.modules['uvicorn'] = sys.modules['redis'] = None; "
            "from client_cli.cli import main; "
            f"sys.exit(main(['play', '--bots', '0', '--server', 'http://127.0.0.1:{port}']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1, proc.stderr
    assert "missing: uvicorn, redis" in proc.stderr
    assert "install belle-lucie-race[server]" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    with socket.socket() as s:  # and nothing was started on the port
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_no_server_says_how_to_start_one_from_here(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The trial: "start one with `lucie-server`", which is not on PATH in a
    checkout. The hint names what works here: `make server` (the repository's
    Makefile) and the script by its path."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("PATH", "/nonexistent")  # a shell without the virtualenv's bin
    script = Path(sys.executable).with_name("lucie-server")
    for argv in (["rooms"], ["results", "ABCD"], ["join", "ABCD"], ["play", "--no-embedded"]):
        assert main([*argv, "--server", url]) == 1
        err = capsys.readouterr().err
        assert "start a race server in another terminal with `make server`" in err, err
        assert "`lucie-server`" not in err, err
        if script.is_file():
            assert re.search(r"`[^`\s]*/lucie-server`", err), err


def test_the_quick_start_says_which_games_have_the_merci() -> None:
    """The trial: the README's quick start lists ``m 5H f`` (merci), which the
    default game refuses ("this game has no merci")."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    if "m 5H f" not in quick:
        return
    assert not VARIANTS[DEFAULT_VARIANT].merci
    with_merci = [name for name, rules in VARIANTS.items() if rules.merci]
    assert with_merci and "--merci" in quick
    assert all(f"`{name}`" in quick for name in with_merci), with_merci


def test_the_join_hint_names_the_server_unless_it_is_the_default() -> None:
    lucie = shlex.join([lucie_command()])
    assert lucie_command_for("http://127.0.0.1:8124/", "join", "5KKHPQ") == (
        f"{lucie} join 5KKHPQ --server http://127.0.0.1:8124")
    assert lucie_command_for(DEFAULT_SERVER, "join", "5KKHPQ") == f"{lucie} join 5KKHPQ"
