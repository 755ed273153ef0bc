"""The decisions of the room's commands: start, close, the timers, the race's
end, rematch links, par, a forgotten player (docs/protocol.md, "REST"); the
ones that make a room are :mod:`server.race.decide_create`.

Pure functions ``(Loaded, command, config) → Outcome | Prior``; a refusal is
raised as the :class:`~server.race.errors.RaceError` it is and answered as
:class:`~server.race.outcome.Refused` by :func:`server.race.decide.decide`.
Shape, room and credentials are checked before, by the command's gate
(:mod:`server.race.gate`); these check state, then make the write.
"""

from __future__ import annotations

from typing import Any

from . import errors as err
from . import present
from .commands import (
    Close,
    Countdown,
    EndRace,
    Forget,
    LinkNext,
    Rematch,
    SetPar,
    Start,
    Tick,
    TimeOut,
)
from .decide_racer import fresh_view
from .events import (
    ClosedEvent,
    ParEvent,
    RaceOverEvent,
    RematchEvent,
    StartedEvent,
)
from .gate import admitted
from .ids import token_matches
from .outcome import (
    After,
    Expire,
    LinkKnown,
    ListInLobby,
    Loaded,
    Note,
    Outcome,
    ParKnown,
    Prior,
    RaceEnded,
    RaceStarted,
    RetireLobby,
    RoomClosed,
    RoomCreated,
    SeatBots,
)
from .quick_state import quick_bot_levels
from .state import RacerRecord, RoomRecord, RosterEntry
from .timers import RaceConfig, countdown, due, race_ttl_ms
from .views import RoomLink, SeriesInfo

__all__ = [
    "decide_close", "decide_countdown", "decide_end_race", "decide_forget",
    "decide_link_next", "decide_rematch", "decide_set_par", "decide_start", "decide_tick",
    "is_over",
]

RoomReply = tuple[RoomRecord, int, int]
"""``(room, its rev, the service clock then)``: what a read of the room answers."""


def is_over(room: RoomRecord) -> bool:
    """The race has ended: over, or closed after its start."""
    return room.state == "over" or (room.state == "closed" and room.ended_ms is not None)


def decide_start(loaded: Loaded, cmd: Start, config: RaceConfig) -> Outcome[RoomRecord]:
    """The host starts the countdown; in ``countdown`` or ``racing`` nothing changes.

    :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomOver, RoomNoRacers:
    """
    room = admitted(loaded)
    if room.state in ("countdown", "racing"):
        return Outcome(room)
    if room.state != "waiting":
        raise err.RoomOver(f"the room is {room.state}", {"state": room.state})
    if not room.roster:
        raise err.RoomNoRacers("nobody has joined yet")
    new, events, after = countdown(room, loaded.now, [], config)
    return Outcome(new, room=new, events=events, after=after)


def decide_countdown(loaded: Loaded, cmd: Countdown, config: RaceConfig) -> Outcome[None]:
    """A waiting room with a racer who is not a computer racer starts its
    countdown; else nothing changes (its lone racer left while their computer
    racers were being seated: :func:`~server.race.timers.deadline` agrees).

    :raises RoomNotFound:
    """
    room = admitted(loaded)
    if room.state != "waiting" or all(e.bot for e in room.roster):
        return Outcome(None)  # computer racers alone are nobody to start a race for
    new, events, after = countdown(room, loaded.now, [], config)
    return Outcome(None, room=new, events=events, after=after)


def _unfinished(room: RoomRecord, racers: dict[str, RacerRecord]) -> list[RosterEntry]:
    return [e for e in room.roster if (r := racers.get(e.id)) is None or not r.final]


def _race_over(loaded: Loaded, room: RoomRecord, new: RoomRecord,
               racers: dict[str, RacerRecord], config: RaceConfig,
               events: list[dict[str, Any]]) -> Outcome[Any]:
    """The write that ends the race as ``new`` (over, or closed): ``race_over``
    with the final standings first, archived in the same write."""
    views = [fresh_view(new, e, loaded, racers.get(e.id)) for e in room.roster]
    table = present.standings(new, views)
    over = RaceOverEvent(race_clock_ms=present.race_clock(new, loaded.now),
                         **table.model_dump()).logged()
    return Outcome(None, room=new, events=[over, *events], archive=True,
                   after=(Expire(config.ended_ttl_ms), RaceEnded(tuple(views))))


