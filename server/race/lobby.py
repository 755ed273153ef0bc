"""Room and racer actions of the race authority: create, list, start, close,
join, ready, leave/kick, resign, authenticate (docs/protocol.md, "REST")."""

from __future__ import annotations

import contextlib
import secrets
from typing import Any, Literal

from server.errors import VersionConflict
from server.rules import (
    RulesError,
    RuleSet,
    new_game,
)
from server.rules.daily import daily_deal, utc_date
from server.store.base import LiveStore

from . import errors as err
from . import present
from .access import authorize, authorize_host, check_racing
from .assist import Assist, draw_winnable_deal
from .cache import RaceCache
from .events import (
    ClosedEvent,
    CountdownEvent,
    CreatedEvent,
    FinishedEvent,
    JoinedEvent,
    LeftEvent,
    RaceOverEvent,
    ReadyEvent,
    StartedEvent,
)
from .ids import (
    check_name,
    new_code,
    new_racer_id,
    new_room_id,
    new_token,
    random_deal_number,
    token_digest,
    token_matches,
)
from .options import RoomOptions
from .rooms import Rooms
from .state import RoomRecord, RosterEntry
from .timers import RETRIES, RaceConfig, Timers, deadline
from .views import (
    RacerView,
    RoomView,
)

__all__ = ["Lobby"]


