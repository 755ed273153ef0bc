"""What the player does on the board: typed commands, mouse clicks, sending moves.

:class:`Controls` is mixed into :class:`~client_cli.board.app.RaceApp` (its
methods are typed against :class:`~client_cli.board.state.Board`). A
move is sent to the server and nothing changes on the table until the
server's acknowledgement carries the new game; a refusal's reason is shown
in the message line. One move is in flight at a time (each names the
version it expects).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from textual.widgets import Input

from server.rules import InvalidMoveError, parse_card, parse_move
from server.rules.cards import card_glyph

from ..api import ApiError, MoveRefused, refused_game
from .model import is_final, merci_targets, targets_for
from .screens import ConfirmScreen
from .state import Board
from .widgets import FanClicked, FoundationClicked

if TYPE_CHECKING:
    from ..api import GameView, RoomView
    from ..views import RulesView

__all__ = ["HELP", "SPECTATOR_MOVE", "Controls", "help_line", "move_examples", "quit_question",
           "ready_refusal"]

HELP = "3f · 3 7 · r redeal · u undo · a autoplay · m 5H f merci · q quit"
"""The move notation and commands, as the input line's placeholder shows them."""


SPECTATOR_MOVE = ("spectators cannot move; you are watching: w NAME and Enter watch "
                  "that racer's board, q quits")
"""What a spectator's typed move (or any text the board does not know) gets."""


def help_line(rules: RulesView | None, *, host: bool = False, ready: bool = False) -> str:
    """The input line's placeholder: the moves the room's rules allow (``HELP`` when
    they are not known yet), with ``s start`` for the host only, ``ready`` for a
    racer who may get ready (a joiner while the room waits)."""
    if rules is None:
        parts = HELP.split(" · ")[:-1]
    else:
        parts = ["3f", "3 7"]
        if rules.cells:
            parts += ["3c", "c2f"]
        if rules.redeals:
            parts.append("r redeal")
        if rules.undo:
            parts.append("u undo")
        parts.append("a autoplay")
        if rules.merci:
            parts.append("m 5H f merci")
    if host:
        parts.append("s start")
    if ready:
        parts.append("ready")
    return " · ".join([*parts, "q quit"])


def move_examples(rules: RulesView | None) -> str:
    """Example moves for the "not a move" hint, as the room's rules allow them,
    written as the key bar (:func:`help_line`) writes them (``3 7``; the
    parser takes ``3-7`` too)."""
    if rules is None:
        return "3f, 3 7, r, u, a"
    parts = ["3f", "3 7"]
    if rules.cells:
        parts += ["3c", "c2f", "c2 7"]
    if rules.redeals:
        parts.append("r")
    if rules.merci:
        parts.append("m 5H f")
    if rules.undo:
        parts.append("u")
    parts.append("a")
    return ", ".join(parts)


def quit_question(*, playing: bool, others: int) -> str:
    """The quit confirmation's text; ``others`` racers depend on this board's server."""
    question = "Resign from the race and quit?" if playing else "Quit the board?"
    if others:
        who = "1 other racer is" if others == 1 else f"{others} other racers are"
        question = (f"You host the local server and {who} still racing. "
                    + ("Resign and quit your board?" if playing else "Quit your board?")
                    + " The server keeps running in this terminal until their race is over "
                    "(Ctrl-C stops it and ends their race).")
    return question


def ready_refusal(room: RoomView | None, spectator: bool) -> str | None:
    """Why typing ``ready`` does nothing now, or ``None`` when it may be sent."""
    if spectator:
        return "spectators do not get ready; the racers start the race"
    if room is None:
        return "not connected yet"
    return {"countdown": "the race is about to start", "racing": "the race has already started",
            "over": "the race is over", "closed": "the room is closed"}.get(room.state)


