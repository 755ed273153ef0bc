"""Modal screens of the board: the quit/resign confirmation and the results table."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from ..api import StandingView
from .model import standing_rows

__all__ = ["ConfirmScreen", "ResultsScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; dismisses with ``True`` on ``y``/Enter."""

    BINDINGS = [  # noqa: RUF012 (Textual's class attribute)
        Binding("y,enter", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Label(self.question, id="confirm-question")
            yield Label("[b]y[/b] yes   [b]n[/b] no", id="confirm-keys")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class ResultsScreen(ModalScreen[None]):
    """The final standings; any of q, Enter, Escape closes it."""

    BINDINGS = [Binding("q,enter,escape", "close", "close")]  # noqa: RUF012

    def __init__(self, standings: list[StandingView], me: str | None) -> None:
        super().__init__()
        self.standings = standings
        self.me = me

    def compose(self) -> ComposeResult:
        with Vertical(id="results"):
            yield Label("[b]Race over — results[/b]", id="results-title")
            yield DataTable(id="results-table", cursor_type="row")
            yield Label("press q to leave", id="results-hint")

    def on_mount(self) -> None:
        tables = self.query(DataTable)
        if not tables:  # pushed while the app was already closing: nothing to show
            return
        table = tables.first()
        table.add_columns("rank", "name", "cards", "reached", "moves", "status", "points")
        for s, row in zip(self.standings, standing_rows(self.standings), strict=True):
            table.add_row(*row, key=s.racer)

    def action_close(self) -> None:
        self.dismiss(None)
