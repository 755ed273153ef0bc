"""The player key file and the player commands without a race server: where the
key lives and with which mode, the tables and the chart, and every error code
the players routes answer said in words (a stub server answers them)."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import stat
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import platformdirs
import pytest
from rich.cells import cell_len
from rich.console import Console

from client_cli import common, history_cmd, player_cmd, player_key
from client_cli.api import ApiError
from client_cli.cli import main
from client_cli.history_cmd import compare_command, race_rows, shared_rows, short_variant
from client_cli.leaderboard_cmd import rating_rows
from client_cli.player_cmd import profile_rows, rating_chart
from client_cli.player_common import anonymous_tip
from client_cli.player_key import config_dir, key_path, load_key, save_key, server_id

PLAYER = {"id": "pAbc123", "name": "Ada", "created_at_ms": 1_700_000_000_000}


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("LUCIE_CONFIG_DIR", str(folder))
    return folder


def test_the_folder_is_platformdirs_user_config_dir(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """The folder platformdirs gives (XDG_CONFIG_HOME honoured)."""
    monkeypatch.delenv("LUCIE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for xdg in (str(tmp_path / "xdg"), "", "relative/ignored"):
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
        assert config_dir() == Path(platformdirs.user_config_dir("belle-lucie-race")), xdg
    assert config_dir() == tmp_path / "home" / ".config" / "belle-lucie-race"
    monkeypatch.setenv("LUCIE_CONFIG_DIR", str(tmp_path / "mine"))
    assert config_dir() == tmp_path / "mine"


def test_one_key_file_per_server(config: Path) -> None:
    assert server_id("localhost:8000") == server_id("http://127.0.0.1:8000/") \
        == "http://127.0.0.1:8000"
    assert server_id("https://Race.Example") == "https://race.example:443"
    assert key_path("localhost:8000") == key_path("http://127.0.0.1:8000")
    paths = {key_path(u) for u in ("127.0.0.1:8000", "127.0.0.1:8001", "https://race.example",
                                   "http://race.example")}
    assert len(paths) == 4 and all(p.parent == config / "players" for p in paths)


def test_the_key_file_is_born_0600_whatever_the_umask(
        config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    born: list[int] = []
    real_open = os.open

    def spy(path: Any, flags: int, mode: int = 0o777, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, mode, *args, **kwargs)
        if str(path).endswith(".json"):  # the moment it exists, before any write or chmod
            born.append(stat.S_IMODE(os.fstat(fd).st_mode))
            assert flags & os.O_EXCL and flags & os.O_CREAT
        return fd

    monkeypatch.setattr(os, "open", spy)
    old = os.umask(0)  # the laxest umask: nothing taken away
    try:
        path = save_key("127.0.0.1:8000", PLAYER, "lpk_secret")
    finally:
        os.umask(old)
    assert born == [0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((config / "players").stat().st_mode) == 0o700
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    doc = json.loads(path.read_text())
    assert doc == {"server": "http://127.0.0.1:8000", "player": PLAYER, "key": "lpk_secret"}
    with pytest.raises(FileExistsError):  # never over a stored key
        save_key("localhost:8000", {**PLAYER, "name": "Bob"}, "lpk_other")
    stored = load_key("http://localhost:8000")
    assert stored is not None and (stored.name, stored.key) == ("Ada", "lpk_secret")


def test_a_key_file_others_can_read_is_made_private(
        config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = save_key("127.0.0.1:8000", PLAYER, "lpk_secret")
    path.chmod(0o644)
    assert load_key("127.0.0.1:8000") is not None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "could be read by others (mode 0644)" in capsys.readouterr().err


def test_a_broken_key_file_is_said_not_raised(config: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://127.0.0.1:9"
    path = key_path(url)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    path.chmod(0o600)
    with pytest.raises(ApiError) as exc:
        load_key(url)
    assert exc.value.code == "client/key_file"
    for argv in (["me"], ["history"], ["join", "ABCD"], ["forget-me", "--yes"]):
        assert main([*argv, "--server", url]) == 1, argv
        err = capsys.readouterr().err
        if argv[0] != "join":  # join: nothing answers there, said first
            assert f"cannot use your player key file {path}" in err, argv
        assert "Traceback" not in err


def test_tables_and_chart() -> None:
    rating = {"mu": 27.63, "sigma": 8.07, "rating": 3.42, "rated_races": 1,
              "provisional": True}
    variant = {"variant": "belle-lucie", "rating": rating, "races": 4, "wins": 2,
               "average_foundation_cards": 13.25, "best_time_ms": 61_234, "streak": 1,
               "best_streak": 2, "last_race_at_ms": None}
    rows = {r[0]: r[1:] for r in profile_rows({"variants": [variant]})}
    assert rows["rating"] == ("3.4*",) and rows["mu ± sigma"] == ("27.6 ± 8.1",)
    assert rows["average cards"] == ("13.2",) and rows["best time (won)"] == ("1:01.2",)
    assert rows["win streak (best)"] == ("1 (2)",) and rows["last race"] == ("-",)
    board = {"entries": [{"rank": 1, "player": {"id": "p1", "name": "Ada"},
                          "rating": {**rating, "provisional": False, "rating": 12.04},
                          "races": 12, "wins": 7}]}
    assert rating_rows(board) == [("1", "Ada", "12.0", "27.6 ± 8.1", "1", "12", "7")]
    race = {"ended_at_ms": 1_700_000_000_000, "room_code": "ABCDEF", "variant": "trefoil",
            "deal_number": 7, "rank": 2, "racers": 3, "foundation_cards": 30,
            "reach_time_ms": 95_000, "status": "resigned", "points": 1, "ranked": False}
    assert race_rows([race])[0][1:] == ("ABCDEF", "trefoil", "7", "2/3", "30", "1:35",
                                        "resigned", "unranked")
    shared = {"ended_at_ms": 1_700_000_000_000, "room_code": "ABCDEF", "variant": "trefoil",
              "deal_number": 7, "result": "loss", "rank_a": 2, "rank_b": 1,
              "foundation_cards_a": 30, "foundation_cards_b": 41}
    assert shared_rows([shared], 3)[0][0] == "3"
    assert shared_rows([shared])[0][5:] == ("loss", "2 vs 1", "30 vs 41")

    points = [{"rating": r} for r in (1.5, 3.0, 2.2)]
    chart = rating_chart([("belle-lucie", points), ("trefoil", points[:1])], width=70,
                         height=14)
    assert "belle-lucie" in chart and "trefoil" in chart and "rated races" in chart
    assert "\x1b[" not in chart and len(chart.splitlines()) == 14
    ticks = chart.splitlines()[-2].split()
    assert ticks == ["0", "1", "2", "3"], ticks


def test_the_compare_command_keeps_ids_that_look_like_options_positional() -> None:
    line = compare_command("/api/v1/rooms/-race1/compare/ra/-rb", "http://h:1")
    assert line.split()[1:] == ["compare", "--server", "http://h:1", "--", "-race1", "ra", "-rb"]
    assert compare_command("/api/v1/rooms/R/compare/a/b").split()[1:] == ["compare", "R", "a",
                                                                          "b"]


class _Stub(BaseHTTPRequestHandler):
    status = 404
    body: Any = None

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        data = json.dumps(self.body).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[tuple[str, type[_Stub]]]:
    handler = type("Handler", (_Stub,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def _error(code: str, message: str = "m", **details: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or None}}


COMMANDS = [["me"], ["me", "--create", "Zed"], ["history", "Ada"], ["history"],
            ["h2h", "Ada", "Bob"], ["h2h", "Bob"], ["leaderboard", "--rating"],
            ["forget-me", "--yes"]]


@pytest.mark.parametrize(("status", "body", "words"), [
    (404, _error("request/not_found", "no such route"), "has no players API (an older race "
                                                        "server)"),
    (503, _error("archive/unavailable"), "does not answer right now"),
    (429, _error("rate/limited"), "too many requests to"),
    (500, _error("server/error", "boom"), "failed (a server bug; its log says more): boom"),
    (500, "<html>oops</html>", "unexpected answer (HTTP 500)"),
])
def test_every_players_command_says_the_error_in_words(
        stub: tuple[str, type[_Stub]], config: Path, status: int, body: Any, words: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    url, handler = stub
    handler.status, handler.body = status, body
    for argv in COMMANDS:
        with_key = argv not in (["me", "--create", "Zed"],)
        if with_key and not key_path(url).exists():
            save_key(url, PLAYER, "lpk_secret")
        if not with_key:
            player_key.remove_key(url)
        assert main([*argv, "--server", url]) == 1, argv
        out, err = capsys.readouterr()
        assert f"lucie {argv[0]}: " in err and words in err, (argv, err)
        assert "Traceback" not in out + err


@pytest.mark.parametrize(("body", "words"), [
    (_error("player/name_taken", name="Zed"), "the player name 'Zed' is taken on"),
    (_error("request/invalid", "a player name has 2 to 24 characters", field="name"),
     "not a valid player name: a player name has 2 to 24 characters"),
])
def test_a_refused_name_in_words_and_no_key_stored(
        stub: tuple[str, type[_Stub]], config: Path, body: Any, words: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    url, handler = stub
    handler.status, handler.body = 409, body
    assert main(["me", "--create", "Zed", "--server", url]) == 1
    assert words in capsys.readouterr().err
    assert not key_path(url).exists()


def test_a_player_not_found_in_words(stub: tuple[str, type[_Stub]], config: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    url, handler = stub
    handler.status, handler.body = 404, _error("player/not_found", player="Bob")
    assert main(["history", "Bob", "--server", url]) == 1
    assert "no player 'Bob' on" in capsys.readouterr().err
    save_key(url, PLAYER, "lpk_secret")
    handler.body = _error("player/not_found", player=PLAYER["id"])
    assert main(["me", "--server", url]) == 1
    assert "no longer knows your player Ada" in capsys.readouterr().err


def test_a_key_that_is_not_the_players_in_words(stub: tuple[str, type[_Stub]], config: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    url, handler = stub
    handler.status, handler.body = 403, _error("player/invalid_key")
    save_key(url, PLAYER, "lpk_secret")
    assert main(["join", "ABCD", "--server", url]) == 1
    err = capsys.readouterr().err
    assert "lucie join: " in err and "does not accept your player key" in err
    assert main(["forget-me", "--yes", "--server", url]) == 1
    err = capsys.readouterr().err
    assert "is not the key of player Ada" in err and "nothing was deleted" in err
    assert key_path(url).exists()


class _Pages(_Stub):
    """Three pages of a player's races (two races each but the last); notes the queries."""

    queries: list[dict[str, list[str]]]

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        self.queries.append(query)
        page = int((query.get("cursor") or ["0"])[0])
        races = [{"ended_at_ms": 1_700_000_000_000 - 1000 * n, "room_code": f"ROOM{n:02d}",
                  "name": "Ada Lovelace", "variant": "belle-lucie", "deal_number": n,
                  "rank": 1, "racers": 2,
                  "foundation_cards": n, "reach_time_ms": None, "status": "resigned",
                  "points": 1, "ranked": True}
                 for n in range(2 * page, min(2 * page + 2, 5))]
        self.status = 200
        self.body = {"races": races, "next": str(page + 1) if page < 2 else None}
        self._answer()


