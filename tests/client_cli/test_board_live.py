"""The full-screen board (Textual Pilot) against a real ``lucie-server`` process.

Deal 2 opens with two foundation moves (8f, 15f) and several builds, so
every kind of input has something legal to do from the first position.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import DataTable, Input

from client_cli.api import JoinedRoom, LucieClient
from client_cli.board import app as app_module
from client_cli.board.app import RaceApp
from client_cli.board.controls import help_line, move_examples
from client_cli.board.render import GO_HOLD_S
from client_cli.board.screens import ConfirmScreen, ResultsScreen
from client_cli.board.state import Seat
from client_cli.board.widgets import FanView, OpponentsPanel
from client_cli.views import RulesView
from server.rules import parse_move

from .conftest import Proxy
from .helpers import keys, non_legal_build, play_moves, until

DEAL = 2
SIZE = (110, 40)


def text_of(app: RaceApp, selector: str) -> str:
    widget = app.query_one(selector)
    if isinstance(widget, OpponentsPanel):
        return widget.plain_text()
    return str(widget.render())


async def _room(url: str, *names: str, countdown_s: int = 1) -> tuple[str, str, list[JoinedRoom]]:
    async with LucieClient(url) as client:
        created = await client.create_room(deal=DEAL, countdown_s=countdown_s,
                                           visibility="private")
        joined = [await client.join(created.room.id, n) for n in names]
        return created.room.id, created.host_token, joined



async def _started(app: RaceApp, client: LucieClient, room: str, host: str) -> None:
    """Wait for the board's welcome, start the race as the host, wait for the game."""
    await until(lambda: app.room is not None, what="welcome")
    await client.start(room, host)
    await until(lambda: app.game is not None, what="start")

async def test_join_countdown_keys_mouse_refusal_and_opponents(lucie_server: str) -> None:
    room, host, (ann, bob) = await _room(lucie_server, "ann", "bob")
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token, host))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await until(lambda: app.room is not None, what="welcome")
        # the room is set, then the board drawn: wait for the drawing
        await until(lambda: app.room is not None and app.room.code in text_of(app, "#banner"),
                    what="the banner")
        assert "bob" in text_of(app, "#opponents")
        await pilot.press("s", "enter")  # the host starts
        await until(lambda: "Starting" in text_of(app, "#banner"), what="countdown")
        await until(lambda: app.game is not None, timeout=10, what="the game after the start")
        assert app.game is not None and app.game.version == 0

        # a move typed on the keyboard, in the "3 7" form
        build = next(m for m in play_moves(app.game) if "-" in m)
        await pilot.press(*keys(build.replace("-", " ")), "enter")
        await until(lambda: app.game is not None and app.game.version == 1, what="typed move")
        assert "✓" in text_of(app, "#message")

        # a move by mouse: click the top card, destinations light up, click one
        game = app.game
        assert game is not None
        build = next(m for m in play_moves(game) if "-" in m)
        src, dst = (int(x) for x in build.split("-"))
        top = len(game.position.fans[src - 1]) - 1
        await pilot.pause(0.1)  # let the updated fans be laid out before clicking
        await pilot.click(f"#card-{src}-{top}")
        await pilot.pause()
        assert app.query_one(f"#fan-{dst}", FanView).has_class("target")
        assert app.query_one(f"#fan-{src}", FanView).has_class("selected")
        await pilot.click(f"#fan-{dst}")
        await until(lambda: app.game is not None and app.game.version == 2, what="mouse move")
        assert not any(v.has_class("target") for v in app.query(FanView))

        # double-click sends a top card to its foundation
        game = app.game
        assert game is not None
        up = next(m for m in play_moves(game) if m.endswith("f"))
        fan = int(up[:-1])
        await pilot.pause(0.1)
        await pilot.click(f"#card-{fan}-{len(game.position.fans[fan - 1]) - 1}", times=2)
        await until(lambda: app.game is not None and app.game.version == 3, what="double-click")
        assert app.game is not None and app.game.position.foundation_cards == 1

        # the server's refusal, shown in place; nothing applied
        bad = non_legal_build(app.game)
        await pilot.press(*keys(bad), "enter")
        await until(lambda: "refused" in text_of(app, "#message"), what="refusal")
        assert bad in text_of(app, "#message") and app.game.version == 3

        # an opponent's progress moves the panel
        bob_game = await client.game(room, bob.racer.id, bob.token)
        up = next(m for m in play_moves(bob_game) if m.endswith("f"))
        await client.move(room, bob.racer.id, bob.token, up, 0)
        await until(lambda: app.racers[bob.racer.id].foundation_cards == 1, what="bob's progress")
        assert app.racers[bob.racer.id].moves == 1
        panel = text_of(app, "#opponents")
        assert "bob" in panel and "█" in panel


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_waiting_line_shows_the_browser_link(lucie_server: str,
                                                       size: tuple[int, int]) -> None:
    """``make run`` prints the room's browser address before the board opens, where the
    full-screen board hides it: the waiting line shows it, whole, on the screen, and
    the join command with ``--server URL`` (not the default server)."""
    room, host, (ann,) = await _room(lucie_server, "ann")
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token, host))
    async with app.run_test(size=size) as pilot:
        await until(lambda: app.room is not None, what="welcome")
        await pilot.pause()
        assert app.room is not None
        link = f"{lucie_server}/r/{app.room.code}"
        banner = app.query_one("#banner")
        assert app.screen.region.contains_region(banner.region)
        shown = "".join(strip.text.strip() for strip in banner.render_lines(banner.size.region))
        assert link in shown.replace(" ", "")
        # the join command names this server (not the default); the command as
        # printed is checked whole in test_cli_live (textual 2.0 folds a long
        # word at the edge of a narrow banner and loses a letter there)
        flat = shown.replace(" ", "")
        assert f"join{app.room.code}--serve" in flat and f"{lucie_server}," in flat


