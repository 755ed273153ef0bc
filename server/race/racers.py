"""Racer actions of the race authority: join, ready, leave (or the host's kick),
resign, a focus loss, and a racer's token for a WebSocket (docs/protocol.md, "REST").

Each action is a command applied by the one decide-and-apply loop
(:mod:`server.race.apply`); its decision, with its checks in the authority's
order, is in :mod:`server.race.decide_racer`. This module draws the racer's
id and token and answers the outcome.
"""

from __future__ import annotations

import contextlib

from . import errors as err
from .apply import Applier
from .commands import FocusLost, Forget, Join, Leave, Ready, Resign, TakeQuickSeat
from .ids import new_racer_id, new_token, token_digest, token_matches
from .state import RoomRecord
from .views import RacerView

__all__ = ["Racers"]


class Racers:
    """Joining, readiness, leaving and results made final by the racer."""

    def __init__(self, applier: Applier) -> None:
        self.applier = applier

    async def join(self, ref: str, name: str, player: str | None = None,
                   bot: bool = False, *, bot_level: str | None = None,
                   bot_seed: int | None = None) -> tuple[RacerView, str]:
        """Join a waiting room → the racer's view and secret token. ``player``:
        the player id the racer races as (the caller checked the player's key;
        ``name`` is then the player's name), ``None``: anonymous; ``bot``: a
        computer racer of the server (``server.race.bots``) of ``bot_level``
        with its ``bot_seed`` (kept with the racer). In a quick-race
        lobby the same write sets the lobby's next deadline (in the store's timer
        index first), or starts the countdown when the racer fills it.

        :raises RoomNotFound, RoomNotWaiting, RoomFull, RequestInvalid, RacerNameTaken:
        """
        view, token, _, _ = await self.seat(ref, name, player, bot, bot_level=bot_level,
                                            bot_seed=bot_seed)
        return view, token

    async def seat(self, ref: str, name: str, player: str | None = None, bot: bool = False,
                   *, quick: bool = False, bot_level: str | None = None,
                   bot_seed: int | None = None) -> tuple[RacerView, str, RoomRecord, int]:
        """:meth:`join`, also answering the room record as written and the service
        clock then (ms): a quick race answers the room without reading it again
        (``quick``: the room must be a quick-race lobby, :class:`TakeQuickSeat`).

        :raises RoomNotFound, RoomNotWaiting, RoomFull, RequestInvalid, RacerNameTaken:
        """
        token = new_token()
        kind = TakeQuickSeat if quick else Join
        done = await self.applier.apply(kind(ref, name, new_racer_id(), token_digest(token),
                                             player, bot, bot_level, bot_seed))
        view, room = done.reply
        return view, token, room, done.now

    async def forget_racer(self, ref: str, racer_id: str, name: str) -> None:
        """A forgotten player's racer (docs/players.md): in its live room, while
        that lasts, it takes ``name`` and is no longer linked to the player. No
        room (expired, archived only) or no such racer: nothing to do.

        :raises StoreError:
        """
        with contextlib.suppress(err.RoomNotFound):
            await self.applier.apply(Forget(ref, racer_id, name))

    async def set_ready(self, ref: str, racer_id: str, token: str | None,
                        ready: bool) -> RacerView:
        """Mark a racer (not) ready; when every racer is ready the countdown starts.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotWaiting:
        """
        view: RacerView = (await self.applier.apply(Ready(ref, racer_id, token, ready))).reply
        return view

    async def leave(self, ref: str, racer_id: str, token: str | None) -> None:
        """The racer leaves (their token) or the host kicks them (host token).
        Before the start (countdown included) the racer is removed — the last
        one leaving, computer racers aside, cancels the countdown; during the race their result
        becomes final with status ``left``.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomOver, RacerFinished:
        """
        await self.applier.apply(Leave(ref, racer_id, token))

    async def resign(self, ref: str, racer_id: str, token: str | None) -> RacerView:
        """The racer concedes: their result becomes final as it stands.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotRacing, RoomOver, RacerFinished:
        """
        view: RacerView = (await self.applier.apply(Resign(ref, racer_id, token))).reply
        return view

    async def focus_lost(self, ref: str, racer_id: str, token: str | None) -> None:
        """The racer's page lost focus: counted on their record while they race
        (at most one a second, 1,000 in all), else nothing; never shown
        (:func:`~server.race.decide_racer.decide_focus_lost`).

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken, AuthForbidden:
        """
        await self.applier.apply(FocusLost(ref, racer_id, token))

    async def authenticate(self, ref: str, token: str) -> tuple[str, str]:
        """``(room id, racer id)`` of a racer's token, for a WebSocket.

        :raises RoomNotFound, AuthInvalidToken:
        """
        room, _, _ = await self.applier.read(ref)
        for e in room.roster:
            if token_matches(token, e.token_digest):
                return room.id, e.id
        raise err.AuthInvalidToken("the token is not a racer's of this room")