class Controls:
    """Keyboard and mouse handling of the race board (a mixin of ``RaceApp``)."""

    selected: tuple[int, str | None] | None
    pending_move: str | None
    watched: str | None
    game: GameView | None

    def _input_hint(self: Board) -> str:
        """The input line's placeholder for this seat: what a spectator may type, or
        the key bar (:func:`help_line`); ``s start`` or ``ready`` while the room waits."""
        if not self.seat.racer:
            return "w NAME: watch that racer's board · q quit"
        waiting = self.room is None or self.room.state == "waiting"
        host = bool(self.seat.host_token)
        return "move: " + help_line(self.room.rules if self.room else None,
                                    host=waiting and host, ready=waiting and not host)

    async def on_input_submitted(self: Board, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        low = text.lower()
        if not text:
            return
        if low in ("q", "quit", "resign", "exit"):
            self._ask_quit()
        elif low == "rematch":
            if self.room is None or self.room.state not in ("over", "closed"):
                self.say("a rematch is offered once the race is over", "refused")
                return
            await self._rematch()
        elif low in ("s", "start"):
            await self._start()
        elif low.startswith("w ") and self.seat.racer is None:
            await self._watch(text[2:].strip())
        elif low.startswith("w ") and not self._may_watch():
            self.say("fair play: rivals' boards stay hidden while you race; once your "
                     "result is final, w NAME shows them as spectators see them (late)",
                     "refused")
        elif low.startswith("w "):
            await self._watch(text[2:].strip())
        elif low in ("ready", "unready"):
            why = ready_refusal(self.room, self.seat.racer is None)
            if why is not None:
                self.say(why, "refused")
                return
            await self.conn.ready(low == "ready")
            self.say("ready: the race starts when every racer is ready" if low == "ready"
                     else "not ready", "ok")
        elif self.seat.racer is None:
            self.say(SPECTATOR_MOVE, "refused")
        else:
            try:
                move = parse_move(text)
            except InvalidMoveError as exc:
                msg = str(exc)
                if msg.startswith("not a move"):
                    rules = self.room.rules if self.room is not None else None
                    msg = f"not a move: {text!r} (try {move_examples(rules)})"
                self.say(msg, "refused")
                return
            self._send(str(move))

    def _may_watch(self: Board) -> bool:
        """Whether this racer may watch others: their result is final, or the race
        is over (docs/protocol.md, "Fair play")."""
        me = self.racers.get(self.seat.racer or "")
        return (me is not None and me.final) or (
            self.room is not None and self.room.state in ("over", "closed"))

    async def _watch(self: Board, name: str) -> None:
        """Show racer ``name``'s board (``w NAME``): spectators (late during the
        race), racers once their own result is final."""
        racer = next((r for r in self.racers.values() if r.name.lower() == name.lower()), None)
        if racer is None:
            names = ", ".join(r.name for r in self.racers.values()) or "nobody yet"
            self.say(f"no racer {name!r} (racers: {names})", "refused")
            return
        self.watched = racer.id
        self.game = None
        await self._refresh_game()
        self.say(f"watching {racer.name}", "ok")
        self._render_all()

    def action_leave(self: Board) -> None:
        """Ctrl+Q or Ctrl+C: the same as typing ``q`` (once the question is up, nothing)."""
        if not isinstance(self.screen, ConfirmScreen):
            self._ask_quit()

    def _others_racing(self: Board) -> int:
        """Other racers (not the server's bots, nor those this command brought) whose
        race is not over yet: the bots stop with the server."""
        return sum(1 for r in self.racers.values()
                   if r.id != self.seat.racer and not r.bot and r.name not in self.own_bots
                   and not is_final(r))

    def _ask_quit(self: Board) -> None:
        me = self.racers.get(self.seat.racer or "")
        racing = self.room is not None and self.room.state in ("racing", "countdown")
        others = self._others_racing() if self.hosts_server and racing and not self.fatal else 0
        playing = me is not None and not is_final(me)
        if self.fatal or not racing or (not playing and not others):
            self.exit(1 if self.fatal else 0)
            return
        question = quit_question(playing=playing, others=others)

        def done(yes: bool | None) -> None:
            if yes:
                if playing:
                    self.run_worker(self._resign_and_exit(), exit_on_error=False)
                else:
                    self.exit(0)
        self.push_screen(ConfirmScreen(question), callback=done)

    async def _resign_and_exit(self: Board, *, status: int = 0,
                               wait_standings: bool = True) -> None:
        """Resign, then close the board with ``status``; ``wait_standings``: when
        this racer was the last one racing, wait a moment for the final standings."""
        if self.seat.racer and self.seat.token:
            with contextlib.suppress(ApiError):
                await self.client.resign(self.seat.room, self.seat.racer, self.seat.token)
            # the last racer out ends the race: wait a moment for its final standings
            # (a host's embedded server stops right after, so they may not be fetched later)
            last = not any(r.id != self.seat.racer and not is_final(r)
                           for r in self.racers.values())
            deadline = time.monotonic() + 2
            while (wait_standings and last and self.standings is None
                   and time.monotonic() < deadline):
                await asyncio.sleep(0.05)
        self.leaving = True  # no results screen now: the app is closing
        self.exit(status)

    async def _start(self: Board) -> None:
        if not self.seat.host_token:
            self.say("only the host can start the race", "refused")
            return
        try:
            await self.client.start(self.seat.room, self.seat.host_token)
        except ApiError as exc:
            self.say(f"cannot start: {exc.message}", "refused")

    # mouse ------------------------------------------------------------------
    def on_fan_clicked(self: Board, msg: FanClicked) -> None:
        game = self.game
        if game is None or self.seat.racer is None or game.status not in ("playing", "stuck"):
            return
        if msg.chain >= 2 and msg.top:
            self._clear_selection()
            self._send(f"{msg.fan}f")
            return
        if self.selected is not None:
            src, card = self.selected
            if str(msg.fan) in self.targets and msg.fan != src:
                self._clear_selection()
                self._send(f"m {card} {msg.fan}" if card else f"{src}-{msg.fan}")
                return
            if msg.fan == src:
                self._clear_selection()
                self.say("")
                return
        if msg.top:
            self.selected = (msg.fan, None)
            self.targets = targets_for(game.legal_moves, msg.fan)
            glyph = card_glyph(parse_card(msg.card or "AS"))
            if self.targets:
                self.say(f"{glyph}: click a highlighted place (double-click: foundation)")
            else:
                self.say(f"{glyph} has no legal move now", "refused")
        elif msg.card is not None:
            mt = merci_targets(game.legal_moves, msg.card)
            if mt:
                self.selected = (msg.fan, msg.card)
                self.targets = mt
                self.say(f"merci {card_glyph(parse_card(msg.card))}: click where it goes")
            else:
                self._clear_selection()
                self.say("only the top card of a fan can be played", "refused")
        self._render_board()

    def on_foundation_clicked(self: Board, _: FoundationClicked) -> None:
        if self.selected is None or "f" not in self.targets:
            return
        src, card = self.selected
        self._clear_selection()
        self._send(f"m {card} f" if card else f"{src}f")

    def _clear_selection(self: Board) -> None:
        self.selected = None
        self.targets = set()
        self._render_board()

    # moves ------------------------------------------------------------------
    def _send(self: Board, text: str) -> None:
        if self.seat.racer is None:
            self.say(SPECTATOR_MOVE, "refused")
            return
        if self.game is None:
            self.say("the race has not started yet", "refused")
            return
        if self.pending_move is not None:
            self.say(f"waiting for the server to answer {self.pending_move}…")
            return
        self.pending_move = text
        self.say(f"sent {text}…")
        self.run_worker(self._send_move(text, self.game.version), exit_on_error=False)

    async def _send_move(self: Board, text: str, version: int) -> None:
        try:
            ack = await self.conn.move(text, version)
        except MoveRefused as exc:
            self.say(f"{text} refused: {exc.message}", "refused")
            fresh = refused_game(exc)
            if fresh is not None:
                self._set_game(fresh)
        except ApiError as exc:
            self.say(f"{text} not sent: {exc.message}", "refused")
        else:
            self._set_game(ack.game)
            self.say(f"{' '.join(ack.applied) or text} ✓", "ok")
        finally:
            self.pending_move = None
            self._clear_selection()
            self._render_all()