async def test_the_host_sees_the_deal_they_chose_before_the_start(lucie_server: str) -> None:
    """The trial: ``lucie play --deal 5`` showed "deal ?" until the start. The
    server tells the deal before the start to the host only (docs/protocol.md,
    "Fair play"): the host's board shows it, a joiner's still does not."""
    room, host, (ann, bob) = await _room(lucie_server, "ann", "bob")
    for seat, shown in ((Seat(lucie_server, room, ann.racer.id, ann.token, host), f"deal {DEAL}"),
                        (Seat(lucie_server, room, bob.racer.id, bob.token), "deal ?")):
        app = RaceApp(seat)
        async with app.run_test(size=SIZE):
            await until(lambda app=app: app.room is not None, what="welcome")
            await until(lambda app=app, shown=shown: shown in text_of(app, "#status"), what=shown)
    async with LucieClient(lucie_server) as client:
        assert (await client.get_room(room)).deal_number is None  # others: still hidden


async def test_reconnects_after_the_socket_drops(lucie_server: str, proxy: Proxy) -> None:
    room, host, (ann, bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    app = RaceApp(Seat(proxy.url, room, ann.racer.id, ann.token, host))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await _started(app, client, room, host)
        proxy.refuse = True
        proxy.cut()
        await until(lambda: "reconnecting" in app.connection_note, what="reconnecting note")
        assert "reconnecting" in text_of(app, "#status")
        assert app.query(FanView)  # the board stays on screen meanwhile
        bob_game = await client.game(room, bob.racer.id, bob.token)
        await client.move(room, bob.racer.id, bob.token, play_moves(bob_game)[0], 0)
        proxy.refuse = False
        await until(lambda: app.connection_note == "live", timeout=10, what="reconnected")
        await until(lambda: app.racers[bob.racer.id].moves == 1, what="missed event resumed")
        assert app.game is not None
        move = play_moves(app.game)[0]
        await pilot.press(*keys(move), "enter")
        await until(lambda: app.game is not None and app.game.version == 1, what="move after")


async def test_results_table_at_the_end_and_quit_confirm(lucie_server: str) -> None:
    room, host, (ann, bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token, host))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await _started(app, client, room, host)
        await pilot.press("q", "enter")
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("n")
        await until(lambda: not isinstance(app.screen, ConfirmScreen), what="confirm gone")
        assert app.is_running
        up = next(m for m in play_moves(app.game) if m.endswith("f"))  # type: ignore[arg-type]
        await pilot.press(*keys(up), "enter")
        await until(lambda: app.game is not None and app.game.version == 1, what="move")
        await client.resign(room, bob.racer.id, bob.token)
        await client.resign(room, ann.racer.id, ann.token)
        await until(lambda: isinstance(app.screen, ResultsScreen), what="results")
        await until(lambda: app.screen.query(DataTable) and
                    app.screen.query_one(DataTable).row_count == 2, what="results rows")
        table = app.screen.query_one(DataTable)
        first = [str(c) for c in table.get_row_at(0)]
        assert first[:3] == ["1", "ann", "1"]
        await pilot.press("q")
        await until(lambda: not app.is_running, what="exit")
    assert app.return_value == 0


