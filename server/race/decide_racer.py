"""The decisions of the racers' commands: join, ready, leave (or the host's kick),
resign, a time-out, a seat in a rematch room (docs/protocol.md, "REST"), a
focus loss (docs/protocol.md, "WebSocket").

Pure functions ``(Loaded, command, config) → Outcome``; a refusal is raised as
the :class:`~server.race.errors.RaceError` it is and answered as
:class:`~server.race.outcome.Refused` by :func:`server.race.decide.decide`.
Shape, room and credentials are checked before, by the command's gate
(:mod:`server.race.gate`); these check state, then make the write.
"""

from __future__ import annotations

from typing import Any, Literal

from . import errors as err
from . import present
from .access import check_racing
from .commands import FocusLost, Join, Leave, Ready, RematchSeat, Resign, TakeQuickSeat, TimeOut
from .events import FinishedEvent, JoinedEvent, LeftEvent, ReadyEvent
from .gate import admitted
from .ids import check_name, same_name, token_matches
from .outcome import After, CheckRaceEnd, Loaded, Outcome, RacerFinal, SaveFresh
from .state import RacerRecord, RoomRecord, RosterEntry
from .timers import RaceConfig, countdown
from .views import RacerView

__all__ = ["FOCUS_CAP", "FOCUS_GAP_MS", "decide_focus_lost", "decide_join", "decide_leave",
           "decide_ready", "decide_rematch_seat", "decide_resign", "decide_time_out",
           "fresh_view", "name_of"]

FOCUS_CAP = 1_000
"""Most focus losses counted per racer and race."""
FOCUS_GAP_MS = 1_000
"""At most one focus loss counted per this much race clock (ms) per racer: a
flood of reports writes at most once a second, and a blur followed by the page
hidden is one loss."""


def name_of(cmd: Join) -> str:
    """The joining racer's display name, trimmed (the :class:`Join`'s shape check).

    :raises RequestInvalid: an empty, too long or invisible name (``field: name``).
    """
    try:
        return check_name(cmd.name)
    except ValueError as exc:
        raise err.RequestInvalid(str(exc), {"field": "name"}) from None


def fresh_view(room: RoomRecord, entry: RosterEntry, loaded: Loaded,
               racer: RacerRecord | None = None) -> RacerView:
    """The racer's public progress; a racer without a record is a fresh one on
    the room's deal (``loaded.fresh_cards`` foundation cards)."""
    return present.racer_view(room, entry, racer or RacerRecord(
        id=entry.id, foundation_cards=loaded.fresh_cards))


def decide_join(loaded: Loaded, cmd: Join,
                config: RaceConfig) -> Outcome[tuple[RacerView, RoomRecord]]:
    """A racer joins a waiting room → their view and the room as written. In a
    quick-race lobby the join sets the lobby's next step, or starts the
    countdown when the racer fills it.

    :raises RequestInvalid, RoomNotFound, RoomNotWaiting, RoomFull, RacerNameTaken:
    """
    name = name_of(cmd)
    room, now = admitted(loaded), loaded.now
    if isinstance(cmd, TakeQuickSeat) and room.quick is None:
        raise err.RoomNotWaiting("not a quick-race lobby: take another seat",
                                 {"state": room.state})
    if room.state != "waiting":
        why = {"countdown": "the race is about to start",
               "racing": "the race has already started"}.get(room.state,
                                                              f"the room is {room.state}")
        raise err.RoomNotWaiting(f"{why}: spectate instead", {"state": room.state})
    if len(room.roster) >= room.capacity:
        raise err.RoomFull(f"the room holds {room.capacity} racers")
    if any(same_name(e.name, name) for e in room.roster):
        raise err.RacerNameTaken(f"{name!r} is taken in this room", {"name": name})
    if cmd.player is not None and any(e.player == cmd.player for e in room.roster):
        raise err.RacerNameTaken("this player races in this room already", {"name": name})
    entry = RosterEntry(id=cmd.racer_id, name=name, join_order=room.joins + 1,
                        token_digest=cmd.token_digest, player=cmd.player, bot=cmd.bot,
                        bot_level=cmd.bot_level, bot_seed=cmd.bot_seed)
    new = room.model_copy(update={"roster": [*room.roster, entry], "joins": room.joins + 1})
    if new.quick is not None:
        new = new.model_copy(update={"quick": new.quick.joined(len(new.roster), now)})
    view = fresh_view(new, entry, loaded)
    events = [JoinedEvent(race_clock_ms=present.race_clock(new, now), racer=view).logged()]
    after: tuple[After, ...] = ()
    if new.quick is not None and len(new.roster) >= new.capacity:
        new, events, after = countdown(new, now, events, config)  # a full lobby starts
    return Outcome((view, new), room=new, events=events,
                   after=(*after, SaveFresh(entry.id)))