def decide_close(loaded: Loaded, cmd: Close, config: RaceConfig) -> Outcome[RoomRecord] | Prior:
    """The host closes the room: before the start it just closes; during the race
    every unfinished racer times out at the close's race clock first, then the
    race is over (``race_over``, then ``closed``; archived like any race).

    :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomOver:
    """
    room = admitted(loaded)
    if room.state in ("over", "closed"):
        raise err.RoomOver(f"the room is already {room.state}")
    now = loaded.now if cmd.now_ms is None else cmd.now_ms
    if room.state != "racing":  # before the start: the room just closes
        new = room.model_copy(update={"state": "closed", "ended_ms": None})
        event = ClosedEvent(race_clock_ms=present.race_clock(new, now)).logged()
        return Outcome(new, room=new, events=[event],
                       after=(Expire(config.ended_ttl_ms), RoomClosed()))
    racers = loaded.racers
    assert racers is not None, "the applier loads the racers of a running race"
    unfinished = _unfinished(room, racers)
    if unfinished:
        clock = present.race_clock(room, now) or 0
        return Prior(tuple(TimeOut(room.id, e.id, at_ms=clock) for e in unfinished),
                     then=Close(cmd.ref, cmd.host_token, now_ms=now))
    new = room.model_copy(update={"state": "closed", "ended_ms": now})
    closed = ClosedEvent(race_clock_ms=present.race_clock(new, now)).logged()
    done = _race_over(Loaded(room, loaded.rev, now, fresh_cards=loaded.fresh_cards),
                      room, new, racers, config, [closed])
    done.reply = new
    return done


def decide_end_race(loaded: Loaded, cmd: EndRace, config: RaceConfig) -> Outcome[None] | Prior:
    """End the race once every result is final, or once its time limit passed
    (the unfinished racers time out at it first); else nothing changes. Only
    the write that turns the room ``over`` publishes ``race_over``.

    :raises RoomNotFound:
    """
    room = admitted(loaded)
    if room.state != "racing" or room.start_at_ms is None:
        return Outcome(None)
    racers = loaded.racers
    assert racers is not None, "the applier loads the racers of a running race"
    unfinished = _unfinished(room, racers)
    if unfinished:
        if loaded.now - room.start_at_ms < room.time_limit_ms:
            return Outcome(None)  # not every result is final yet
        return Prior(tuple(TimeOut(room.id, e.id) for e in unfinished))
    ended = min(loaded.now, room.start_at_ms + room.time_limit_ms)
    over = room.model_copy(update={"state": "over", "ended_ms": ended})
    return _race_over(loaded, room, over, racers, config, [])


def decide_tick(loaded: Loaded, cmd: Tick, config: RaceConfig) -> Outcome[Any] | Prior:
    """The room's due timer (:func:`~server.race.timers.deadline`): the countdown's
    end starts the race, the time limit ends it, a waiting quick-race lobby
    takes its step — computer racers for a racer alone (claimed once, seated by
    the process that claimed them, which then starts the countdown) or the
    countdown; each decided again after its write (``again``). Nothing due:
    the room as it is, with its rev and the clock (:data:`RoomReply`).

    :raises RoomNotFound:
    """
    room, now = admitted(loaded), loaded.now
    if not due(room, now):
        return Outcome((room, loaded.rev, now))
    if room.state == "countdown":
        new = room.model_copy(update={"state": "racing"})
        started = StartedEvent(deal_number=room.deal_number).logged()
        return Outcome(None, room=new, events=[started], again=True,
                       after=(RaceStarted(), Expire(race_ttl_ms(room, config, 0))))
    if room.state == "racing":
        ended = decide_end_race(loaded, EndRace(cmd.ref), config)
        if isinstance(ended, Outcome):
            ended.again = True
        return ended
    quick = room.quick
    if room.state != "waiting" or quick is None:
        return Outcome((room, loaded.rev, now))
    n = len(room.roster)
    count = min(quick.bots, room.capacity - n) if n == 1 and quick.filling_ms is None else 0
    notes: tuple[After, ...] = ()
    if count > cmd.bots_free:
        notes = (Note(f"quick race {room.code}: no computer racers (this process runs its "
                      "most); the racer races alone"),)
        count = 0
    if not count:
        new, events, after = countdown(room, now, [], config)
        return Outcome(None, room=new, events=events, again=True,
                       after=(*notes, *after, RetireLobby(quick.slot)))
    claimed = room.model_copy(update={"quick": quick.model_copy(update={"filling_ms": now})})
    levels = quick_bot_levels(room.roster[0].player, quick.band, config.quick.band_width, count)
    return Outcome(None, room=claimed, again=True,
                   after=(RetireLobby(quick.slot), SeatBots(levels)))


