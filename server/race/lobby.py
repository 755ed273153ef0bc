"""Room actions of the race authority: create, get, list, start, close
(docs/protocol.md, "REST"); the racers' actions are :mod:`server.race.racers`."""

from __future__ import annotations

import secrets

from server.errors import VersionConflict
from server.rules import (
    RulesError,
    RuleSet,
    new_game,
)
from server.rules.daily import daily_deal, utc_date
from server.store.base import LiveStore

from . import errors as err
from . import journal, present
from .access import authorize_host
from .assist import Assist, draw_winnable_deal
from .cache import RaceCache
from .events import (
    ClosedEvent,
    CreatedEvent,
    RaceOverEvent,
)
from .ids import (
    new_code,
    new_room_id,
    new_token,
    random_deal_number,
    token_digest,
)
from .options import RoomOptions
from .rooms import Rooms
from .state import RoomRecord, SeriesState
from .timers import RETRIES, RaceConfig, Timers
from .views import (
    RoomView,
)
from .visibility import Seen

__all__ = ["Lobby"]

HOST = Seen("host")
DEFAULT_SPECTATOR_DELAY_S = 60
MIN_SPECTATOR_DELAY_S = 10
"""A shorter delay would make a racer who watches anonymously a near-live copier."""
MAX_SPECTATOR_DELAY_S = 600


def _spectator_delay_s(options: RoomOptions) -> int:
    """The room's spectator delay (s): 60 by default, 0 in open-boards rooms.

    :raises RequestInvalid: out of 10…600, 0 without ``open_boards``, or a
        delay with ``open_boards`` (boards are live there).
    """
    delay = options.spectator_delay_s
    if options.open_boards:
        if delay not in (None, 0):
            raise err.RequestInvalid("open_boards rooms show boards live: leave out "
                                     "spectator_delay_s (or give 0)",
                                     {"field": "spectator_delay_s"})
        return 0
    if delay is None:
        return DEFAULT_SPECTATOR_DELAY_S
    if delay == 0:
        raise err.RequestInvalid("spectator_delay_s 0 (live boards) needs \"open_boards\": true",
                                 {"field": "spectator_delay_s"})
    if not MIN_SPECTATOR_DELAY_S <= delay <= MAX_SPECTATOR_DELAY_S:
        raise err.RequestInvalid(f"spectator_delay_s is {MIN_SPECTATOR_DELAY_S}…"
                                 f"{MAX_SPECTATOR_DELAY_S} (0 with open_boards)",
                                 {"field": "spectator_delay_s"})
    return delay


class Lobby:
    """Room actions; each checks auth → room → state → save → publish."""

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
        if not 0 <= options.bots < options.capacity:
            raise err.RequestInvalid("bots is 0…capacity − 1 (a seat stays for a racer)",
                                     {"field": "bots"})
        delay_s = _spectator_delay_s(options)
        if options.series_races is not None and not (
                2 <= options.series_races <= 9 and 0 <= options.series_break_s <= 300):
            raise err.RequestInvalid("a series has 2…9 races, 0…300 s apart",
                                     {"field": "series"})
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
        room_id = options.room_id or new_room_id()
        code = new_code()
        while not await self.store.rooms.claim_code(code, room_id):
            code = new_code()
        room = RoomRecord(
            id=room_id, code=code, rules=rules.to_json(), deal_number=deal_number,
            redeal_key=redeal_key.hex(), ranked=options.ranked and not options.hints,
            hints=options.hints, winnable_only=options.winnable_only,
            par=rules.cards if options.winnable_only else None,
            capacity=options.capacity, quick=options.quick,
            time_limit_ms=options.time_limit_s * 1000, visibility=options.visibility,
            countdown_ms=options.countdown_s * 1000, host_digest=token_digest(host_token),
            created_ms=now, spectator_delay_ms=delay_s * 1000, open_boards=options.open_boards,
            deal_public=options.deal_public or options.deal == "daily",
            series=None if options.series_races is None else SeriesState(
                id=room_id, race=1, races=options.series_races,
                break_ms=options.series_break_s * 1000),
        )
        await self.store.rooms.save_room(room_id, room.model_dump(mode="json"), 0,
                                         [CreatedEvent(race_clock_ms=present.race_clock(room, now),
                                                      code=code).logged()])
        journal.room_created(room)
        await self.store.rooms.expire_room(room_id, self.config.waiting_ttl_ms)
        if room.visibility == "public":
            await self.store.indexes.add_to_lobby(room_id, now + self.config.waiting_ttl_ms)
        return await self.rooms.room_view(room, now, {}, HOST), host_token

    async def get_room(self, ref: str, token: str | None = None) -> RoomView:
        """The room by id or code, as ``token`` (host, racer, or none) may see it:
        the deal number only once the race starts, but for the host
        (:mod:`server.race.visibility`).

        :raises RoomNotFound, AuthInvalidToken:
        """
        room, _, now = await self.timers.load(ref)
        return await self.rooms.room_view(room, now, seen=await self.rooms.seen(room, token))

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
                return await self.rooms.room_view(room, now, seen=HOST)
            if room.state != "waiting":
                raise err.RoomOver(f"the room is {room.state}", {"state": room.state})
            if not room.roster:
                raise err.RoomNoRacers("nobody has joined yet")
            try:
                new = await self.timers.countdown(room, rev, now, [])
            except VersionConflict:
                continue
            return await self.rooms.room_view(new, now, {}, HOST)
        raise VersionConflict("room too busy")

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
                # a race ended by the close is archived like any (same write)
                await self.store.rooms.save_room(room.id, new.model_dump(mode="json"), rev,
                                                 events, archive=views is not None)
            except VersionConflict:
                continue
            await self.store.indexes.clear_timer(room.id)
            await self.store.rooms.expire_room(room.id, self.config.ended_ttl_ms)
            await self.rooms.off_lobby(room)
            if views is None:
                journal.room_closed(new)
            else:
                journal.race_ended(new, views)
                await self.timers.race_over(new, views)
            return await self.rooms.room_view(new, now, seen=HOST)
        raise VersionConflict("room too busy")
