"""The board when no server answers: a clear message, no traceback, q leaves."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Label

import client_cli.board.app
from client_cli.board.app import RaceApp
from client_cli.board.controls import quit_question
from client_cli.board.screens import ConfirmScreen
from client_cli.board.state import Seat
from tests.conftest import free_port

from .helpers import until


async def test_unreachable_server_is_said_plainly_and_q_leaves() -> None:
    app = RaceApp(Seat(f"http://127.0.0.1:{free_port()}", "ABCD", "r1", "token"))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: app.fatal is not None, what="the unreachable message")
        banner = str(app.query_one("#banner").render())
        assert "The server is unreachable" in banner and "q and Enter" in banner
        await pilot.press("q", "enter")
        await until(lambda: not app.is_running, what="exit")
    assert app.return_value == 1  # lucie exits with status 1


@pytest.mark.parametrize("size", [(100, 30), (80, 24), (50, 30)])
async def test_the_whole_quit_question_shows(size: tuple[int, int]) -> None:
    question = quit_question(playing=True, others=1)
    assert question.startswith("You host the local server and 1 other racer is still racing.")
    assert "quitting would end" not in question

    class Host(App[None]):
        CSS_PATH = Path(client_cli.board.app.__file__).with_name("board.tcss")

        def on_mount(self) -> None:
            self.push_screen(ConfirmScreen(question))

    app = Host()
    async with app.run_test(size=size) as pilot:
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.pause()
        label = app.screen.query_one("#confirm-question", Label)
        assert label.size.width <= 66 and label.size.height > 1
        lines = [strip.text for strip in label.render_lines(label.size.region)]
        shown = " ".join(" ".join(lines).split())
        assert shown == " ".join(question.split())
        # the whole dialog fits on the screen
        dialog = app.screen.query_one("#confirm")
        assert app.screen.region.contains_region(dialog.region)
