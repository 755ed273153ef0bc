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


class ResultsScreen(ModalScreen[str | None]):
    """The final standings; any of q, Enter, Escape closes it (``None``); a racer's
    r offers a rematch (``"rematch"``, docs/protocol.md "Rematch")."""

    BINDINGS = [  # noqa: RUF012 (Textual's class attribute)
        Binding("q,enter,escape", "close", "close"),
        Binding("r", "rematch", "rematch"),
    ]

    def __init__(self, standings: list[StandingView], me: str | None) -> None:
        super().__init__()
        self.standings = standings
        self.me = me
        self.offered_by: str | None = None
        """Who made the rematch room already (its ``rematch`` event), when known."""

    def hint(self) -> str:
        """The key line: rematch (racers only) and leave."""
        if self.me is None:
            return "press q to leave"
        if self.offered_by:
            return f"{self.offered_by} offers a rematch: press r to join it, q to leave"
        return "press r for a rematch, q to leave"

    def compose(self) -> ComposeResult:
        with Vertical(id="results"):
            yield Label("[b]Race over — results[/b]", id="results-title")
            yield DataTable(id="results-table", cursor_type="row")
            yield Label(self.hint(), id="results-hint")

    def rematch_offered(self, by: str) -> None:
        """Another racer made the rematch room: say so on the key line."""
        self.offered_by = by
        for label in self.query("#results-hint"):
            if isinstance(label, Label):
                label.update(self.hint())

    def action_rematch(self) -> None:
        if self.me is not None:
            self.dismiss("rematch")

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
