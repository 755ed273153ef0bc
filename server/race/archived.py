"""Finished races after their live room: what the archive is fed, and reads of it.

Two directions, each through a small protocol so that the live authority
never imports the archive's database layer (``server.archive``):

- **Feeding.** The write that ends a race makes the room pending in the live
  store (``LiveStore.archive``, contract point 8 of :mod:`server.store.base`).
  :meth:`Archived.claim_finished` leases pending rooms and gives each as a
  :class:`FinishedRace` document (room record without token digests, racer
  records, final standings, the last event number); once the archive holds
  it, :meth:`Archived.mark_archived` lets the live room expire as before
  (``ended_ttl_ms`` from then). ``server.archive.archiver`` drives both.
- **Reading.** When no live room answers a reference, the authority asks its
  :class:`ArchivedRaces` (the archive database, set by the app) for the race
  by race id, room id or room code, and answers the same reads from it —
  room view, standings, replays, game views, racer logs (comparisons,
  ghosts). An archived race is over: the fair-play table's "after the race"
  column applies (:mod:`server.race.visibility`, viewer: a spectator — the
  archive keeps no tokens) — but for an attempt at a challenge still open,
  sealed (``Rooms.seal``: ``challenge/hidden``) to all but its own racer,
  whose token's digest the challenges keep (``Rooms.archived_seen``).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from server.errors import ArchiveUnavailable
from server.rules import RulesError, RuleSet, get_variant
from server.store.base import LiveStore

from . import errors as err
from . import present, visibility
from .cache import RaceCache
from .racer_log import RacerLog
from .rooms import SPECTATOR, Rooms
from .state import RacerRecord, RoomRecord
from .timers import RaceConfig
from .views import GameView, RaceView, Replay, ReplayMove, RoomView, Standings

__all__ = ["Archived", "ArchivedRace", "ArchivedRaces", "FinishedRace", "rated"]

log = logging.getLogger("server.race")

FinishedRace = dict[str, Any]
"""``{"race_id", "room": RoomRecord JSON (token digests blanked), "racers":
{racer id: RacerRecord JSON}, "standings": Standings JSON, "seq": last event
number, "rated": counts for players (:func:`rated`)}`` — what the archive
stores of one race."""


class ArchivedRace(Protocol):
    """A race as the archive gives it back: the room record, the racer records
    (by id) and the room's last event number."""

    @property
    def room(self) -> dict[str, Any]: ...
    @property
    def racers(self) -> dict[str, dict[str, Any]]: ...
    @property
    def seq(self) -> int: ...


class ArchivedRaces(Protocol):
    """Where archived races are read from (``server.archive.ArchiveDb``)."""

    async def find_race(self, ref: str) -> ArchivedRace | None:
        """The race whose race id, room id or room code (the latest race with
        it) is ``ref``, or ``None``.

        :raises ArchiveUnavailable: the database does not answer.
        """
        ...

    async def update_par(self, race_id: str, par: int, room: dict[str, Any],
                         standings: dict[str, Any]) -> bool:
        """Store a par found after the race was archived (the room record and
        standings with it); ``False``: the race is not archived (yet).

        :raises ArchiveUnavailable:
        """
        ...

    async def update_room(self, race_id: str, room: dict[str, Any]) -> bool:
        """Store the room record of an archived race again (its rematch link was
        set after the race was archived); ``False``: not archived (yet).

        :raises ArchiveUnavailable:
        """
        ...