async def test_ctrl_c_asks_to_resign_and_quit_as_ctrl_q_does(lucie_server: str) -> None:
    """The trial: Ctrl-C did nothing on the board (the move line took it as
    "copy"); it asks the quit question, as q and Ctrl-Q do."""
    room, host, (ann, _bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token, host))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await _started(app, client, room, host)
        await pilot.press("ctrl+c")
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        assert app.screen.question == "Resign from the race and quit?"  # type: ignore[attr-defined]
        await pilot.press("y")
        await until(lambda: not app.is_running, what="exit")
        seen = {r.id: r.status for r in (await client.get_room(room)).racers}
        assert seen[ann.racer.id] == "resigned"
    assert app.return_value == 0


async def test_rematch_from_the_results_screen(lucie_server: str) -> None:
    """Issue 21: bob offers a rematch first; ann's results screen says so, r takes
    her seat in his room and the board closes with her next seat."""
    room, host, (ann, bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token, host))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await _started(app, client, room, host)
        await client.resign(room, bob.racer.id, bob.token)
        await client.resign(room, ann.racer.id, ann.token)
        await until(lambda: isinstance(app.screen, ResultsScreen), what="results")
        await until(lambda: "r for a rematch" in hint_of(app), what="the key line")
        made = await client.rematch(room, bob.token)
        await until(lambda: "bob offers a rematch" in hint_of(app), what="bob's offer shown")
        await pilot.press("r")
        await until(lambda: not app.is_running, what="exit after the rematch")
    assert app.return_value == 0 and app.next_seat is not None
    assert app.next_seat.room == made.room.id and app.next_seat.racer == ann.racer.id
    assert app.next_seat.token == ann.token and app.next_seat.host_token is None
    async with LucieClient(lucie_server) as client:
        joined = await client.get_room(made.room.id)
    assert [r.name for r in joined.racers] == ["bob", "ann"]


def hint_of(app: RaceApp) -> str:
    """The results screen's key line ('' until it is composed)."""
    found = app.screen.query("#results-hint")
    return str(found.first().render()) if found else ""


async def _series_board(url: str, break_s: int) -> tuple[RaceApp, str, JoinedRoom, JoinedRoom]:
    async with LucieClient(url) as client:
        created = await client.create_room(deal=DEAL, countdown_s=0, visibility="private",
                                           series=2, series_break_s=break_s)
        room = created.room.id
        ann, bob = [await client.join(room, n) for n in ("ann", "bob")]
        await client.start(room, created.host_token)
    return RaceApp(Seat(url, room, ann.racer.id, ann.token, created.host_token)), room, ann, bob


