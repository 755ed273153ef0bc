"""The board's widgets: cards, fans, foundations, the opponents panel.

Widgets only render and report clicks (as messages); the app decides what
a click means and talks to the server.
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from server.rules import parse_card
from server.rules.cards import SUIT_GLYPHS, card_glyph

from ..api import RacerView
from .model import progress_bar, racer_label, status_text

__all__ = ["CardView", "FanClicked", "FanView", "FoundationClicked", "FoundationsView",
           "OpponentsPanel", "card_text"]

_RED = frozenset("DH")
MAX_SHOWN = 5
"""Cards shown per fan; a longer fan shows ``+k`` and its last cards."""


def card_text(card: str) -> Text:
    """A card (``"TH"``) as coloured text with its suit glyph (``10♥`` in red)."""
    glyph = card_glyph(parse_card(card))
    return Text(f"{glyph:>3}", style="bold red" if card[-1].upper() in _RED else "bold")


class FanClicked(Message):
    """A click on fan ``fan`` (1-based): on ``card`` (text, or ``None`` off the cards),
    ``top`` when that card is the playable top card; ``chain`` = 2 on a double-click."""

    def __init__(self, fan: int, card: str | None, top: bool, chain: int) -> None:
        super().__init__()
        self.fan = fan
        self.card = card
        self.top = top
        self.chain = chain


class FoundationClicked(Message):
    """A click on the foundations."""


class CardView(Static):
    """One card of a fan; only the top card is playable (class ``top``)."""

    def __init__(self, card: str, *, top: bool, fan: int, index: int) -> None:
        super().__init__(card_text(card), id=f"card-{fan}-{index}",
                         classes="card top" if top else "card buried")
        self.card = card
        self.top = top
        self.fan = fan

    def on_click(self, event: object) -> None:
        chain = int(getattr(event, "chain", 1))
        stop = getattr(event, "stop", None)
        if stop is not None:
            stop()
        self.post_message(FanClicked(self.fan, self.card, self.top, chain))


class FanView(Horizontal):
    """Fan number ``fan`` (1-based) with its cards bottom → top; dimmed when gone."""

    def __init__(self, fan: int, cards: list[str]) -> None:
        super().__init__(id=f"fan-{fan}", classes="fan gone" if not cards else "fan")
        self.fan = fan
        self.cards = list(cards)

    def compose(self) -> ComposeResult:
        yield Static(f"{self.fan:>2}", classes="fan-no")
        n = len(self.cards)
        first = 0 if n <= MAX_SHOWN else n - (MAX_SHOWN - 1)
        if first:
            yield Static(f"+{first}", classes="more")
        for i in range(first, n):
            yield CardView(self.cards[i], top=i == n - 1, fan=self.fan, index=i)
        if not self.cards:
            yield Static("  —", classes="card")

    async def show(self, cards: list[str]) -> None:
        """Show ``cards`` instead (re-composes only when they changed)."""
        if cards != self.cards:
            self.cards = list(cards)
            self.set_class(not cards, "gone")
            await self.recompose()

    def on_click(self, event: object) -> None:
        top = self.cards[-1] if self.cards else None
        self.post_message(FanClicked(self.fan, top, top is not None,
                                     int(getattr(event, "chain", 1))))


class FoundationsView(Static):
    """The foundations: each suit's top card (``·`` when empty)."""

    def show(self, foundations: list[tuple[str, int]]) -> None:
        """Render ``[("C", 3), ("D", 0), …]`` (suit, top rank)."""
        text = Text("Foundations  ")
        for suit, top in foundations:
            if top <= 0:
                glyph = SUIT_GLYPHS["CDHS".index(suit)]
                text.append(f"  ·{glyph} ", style="dim")
            else:
                text.append(" ")
                text.append_text(card_text("A23456789TJQK"[top - 1] + suit))
                text.append(" ")
        self.update(text)

    def on_click(self) -> None:
        self.post_message(FoundationClicked())


class OpponentsPanel(Static):
    """Every racer: name, foundation cards as a bar, moves, status (``me`` is bold)."""

    table: Table = Table()

    def show(self, racers: list[RacerView], me: str | None, total_cards: int) -> None:
        """Render ``racers`` in rank order."""
        table = Table(title="Racers", title_justify="left", show_edge=False, pad_edge=False)
        table.add_column("#", justify="right", width=2)
        table.add_column("name", overflow="ellipsis", no_wrap=True, max_width=28)
        table.add_column("foundation cards", no_wrap=True)
        table.add_column("moves", justify="right")
        table.add_column("status", no_wrap=True, min_width=9)
        for i, r in enumerate(racers, 1):
            style = "bold cyan" if r.id == me else ""
            bar = f"{progress_bar(r.foundation_cards, total_cards, 16)} {r.foundation_cards:>3}"
            table.add_row(str(i), racer_label(r.name, r.bot_level, r.bot_rating), bar,
                          str(r.moves), status_text(r.status, ready=r.ready),
                          style=style)
        self.table = table
        self.update(table)

    def plain_text(self, width: int = 100) -> str:
        """The panel as plain text (what a screen reader or a test sees)."""
        out = io.StringIO()
        Console(width=width, file=out, color_system=None).print(self.table)
        return out.getvalue()