class Archived:
    """Feeding the archive from the live store, and reads of archived races."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms,
                 config: RaceConfig, source: ArchivedRaces | None = None) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.config = config
        self.source = source
        """The archive to read from (``None``: none)."""
        self._claimed_par: dict[str, int | None] = {}
        """Race id → the par its document carried, until it is marked archived."""
        self._claimed_link: dict[str, bool] = {}
        """Race id → whether its document carried a rematch link, until marked archived."""

    # -- feeding -----------------------------------------------------------------

    async def claim_finished(self, limit: int, lease_ms: int) -> list[FinishedRace]:
        """Up to ``limit`` pending finished races, leased to this caller for
        ``lease_ms``; a pending room that vanished (dropped at once) is taken
        off the pending list and left out.

        :raises StoreUnavailable:
        """
        out: list[FinishedRace] = []
        for room_id in await self.store.archive.claim(limit, lease_ms):
            got = await self.store.rooms.get_room(room_id)
            if got is None:
                log.warning("pending race %s vanished before its archiving", room_id)
                await self.store.archive.archived(room_id, 0)
                continue
            room = RoomRecord.model_validate(got.data)
            racers = await self.rooms.racers(room)
            views = self.rooms.racer_views(room, racers)
            if len(self._claimed_par) > 10_000:  # claims never marked (errors): forget
                self._claimed_par.clear()
                self._claimed_link.clear()
            self._claimed_par[room.id] = room.par
            self._claimed_link[room.id] = room.rematch is not None
            out.append({
                "race_id": room.id,
                "room": blanked(room).model_dump(mode="json"),
                "racers": {e.id: (racers.get(e.id) or self.cache.fresh(room, e.id))
                           .model_dump(mode="json") for e in room.roster},
                "standings": present.standings(room, views).model_dump(mode="json"),
                "seq": await self.store.events.last_seq(room.id),
                "rated": rated(room, self.cache.ruleset(room)),
            })
        return out

    async def mark_archived(self, race_id: str) -> None:
        """The race is in the archive: its live room expires ``ended_ttl_ms``
        from now, as any ended room does. A par stored meanwhile (after the
        document was read, before the archive row existed) is passed on.

        :raises StoreUnavailable:
        """
        sent = self._claimed_par.pop(race_id, None)
        linked = self._claimed_link.pop(race_id, False)
        got = await self.store.rooms.get_room(race_id)
        if got is not None and got.data.get("par") not in (None, sent):
            await self.par_known(RoomRecord.model_validate(got.data))
        elif got is not None and got.data.get("rematch") is not None and not linked:
            await self.link_known(RoomRecord.model_validate(got.data))
        await self.store.archive.archived(race_id, self.config.ended_ttl_ms)

    async def par_known(self, room: RoomRecord) -> None:
        """The solver's par of ``room`` was stored after its race ended: an
        archived race gets it too (a pending one reads it when archived). A
        database that does not answer leaves the archived race without it."""
        if self.source is None or room.par is None:
            return
        racers = await self.rooms.racers(room)
        table = present.standings(room, self.rooms.racer_views(room, racers))
        try:
            await self.source.update_par(room.id, room.par, blanked(room).model_dump(mode="json"),
                                         table.model_dump(mode="json"))
        except ArchiveUnavailable:
            log.warning("par of race %s not archived: the archive does not answer", room.id)

    async def link_known(self, room: RoomRecord) -> None:
        """``room`` got its rematch link after its race ended: an archived race
        gets it too (a pending one reads it when archived, or :meth:`mark_archived`
        passes it on). A database that does not answer leaves the archived race
        without it (one log line); its next room still links back."""
        if self.source is None:
            return
        try:
            await self.source.update_room(room.id, blanked(room).model_dump(mode="json"))
        except ArchiveUnavailable:
            log.warning("rematch link of race %s not archived: the archive does not answer",
                        room.id)

    # -- reading -----------------------------------------------------------------

    async def load(self, ref: str) -> tuple[RoomRecord, dict[str, RacerRecord], int]:
        """The archived race of ``ref``: room, racer records by id, last event number.

        :raises RoomNotFound, ArchiveUnavailable:
        """
        got = None
        if self.source is not None and ref and len(ref) <= 64:
            got = await self.source.find_race(ref)
        if got is None:
            raise err.RoomNotFound(f"no room or race {ref[:64]!r}", {"room": ref[:64]})
        room = RoomRecord.model_validate(got.room)
        racers = {rid: RacerRecord.model_validate(r) for rid, r in got.racers.items()}
        return room, racers, got.seq

    async def _racer(self, ref: str, racer_id: str
                     ) -> tuple[RoomRecord, dict[str, RacerRecord], RacerRecord]:
        room, racers, _ = await self.load(ref)
        if room.entry(racer_id) is None:
            raise err.RacerNotFound(f"no racer {racer_id!r} in this room")
        return room, racers, racers.get(racer_id) or self.cache.fresh(room, racer_id)

    async def get_room(self, ref: str, token: str | None = None) -> RoomView:
        """The archived race's room view (over; everyone sees what the "after
        the race" column shows; a challenge's attempt: ``Rooms.archived_seen``).

        :raises RoomNotFound, ArchiveUnavailable:
        """
        room, racers, seq = await self.load(ref)
        view = await self.rooms.room_view(room, room.ended_ms or 0, racers,
                                          await self.rooms.archived_seen(room, token), seq=seq)
        return view

    async def standings(self, ref: str, token: str | None = None) -> Standings:
        """Final standings of an archived race (``token``: a challenge attempt's
        own racer, ``Rooms.archived_seen``; other tokens are not kept: ignored).

        :raises RoomNotFound, ArchiveUnavailable, ChallengeHidden:
        """
        room, racers, _ = await self.load(ref)
        visibility.check_room(await self.rooms.archived_seen(room, token))
        return present.standings(room, self.rooms.racer_views(room, racers))

    async def race(self, ref: str) -> RaceView:
        """An archived race as ``GET /races/{race}`` shows it.

        :raises RoomNotFound, ArchiveUnavailable:
        """
        room, racers, _ = await self.load(ref)
        visibility.check_room(await self.rooms.seal(room, SPECTATOR))
        return race_view(self.rooms, self.cache, room, racers, archived=True)

    async def replay(self, ref: str, racer_id: str, token: str | None = None) -> Replay:
        """A racer's move log in an archived race (with the redeal key).

        :raises RoomNotFound, RacerNotFound, ArchiveUnavailable, ChallengeHidden:
        """
        room, _, racer = await self._racer(ref, racer_id)
        seen = await self.rooms.archived_seen(room, token)
        visibility.check(room, "move log", seen)
        entry = room.entry(racer_id)
        assert entry is not None
        revealed = visibility.access(room, "redeal key", seen) == "yes"
        return Replay(
            rules=present.rules_view(self.cache.ruleset(room)), deal_number=room.deal_number,
            redeal_key=room.redeal_key if revealed else None, player=entry.name,
            moves=[ReplayMove(move=m, race_clock_ms=t, version=i)
                   for i, (m, t) in enumerate(racer.log, 1)],
            result=self.rooms.racer_view(room, entry, racer))

    async def game(self, ref: str, racer_id: str, token: str | None = None) -> GameView:
        """A racer's final board in an archived race.

        :raises RoomNotFound, RacerNotFound, ArchiveUnavailable:
        """
        room, _, racer = await self._racer(ref, racer_id)
        visibility.check(room, "board", await self.rooms.archived_seen(room, token))
        game = self.cache.replay(room, racer.log)
        return present.game_view(racer, game, present.racer_status(room, racer), False,
                                 present.race_clock(room, room.ended_ms or 0))

    async def racer_log(self, ref: str, racer: str, token: str | None = None) -> RacerLog:
        """The game of ``racer`` (id, or name case-insensitively) in an archived
        race, as a log for analysis (comparisons, ghosts).

        :raises RoomNotFound, RacerNotFound, ArchiveUnavailable:
        """
        room, racers, _ = await self.load(ref)
        entry = room.entry(racer) or next(
            (e for e in room.roster if e.name.casefold() == racer.casefold()), None)
        if entry is None:
            names = ", ".join(e.name for e in room.roster) or "nobody"
            raise err.RacerNotFound(f"no racer {racer!r} in room {room.code} (racers: {names})",
                                    {"racer": racer})
        visibility.check(room, "move log", await self.rooms.archived_seen(room, token))
        record = racers.get(entry.id) or RacerRecord(id=entry.id)
        moves = [(str(m), int(t)) for m, t in record.log]
        return RacerLog(
            room_id=room.id, rules=self.cache.ruleset(room), deal_number=room.deal_number,
            redeal_key=bytes.fromhex(room.redeal_key), moves=moves, name=entry.name,
            join_order=entry.join_order, status=present.racer_status(room, record),
            finished_ms=max(record.finished_ms or 0, moves[-1][1] if moves else 0))


def rated(room: RoomRecord, rules: RuleSet) -> bool:
    """Whether the race counts for players' figures and ratings (docs/players.md):
    a ranked room (not hints, not a ghost room), the variant's own rules (no
    overrides: the leaderboards' rule too), raced to its end (not closed by
    its host mid-race, which would let a leading host stop the race)."""
    try:
        plain = rules == get_variant(rules.id)
    except RulesError:
        plain = False
    return room.ranked and plain and room.state == "over"


def blanked(room: RoomRecord) -> RoomRecord:
    """The room record without its token digests (the archive keeps no tokens)."""
    return room.model_copy(update={
        "host_digest": "", "roster": [e.model_copy(update={"token_digest": ""})
                                      for e in room.roster]})


def race_view(rooms: Rooms, cache: RaceCache, room: RoomRecord,
              racers: dict[str, RacerRecord], *, archived: bool) -> RaceView:
    """A finished race's view: rules, deal, redeal key, the deal commitment and
    its salt, times, standings, racers (the salt as the fair-play table says:
    revealed, the race being over)."""
    views = rooms.racer_views(room, racers)
    assert room.start_at_ms is not None
    revealed = visibility.access(room, "deal salt", SPECTATOR) == "yes"
    return RaceView(
        id=room.id, room_id=room.id, room_code=room.code,
        rules=present.rules_view(cache.ruleset(room)), deal_number=room.deal_number,
        redeal_key=room.redeal_key, deal_salt=room.deal_salt if revealed else None,
        deal_commitment=room.deal_commitment, started_at_ms=room.start_at_ms,
        ended_at_ms=room.ended_ms or room.start_at_ms, time_limit_ms=room.time_limit_ms,
        par=room.par, live=not archived, standings=present.standings(room, views),
        racers=views)