@pytest.mark.parametrize("key", ["enter", "q", None])
async def test_a_series_goes_on_from_the_results_screen(lucie_server: str,
                                                        key: str | None) -> None:
    """Issue 21: the results of a series' race show the series' table; the next
    race's room comes with the rematch event: Enter goes on, q leaves the series,
    and without a key the board goes on by itself before the next start."""
    app, room, ann, bob = await _series_board(lucie_server, 30 if key else 3)
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await until(lambda: app.game is not None, what="racing")
        await client.resign(room, bob.racer.id, bob.token)
        await client.resign(room, ann.racer.id, ann.token)
        await until(lambda: isinstance(app.screen, ResultsScreen), what="results")
        await until(lambda: "race 2 of 2 starts in" in hint_of(app), what="the next race")
        await until(lambda: app.screen.query("#series-table") and app.screen.query_one(
            "#series-table", DataTable).row_count == 2, what="the series table")
        assert "1 of 2 races" in str(app.screen.query_one("#series-title").render())
        if key is not None:
            await pilot.press(key)
        await until(lambda: not app.is_running, what="exit")
        nxt = (await client.get_room(room)).rematch
        assert nxt is not None
        racers = [r.name for r in (await client.get_room(nxt.room)).racers]
    if key != "q":
        assert app.next_seat is not None and app.next_seat.room == nxt.room
        assert app.next_seat.token == ann.token and app.next_seat == app.series_seat
        assert racers == ["ann", "bob"]
    else:  # q: she leaves the series
        assert app.next_seat is None and racers == ["bob"]


async def test_room_gone_and_watching(lucie_server: str) -> None:
    app = RaceApp(Seat(lucie_server, "NO-SUCH-ROOM"))
    async with app.run_test(size=SIZE):
        await until(lambda: app.fatal is not None, what="room gone")
        assert "room is gone" in text_of(app, "#banner").lower()

    room, host, (ann,) = await _room(lucie_server, "ann", countdown_s=0)
    watcher = RaceApp(Seat(lucie_server, room))
    async with LucieClient(lucie_server) as client, watcher.run_test(size=SIZE) as pilot:
        await until(lambda: watcher.room is not None, what="welcome")
        await client.start(room, host)
        await until(lambda: watcher.room is not None and watcher.room.state == "racing",
                    what="the start")
        game = await client.game(room, ann.racer.id, ann.token)
        await client.move(room, ann.racer.id, ann.token, play_moves(game)[0], game.version)
        await until(lambda: watcher.racers[ann.racer.id].moves == 1, what="progress seen")
        assert "watching ann" in text_of(watcher, "#status")
        await pilot.press(*keys("w nobody"), "enter")
        await until(lambda: "no racer 'nobody'" in text_of(watcher, "#message"), what="w NAME")
        await pilot.press(*keys("8f"), "enter")
        await until(lambda: "spectators cannot move" in text_of(watcher, "#message")
                    or "not started" in text_of(watcher, "#message"), what="spectator refusal")


async def test_a_spectators_error_stays_readable_and_a_move_is_answered(
        lucie_server: str) -> None:
    """The trial: while watching, ``w nobody``'s error was replaced within a second
    by the "N s behind the race" note (it changes every second in the first
    minute), and a typed move seemed to get no answer at all."""
    room, host, (_ann,) = await _room(lucie_server, "ann", countdown_s=0)
    watcher = RaceApp(Seat(lucie_server, room))
    async with LucieClient(lucie_server) as client, watcher.run_test(size=SIZE) as pilot:
        await until(lambda: watcher.room is not None, what="welcome")
        await client.start(room, host)
        await until(lambda: "behind the race" in text_of(watcher, "#message"), what="delay note")
        for typed, said in (("w nobody", "no racer 'nobody' (racers: ann)"),
                            ("3f", "spectators cannot move; "), ("zz", "spectators cannot move")):
            await pilot.press(*keys(typed), "enter")
            await until(lambda said=said: said in text_of(watcher, "#message"), what=typed)
            await asyncio.sleep(2.5)  # the note's next refresh (every 2 s) keeps it
            assert said in text_of(watcher, "#message"), typed
        await pilot.press(*keys("w ann"), "enter")  # the next command replaces it
        await until(lambda: "watching ann" in text_of(watcher, "#message"), what="w ann")


