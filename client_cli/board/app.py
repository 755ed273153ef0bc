"""The race board: a Textual app that races (or watches) one room live.

The app never changes the table on its own: a move is sent to the server,
and the board shows the game the server's acknowledgement carries (or the
refusal's reason, in place, in the message line). Room events move the
opponents panel; a dropped connection is resumed by
:class:`~client_cli.api.RoomConnection` while the board stays on screen
with a "reconnecting" note.

The app is assembled from mixins: :mod:`.controls` (what the player types
and clicks), :mod:`.follow` (the rematch, docs/protocol.md "Rematch") and
:mod:`.render` (what the board shows); this module holds the state and reads
the room's messages. :class:`~client_cli.board.state.Seat`
says who the board races as.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from pydantic import ValidationError
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.widgets import Input, Static

from ..api import (
    AckView,
    ApiError,
    ConnectionState,
    GameView,
    LucieClient,
    RacerView,
    RoomConnection,
    RoomEvent,
    RoomView,
    ServerError,
    Snapshot,
    StandingView,
    Welcome,
)
from ..common import detach_std_streams
from .controls import Controls
from .follow import Follow
from .model import apply_progress, delay_note, hidden_note, is_final, rank_racers
from .render import GO_HOLD_S, Rendering
from .screens import ResultsScreen
from .state import Seat
from .terminal import TerminalDriver, TerminalLost
from .widgets import FoundationsView, OpponentsPanel

__all__ = ["HANGUP_STATUS", "RaceApp"]

HANGUP_STATUS = 129
"""The board's exit status when its terminal went away (128 + SIGHUP, as a shell shows a
process SIGHUP stopped)."""


class RaceApp(Controls, Follow, Rendering, App[int]):
    """Full-screen board for one room (see the module docstring).

    Exits with 0, 1 when the server became unreachable or the room vanished, or
    :data:`HANGUP_STATUS` when its terminal went away (:meth:`lose_terminal`).
    """

    CSS_PATH = "board.tcss"
    TITLE = "La Belle Lucie race"
    BINDINGS = [  # noqa: RUF012 (Textual's class attribute)
        Binding("ctrl+q,ctrl+c", "leave", "resign and quit", priority=True),  # not "copy"
    ]

    def __init__(self, seat: Seat, *, reconnect_give_up_s: float = 120.0,
                 hosts_server: bool = False, own_bots: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.seat = seat
        self.hosts_server = hosts_server
        """This process runs the embedded server the room lives on."""
        self.own_bots = own_bots
        """Names of the room's bots this command brought (the server's, or this
        process's): with an embedded server they stop with it, so quitting does not
        wait for them."""
        self.client = LucieClient(seat.url)
        self.conn = RoomConnection(seat.url, seat.room, seat.token,
                                   give_up_after=reconnect_give_up_s)
        self.room: RoomView | None = None
        self.host_deal: int | None = None  # the deal, told the host before the start
        self.racers: dict[str, RacerView] = {}
        self.game: GameView | None = None
        self.watched: str | None = seat.racer
        self.watch_note = ""
        self.leaving = False
        """Set once the board is closing (quit after resigning): no results screen."""
        """How the watched board is shown (delay, or why it is hidden); spectators."""
        self.terminal_gone = False
        """The terminal went away (SIGHUP, or the driver saw it hang up)."""
        self._board_open = False
        self.selected: tuple[int, str | None] | None = None  # (fan, merci card)
        self.targets: set[str] = set()
        self.pending_move: str | None = None
        self.connection_note = "connecting…"
        self.fatal: str | None = None
        self.countdown_until: float | None = None
        self.quick_until: float | None = None  # a quick-race lobby's next step (monotonic)
        self.clock_base: tuple[int, float] | None = None  # (race_clock_ms, monotonic)
        self.standings: list[StandingView] | None = None
        self.next_seat: Seat | None = None
        """Where the racer goes on when the board closes: their seat in the rematch
        room (docs/protocol.md, "Rematch"); ``None``: nowhere."""
        self.series_seat: Seat | None = None
        """In a series, this racer's seat in the next race's room, once made."""
        self._fans_key: tuple[tuple[str, ...], ...] | None = None
        self._fans_lock = asyncio.Lock()
        # the board's widgets, kept so that they are found under a modal screen too
        self.w_status = Static(id="status")
        self.w_foundations = FoundationsView(id="foundations")
        self.w_banner = Static(id="banner")
        self.w_fans = Container(id="fans")
        self.w_opponents = OpponentsPanel(id="opponents")
        self.w_message = Static(id="message")

    # layout ------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self.w_status
        yield self.w_foundations
        yield self.w_banner
        yield self.w_fans
        yield self.w_opponents
        yield self.w_message
        yield Input(placeholder=self._input_hint(), id="move")

    def get_driver_class(self) -> type[Driver]:
        """Textual's Linux driver, made to notice a closed terminal
        (:mod:`.terminal`); any other driver (``TEXTUAL_DRIVER``, Windows) as is."""
        driver = super().get_driver_class()
        return TerminalDriver if driver is LinuxDriver else driver

    async def on_mount(self) -> None:
        self._board_open = True
        if self.terminal_gone:  # hung up before the board was up
            self.exit(HANGUP_STATUS)
            return
        self.query_one("#move", Input).focus()
        self.set_interval(0.25, self._tick)
        self.set_interval(2.0, self._refresh_delayed)
        self.run_worker(self._listen(), name="room-listener", exit_on_error=False)

    async def on_unmount(self) -> None:
        self._board_open = False
        await self.conn.close()
        await self.client.aclose()

    # the terminal going away ----------------------------------------------
    def on_terminal_lost(self, _: TerminalLost) -> None:
        detach_std_streams()  # the driver saw the tty hang up: nothing reads it
        self.lose_terminal()

    def lose_terminal(self) -> None:
        """The terminal went away (SIGHUP, or the driver saw its tty hang up):
        leave as ``q`` and ``y`` would, without asking: resign a racer still
        racing, close the board (exit status :data:`HANGUP_STATUS`), no
        results screen. Called again it does nothing more.
        """
        if self.terminal_gone:
            return
        self.terminal_gone = True
        self.leaving = True  # no results screen, no question
        if not self._board_open:
            # before the board: on_mount closes it at once; after it (a host waiting for
            # the others' race to end): keep waiting, printing to nobody
            detach_std_streams()
            return
        me = self.racers.get(self.seat.racer or "")
        racing = self.room is not None and self.room.state in ("racing", "countdown")
        if racing and me is not None and not is_final(me) and not self.fatal:
            self.run_worker(self._resign_and_exit(status=HANGUP_STATUS, wait_standings=False),
                            exit_on_error=False)
        else:
            self.exit(HANGUP_STATUS)

    # the room's messages ------------------------------------------------
    async def _listen(self) -> None:
        try:
            await self.conn.open()
            async for msg in self.conn:
                try:
                    await self._handle(msg)
                except (ValidationError, KeyError, TypeError, ValueError) as exc:
                    # a message this client cannot read: say so, keep listening
                    self.say(f"ignored a room message this client cannot read ({exc!r:.80})")
        except ApiError as exc:
            self._fail(exc)

    def _fail(self, exc: ApiError) -> None:
        what = {"room/not_found": "The room is gone",
                "client/unreachable": "The server is unreachable"}.get(exc.code, "Disconnected")
        self.fatal = f"{what}: {exc.message}. Type q and Enter to leave."
        self.connection_note = "offline"
        self.say(self.fatal, "refused")
        self._render_all()

    async def _handle(self, msg: Any) -> None:
        if isinstance(msg, Welcome | Snapshot):
            self._set_room(msg.room)
            if msg.room.state in ("racing", "over"):
                await self._refresh_game()
            if isinstance(msg, Welcome):
                self.connection_note = "live"
                if msg.room.deal_number is None and self.seat.host_token:
                    with contextlib.suppress(ApiError):
                        self.host_deal = (await self.client.get_room(
                            self.seat.room, self.seat.host_token)).deal_number
        elif isinstance(msg, RoomEvent):
            await self._on_event(msg)
        elif isinstance(msg, ConnectionState):
            if msg.connected:
                self.connection_note = "live"
                self.say("reconnected", "ok")
                await self._refresh_game()
            else:
                self.connection_note = f"reconnecting… (attempt {msg.attempt})"
        elif isinstance(msg, ServerError):
            if msg.code == "room/not_waiting":
                self.say("the race has already started" if self.room is None
                         or self.room.state in ("countdown", "racing")
                         else f"server: {msg.message}", "refused")
            else:
                self.say(f"server: {msg.message}", "refused")
        elif isinstance(msg, AckView):
            self._set_game(msg.game)
        self._render_all()

    def _set_room(self, room: RoomView) -> None:
        self.room = room
        self._update_hint()
        self.racers = {r.id: r for r in room.racers}
        if room.race_clock_ms is not None:
            self.clock_base = (room.race_clock_ms, time.monotonic())
        if room.state == "countdown" and room.starts_in_ms is not None:
            self.countdown_until = time.monotonic() + room.starts_in_ms / 1000
        quick = room.quick
        left = None if quick is None else quick.starts_in_ms if quick.starts_in_ms is not None \
            else quick.bots_in_ms
        self.quick_until = None if left is None else time.monotonic() + left / 1000

    async def _on_event(self, ev: RoomEvent) -> None:
        room = self.room
        data = ev.data
        if ev.race_clock_ms is not None and room is not None and room.state == "racing":
            self.clock_base = (ev.race_clock_ms, time.monotonic())
        if ev.type == "joined" and isinstance(data.get("racer"), dict):
            racer = RacerView.model_validate(data["racer"])
            self.racers[racer.id] = racer
            if room is not None and room.quick is not None:  # its deadline moved
                with contextlib.suppress(ApiError):
                    self._set_room(await self.client.get_room(self.seat.room, self.seat.token))
        elif ev.type in ("progress", "finished", "ready", "left"):
            if ev.type == "left":
                data = {**data, "status": "left"}
            elif ev.type == "finished":
                data = {**data, "final": True}
            apply_progress(self.racers, data)
            rid = data.get("racer")
            if ev.type != "ready" and self.seat.racer is None and rid == self._watch_target():
                await self._refresh_game()
        elif ev.type == "countdown":
            self.countdown_until = time.monotonic() + int(data.get("starts_in_ms", 0)) / 1000
            self._set_state("countdown")
        elif ev.type == "started":
            self.countdown_until = None
            self._set_state("racing")
            with contextlib.suppress(ApiError):
                self._set_room(await self.client.get_room(self.seat.room, self.seat.token))
            self.clock_base = (ev.race_clock_ms or 0, time.monotonic())
            self.say("Go!", "ok", fade_s=GO_HOLD_S)
            await self._refresh_game()  # may tell a spectator how late the board is
        elif ev.type == "race_over":
            self._set_state("over")
            rows = data.get("standings")
            if isinstance(rows, dict):
                rows = rows.get("standings")
            self.standings = [StandingView.model_validate(s) for s in rows or []]
            await self._refresh_game()
            if not self.leaving:  # a racer who quit has the table printed on exit
                self.push_screen(ResultsScreen(self.standings, self.seat.racer),
                                 callback=self._after_results)
                self.run_worker(self._show_series(), exit_on_error=False)
        elif ev.type == "closed":
            self._set_state("closed")
            self.say("The host closed the room. Type q and Enter to leave.", "refused")
        elif ev.type == "rematch":
            await self._rematch_offered(data)

    def _set_state(self, state: str) -> None:
        if self.room is not None:
            self.room = self.room.model_copy(update={"state": state})
            self._update_hint()

    def _update_hint(self) -> None:
        with contextlib.suppress(NoMatches):  # not mounted yet: compose sets it
            self.query_one("#move", Input).placeholder = self._input_hint()

    def _watch_target(self) -> str | None:
        if self.seat.racer is not None:
            if self.watched not in (None, self.seat.racer) and self._may_watch():
                return self.watched
            return self.seat.racer
        ranked = rank_racers(self.racers.values())
        if self.watched is None and ranked:
            self.watched = ranked[0].id
        return self.watched

    async def _refresh_game(self) -> None:
        target = self._watch_target()
        if target is None:
            return
        watching = target != self.seat.racer  # a spectator, or a racer whose result is final
        try:
            game = await self.client.game(self.seat.room, target, self.seat.token)
        except ApiError as exc:
            if watching and exc.code.startswith("race/hidden"):
                self._watch_note(hidden_note(exc.code))
            elif self.seat.racer is not None:
                self.say(f"could not load the game: {exc.message}", "refused")
            return
        self._set_game(game)
        if watching:
            self._watch_note(delay_note(game.delay_ms))

    async def _refresh_delayed(self) -> None:
        """A watched board during the race lags the race clock (a spectator's,
        and a finished racer's until the race is over): follow it every few
        seconds, not only when the watched racer moves."""
        if self.room is not None and self.room.state == "racing" \
                and self._watch_target() != self.seat.racer:
            await self._refresh_game()
            self._render_all()

    def _set_game(self, game: GameView) -> None:
        if self.game is None or game.version >= self.game.version or game.racer != self.game.racer:
            self.game = game