@pytest.fixture
def pages() -> Iterator[tuple[str, type[_Pages]]]:
    handler = type("Pages", (_Pages,), {"queries": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def test_history_pages_by_cursor(pages: tuple[str, type[_Pages]], config: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    url, handler = pages
    assert main(["history", "Ada Lovelace", "--limit", "2", "--server", url]) == 0
    out = capsys.readouterr().out
    assert "ROOM00" in out and "ROOM01" in out and "ROOM02" not in out
    assert "Older races: " in out and "history 'Ada Lovelace' --all" in out
    assert [q.get("cursor") for q in handler.queries] == [None]
    assert handler.queries[0]["limit"] == ["2"]

    handler.queries.clear()
    assert main(["history", "Ada", "--all", "--server", url]) == 0
    out = capsys.readouterr().out
    assert all(f"ROOM0{n}" in out for n in range(5)) and "Older races" not in out  # one table
    assert [q.get("cursor") for q in handler.queries] == [None, ["1"], ["2"]]

    handler.queries.clear()  # on a terminal: Enter for the next page, q to stop
    monkeypatch.setattr(history_cmd, "_interactive", lambda: True)
    answers = iter(["", "q"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(answers))
    assert main(["history", "Ada", "--limit", "2", "--server", url]) == 0
    out = capsys.readouterr().out
    assert "ROOM03" in out and "ROOM04" not in out and "Older races:" not in out
    assert len(handler.queries) == 2


def test_a_tip_after_an_anonymous_race_on_a_terminal(
        config: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://127.0.0.1:9"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    anonymous_tip(argparse.Namespace(anonymous=False), url)
    assert "me --create NAME" in capsys.readouterr().out
    anonymous_tip(argparse.Namespace(anonymous=True), url)  # asked for it: no tip
    save_key(url, PLAYER, "lpk_secret")
    anonymous_tip(argparse.Namespace(anonymous=False), url)  # raced as the player
    assert capsys.readouterr().out == ""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    player_key.remove_key(url)
    anonymous_tip(argparse.Namespace(anonymous=False), url)  # not a terminal
    assert capsys.readouterr().out == ""


class _Routes(_Stub):
    """Answers by path (query left out): ``routes`` maps a path to (status, body);
    the players routes of one player, Ada, with two variants rated."""

    routes: dict[str, tuple[int, Any]]

    def do_GET(self) -> None:
        self.status, self.body = self.routes.get(
            urlsplit(self.path).path, (404, _error("request/not_found")))
        self._answer()

    do_POST = do_GET


def _figures(variant: str) -> dict[str, Any]:
    return {"variant": variant, "rating": {"mu": 27.6, "sigma": 8.1, "rating": 3.4,
                                           "rated_races": 3, "provisional": True},
            "races": 3, "wins": 2, "average_foundation_cards": 20.0, "best_time_ms": None,
            "streak": 1, "best_streak": 2, "last_race_at_ms": None}


def _race(variant: str, deal: int, ranked: bool = True) -> dict[str, Any]:
    return {"ended_at_ms": 1_700_000_000_000, "room_code": "ABCDEF", "name": "Ada",
            "variant": variant, "deal_number": deal, "rank": 2, "racers": 4,
            "foundation_cards": 30, "reach_time_ms": 95_000, "status": "timed_out",
            "points": 1, "ranked": ranked}


def _shared(variant: str, deal: int) -> dict[str, Any]:
    return {"race": "R1", "room_code": "ABCDEF", "variant": variant, "deal_number": deal,
            "ended_at_ms": 1_700_000_000_000, "racer_a": "ra", "racer_b": "rb", "rank_a": 12,
            "rank_b": 11, "foundation_cards_a": 30, "foundation_cards_b": 41,
            "result": "loss", "comparison": "/api/v1/rooms/R1/compare/ra/rb"}


@pytest.fixture
def routes() -> Iterator[tuple[str, type[_Routes]]]:
    points = {"points": [{"rating": r} for r in (1.5, 3.0, 2.2, 4.1)]}
    handler = type("Routes", (_Routes,), {"routes": {
        "/api/v1/rooms": (200, {"rooms": []}),
        f"/api/v1/players/{PLAYER['id']}": (200, {
            "player": PLAYER, "races": 6,
            "variants": [_figures("belle-lucie"), _figures("three-shuffles-and-a-draw")]}),
        f"/api/v1/players/{PLAYER['id']}/ratings/belle-lucie": (200, points),
        f"/api/v1/players/{PLAYER['id']}/ratings/three-shuffles-and-a-draw": (200, points),
        "/api/v1/players/ada/races": (200, {"races": [
            _race("belle-lucie", 982656912), _race("three-shuffles-and-a-draw", 1_000_000_000,
                                                   ranked=False),
            _race("super-flower-garden", 123456789)], "next": None}),
        "/api/v1/players": (201, {"player": PLAYER, "key": "lpk_secret"}),
        f"/api/v1/players/{PLAYER['id']}/vs/bob": (200, {
            "a": PLAYER, "b": {**PLAYER, "id": "pBob", "name": "Bob"}, "races": 2, "wins": 1,
            "losses": 1, "ties": 0, "average_card_difference": 0.5, "next": None,
            "shared": [_shared("three-shuffles-and-a-draw", 1_000_000_000),
                       _shared("super-flower-garden", 982656912)]}),
    }})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def _terminal(monkeypatch: pytest.MonkeyPatch, columns: int) -> io.StringIO:
    """The commands print to a terminal of ``columns`` columns (``COLUMNS``, as a
    shell sets it; plotext reads it too); what they print."""
    monkeypatch.setenv("COLUMNS", str(columns))
    screen = io.StringIO()
    term = Console(file=screen, force_terminal=True, highlight=False)
    assert term.width == columns
    for module in (common, player_cmd, history_cmd):
        monkeypatch.setattr(module, "console", term)
    return screen


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@pytest.mark.parametrize("columns", [80, 100, 120, 160])
def test_the_rating_chart_fits_the_terminal(routes: tuple[str, type[_Routes]], config: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            columns: int) -> None:
    """Each row of the chart on one line of the terminal, its legend row too (the
    user's trial: at 120 columns or less the legend's end had a line of its own)."""
    url, _ = routes
    save_key(url, PLAYER, "lpk_secret")
    screen = _terminal(monkeypatch, columns)
    assert main(["me", "--server", url]) == 0
    lines = _ANSI.sub("", screen.getvalue()).splitlines()
    top = next(i for i, x in enumerate(lines) if "rating (mu − 3 sigma) after each" in x)
    bottom = next(i for i, x in enumerate(lines) if "rated races" in x and i > top)
    chart = lines[top:bottom + 1]
    assert len(chart) == 14, "\n".join(chart)  # the chart's height: no row broken in two
    assert all(cell_len(x.rstrip()) <= columns - 2 for x in chart), "\n".join(chart)
    legend = next(x for x in chart if "belle-lucie" in x)
    assert "┤" in legend and legend.rstrip().endswith("│"), legend  # the whole row


def test_history_fits_80_columns_and_names_the_player_as_stored(
        routes: tuple[str, type[_Routes]], config: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At 80 columns nothing is cut (the trial: "belle-lu…", "9826569…"): the
    reach time goes, long variant names lose their filler words, unranked is
    "-"; wider, every column as it is. The title names the player as stored
    ("Ada" for ``lucie history ada``)."""
    url, _ = routes
    screen = _terminal(monkeypatch, 80)
    assert main(["history", "ada", "--server", url]) == 0
    out = _ANSI.sub("", screen.getvalue())
    assert "Races of Ada on" in out and "Races of ada" not in out
    assert "…" not in out and all(cell_len(x) <= 80 for x in out.splitlines()), out
    for whole in ("belle-lucie", "982656912", "1000000000", "three-shuffles-draw",
                  "super-flower-garden", "timed out", "points -: an unranked race"):
        assert whole in out, (whole, out)
    assert "reached" not in out

    screen = _terminal(monkeypatch, 120)
    assert main(["history", "ada", "--server", url]) == 0
    out = _ANSI.sub("", screen.getvalue())
    assert "…" not in out and "three-shuffles-and-a-draw" in out and "reached" in out
    assert "unranked" in out and "1:35" in out


def test_h2h_fits_80_columns(routes: tuple[str, type[_Routes]], config: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = routes
    save_key(url, PLAYER, "lpk_secret")
    screen = _terminal(monkeypatch, 80)
    assert main(["h2h", "bob", "--server", url]) == 0
    out = _ANSI.sub("", screen.getvalue())
    table = [x for x in out.splitlines() if " compare " not in x]  # commands: one line each
    assert "…" not in out and all(cell_len(x) <= 80 for x in table), out
    for whole in ("three-shuffles-draw", "super-flower-garden", "1000000000", "12 vs 11",
                  "30 vs 41"):
        assert whole in out, (whole, out)


def test_short_variant_names() -> None:
    assert short_variant("belle-lucie") == "belle-lucie"
    assert short_variant("three-shuffles-and-a-draw") == "three-shuffles-draw"
    assert short_variant("house-in-the-wood") == "house-in-the-wood"  # short enough
    assert short_variant("x" * 30) == "x" * 18 + "…"


def test_create_off_a_terminal_keeps_the_key_path_on_its_line(
        routes: tuple[str, type[_Routes]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Piped, ``lucie me --create`` printed "Your key is in" and the path on the
    next line (rich wrapped at 80 columns): never wrapped off a terminal."""
    url, _ = routes
    monkeypatch.setenv("LUCIE_CONFIG_DIR", str(tmp_path / ("a-long-folder-name-" * 3)))
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["me", "--create", "Ada", "--server", url]) == 0
    out = capsys.readouterr().out
    path = key_path(url)
    assert len(f"Your key is in {path}") > 80
    assert f"Your key is in {path} (readable by you only)" in out.splitlines()[1]


def test_computer_and_anonymous_racers_are_said_not_to_be_players(
        stub: tuple[str, type[_Stub]], config: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    url, handler = stub
    handler.status, handler.body = 404, _error("player/not_found", player="bot-Ada")
    save_key(url, PLAYER, "lpk_secret")
    for argv in (["h2h", "bot-Ada"], ["history", "bot-Ada"]):
        assert main([*argv, "--server", url]) == 1
        err = " ".join(capsys.readouterr().err.split())
        assert "no player 'bot-Ada' on" in err, err
        assert "computer racers (bot-Ada, …) and racers who race without a player " \
               "(anonymously) are not players" in err, err


def test_no_rated_race_yet_says_computer_racers_do_not_count(
        routes: tuple[str, type[_Routes]], config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trial: after a race against a computer racer, ``lucie me`` said "a rating
    moves after each ranked race with two or more players", and the user counted
    the bot (docs/players.md: bots are not rated and do not count)."""
    url, handler = routes
    unrated = {**_figures("belle-lucie"), "rating": {"mu": 25.0, "sigma": 8.3, "rating": 0.0,
                                                      "rated_races": 0, "provisional": True}}
    monkeypatch.setattr(handler, "routes", {**handler.routes, f"/api/v1/players/{PLAYER['id']}": (
        200, {"player": PLAYER, "races": 1, "variants": [unrated]})})
    save_key(url, PLAYER, "lpk_secret")
    screen = _terminal(monkeypatch, 120)
    assert main(["me", "--server", url]) == 0
    text = " ".join(_ANSI.sub("", screen.getvalue()).split())
    assert "No rated race yet" in text
    assert "computer racers (bot-…) and anonymous racers do not count" in text