async def test_merci_by_mouse_on_a_buried_card(lucie_server: str) -> None:
    async with LucieClient(lucie_server) as client:
        for deal_number in range(1, 20):  # the first deal whose third layout offers a merci
            created = await client.create_room(variant="three-shuffles-and-a-draw",
                                               deal=deal_number, countdown_s=0,
                                               visibility="private")
            room = created.room.id
            ann = await client.join(room, "ann")
            await client.start(room, created.host_token)
            for _ in range(100):
                if (await client.get_room(room)).state == "racing":
                    break
                await asyncio.sleep(0.02)
            game = (await client.move(room, ann.racer.id, ann.token, "r", 0)).game
            game = (await client.move(room, ann.racer.id, ann.token, "r", 1)).game
            mercis = [m for m in game.legal_moves if m.startswith("m ")]
            if mercis:
                break
        else:
            raise AssertionError("no deal offered a merci")
    _, card, target = mercis[0].split()
    fan, index = next((f + 1, i) for f, cards in enumerate(game.position.fans)
                      for i, c in enumerate(cards[:-1]) if c == card)
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.game is not None and app.game.version == 2, what="the game")
        await until(lambda: bool(app.query(f"#card-{fan}-{index}")), what="fans drawn")
        await pilot.pause(0.1)  # let the new fans be laid out before clicking
        await pilot.click(f"#card-{fan}-{index}")
        await pilot.pause()
        assert "merci" in text_of(app, "#message")
        await pilot.click("#foundations" if target == "f" else f"#fan-{target}")
        await until(lambda: app.game is not None and app.game.version == 3, what="merci played")
        assert app.game is not None and app.game.position.merci_used


async def test_host_of_the_local_server_is_warned_before_quitting(lucie_server: str) -> None:
    room, host, (ann, _bob, _bot) = await _room(lucie_server, "ann", "bob", "bot-Ada",
                                               countdown_s=0)
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token, host), hosts_server=True,
                  own_bots=frozenset({"bot-Ada"}))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await _started(app, client, room, host)
        await pilot.press("q", "enter")
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        question = app.screen.question  # type: ignore[attr-defined]
        assert "You host the local server and 1 other racer is still racing" in question
        assert question.startswith("You host")  # bob; not our own bot
        await pilot.press("n")
        # finished myself, bob still racing: quitting still asks (and warns)
        await client.resign(room, ann.racer.id, ann.token)
        await until(lambda: app.racers[ann.racer.id].status == "resigned", what="resigned")
        await pilot.press("q", "enter")
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="second confirm")
        assert "Quit your board?" in app.screen.question  # type: ignore[attr-defined]
        await pilot.press("y")
        await until(lambda: not app.is_running, what="exit")
    assert app.return_value == 0