def decide_ready(loaded: Loaded, cmd: Ready, config: RaceConfig) -> Outcome[RacerView]:
    """A racer is (not) ready; when every racer is, the countdown starts — unless
    they are all computer racers (their person left: the host may still start).

    :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
        AuthForbidden, RoomNotWaiting:
    """
    room, now = admitted(loaded), loaded.now
    entry = room.entry(cmd.racer_id)
    assert entry is not None  # the gate: the racer's own token
    if room.state != "waiting":
        raise err.RoomNotWaiting(f"the room is {room.state}", {"state": room.state})
    roster = [e.model_copy(update={"ready": cmd.ready}) if e.id == cmd.racer_id else e
              for e in room.roster]
    new = room.model_copy(update={"roster": roster})
    events = [ReadyEvent(race_clock_ms=present.race_clock(new, now), racer=cmd.racer_id,
                         ready=cmd.ready).logged()]
    after: tuple[After, ...] = ()
    if all(e.ready for e in roster) and not all(e.bot for e in roster):
        # computer racers alone are nobody to race for: only the host starts them
        new, events, after = countdown(new, now, events, config)
    entry = new.entry(cmd.racer_id) or entry
    return Outcome(fresh_view(new, entry, loaded), room=new, events=events, after=after)


def decide_leave(loaded: Loaded, cmd: Leave, config: RaceConfig) -> Outcome[None]:
    """The racer leaves (their token) or the host kicks them (the host token).
    Before the start (countdown included) the racer is removed — the last one
    leaving, computer racers aside, cancels the countdown; during the race their
    result becomes final as ``left``. The host's kick ends at the start
    (docs/fair-play.md: a kicked leader would hand the host a rated win); the
    host may still close the room, which leaves the race unrated.

    :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
        AuthForbidden, RoomOver, RacerFinished, KickAfterStart:
    """
    room, now = admitted(loaded), loaded.now
    if room.state in ("over", "closed"):
        raise err.RoomOver(f"the room is {room.state}")
    entry = room.entry(cmd.racer_id)
    kicked = entry is not None and not token_matches(cmd.token, entry.token_digest)
    if kicked and room.state == "racing":
        raise err.KickAfterStart("the race has started: the host may close the room "
                                 "(unrated) but no longer remove a racer",
                                 {"racer": cmd.racer_id, "state": room.state})
    if kicked and room.series is not None and room.series.race > 1:
        # the series has started: a racer kicked between races would lose the rest
        raise err.KickAfterStart("the series has started: the host may close the room "
                                 "but no longer remove a racer",
                                 {"racer": cmd.racer_id, "state": room.state,
                                  "series_race": room.series.race})
    if room.state in ("waiting", "countdown"):
        roster = [e for e in room.roster if e.id != cmd.racer_id]
        update: dict[str, Any] = {"roster": roster}
        if all(e.bot for e in roster):
            # the last racer (computer racers are nobody to race for) left during
            # the countdown: cancel it
            update.update(state="waiting", start_at_ms=None)
        new = room.model_copy(update=update)
        left = LeftEvent(race_clock_ms=present.race_clock(new, now), racer=cmd.racer_id)
        return Outcome(None, room=new, events=[left.logged()])
    done = _finish(loaded, room, cmd.racer_id, "left")
    return Outcome(None, racer=done.racer, events=done.events, after=done.after)


def decide_resign(loaded: Loaded, cmd: Resign, config: RaceConfig) -> Outcome[RacerView]:
    """The racer concedes: their result becomes final as it stands — ``stuck``
    when their game has no move left (``stuck`` with undo allowed: a person or a
    computer racer who gives up there is stuck, not resigned), else ``resigned``.

    :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
        AuthForbidden, RoomNotRacing, RoomOver, RacerFinished:
    """
    return _finish(loaded, admitted(loaded), cmd.racer_id, "resigned")


