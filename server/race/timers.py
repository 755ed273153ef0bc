"""Room timers as pure transitions: the countdown, the race's start, the deadline.

A room's next timer is a function of its record alone (:func:`deadline`): the
countdown's end, the time limit, a waiting quick-race lobby's next step. Timers
advance lazily: the applier (:mod:`server.race.apply`) applies a
:class:`~server.race.commands.Tick` to a room whose timer is due before any
other command reads it, and :meth:`~server.race.apply.Applier.tick`, run in the
background by the app, ticks the rooms whose timer is due in the store's index.
The room's compare-and-set makes each transition, and its events, happen once
across every process. This module holds the settings and the transitions that
several decisions share (:mod:`server.race.decide_room`,
:mod:`server.race.decide_racer`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import present
from .events import CountdownEvent, StartedEvent
from .outcome import After, Expire, RaceStarted
from .quick_state import QuickConfig
from .state import RoomRecord
from .views import RacerView

__all__ = ["RETRIES", "RaceConfig", "RaceOverHook", "countdown", "deadline", "due",
           "race_ttl_ms"]

RETRIES = 16
"""Compare-and-set attempts of one command before it gives up (``store/busy``)."""

RaceOverHook = Callable[[RoomRecord, Sequence[RacerView]], Awaitable[None]]
"""Called once per race, by the process that ended it, with the final records."""


@dataclass(frozen=True, slots=True)
class RaceConfig:
    """Authority settings (milliseconds)."""

    ended_ttl_ms: int = 3_600_000
    """Rooms and all their data vanish this long after the race ends or closes."""
    waiting_ttl_ms: int = 1_800_000
    """A room that never starts vanishes this long after its creation."""
    bot_think_ms: int = 1600
    """The think-time unit of server-run bots: a club bot's median pause before a
    move, ms (:func:`server.solver.levels.think_ms`; 0: no pause)."""
    max_bots: int = 1000
    """The most server-run bots this process runs at once."""
    quick: QuickConfig = field(default_factory=QuickConfig)
    """Quick races (:mod:`server.race.quick`)."""


def deadline(room: RoomRecord) -> int | None:
    """The room's pending timer (store clock, ms): the countdown end, the time
    limit, a waiting quick-race lobby's next step
    (:meth:`~server.race.quick_state.QuickState.deadline`), or ``None`` (waiting,
    over, closed)."""
    if room.state == "waiting" and room.quick is not None:
        # computer racers alone (their racer left) are nobody to start a race for
        return room.quick.deadline(sum(not e.bot for e in room.roster), room.capacity)
    if room.start_at_ms is None:
        return None
    if room.state == "countdown":
        return room.start_at_ms
    if room.state == "racing":
        return room.start_at_ms + room.time_limit_ms
    return None


def due(room: RoomRecord, now: int) -> bool:
    """Whether the room's timer (:func:`deadline`) is due at ``now`` (ms)."""
    at = deadline(room)
    return at is not None and now >= at


def race_ttl_ms(room: RoomRecord, config: RaceConfig, until_start_ms: int) -> int:
    """How long a room that starts in ``until_start_ms`` lives: its race, then
    ``ended_ttl_ms`` (and a minute's slack)."""
    return until_start_ms + room.time_limit_ms + config.ended_ttl_ms + 60_000


def countdown(room: RoomRecord, now: int, events: list[dict[str, Any]],
              config: RaceConfig) -> tuple[RoomRecord, list[dict[str, Any]], tuple[After, ...]]:
    """The countdown starts at ``now``: the room, ``events`` plus ``countdown``
    (and ``started`` when the countdown is 0 s: the race starts at once), and
    the steps after the write (its expiry; the start's log line)."""
    new = room.model_copy(update={"state": "countdown", "start_at_ms": now + room.countdown_ms})
    events = [*events, CountdownEvent(race_clock_ms=present.race_clock(new, now),
                                      starts_in_ms=room.countdown_ms).logged()]
    after: tuple[After, ...] = (Expire(race_ttl_ms(room, config, room.countdown_ms)),)
    if room.countdown_ms == 0:
        new = new.model_copy(update={"state": "racing"})
        events.append(StartedEvent(deal_number=room.deal_number).logged())
        after = (RaceStarted(), *after)
    return new, events, after