async def test_the_servers_bots_do_not_keep_the_host_of_the_server(lucie_server: str) -> None:
    """``lucie quick`` hosting its server: the bots the server seated stop with it,
    so the quit question is the plain one (it said 3 other racers still race)."""
    async with LucieClient(lucie_server) as client:
        made = await client.create_room(deal=DEAL, countdown_s=0, visibility="private", bots=2)
        room, host = made.room.id, made.host_token
        ann = await client.join(room, "ann")
        app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token), hosts_server=True)
        async with app.run_test(size=SIZE) as pilot:
            await _started(app, client, room, host)
            await pilot.press("q", "enter")
            await until(lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
            assert app.screen.question == "Resign from the race and quit?"  # type: ignore[attr-defined]


async def test_joiner_and_spectator_see_only_what_they_can_do(lucie_server: str) -> None:
    room, host, (_ann, bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    watcher = RaceApp(Seat(lucie_server, room))
    async with watcher.run_test(size=SIZE):
        await until(lambda: watcher.room is not None, what="spectator welcome")
        banner = text_of(watcher, "#banner")
        assert "waiting for the host to start" in banner and "ready" not in banner
    app = RaceApp(Seat(lucie_server, room, bob.racer.id, bob.token))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await until(lambda: app.room is not None, what="welcome")
        hint = app.query_one("#move", Input).placeholder
        assert "s start" not in hint and "3c" not in hint and "u undo" in hint
        await client.start(room, host)
        await until(lambda: app.game is not None, what="start")
        await pilot.press(*keys("ready"), "enter")
        await until(lambda: "already started" in text_of(app, "#message"), what="ready refused")
        await pilot.press(*keys("zz"), "enter")
        await until(lambda: "not a move" in text_of(app, "#message"), what="not a move")
        message = text_of(app, "#message")
        assert "3f, 3 7" in message and "3c" not in message and "c2f" not in message


async def test_the_joiners_board_before_and_at_the_start(
        lucie_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trial, on a joiner's board: the key bar did not mention ``ready`` (the
    banner says to type it), "rank 2/2 (0 pts)" showed before the start, and
    "Go!" stayed in the message line 40 s into the race. Now: ``ready`` in the
    key bar while the room waits, no rank until the start, "Go!" for a few
    seconds."""
    assert GO_HOLD_S <= 5
    monkeypatch.setattr(app_module, "GO_HOLD_S", 0.5)
    room, host, (_ann, bob) = await _room(lucie_server, "ann", "bob", countdown_s=1)
    app = RaceApp(Seat(lucie_server, room, bob.racer.id, bob.token))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE):
        await until(lambda: app.room is not None, what="welcome")
        assert "ready" in text_of(app, "#banner")
        assert app.query_one("#move", Input).placeholder.endswith("· ready · q quit")
        assert "rank" not in text_of(app, "#status") and "pts" not in text_of(app, "#status")
        await client.start(room, host)
        await until(lambda: "Starting" in text_of(app, "#banner"), what="countdown")
        assert "rank" not in text_of(app, "#status")
        await until(lambda: "Go!" in text_of(app, "#message"), what="Go!")
        await until(lambda: "/2 (0 pts)" in text_of(app, "#status"), what="the rank, raced")
        assert "ready" not in app.query_one("#move", Input).placeholder
        await until(lambda: "Go!" not in text_of(app, "#message"), timeout=3, what="Go! gone")


def test_the_key_bar_and_hints_follow_the_rules_and_the_seat() -> None:
    plain, cells = RulesView(), RulesView(cells=2, merci=True, undo=False)
    assert "s start" in help_line(plain, host=True)
    assert "s start" not in help_line(plain)
    assert "ready" in help_line(plain, ready=True) and "ready" not in help_line(plain)
    assert "3c" not in help_line(plain) and "3c" in help_line(cells)
    assert "m 5H f" in help_line(cells) and "u undo" not in help_line(cells)
    assert "c2 7" not in move_examples(plain) and "c2 7" in move_examples(cells)


def test_the_bad_move_hint_writes_moves_as_the_key_bar_does() -> None:
    """The trial: the hint said "(try 3f, 3-7, r, u, a)" under a key bar that says
    ``3 7``: every example is written as the key bar writes it (the parser
    takes both), and parses."""
    for rules in (None, RulesView(), RulesView(cells=2, merci=True, undo=False)):
        bar = help_line(rules).split(" · ")
        for example in move_examples(rules).split(", "):
            parse_move(example)
            assert "-" not in example, example
            assert any(part.split(" ")[0] == example.split(" ")[0] for part in bar) \
                or example.startswith("c2 "), (example, bar)
        assert "3 7" in bar and "3 7" in move_examples(rules).split(", ")