class Lobby:
    """Room and racer actions; each checks auth → room → state → save → publish."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms, timers: Timers,
                 assist: Assist, config: RaceConfig) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.timers = timers
        self.assist = assist
        self.config = config

    # -- rooms -------------------------------------------------------------------

    async def create_room(self, options: RoomOptions) -> tuple[RoomView, str]:
        """A new room in state ``waiting`` → its view and the host token.

        :raises RequestInvalid: unknown variant, bad overrides or ranges.
        """
        try:
            rules = RuleSet.from_json({"variant": options.variant}).with_overrides(
                redeals=options.redeals, merci=options.merci, undo=options.undo)
        except RulesError as exc:
            raise err.RequestInvalid(str(exc), {"field": "variant"}) from None
        if not 1 <= options.capacity <= 64:
            raise err.RequestInvalid("capacity is 1…64", {"field": "capacity"})
        if not 10 <= options.time_limit_s <= 4 * 3600:
            raise err.RequestInvalid("time_limit_s is 10…14400", {"field": "time_limit_s"})
        if not 0 <= options.countdown_s <= 60:
            raise err.RequestInvalid("countdown_s is 0…60", {"field": "countdown_s"})
        now = await self.store.clock.now_ms()
        if options.deal == "random":
            deal_number = random_deal_number()
        elif options.deal == "daily":
            deal_number = daily_deal(options.variant, utc_date(now))
        else:
            deal_number = options.deal
        try:
            new_game(rules, deal_number, b"")
        except RulesError as exc:
            raise err.RequestInvalid(str(exc), {"field": "deal"}) from None
        redeal_key = options.redeal_key or secrets.token_bytes(32)
        if options.winnable_only:
            deal_number, redeal_key = await draw_winnable_deal(
                self.assist.solver, rules, None if options.deal == "random" else deal_number)
        host_token = new_token()
        room_id = new_room_id()
        code = new_code()
        while not await self.store.rooms.claim_code(code, room_id):
            code = new_code()
        room = RoomRecord(
            id=room_id, code=code, rules=rules.to_json(), deal_number=deal_number,
            redeal_key=redeal_key.hex(), ranked=options.ranked,
            hints=options.hints, winnable_only=options.winnable_only,
            par=rules.cards if options.winnable_only else None,
            capacity=options.capacity,
            time_limit_ms=options.time_limit_s * 1000, visibility=options.visibility,
            countdown_ms=options.countdown_s * 1000, host_digest=token_digest(host_token),
            created_ms=now,
        )
        await self.store.rooms.save_room(room_id, room.model_dump(mode="json"), 0,
                                         [CreatedEvent(race_clock_ms=present.race_clock(room, now),
                                                      code=code).logged()])
        await self.store.rooms.expire_room(room_id, self.config.waiting_ttl_ms)
        if room.visibility == "public":
            await self.store.indexes.add_to_lobby(room_id, now + self.config.waiting_ttl_ms)
        return await self.rooms.room_view(room, now, {}), host_token

    async def get_room(self, ref: str) -> RoomView:
        """The room by id or code. :raises RoomNotFound:"""
        room, _, now = await self.timers.load(ref)
        return await self.rooms.room_view(room, now)

    async def list_rooms(self, limit: int = 100) -> list[RoomView]:
        """Public rooms waiting for racers with a free seat, newest first, at
        most ``limit``.

        Reads the lobby index (:meth:`RoomIndexes.lobby_room_ids`: public rooms
        that have not raced, closed or expired), not every stored room: the
        rooms of an hour of races no longer slow it down. Listed rooms that race, are
        over or closed, or are gone are taken off the index; a full room, or
        one in its countdown, stays listed but unshown (a racer may leave).
        """
        now = await self.store.clock.now_ms()
        rooms: list[RoomRecord] = []
        stale: list[str] = []
        for room_id in await self.store.indexes.lobby_room_ids():
            got = await self.store.rooms.get_room(room_id)
            room = None if got is None else RoomRecord.model_validate(got.data)
            if room is None or room.state not in ("waiting", "countdown"):
                stale.append(room_id)
            elif room.state == "waiting" and len(room.roster) < room.capacity:
                rooms.append(room)
                if len(rooms) == limit:
                    break
        await self.store.indexes.remove_from_lobby(stale)
        return [await self.rooms.room_view(r, now, {}) for r in rooms]

    async def start(self, ref: str, host_token: str | None) -> RoomView:
        """Host starts the countdown; the race starts ``countdown_ms`` later.

        Idempotent: in ``countdown`` or ``racing`` (the host already started, or
        every racer was ready) it changes nothing and returns the room.

        :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomOver, RoomNoRacers:
        """
        if not host_token:
            raise err.AuthMissing("starting needs the host token")
        for _ in range(RETRIES):
            room, rev, now = await self.timers.load(ref)
            authorize_host(room, host_token)
            if room.state in ("countdown", "racing"):
                return await self.rooms.room_view(room, now)
            if room.state != "waiting":
                raise err.RoomOver(f"the room is {room.state}", {"state": room.state})
            if not room.roster:
                raise err.RoomNoRacers("nobody has joined yet")
            try:
                new = await self._countdown(room, rev, now, [])
            except VersionConflict:
                continue
            return await self.rooms.room_view(new, now, {})
        raise VersionConflict("room too busy")

    async def _countdown(self, room: RoomRecord, rev: int, now: int,
                         events: list[dict[str, Any]]) -> RoomRecord:
        new = room.model_copy(update={"state": "countdown",
                                      "start_at_ms": now + room.countdown_ms})
        events = [*events, CountdownEvent(race_clock_ms=present.race_clock(new, now),
                                          starts_in_ms=room.countdown_ms).logged()]
        if room.countdown_ms == 0:
            new = new.model_copy(update={"state": "racing"})
            events.append(StartedEvent(deal_number=room.deal_number).logged())
        at = deadline(new)
        assert at is not None
        await self.store.indexes.set_timer(room.id, at)  # before the write: never missing
        await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev, events)
        ttl = room.countdown_ms + room.time_limit_ms + self.config.ended_ttl_ms + 60_000
        await self.store.rooms.expire_room(room.id, ttl)
        if new.state == "racing":
            await self.rooms.off_lobby(new)
        return new

    async def close(self, ref: str, host_token: str | None) -> RoomView:
        """Host closes the room: no more moves; everything expires later.

        :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomOver:
        """
        if not host_token:
            raise err.AuthMissing("closing needs the host token")
        for _ in range(RETRIES):
            room, rev, now = await self.timers.load(ref)
            authorize_host(room, host_token)
            if room.state in ("over", "closed"):
                raise err.RoomOver(f"the room is already {room.state}")
            if room.state != "racing":  # before the start: the room just closes
                new = room.model_copy(update={"state": "closed", "ended_ms": None})
                events = [ClosedEvent(race_clock_ms=present.race_clock(new, now)).logged()]
                views = None
            else:  # during the race: every result becomes final now, then race_over
                clock = present.race_clock(room, now) or 0
                racers = await self.rooms.racers(room)
                for entry in room.roster:
                    racer = racers.get(entry.id)
                    if racer is None or not racer.final:
                        racers[entry.id] = await self.timers.time_out(room, entry.id, now,
                                                                      at_ms=clock)
                new = room.model_copy(update={"state": "closed", "ended_ms": now})
                views = [self.rooms.racer_view(new, e, racers.get(e.id)) for e in room.roster]
                table = present.standings(new, views)
                events = [RaceOverEvent(race_clock_ms=present.race_clock(new, now),
                                        **table.model_dump()).logged(),
                          ClosedEvent(race_clock_ms=present.race_clock(new, now)).logged()]
            try:
                await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev, events)
            except VersionConflict:
                continue
            await self.store.indexes.clear_timer(room.id)
            await self.store.rooms.expire_room(room.id, self.config.ended_ttl_ms)
            await self.rooms.off_lobby(room)
            if views is not None:
                await self.timers.race_over(new, views)
            return await self.rooms.room_view(new, now)
        raise VersionConflict("room too busy")

    # -- racers ------------------------------------------------------------------

    async def join(self, ref: str, name: str) -> tuple[RacerView, str]:
        """Join a waiting room → the racer's view and secret token.

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
                raise err.RoomNotWaiting(f"the race is {room.state}: spectate instead",
                                         {"state": room.state})
            if len(room.roster) >= room.capacity:
                raise err.RoomFull(f"the room holds {room.capacity} racers")
            if any(e.name.casefold() == name.casefold() for e in room.roster):
                raise err.RacerNameTaken(f"{name!r} is taken in this room", {"name": name})
            entry = RosterEntry(id=new_racer_id(), name=name, join_order=room.joins + 1,
                                token_digest=token_digest(token))
            new = room.model_copy(update={"roster": [*room.roster, entry],
                                          "joins": room.joins + 1})
            view = self.rooms.racer_view(new, entry, None)
            try:
                await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev, [
                    JoinedEvent(race_clock_ms=present.race_clock(new, now), racer=view).logged()])
            except VersionConflict:
                continue
            fresh = self.cache.fresh(new, entry.id)
            with contextlib.suppress(VersionConflict):
                await self.store.racers.save_racer(room.id, entry.id,
                                                   fresh.model_dump(mode="json"), 0)
            return view, token
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
                    new = await self._countdown(new, rev, now, events)
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
        one leaving cancels the countdown; during the race their result
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
                if not roster:  # the last racer left during the countdown: cancel it
                    update.update(state="waiting", start_at_ms=None)
                new = room.model_copy(update=update)
                try:
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
            self.cache.forget((room.id, racer_id))
            await self.timers.end_race(room.id)
            entry = room.entry(racer_id)
            assert entry is not None
            return self.rooms.racer_view(room, entry, done)
        raise VersionConflict("racer too busy")
