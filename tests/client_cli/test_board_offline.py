"""The board when no server answers: a clear message, no traceback, q leaves."""

from __future__ import annotations

from client_cli.board.app import RaceApp, Seat
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