def _finish(loaded: Loaded, room: RoomRecord, racer_id: str,
            status: Literal["resigned", "left"]) -> Outcome[RacerView]:
    """The racer's result final as ``status`` at the race clock now (a resign
    with no move left: ``stuck``); the race ends if every result is final."""
    check_racing(room)
    racer = loaded.racer
    assert racer is not None, "the applier loads the racer of a resign or leave"
    if racer.final:
        raise err.RacerFinished(f"the result is already final ({racer.status})")
    final: Literal["resigned", "left", "stuck"] = \
        "stuck" if status == "resigned" and racer.status == "stuck" else status
    clock = present.race_clock(room, loaded.now)
    done = racer.model_copy(update={"status": final, "final": True,
                                    "finished_ms": clock or 0})
    events = [FinishedEvent(race_clock_ms=clock, racer=racer_id, status=final).logged()]
    if status == "left":
        events.insert(0, LeftEvent(race_clock_ms=clock, racer=racer_id).logged())
    entry = room.entry(racer_id)
    assert entry is not None
    return Outcome(fresh_view(room, entry, loaded, done), racer=done, events=events,
                   after=(RacerFinal(), CheckRaceEnd()))


def decide_time_out(loaded: Loaded, cmd: TimeOut, config: RaceConfig) -> Outcome[RacerRecord]:
    """The racer's result final as ``timed_out`` at race clock ``cmd.at_ms`` (the
    time limit when ``None``; the host's close: the close time), or at the
    racer's last move if that is later — a move another process accepted while
    the close was written never lies after the result it belongs to. A final
    result stays as it is.

    :raises RoomNotFound:
    """
    room = admitted(loaded)
    racer = loaded.racer
    assert racer is not None, "the applier loads the racer of a time-out"
    if racer.final:
        return Outcome(racer)
    at = room.time_limit_ms if cmd.at_ms is None else cmd.at_ms
    if racer.log:
        at = max(at, int(racer.log[-1][1]))
    done = racer.model_copy(update={"status": "timed_out", "final": True, "finished_ms": at})
    event = FinishedEvent(race_clock_ms=at, racer=cmd.racer_id, status="timed_out").logged()
    return Outcome(done, racer=done, events=[event], after=(RacerFinal(),))


def decide_focus_lost(loaded: Loaded, cmd: FocusLost, config: RaceConfig) -> Outcome[None]:
    """The racer's page lost focus (their client's report; docs/fair-play.md,
    "Focus") → one more ``focus_losses`` on their record, at race clock
    ``focus_last_ms``, while the race runs and their result is not final. The
    one place of the rules: at most one loss per :data:`FOCUS_GAP_MS` of race
    clock and :data:`FOCUS_CAP` in all. Anything else — before the start, after
    the racer's final result or the race's end, within the second, past the
    cap — is nothing (no write, not a refusal: a page left after the finish is
    nobody's business). No event: the count is never shown.

    :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken, AuthForbidden:
    """
    room = admitted(loaded)
    if room.state != "racing" or room.start_at_ms is None:
        return Outcome(None)
    racer = loaded.racer
    assert racer is not None, "the applier loads the racer of a focus loss during the race"
    clock = loaded.now - room.start_at_ms
    last = racer.focus_last_ms
    if racer.final or not 0 <= clock < room.time_limit_ms or racer.focus_losses >= FOCUS_CAP \
            or (last is not None and clock - last < FOCUS_GAP_MS):
        return Outcome(None)
    counted = racer.model_copy(update={"focus_losses": racer.focus_losses + 1,
                                       "focus_last_ms": clock})
    return Outcome(None, racer=counted)


def decide_rematch_seat(loaded: Loaded, cmd: RematchSeat, config: RaceConfig
                        ) -> Outcome[tuple[RoomRecord, RosterEntry, bool]]:
    """``cmd.entry`` takes a seat in the rematch room, keeping id and token → the
    room, their seat and whether they are its host. A seat held answers the
    same (idempotent); a new one is written, then answered so (``again``).

    :raises RoomNotFound, RoomNotWaiting, RoomFull, RacerNameTaken:
    """
    room = admitted(loaded)
    entry = cmd.entry
    mine = room.entry(entry.id)
    if mine is not None and token_matches(cmd.token, mine.token_digest):
        return Outcome((room, mine, token_matches(cmd.host_token, room.host_digest)))
    if room.state != "waiting":
        raise err.RoomNotWaiting(f"the rematch in room {room.code} is {room.state} without "
                                 "you: spectate it", {"state": room.state, "room": room.id})
    if len(room.roster) >= room.capacity:
        raise err.RoomFull(f"the rematch room holds {room.capacity} racers")
    if mine is not None or any(same_name(e.name, entry.name) for e in room.roster):
        raise err.RacerNameTaken(f"{entry.name!r} is taken in the rematch room",
                                 {"name": entry.name})
    seat = entry.model_copy(update={"join_order": room.joins + 1, "ready": False})
    new = room.model_copy(update={"roster": [*room.roster, seat], "joins": room.joins + 1})
    joined = JoinedEvent(racer=fresh_view(new, seat, loaded)).logged()
    return Outcome((new, seat, False), room=new, events=[joined], again=True)
