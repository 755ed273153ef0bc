"""Room actions of the race authority: create, get, list, start, close
(docs/protocol.md, "REST"); the racers' actions are :mod:`server.race.racers`.

Each action is a command (:mod:`server.race.commands`) applied by the one
decide-and-apply loop (:mod:`server.race.apply`); its decision, with its
checks in order, is in :mod:`server.race.decide_room`. This module draws what
a decision must be given (ids, the short code, the host token, the deal and
its commitment's salt) and turns the outcome into the answer's view.
"""

from __future__ import annotations

import secrets

from server.store.base import LiveStore

from .apply import Applier
from .assist import Assist, draw_winnable_deal
from .commands import Close, Create, Start
from .decide_create import check_create, deal_of
from .ids import (
    new_code,
    new_deal_salt,
    new_room_id,
    new_token,
    random_deal_number,
    token_digest,
)
from .options import RoomOptions
from .rooms import Rooms
from .state import RoomRecord
from .views import RoomView
from .visibility import Seen

__all__ = ["Lobby"]

HOST = Seen("host")


class Lobby:
    """Room actions over the applier (module docstring)."""

    def __init__(self, store: LiveStore, rooms: Rooms, applier: Applier,
                 assist: Assist) -> None:
        self.store = store
        self.rooms = rooms
        self.applier = applier
        self.assist = assist

    async def create_room(self, options: RoomOptions) -> tuple[RoomView, str]:
        """A new room in state ``waiting`` → its view and the host token.

        :raises RequestInvalid: unknown variant, bad overrides or ranges.
        """
        rules, _ = check_create(options)
        now = await self.store.clock.now_ms()
        deal_number = deal_of(options, rules, now, random_deal_number())
        redeal_key = options.redeal_key or secrets.token_bytes(32)
        if options.winnable_only:
            deal_number, redeal_key = await draw_winnable_deal(
                self.assist.solver, rules, None if options.deal == "random" else deal_number)
        host_token = new_token()
        room_id = options.room_id or new_room_id()
        code = new_code()
        while not await self.store.rooms.claim_code(code, room_id):
            code = new_code()
        done = await self.applier.apply(Create(options, room_id, code, token_digest(host_token),
                                               deal_number, redeal_key, new_deal_salt()))
        return await self.rooms.room_view(done.reply, done.now, {}, HOST), host_token

    async def get_room(self, ref: str, token: str | None = None) -> RoomView:
        """The room by id or code, as ``token`` (host, racer, or none) may see it:
        the deal number only once the race starts, but for the host
        (:mod:`server.race.visibility`).

        :raises RoomNotFound, AuthInvalidToken:
        """
        room, _, now = await self.applier.read(ref)
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
        done = await self.applier.apply(Start(ref, host_token))
        if done.room is None:
            return await self.rooms.room_view(done.reply, done.now, seen=HOST)
        return await self.rooms.room_view(done.reply, done.now, {}, HOST)

    async def close(self, ref: str, host_token: str | None) -> RoomView:
        """Host closes the room: no more moves; everything expires later.

        :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomOver:
        """
        done = await self.applier.apply(Close(ref, host_token))
        return await self.rooms.room_view(done.reply, done.now, seen=HOST)
