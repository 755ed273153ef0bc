"""The board after a race: the rematch (docs/protocol.md, "Rematch").

:class:`Follow` is mixed into :class:`~client_cli.board.app.RaceApp`. On the
results screen a racer presses ``r`` (or types ``rematch`` on the board) to
offer a rematch: the first offer makes the next room, later ones take a seat
in it. The board then closes with :attr:`~client_cli.board.app.RaceApp.next_seat`
set, and ``lucie play``/``join`` open the next room's board. A ``rematch``
event (another racer made the room) is shown on the results screen's key line.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..api import ApiError
from .screens import ResultsScreen
from .state import Board, Seat

__all__ = ["Follow"]


class Follow:
    """Rematch handling of the race board (a mixin of ``RaceApp``)."""

    next_seat: Seat | None

    def _after_results(self: Board, choice: str | None) -> None:
        """The results screen closed: leave, or (r) offer a rematch."""
        if choice == "rematch":
            self.run_worker(self._rematch(), exit_on_error=False)
        else:
            self.exit(0)

    async def _rematch_offered(self: Board, data: dict[str, Any]) -> None:
        """A ``rematch`` event: the next room exists; say who made it."""
        link = data.get("rematch")
        if not isinstance(link, dict):
            return
        by = "a racer"
        with contextlib.suppress(ApiError):
            room = await self.client.get_room(str(link.get("room")))
            if room.racers:
                by = room.racers[0].name
        screen = self.screen
        if isinstance(screen, ResultsScreen):
            screen.rematch_offered(by)
        elif self.seat.racer is not None:
            self.say(f"{by} offers a rematch in room {link.get('code')}: "
                     "type rematch and Enter to join it", "ok")

    async def _rematch(self: Board) -> None:
        """Offer a rematch, then close the board: the caller opens the next
        room's board (:attr:`next_seat`)."""
        if self.seat.racer is None or self.seat.token is None:
            self.say("spectators do not rematch; watch the next room instead", "refused")
            return
        self.say("offering a rematch…")
        try:
            seat = await self.client.rematch(self.seat.room, self.seat.token)
        except ApiError as exc:
            self.say(f"no rematch: {exc.message} (q leaves)", "refused")
            self._render_all()
            return
        host = seat.host_token
        if host is None and seat.room.series is not None and seat.room.series.race > 1:
            host = self.seat.host_token  # a series keeps its host (and the host token)
        self.next_seat = Seat(self.seat.url, seat.room.id, seat.racer.id, seat.token, host)
        self.leaving = True
        self.exit(0)
