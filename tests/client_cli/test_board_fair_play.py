"""Fair play on the full-screen board, against a real ``lucie-server`` process:
a spectator's board is late and says so; a racer's ``w NAME`` waits for their
own result, then shows rivals late too until the race is over (docs/protocol.md,
"Fair play")."""

from __future__ import annotations

from rich.cells import cell_len

from client_cli.api import LucieClient
from client_cli.board.app import RaceApp
from client_cli.board.model import delay_note, hidden_note
from client_cli.board.state import Seat

from .helpers import keys, play_moves, until
from .test_board_live import SIZE, _room, text_of


def test_the_notes_say_why_in_words() -> None:
    assert delay_note(0) == ""
    assert delay_note(60_000).startswith("this board is 60 s behind the race")
    assert "start" in hidden_note("race/hidden_until_start")
    assert "until the race is over" in hidden_note("race/hidden_until_over")


async def test_a_spectator_sees_the_board_late_and_is_told(lucie_server: str) -> None:
    room, host, (ann, _bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    watcher = RaceApp(Seat(lucie_server, room))
    async with LucieClient(lucie_server) as client, watcher.run_test(size=SIZE):
        await until(lambda: watcher.room is not None, what="welcome")
        assert watcher.room is not None and watcher.room.deal_number is None
        await client.start(room, host)
        await until(lambda: watcher.room is not None and watcher.room.state == "racing",
                    what="the start")
        game = await client.game(room, ann.racer.id, ann.token)
        await client.move(room, ann.racer.id, ann.token, play_moves(game)[0], game.version)
        await until(lambda: watcher.racers[ann.racer.id].moves == 1, what="progress seen")
        await until(lambda: watcher.game is not None and watcher.game.delay_ms > 0,
                    what="the delayed board")
        assert watcher.game is not None and watcher.game.version == 0  # never newer
        await until(lambda: "s behind" in text_of(watcher, "#status"), what="the delay shown")
        assert "behind the race" in text_of(watcher, "#message")
        # the trial: once the race was over the board still said it was behind
        for racer in (ann, _bob):
            await client.resign(room, racer.racer.id, racer.token)
        await until(lambda: watcher.room is not None and watcher.room.state == "over",
                    what="the end")
        await until(lambda: watcher.game is not None and watcher.game.delay_ms == 0,
                    what="the live board")
        await until(lambda: "behind" not in str(watcher.w_message.render()),
                    what="the delay note gone")
        assert "behind" not in str(watcher.w_status.render())


async def test_the_spectators_header_fits_120_columns(lucie_server: str) -> None:
    """The trial, at 120 columns: the header line was cut ("… · redeals left 0 ·"):
    what does not fit goes, least useful first (the connection when live, the
    variant's name, the deal); the room, clock, racer, delay and moves stay."""
    async with LucieClient(lucie_server) as client:
        made = await client.create_room(variant="three-shuffles-and-a-draw", deal=987654321,
                                        countdown_s=0, visibility="private")
        room, host = made.room.id, made.host_token
        ann = await client.join(room, "ann-with-a-long-name")
        await client.join(room, "bob-with-a-long-name")
    watcher = RaceApp(Seat(lucie_server, room))
    async with LucieClient(lucie_server) as client, watcher.run_test(size=(120, 40)):
        await until(lambda: watcher.room is not None, what="welcome")
        await client.start(room, host)
        game = await client.game(room, ann.racer.id, ann.token)
        await client.move(room, ann.racer.id, ann.token, play_moves(game)[0], game.version)
        await until(lambda: "s behind" in text_of(watcher, "#status"), what="the delay shown")
        header = text_of(watcher, "#status")
        assert cell_len(header) <= 118, header  # 120 less the padding
        for part in ("room ", "/ 15:00", "-with-a-long-name", "s behind",
                     "redeals left", "moves "):
            assert part in header, (part, header)


async def test_a_racer_may_watch_others_only_once_their_result_is_final(
        lucie_server: str) -> None:
    room, host, (ann, bob) = await _room(lucie_server, "ann", "bob", countdown_s=0)
    app = RaceApp(Seat(lucie_server, room, ann.racer.id, ann.token))
    async with LucieClient(lucie_server) as client, app.run_test(size=SIZE) as pilot:
        await until(lambda: app.room is not None, what="welcome")
        await client.start(room, host)
        await until(lambda: app.game is not None, what="ann's board")
        game = await client.game(room, bob.racer.id, bob.token)
        await client.move(room, bob.racer.id, bob.token, play_moves(game)[0], game.version)
        await pilot.press(*keys("w bob"), "enter")
        await until(lambda: "fair play" in text_of(app, "#message"), what="the refusal")
        assert app.game is not None and app.game.racer == ann.racer.id
        await client.resign(room, ann.racer.id, ann.token)
        await until(lambda: app.racers[ann.racer.id].final, what="ann's result final")
        await pilot.press(*keys("w bob"), "enter")
        await until(lambda: app.game is not None and app.game.racer == bob.racer.id,
                    what="bob's board")
        # as a spectator sees it until the race is over: late (the spare-seat trick)
        assert app.game is not None and app.game.version == 0 and app.game.delay_ms > 0
        await until(lambda: "s behind" in text_of(app, "#message"), what="the delay said")
