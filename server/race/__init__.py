"""The live race authority: rooms, racers, the race clock, the move decision,
ranking and room events.

Independent of HTTP: :class:`RaceAuthority` over a :class:`server.store.LiveStore`.
Every room action is a command (``commands``) decided by one pure function
(``gate``, ``decide``, ``decide_room``, ``decide_racer``, ``decide_create``) and applied by one
load → decide → compare-and-set → retry loop (``apply``); the actions' front
doors (``lobby``, ``racers``, ``play``, ``rematch``, ``quick``, ``assist``)
draw ids and build views; pure pieces (``access``, ``present``, ``events``,
``ranking``, ``timers``); see docs/architecture.md.
"""

from __future__ import annotations

from .authority import RaceAuthority, RaceConfig, RoomOptions
from .errors import RaceError

__all__ = ["RaceAuthority", "RaceConfig", "RaceError", "RoomOptions"]
