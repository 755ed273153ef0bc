"""Modal screens of the board: the quit/resign confirmation and the results table."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from ..api import SeriesView, StandingView
from .model import fmt_clock, standing_rows

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
    """The final standings (and a series' table). q or Escape closes it
    (``None``); a racer's r offers a rematch (``"rematch"``, docs/protocol.md
    "Rematch"); in a series with races left, Enter goes on to the next race
    (``"next"``) and q leaves the series ("Series")."""

    BINDINGS = [  # noqa: RUF012 (Textual's class attribute)
        Binding("q,escape", "close", "close"),
        Binding("enter", "go", "go on", priority=True),  # before the tables' Enter
        Binding("r", "rematch", "rematch"),
    ]

    def __init__(self, standings: list[StandingView], me: str | None) -> None:
        super().__init__()
        self.standings = standings
        self.me = me
        self.offered_by: str | None = None
        """Who made the rematch room already (its ``rematch`` event), when known."""
        self.next_race: str | None = None
        """In a series: "race 2 of 3 …" once the next race's room is there."""

    def hint(self) -> str:
        """The key line: go on (series), rematch (racers only), leave."""
        if self.me is None:
            return "press q to leave"
        if self.next_race:
            return f"{self.next_race}: Enter goes on now, q leaves the series"
        if self.offered_by:
            return f"{self.offered_by} offers a rematch: press r to join it, q to leave"
        return "press r for a rematch, q to leave"

    def compose(self) -> ComposeResult:
        with Vertical(id="results"):
            yield Label("[b]Race over — results[/b]", id="results-title")
            yield DataTable(id="results-table", cursor_type="row")
            yield Label("", id="series-title")
            yield DataTable(id="series-table", cursor_type="row")
            yield Label(self.hint(), id="results-hint")

    def on_mount(self) -> None:
        tables = self.query("#results-table")
        if not tables:  # pushed while the app was already closing: nothing to show
            return
        table = tables.first(DataTable)
        table.add_columns("rank", "name", "cards", "reached", "moves", "status", "points")
        for s, row in zip(self.standings, standing_rows(self.standings), strict=True):
            table.add_row(*row, key=s.racer)
        for other in self.query("#series-table"):
            other.display = False

    def show_series(self, view: SeriesView) -> None:
        """The series' table so far (docs/protocol.md, "Series")."""
        titles = self.query("#series-title")
        tables = self.query("#series-table")
        if not titles or not tables:
            return
        titles.first(Label).update(
            f"[b]Series — {view.played} of {view.races} races"
            f"{' (final)' if view.final else ''}[/b]")
        table = tables.first(DataTable)
        table.clear(columns=True)
        table.add_columns("rank", "name", "cards", "time",
                          *(f"race {k}" for k in range(1, view.races + 1)))
        for row in view.table:
            cells = ["–" if r is None else ("left" if r.status == "absent" else
                                             str(r.foundation_cards)) for r in row.races]
            table.add_row(str(row.rank), row.name + (" (left)" if row.left else ""),
                          str(row.foundation_cards), fmt_clock(row.time_ms), *cells,
                          key=row.racer)
        table.display = True

    def _update_hint(self) -> None:
        for label in self.query("#results-hint"):
            if isinstance(label, Label):
                label.update(self.hint())

    def rematch_offered(self, by: str) -> None:
        """Another racer made the rematch room: say so on the key line."""
        self.offered_by = by
        self._update_hint()

    def series_goes_on(self, text: str) -> None:
        """The series' next race is there and this racer is in it."""
        self.next_race = text
        self._update_hint()

    def action_go(self) -> None:
        self.dismiss("next" if self.next_race else None)

    def action_rematch(self) -> None:
        if self.me is not None and not self.next_race:
            self.dismiss("rematch")

    def action_close(self) -> None:
        self.dismiss(None)
