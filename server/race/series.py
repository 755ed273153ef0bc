"""Series of races: the table of ``GET /series/{id}`` (docs/protocol.md, "Series").

A room created with ``"series": {"races": N}`` is the first of N races on N
new deals with the same racers: when one ends, :class:`~.rematch.Rematches`
makes the next race's room (every racer who did not leave already seated,
its countdown running) and links it from the finished one (``rematch``).
The series is that chain of rooms; its id is its first room's id, and every
room of it carries ``series: {id, race, races}``.

:meth:`SeriesTables.view` walks the chain from the first room (each room
live, else archived: ``server.race.archived``) and ranks the racers of the
first race by :func:`series_table`:

- each race that is over counts for every racer of the series: their
  foundation cards at its end and its time, the reach time (``null``
  counts 0); a racer not in that race (they left an earlier one, or left
  before its start) scores 0 cards and 0 ms;
- more foundation cards (summed) rank first, then less time (summed);
  racers equal on both share a rank (1, 1, 3 …) and are listed in the
  order they joined the first race.

Reading the table also makes a next race's room that is due and missing
(the process that ended the race died before its hook ran): the same
compare-and-set as ever, so at most one is made.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.store.base import LiveStore

from . import errors as err
from .apply import Applier
from .archived import Archived
from .cache import RaceCache
from .rematch import Rematches, goes_on, is_over
from .rooms import Rooms
from .state import RacerRecord, RoomRecord
from .views import RacerView, SeriesRace, SeriesRow, SeriesScore, SeriesView

__all__ = ["SeriesTables", "series_table"]


def series_table(first: Sequence[RacerView],
                 races: Sequence[Sequence[RacerView] | None]) -> list[SeriesRow]:
    """The ranked table of a series (module docstring): ``first`` the racers of
    the first race (the series' racers, in join order), ``races`` each race's
    final racer views (``None``: not over yet). Pure."""
    rows: list[SeriesRow] = []
    for racer in sorted(first, key=lambda r: r.join_order):
        scores: list[SeriesScore | None] = []
        left = False
        for views in races:
            if views is None:
                scores.append(None)
                continue
            mine = next((v for v in views if v.id == racer.id), None)
            if mine is None:
                scores.append(SeriesScore(foundation_cards=0, time_ms=0, status="absent"))
                left = True
            else:
                scores.append(SeriesScore(foundation_cards=mine.foundation_cards,
                                          time_ms=mine.reach_time_ms or 0, status=mine.status))
                left = left or mine.status == "left"
        counted = [s for s in scores if s is not None]
        rows.append(SeriesRow(
            rank=0, racer=racer.id, name=racer.name, join_order=racer.join_order,
            foundation_cards=sum(s.foundation_cards for s in counted),
            time_ms=sum(s.time_ms for s in counted), left=left, races=scores))
    rows.sort(key=lambda r: (-r.foundation_cards, r.time_ms, r.join_order))
    ranked: list[SeriesRow] = []
    for i, row in enumerate(rows):
        prev = ranked[-1] if ranked else None
        tied = prev is not None and (prev.foundation_cards, prev.time_ms) == (
            row.foundation_cards, row.time_ms)
        ranked.append(row.model_copy(update={"rank": prev.rank if tied and prev else i + 1}))
    return ranked


class SeriesTables:
    """``GET /series/{id}``: the series' rooms and table."""

    def __init__(self, store: LiveStore, cache: RaceCache, rooms: Rooms, applier: Applier,
                 archived: Archived, rematches: Rematches) -> None:
        self.store = store
        self.cache = cache
        self.rooms = rooms
        self.applier = applier
        self.archived = archived
        self.rematches = rematches

    async def view(self, ref: str) -> SeriesView:
        """The series whose id — or the id or code of one of whose rooms — is
        ``ref``: its rooms and table (module docstring).

        :raises SeriesNotFound: no such room, or a room of no series.
        :raises ArchiveUnavailable, StoreUnavailable:
        """
        got = await self._read(ref)
        if got is None or got[0].series is None:
            raise err.SeriesNotFound(f"no series {ref[:64]!r}", {"series": ref[:64]})
        series = got[0].series
        if got[0].id != series.id:
            got = await self._read(series.id)
            if got is None:
                raise err.SeriesNotFound(f"the first race of series {series.id!r} is gone",
                                         {"series": series.id})
        chain = [got]
        lost = False  # a next room that vanished (everyone left it before its start)
        while len(chain) < series.races:
            last = chain[-1][0]
            link = last.rematch
            if link is None and goes_on(last):
                link = await self.rematches.follow(last.id)  # due and missing: make it
            nxt = None if link is None else await self._read(link.room)
            if nxt is None or nxt[0].series is None or nxt[0].series.id != series.id:
                lost = link is not None and nxt is None
                break
            chain.append(nxt)
        views = [self.rooms.racer_views(room, racers) for room, racers in chain]
        over = [views[i] if is_over(room) else None for i, (room, _) in enumerate(chain)]
        last = chain[-1][0]
        if len(chain) == series.races and is_over(last):
            state = "over"
        elif lost or any(room.state == "closed" for room, _ in chain) or (
                is_over(last) and last.rematch is None) or (
                len(chain) > 1 and last.state == "waiting"
                and all(e.bot for e in last.roster)):
            state = "stopped"  # closed, nobody left to go on, or everyone left before a start
        else:
            state = "running"
        rooms = [SeriesRace(race=k, room=room.id, code=room.code, state=room.state)
                 for k, (room, _) in enumerate(chain, 1)]
        rooms += [SeriesRace(race=k, room=None, code=None, state=None)
                  for k in range(len(chain) + 1, series.races + 1)]
        table = series_table(views[0], [*over, *([None] * (series.races - len(chain)))])
        return SeriesView(id=series.id, races=series.races,
                          played=sum(v is not None for v in over), state=state,
                          final=state != "running", rooms=rooms, table=table)

    async def _read(self, ref: str) -> tuple[RoomRecord, dict[str, RacerRecord]] | None:
        """A room and its racer records: live (timers advanced), else archived;
        ``None``: neither has it.

        :raises ArchiveUnavailable:
        """
        try:
            room, _, _ = await self.applier.read(ref)
        except err.RoomNotFound:
            try:
                room, racers, _ = await self.archived.load(ref)
            except err.RoomNotFound:
                return None
            return room, racers
        return room, await self.rooms.racers(room)
