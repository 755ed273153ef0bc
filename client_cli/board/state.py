"""What the parts of the race board share: the :class:`Seat` and the :class:`Board` protocol.

:class:`~client_cli.board.app.RaceApp` is assembled from mixins
(:class:`~client_cli.board.controls.Controls`,
:class:`~client_cli.board.render.Rendering`); each mixin's methods are typed
against :class:`Board`, the state and methods the assembled app provides.
This module imports no other part of the board at run time, so every part
can import it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.containers import Container
    from textual.widgets import Static

    from ..api import (
        GameView,
        LucieClient,
        RacerView,
        RoomConnection,
        RoomView,
        StandingView,
    )
    from .widgets import FoundationsView, OpponentsPanel

__all__ = ["Board", "Seat"]


@dataclass(frozen=True, slots=True)
class Seat:
    """Who the board races as: server ``url``, ``room`` (id or code), the racer's
    id and token (both ``None`` to watch) and the host token when we made the room."""

    url: str
    room: str
    racer: str | None = None
    token: str | None = None
    host_token: str | None = None


class Board(Protocol):
    """What the board's mixins need of the app they are mixed into."""

    seat: Seat
    game: GameView | None
    room: RoomView | None
    host_deal: int | None
    racers: dict[str, RacerView]
    standings: list[StandingView] | None
    conn: RoomConnection
    client: LucieClient
    fatal: str | None
    selected: tuple[int, str | None] | None
    targets: set[str]
    pending_move: str | None
    watched: str | None
    leaving: bool
    next_seat: Seat | None
    series_seat: Seat | None
    hosts_server: bool
    own_bots: frozenset[str]
    connection_note: str
    watch_note: str
    error_until: float
    fade_until: float
    countdown_until: float | None
    quick_until: float | None
    clock_base: tuple[int, float] | None
    _fans_key: tuple[tuple[str, ...], ...] | None
    _fans_lock: asyncio.Lock
    w_status: Static
    w_foundations: FoundationsView
    w_banner: Static
    w_fans: Container
    w_opponents: OpponentsPanel
    w_message: Static

    def say(self, text: str, kind: str = "", *, fade_s: float = 0.0) -> None: ...
    def _watch_note(self, note: str) -> None: ...
    def _clock_ms(self) -> int | None: ...
    def _render_status(self) -> None: ...
    def _render_banner(self) -> None: ...
    def _render_board(self) -> None: ...
    def _render_all(self) -> None: ...
    async def _sync_fans(self, fans: tuple[tuple[str, ...], ...]) -> None: ...
    def _mark_fans(self) -> None: ...
    def _set_game(self, game: GameView) -> None: ...
    async def _refresh_game(self) -> None: ...

    def _may_watch(self) -> bool: ...
    async def _watch(self, name: str) -> None: ...
    def _ask_quit(self) -> None: ...
    def _others_racing(self) -> int: ...
    async def _resign_and_exit(self, *, status: int = 0,
                               wait_standings: bool = True) -> None: ...
    async def _start(self) -> None: ...
    async def _rematch(self) -> None: ...
    async def _leave_series(self) -> None: ...
    async def _show_series(self) -> None: ...
    async def _series_goes_on(self, link: dict[str, Any]) -> bool: ...
    def _go_on(self) -> None: ...
    def set_timer(self, delay: float, callback: Any = None) -> Any: ...
    def _clear_selection(self) -> None: ...
    def _send(self, text: str) -> None: ...
    async def _send_move(self, text: str, version: int) -> None: ...
    def exit(self, result: int | None = None, return_code: int = 0,
             message: Any = None) -> None: ...
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
    @property
    def screen(self) -> Any: ...
    def run_worker(self, work: Any, name: str | None = "", group: str = "default",
                   description: str = "", exit_on_error: bool = True, start: bool = True,
                   exclusive: bool = False, thread: bool = False) -> Any: ...
