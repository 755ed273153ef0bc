"""The board after a race: the rematch and the series (docs/protocol.md,
"Rematch", "Series").

:class:`Follow` is mixed into :class:`~client_cli.board.app.RaceApp`. On the
results screen a racer presses ``r`` (or types ``rematch`` on the board) to
offer a rematch: the first offer makes the next room, later ones take a seat
in it. The board then closes with :attr:`~client_cli.board.app.RaceApp.next_seat`
set, and ``lucie play``/``join`` open the next room's board. A ``rematch``
event (another racer made the room) is shown on the results screen's key line.

In a series the results screen also shows the series' table; the next race's
room comes with the ``rematch`` event, the racer already in it: Enter goes on
at once, and the board goes on by itself shortly before that race starts;
q leaves the series (the racer leaves the next room).
"""

from __future__ import annotations

import contextlib
from typing import Any, Final

from ..api import ApiError
from .screens import ResultsScreen
from .state import Board, Seat

__all__ = ["GO_ON_BEFORE_S", "Follow"]

GO_ON_BEFORE_S: Final = 2.0
"""In a series, the board goes on to the next race this long before it starts."""


class Follow:
    """Rematch handling of the race board (a mixin of ``RaceApp``)."""

    next_seat: Seat | None
    series_seat: Seat | None

    def _after_results(self: Board, choice: str | None) -> None:
        """The results screen closed: leave, (r) offer a rematch, or (Enter, in a
        series) go on to the next race; q in a series leaves it."""
        if choice == "rematch":
            self.run_worker(self._rematch(), exit_on_error=False)
        elif choice == "next" and self.series_seat is not None:
            self.next_seat = self.series_seat
            self.leaving = True
            self.exit(0)
        elif self.series_seat is not None:
            self.run_worker(self._leave_series(), exit_on_error=False)
        else:
            self.exit(0)

    async def _leave_series(self: Board) -> None:
        """q in a series: leave its next room (scoring 0 from then on), then close."""
        seat = self.series_seat
        if seat is not None and seat.racer and seat.token:
            with contextlib.suppress(ApiError):
                await self.client.leave(seat.room, seat.racer, seat.token)
        self.exit(0)

    async def _show_series(self: Board) -> None:
        """The series' table on the results screen (a series room's race is over)."""
        series = self.room.series if self.room is not None else None
        if series is None:
            return
        with contextlib.suppress(ApiError):
            view = await self.client.series(series.id)
            screen = self.screen
            if isinstance(screen, ResultsScreen):
                screen.show_series(view)

    async def _series_goes_on(self: Board, link: dict[str, Any]) -> bool:
        """A ``rematch`` event of a series: when this racer is in the next race's
        room, offer to go on (and go by itself before its start); ``True`` then."""
        if self.seat.racer is None:
            return False
        try:
            room = await self.client.get_room(str(link.get("room")))
        except ApiError:
            return False
        if room.racer(self.seat.racer) is None or room.series is None:
            return False
        self.series_seat = Seat(self.seat.url, room.id, self.seat.racer, self.seat.token,
                                self.seat.host_token)
        starts = (room.starts_in_ms or 0) / 1000
        text = f"race {room.series.race} of {room.series.races} starts in {round(starts)} s"
        screen = self.screen
        if isinstance(screen, ResultsScreen):
            screen.series_goes_on(text)
        else:
            self.say(f"{text}: Enter on the results goes on", "ok")
        self.set_timer(max(0.0, starts - GO_ON_BEFORE_S), self._go_on)
        return True

    def _go_on(self: Board) -> None:
        """The next race of the series is about to start: go on to its board."""
        screen = self.screen
        if isinstance(screen, ResultsScreen) and self.series_seat is not None:
            screen.dismiss("next")

    async def _rematch_offered(self: Board, data: dict[str, Any]) -> None:
        """A ``rematch`` event: the next room exists; say who made it."""
        link = data.get("rematch")
        if not isinstance(link, dict):
            return
        if data.get("series") and await self._series_goes_on(link):
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
