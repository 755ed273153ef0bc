"""What the race board shows: the status line, the banner, the table and the message line.

:class:`Rendering` is mixed into :class:`~client_cli.board.app.RaceApp`. It
only draws the state the app holds (the room, the racers, the game the
server last acknowledged, the connection note); it never changes it, except
for remembering which table the fan widgets show.
"""

from __future__ import annotations

import time

from ..api import RoomView
from ..common import lucie_command_for, room_link
from .model import GHOST_MARK, fit_parts, fmt_clock, points, rank_racers, status_text
from .state import Board
from .widgets import FanView

__all__ = ["ERROR_HOLD_S", "GO_HOLD_S", "Rendering"]


ERROR_HOLD_S = 5.0
"""How long an error (``refused``) stays in the message line against the
spectator's delay note (a command's answer replaces it at once)."""

GO_HOLD_S = 3.0
"""How long "Go!" stays in the message line at the start (a move's answer
replaces it sooner)."""


class Rendering:
    """Drawing the race board (a mixin of ``RaceApp``; see the module docstring)."""

    _fans_key: tuple[tuple[str, ...], ...] | None
    error_until = 0.0
    """Until when (monotonic) the message line's error is kept from the delay note."""
    fade_until = 0.0
    """When (monotonic) the message line's passing note goes; 0: it stays."""

    def say(self: Board, text: str, kind: str = "", *, fade_s: float = 0.0) -> None:
        """Show ``text`` in the message line (``kind``: ``refused``, ``ok`` or plain);
        ``fade_s``: a passing note, gone after that many seconds unless replaced."""
        msg = self.w_message
        msg.set_classes(kind)
        msg.update(text)
        self.error_until = time.monotonic() + ERROR_HOLD_S if kind == "refused" else 0.0
        self.fade_until = time.monotonic() + fade_s if fade_s else 0.0

    def _watch_note(self: Board, note: str) -> None:
        """Tell a spectator, once per change, how the watched board is shown; not
        over an error said less than :data:`ERROR_HOLD_S` ago (it comes after)."""
        if time.monotonic() < self.error_until:
            return
        if note and note != self.watch_note:
            self.say(note, "refused" if "hidden" in note else "ok")
        elif not note and self.watch_note:  # live now: the race is over
            self.say("")
        self.watch_note = note

    def _clock_ms(self: Board) -> int | None:
        if self.clock_base is None:
            return None
        base, t0 = self.clock_base
        if self.room is not None and self.room.state != "racing":
            return base
        return base + int((time.monotonic() - t0) * 1000)

    def _tick(self: Board) -> None:
        if self.fade_until and time.monotonic() >= self.fade_until:
            self.say("")
        self._render_status()
        self._render_banner()

    def _render_all(self: Board) -> None:
        self._render_status()
        self._render_banner()
        self._render_board()
        room = self.room
        total = room.rules.decks * 52 if room else 52
        self.w_opponents.show(rank_racers(self.racers.values()), self.seat.racer,
                                            total)

    def _render_status(self: Board) -> None:
        room = self.room
        if room is None:
            self.w_status.update(f"{self.seat.room} · {self.connection_note}")
            return
        deal = room.deal_number or self.host_deal or "?"  # the host knows it before the start
        # (weight, text): what does not fit the line goes, the lowest weight first
        parts = [(9, f"room {room.code}"), (3, f"deal {deal}"),
                 (2, room.rules.name or room.rules.variant),
                 (9, f"{fmt_clock(self._clock_ms())} / {fmt_clock(room.time_limit_ms)}")]
        if self.seat.racer:
            ranked = [r.id for r in rank_racers(self.racers.values())]
            if self.seat.racer in ranked and room.state not in ("waiting", "countdown"):
                me = self.racers[self.seat.racer]
                parts.append((9, f"rank {ranked.index(me.id) + 1}/{len(ranked)} "
                                 f"({points(me)} pts)"))
        else:
            name = self.racers[self.watched].name if self.watched in self.racers else "—"
            parts.append((9, f"watching {name}"))
            if self.game is not None and self.game.delay_ms:
                parts.append((8, f"{self.game.delay_ms // 1000} s behind"))
        if self.game is not None:
            parts.append((6, f"redeals left {self.game.redeals_left}"))
            if room.rules.merci:
                merci = "left" if not self.game.position.merci_used else "used"
                parts.append((5, f"merci {merci}"))
            parts.append((7, f"moves {self.game.moves}"))
        parts.append((1 if self.connection_note == "live" else 9, self.connection_note))
        width = self.w_status.content_size.width or 1_000  # 1 000: not laid out yet
        self.w_status.update(fit_parts(parts, width))

    def _render_banner(self: Board) -> None:
        room = self.room
        text = ""
        if self.fatal:
            text = self.fatal
        elif self.connection_note.startswith("reconnecting"):
            text = f"Connection lost: {self.connection_note} The board shows the last state."
        elif room is None:
            text = "connecting…"
        elif room.state == "waiting" and room.quick is not None:
            text = quick_banner(room, len(self.racers), self.quick_until, self.seat.url)
        elif room.state == "waiting":
            if self.seat.host_token:
                who = "type s and Enter to start"
            elif self.seat.racer and any(r.name.startswith(GHOST_MARK)
                                         for r in self.racers.values()):
                who = "type ready and Enter to race: the ghost gets ready with you"
            elif self.seat.racer:
                who = "waiting for the host (or type ready and Enter)"
            else:
                who = "waiting for the host to start"
            text = (f"Room code {room.code} — {who} — others join with: "
                    f"{lucie_command_for(self.seat.url, 'join', room.code)}, or in a browser: "
                    f"{room_link(self.seat.url, room.code)}")
        elif room.state == "countdown" and self.countdown_until is not None:
            left = max(0.0, self.countdown_until - time.monotonic())
            text = f"Starting in {int(left) + 1}…" if left > 0 else "Starting…"
        elif room.state == "over":
            text = "Race over."
        elif self.game is not None and self.game.status != "playing" \
                and self.game.racer != self.seat.racer:  # watching someone else
            who = self.racers[self.game.racer].name if self.game.racer in self.racers else "—"
            text = f"{who}: {status_text(self.game.status)}."
        elif self.game is not None and self.game.status != "playing":
            text = {"won": "You won the deal!", "stuck": "Stuck: undo (u) or resign (q)."}.get(
                self.game.status,
                f"Your race is over ({status_text(self.game.status)}); waiting for others.")
        self.w_banner.update(text)

    def _render_board(self: Board) -> None:
        game = self.game
        found = self.w_foundations
        if game is None:
            found.show([("C", 0), ("D", 0), ("H", 0), ("S", 0)])
            return
        found.show(game.position.foundations)
        found.set_class("f" in self.targets, "target")
        key = tuple(tuple(f) for f in game.position.fans)
        if key != self._fans_key:
            self._fans_key = key
            self.run_worker(self._sync_fans(key), group="fans", exit_on_error=False)
        self._mark_fans()

    async def _sync_fans(self: Board, fans: tuple[tuple[str, ...], ...]) -> None:
        """Make the fan widgets show ``fans`` (one at a time: removal before mounting)."""
        async with self._fans_lock:
            if fans != self._fans_key:
                return  # a newer table is on its way
            container = self.w_fans
            views = list(container.query(FanView))
            if len(views) != len(fans):
                await container.remove_children()
                await container.mount_all([FanView(i + 1, list(f)) for i, f in enumerate(fans)])
            else:
                for view, cards in zip(views, fans, strict=True):
                    await view.show(list(cards))
            self._mark_fans()

    def _mark_fans(self: Board) -> None:
        selected = self.selected[0] if self.selected else None
        for view in self.w_fans.query(FanView):
            view.set_class(view.fan == selected, "selected")
            view.set_class(str(view.fan) in self.targets, "target")


def quick_banner(room: RoomView, racers: int, until: float | None, url: str) -> str:
    """The waiting line of a quick-race lobby (docs/protocol.md, "Quick race") on the
    server at ``url``."""
    quick = room.quick
    left = "" if until is None else f"{int(max(0.0, until - time.monotonic())) + 1} s"
    if quick is not None and quick.starts_in_ms is not None:
        when = f"starts in {left} (at once when {room.capacity} are in)"
    elif quick is not None and quick.bots_in_ms is not None:
        when = f"computer racers join in {left} if nobody comes"
    else:
        when = "waiting for racers"
    return (f"Quick race {room.code} — {racers}/{room.capacity} racers — {when} — others "
            f"join with: {lucie_command_for(url, 'quick', '--variant', room.rules.variant)}, "
            f"or in a browser: {room_link(url, room.code)}")