def decide_rematch(loaded: Loaded, cmd: Rematch, config: RaceConfig
                   ) -> Outcome[tuple[RoomRecord, RosterEntry, RoomLink | None]]:
    """A racer of the finished race offers a rematch → the room, the offerer's
    entry and the next room's link (``None``: the offerer makes it).

    :raises AuthMissing, RoomNotFound, AuthInvalidToken, RoomNotOver:
    """
    room = admitted(loaded)
    entry = next(e for e in room.roster if token_matches(cmd.token, e.token_digest))
    if not is_over(room):
        raise err.RoomNotOver(f"the race of room {room.code} is not over ({room.state}): "
                              "a rematch is offered after it", {"state": room.state})
    return Outcome((room, entry, room.rematch))


def decide_link_next(loaded: Loaded, cmd: LinkNext, config: RaceConfig) -> Outcome[RoomLink]:
    """Link ``cmd.fresh`` as the next room, with the ``rematch`` event → the link;
    a room linked first wins (``cmd.fresh`` then vanishes at once).

    :raises RoomNotFound:
    """
    room, fresh = admitted(loaded), cmd.fresh
    if room.rematch is not None:
        gone = () if room.rematch.room == fresh.id else (Expire(0, fresh.id),)
        return Outcome(room.rematch, after=gone)
    link = RoomLink(room=fresh.id, code=fresh.code)
    new = room.model_copy(update={"rematch": link})
    series = None if fresh.series is None else SeriesInfo(
        id=fresh.series.id, race=fresh.series.race, races=fresh.series.races)
    event = RematchEvent(race_clock_ms=present.race_clock(room, loaded.now), rematch=link,
                         series=series).logged()
    after: tuple[After, ...] = (RoomCreated(fresh),)
    if cmd.list_until_ms is not None:
        after = (*after, ListInLobby(cmd.list_until_ms, fresh.id))
    return Outcome(link, room=new, events=[event], after=(*after, LinkKnown()))


def decide_set_par(loaded: Loaded, cmd: SetPar, config: RaceConfig) -> Outcome[None]:
    """The room's par, once its race is over, with a ``par`` event of the
    standings to par.

    :raises RoomNotFound, RoomNotOver:
    """
    room = admitted(loaded)
    if not is_over(room):
        raise err.RoomNotOver(f"the race of room {room.code} is not over ({room.state}): "
                              "its par is stored after it", {"state": room.state})
    if room.par is not None:
        return Outcome(None)
    new = room.model_copy(update={"par": cmd.par})
    table = present.standings(new, list(cmd.views))
    event = ParEvent(race_clock_ms=present.race_clock(new, loaded.now), **table.model_dump())
    return Outcome(None, room=new, events=[event.logged()], after=(ParKnown(),))


def decide_forget(loaded: Loaded, cmd: Forget, config: RaceConfig) -> Outcome[None]:
    """A forgotten player's racer takes ``cmd.name`` and loses its player link.

    :raises RoomNotFound:
    """
    room = admitted(loaded)
    entry = room.entry(cmd.racer_id)
    if entry is None or (entry.player is None and entry.name == cmd.name):
        return Outcome(None)
    roster = [e.model_copy(update={"name": cmd.name, "player": None}) if e.id == cmd.racer_id
              else e for e in room.roster]
    return Outcome(None, room=room.model_copy(update={"roster": roster}))

