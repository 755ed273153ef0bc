"""Racer actions of the race authority: join, ready, leave (or the host's kick),
resign, and a racer's token for a WebSocket (docs/protocol.md, "REST").

Each checks in the authority's order (auth → room → state → save → publish)
and changes nothing when it refuses.
"""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from server.errors import VersionConflict
from server.store.base import LiveStore

from . import errors as err
from . import journal, present
from .access import authorize, check_racing
from .cache import RaceCache
from .events import FinishedEvent, JoinedEvent, LeftEvent, ReadyEvent
from .ids import check_name, new_racer_id, new_token, same_name, token_digest, token_matches
from .rooms import Rooms
from .state import RoomRecord, RosterEntry
from .timers import RETRIES, Timers, deadline
from .views import RacerView

__all__ = ["Racers"]


class Racers:
    """Joining, readiness, leaving and results made final by the racer."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms,
                 timers: Timers) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.timers = timers

    async def join(self, ref: str, name: str, player: str | None = None,
                   bot: bool = False) -> tuple[RacerView, str]:
        """Join a waiting room → the racer's view and secret token. ``player``:
        the player id the racer races as (the caller checked the player's key;
        ``name`` is then the player's name), ``None``: anonymous; ``bot``: a
        computer racer of the server (``server.race.bots``). In a quick-race
        lobby the same write sets the lobby's next deadline (in the store's timer
        index first), or starts the countdown when the racer fills it.

        :raises RoomNotFound, RoomNotWaiting, RoomFull, RequestInvalid, RacerNameTaken:
        """
        view, token, _, _ = await self.seat(ref, name, player, bot)
        return view, token

    async def seat(self, ref: str, name: str, player: str | None = None, bot: bool = False
                   ) -> tuple[RacerView, str, RoomRecord, int]:
        """:meth:`join`, also answering the room record as written and the service
        clock then (ms): a quick race answers the room without reading it again.

        :raises RoomNotFound, RoomNotWaiting, RoomFull, RequestInvalid, RacerNameTaken:
        """
        try:
            name = check_name(name)
        except ValueError as exc:
            raise err.RequestInvalid(str(exc), {"field": "name"}) from None
        token = new_token()
        for _ in range(RETRIES):
            room, rev, now = await self.timers.load(ref)
            if room.state != "waiting":
                why = {"countdown": "the race is about to start",
                       "racing": "the race has already started"}.get(
                    room.state, f"the room is {room.state}")
                raise err.RoomNotWaiting(f"{why}: spectate instead", {"state": room.state})
            if len(room.roster) >= room.capacity:
                raise err.RoomFull(f"the room holds {room.capacity} racers")
            if any(same_name(e.name, name) for e in room.roster):
                raise err.RacerNameTaken(f"{name!r} is taken in this room", {"name": name})
            if player is not None and any(e.player == player for e in room.roster):
                raise err.RacerNameTaken("this player races in this room already",
                                         {"name": name})
            entry = RosterEntry(id=new_racer_id(), name=name, join_order=room.joins + 1,
                                token_digest=token_digest(token), player=player, bot=bot)
            new = room.model_copy(update={"roster": [*room.roster, entry],
                                          "joins": room.joins + 1})
            if new.quick is not None:
                new = new.model_copy(update={"quick": new.quick.joined(len(new.roster), now)})
            view = self.rooms.racer_view(new, entry, None)
            events = [JoinedEvent(race_clock_ms=present.race_clock(new, now),
                                  racer=view).logged()]
            try:
                if new.quick is not None and len(new.roster) >= new.capacity:
                    # a full quick-race lobby starts in the join's own write
                    new = await self.timers.countdown(new, rev, now, events)
                else:
                    at = deadline(new)
                    if at is not None and at != deadline(room):  # a quick lobby's next step
                        await self.store.indexes.set_timer(room.id, at)  # before the write
                    await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev,
                                                     events)
            except VersionConflict:
                continue
            fresh = self.cache.fresh(new, entry.id)
            with contextlib.suppress(VersionConflict):
                await self.store.racers.save_racer(room.id, entry.id,
                                                   fresh.model_dump(mode="json"), 0)
            return view, token, new, now
        raise VersionConflict("room too busy")

    async def forget_racer(self, ref: str, racer_id: str, name: str) -> None:
        """A forgotten player's racer (docs/players.md): in its live room, while
        that lasts, it takes ``name`` and is no longer linked to the player. No
        room (expired, archived only) or no such racer: nothing to do.

        :raises StoreError:
        """
        for _ in range(RETRIES):
            try:
                room, rev, _ = await self.timers.load(ref)
            except err.RoomNotFound:
                return
            entry = room.entry(racer_id)
            if entry is None or (entry.player is None and entry.name == name):
                return
            roster = [e.model_copy(update={"name": name, "player": None}) if e.id == racer_id
                      else e for e in room.roster]
            new = room.model_copy(update={"roster": roster})
            try:
                await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev, [])
                return
            except VersionConflict:
                continue
        raise VersionConflict("room too busy")

    async def set_ready(self, ref: str, racer_id: str, token: str | None,
                        ready: bool) -> RacerView:
        """Mark a racer (not) ready; when every racer is ready the countdown starts.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotWaiting:
        """
        if not token:
            raise err.AuthMissing("this call needs the racer's token")
        for _ in range(RETRIES):
            room, rev, now = await self.timers.load(ref)
            entry = authorize(room, racer_id, token)
            if room.state != "waiting":
                raise err.RoomNotWaiting(f"the room is {room.state}", {"state": room.state})
            roster = [e.model_copy(update={"ready": ready}) if e.id == racer_id else e
                      for e in room.roster]
            new = room.model_copy(update={"roster": roster})
            events = [ReadyEvent(race_clock_ms=present.race_clock(new, now), racer=racer_id,
                                 ready=ready).logged()]
            try:
                if all(e.ready for e in roster):
                    new = await self.timers.countdown(new, rev, now, events)
                else:
                    await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev,
                                                     events)
            except VersionConflict:
                continue
            entry = new.entry(racer_id) or entry
            return self.rooms.racer_view(new, entry, None)
        raise VersionConflict("room too busy")

    async def leave(self, ref: str, racer_id: str, token: str | None) -> None:
        """The racer leaves (their token) or the host kicks them (host token).
        Before the start (countdown included) the racer is removed — the last
        one leaving, computer racers aside, cancels the countdown; during the race their result
        becomes final with status ``left``.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomOver:
        """
        if not token:
            raise err.AuthMissing("this call needs the racer's or the host's token")
        for _ in range(RETRIES):
            room, rev, now = await self.timers.load(ref)
            if not token_matches(token, room.host_digest):
                authorize(room, racer_id, token)
            elif room.entry(racer_id) is None:
                raise err.RacerNotFound(f"no racer {racer_id!r} in this room")
            if room.state in ("over", "closed"):
                raise err.RoomOver(f"the room is {room.state}")
            if room.state in ("waiting", "countdown"):
                roster = [e for e in room.roster if e.id != racer_id]
                update: dict[str, Any] = {"roster": roster}
                if all(e.bot for e in roster):
                    # the last racer (computer racers are nobody to race for) left
                    # during the countdown: cancel it
                    update.update(state="waiting", start_at_ms=None)
                new = room.model_copy(update=update)
                try:
                    at = deadline(new)
                    if at is not None and at != deadline(room):  # a quick lobby's next step
                        await self.store.indexes.set_timer(room.id, at)
                    left = LeftEvent(race_clock_ms=present.race_clock(new, now),
                                     racer=racer_id).logged()
                    await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev,
                                                     [left])
                except VersionConflict:
                    continue
                if new.state == "waiting" and room.start_at_ms is not None:
                    await self.store.indexes.clear_timer(room.id, room.start_at_ms)  # cancelled
                return
            await self._finish(ref, racer_id, "left")
            return
        raise VersionConflict("room too busy")

    async def resign(self, ref: str, racer_id: str, token: str | None) -> RacerView:
        """The racer concedes: their result becomes final as it stands.

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotRacing, RoomOver, RacerFinished:
        """
        if not token:
            raise err.AuthMissing("this call needs the racer's token")
        room, _, _ = await self.timers.load(ref)
        authorize(room, racer_id, token)
        return await self._finish(ref, racer_id, "resigned")

    async def authenticate(self, ref: str, token: str) -> tuple[str, str]:
        """``(room id, racer id)`` of a racer's token, for a WebSocket.

        :raises RoomNotFound, AuthInvalidToken:
        """
        room, _, _ = await self.timers.load(ref)
        for e in room.roster:
            if token_matches(token, e.token_digest):
                return room.id, e.id
        raise err.AuthInvalidToken("the token is not a racer's of this room")

    async def _finish(self, ref: str, racer_id: str,
                      status: Literal["resigned", "left"]) -> RacerView:
        """Make the racer's result final as ``status`` at the race clock now, then
        end the race if every result is final."""
        for _ in range(RETRIES):
            room, _, now = await self.timers.load(ref)
            check_racing(room)
            racer, rev = self.rooms.racer_of(room, racer_id,
                                             await self.store.racers.get_racer(room.id, racer_id))
            if racer.final:
                raise err.RacerFinished(f"the result is already final ({racer.status})")
            clock = present.race_clock(room, now) or 0
            done = racer.model_copy(update={"status": status, "final": True,
                                            "finished_ms": clock})
            events = [FinishedEvent(race_clock_ms=present.race_clock(room, now), racer=racer_id,
                                    status=status).logged()]
            if status == "left":
                events.insert(0, LeftEvent(race_clock_ms=present.race_clock(room, now),
                                           racer=racer_id).logged())
            try:
                await self.store.racers.save_racer(room.id, racer_id, done.model_dump(mode="json"),
                                                   rev, events=events)
            except VersionConflict:
                continue
            journal.racer_final(room.id, done)
            self.cache.forget((room.id, racer_id))
            await self.timers.end_race(room.id)
            entry = room.entry(racer_id)
            assert entry is not None
            return self.rooms.racer_view(room, entry, done)
        raise VersionConflict("racer too busy")
