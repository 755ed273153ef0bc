"""Reading rooms and racers from the store, and the views that need a read.

:class:`Rooms` resolves a room id or short code, reads racer records (a racer
never saved is a fresh one on the room's deal) and builds room and racer
views, and tells who a token is (:meth:`Rooms.seen`, for the fair-play
table of :mod:`server.race.visibility`; a challenge attempt's seal:
:meth:`Rooms.seal`, asked of the challenges' :class:`ChallengeSeals`). It
writes only the lobby index (:meth:`Rooms.off_lobby`); the rest belongs to
the actions.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from server.rules import Game
from server.store.base import LiveStore, Versioned

from . import present, visibility
from .cache import RaceCache
from .ids import is_code
from .state import RacerRecord, RoomRecord, RosterEntry
from .views import RacerView, RoomView, SeriesInfo
from .visibility import Seen

SPECTATOR = Seen("spectator")

__all__ = ["ChallengeSeals", "Rooms"]


class ChallengeSeals(Protocol):
    """Whether a challenge is over (``server.archive.ArchiveDb``, where challenges live)."""

    async def challenge_closed(self, challenge_id: str) -> bool:
        """Settled, void or closed: its attempts' rooms are public.

        :raises ArchiveUnavailable:
        """
        ...

    async def attempt_racer(self, room_id: str, token: str) -> str | None:
        """The racer of the attempt in room ``room_id`` when ``token`` is theirs
        (the archive keeps its digest), else ``None``.

        :raises ArchiveUnavailable:
        """
        ...


class Rooms:
    """Room and racer reads over one store and the process's :class:`RaceCache`;
    ``seals``: where challenges' states are read (``None``: no challenges, and
    a challenge room stays sealed)."""

    def __init__(self, store: LiveStore, cache: RaceCache,
                 seals: ChallengeSeals | None = None) -> None:
        self.store = store
        self.cache = cache
        self.seals = seals

    async def seal(self, room: RoomRecord, seen: Seen) -> Seen:
        """``seen``, sealed when ``room`` is an attempt at a challenge still open
        (:mod:`server.race.visibility`, "Challenge attempts").

        :raises ArchiveUnavailable: the challenges' database does not answer.
        """
        if seen.kind == "racer" and visibility.phase(room) != "after the race":
            # a seal changes nothing for its own racer before the race is over
            # (it hides the redeal key and deal salt, hidden then anyway): no
            # query — the attempt's first read (POST /duels), the racer's socket
            return seen
        if room.challenge is None or (
                self.seals is not None and await self.seals.challenge_closed(room.challenge)):
            return seen
        return dataclasses.replace(seen, sealed=True)

    async def archived_seen(self, room: RoomRecord, token: str | None) -> Seen:
        """Who ``token`` is in an archived race: a spectator (the archive keeps no
        tokens) — but for a challenge's attempt, whose racer's token digest the
        challenges keep: its own racer reads it as in its live room, sealed
        while the challenge is open (:meth:`seal`).

        :raises ArchiveUnavailable:
        """
        seen = SPECTATOR
        if token and room.challenge is not None and self.seals is not None:
            racer = await self.seals.attempt_racer(room.id, token)
            if racer is not None:
                seen = Seen("racer", racer)
        return await self.seal(room, seen)

    async def resolve(self, ref: str) -> str:
        """The room id of ``ref`` (an id, or a short code of a live room)."""
        if len(ref) <= 64 and is_code(ref):
            found = await self.store.rooms.find_room_by_code(ref.upper())
            if found is not None:
                return found
        return ref

    async def racers(self, room: RoomRecord) -> dict[str, RacerRecord]:
        """Every saved racer record of the room, by racer id."""
        stored = await self.store.racers.get_racers(room.id)
        return {rid: RacerRecord.model_validate(v.data) for rid, v in stored.items()}

    def racer_of(self, room: RoomRecord, racer_id: str,
                 got: Versioned | None) -> tuple[RacerRecord, int]:
        """The racer's record as read (``got``) and its rev; a fresh one (rev 0)
        if never saved."""
        if got is None:
            return self.cache.fresh(room, racer_id), 0
        return RacerRecord.model_validate(got.data), got.rev

    async def racer_and_game(self, room: RoomRecord,
                             racer_id: str) -> tuple[RacerRecord, int, Game]:
        """The racer's record, its rev and its game."""
        racer, rev = self.racer_of(room, racer_id,
                                   await self.store.racers.get_racer(room.id, racer_id))
        return racer, rev, self.cache.game(room, racer)

    def racer_view(self, room: RoomRecord, entry: RosterEntry,
                   racer: RacerRecord | None) -> RacerView:
        """The racer's public progress (a fresh racer when ``racer`` is ``None``)."""
        return present.racer_view(room, entry, racer or self.cache.fresh(room, entry.id))

    def racer_views(self, room: RoomRecord,
                    racers: dict[str, RacerRecord]) -> list[RacerView]:
        """Every racer of the roster, in join order."""
        return [self.racer_view(room, e, racers.get(e.id)) for e in room.roster]

    async def seen(self, room: RoomRecord, token: str | None,
                   target: str | None = None) -> Seen:
        """Who ``token`` is for racer ``target``'s things (``None``: the room's):
        the racer, a rival, a finished racer, the host or a spectator
        (:func:`server.race.visibility.viewer`; a rival whose result is final
        is a finished racer), sealed in a challenge's attempt (:meth:`seal`).

        :raises AuthInvalidToken: a token that is nobody's in this room.
        :raises ArchiveUnavailable: (a challenge's attempt) as :meth:`seal`.
        """
        seen = visibility.viewer(room, token, target)
        if seen.kind == "rival" and seen.racer is not None:
            got = await self.store.racers.get_racer(room.id, seen.racer)
            if got is not None and got.data.get("final"):
                seen = Seen("finished", seen.racer)
        return await self.seal(room, seen)

    async def room_view(self, room: RoomRecord, now: int,
                        racers: dict[str, RacerRecord] | None = None,
                        seen: Seen = SPECTATOR, *, seq: int | None = None) -> RoomView:
        """The room's view at service time ``now`` (ms) as ``seen`` may see it
        (the deal number, the redeal key and the deal salt:
        :mod:`server.race.visibility`; the deal commitment always); racers are read unless
        given (a waiting room's racers have no moves: none are read); ``seq``:
        the last event number when known (archived races), else read.

        :raises ChallengeHidden: a sealed room seen from outside.
        """
        visibility.check_room(seen)
        if racers is None:
            racers = await self.racers(room) if room.state != "waiting" else {}
        starts_in = None
        if room.state == "countdown" and room.start_at_ms is not None:
            starts_in = max(0, room.start_at_ms - now)
        return RoomView(
            id=room.id, code=room.code, rules=present.rules_view(self.cache.ruleset(room)),
            deal_number=room.deal_number
            if visibility.access(room, "deal number", seen) == "yes" else None,
            deal_commitment=room.deal_commitment,
            redeal_key=room.redeal_key
            if visibility.access(room, "redeal key", seen) == "yes" else None,
            deal_salt=room.deal_salt
            if visibility.access(room, "deal salt", seen) == "yes" else None,
            state=room.state, capacity=room.capacity,
            time_limit_ms=room.time_limit_ms, visibility=room.visibility,
            countdown_ms=room.countdown_ms, starts_in_ms=starts_in,
            race_clock_ms=present.race_clock(room, now),
            racers=self.racer_views(room, racers),
            seq=await self.store.events.last_seq(room.id) if seq is None else seq,
            hints=room.hints, winnable_only=room.winnable_only,
            spectator_delay_ms=0 if room.open_boards else room.spectator_delay_ms,
            open_boards=room.open_boards, rematch=room.rematch, rematch_of=room.rematch_of,
            series=None if room.series is None else SeriesInfo(
                id=room.series.id, race=room.series.race, races=room.series.races),
            quick=room.quick.info(len(room.roster), room.capacity, now)
            if room.quick is not None and room.state == "waiting" else None,
        )

    async def off_lobby(self, room: RoomRecord) -> None:
        """Take a room that now races, or is closed, off the lobby index: it
        never waits for racers again (:meth:`RoomIndexes.add_to_lobby`)."""
        if room.visibility == "public":
            await self.store.indexes.remove_from_lobby([room.id])
