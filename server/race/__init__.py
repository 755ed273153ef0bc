"""The live race authority: rooms, racers, the race clock, the move decision,
ranking and room events.

Independent of HTTP: :class:`RaceAuthority` over a :class:`server.store.LiveStore`,
composed of small collaborators (``lobby``, ``racers``, ``play``, ``assist``,
``timers``, ``rooms``, ``cache``) and pure pieces (``decide``, ``access``,
``present``, ``events``, ``ranking``); see docs/architecture.md.
"""

from __future__ import annotations

from .authority import RaceAuthority, RaceConfig, RoomOptions
from .errors import RaceError

__all__ = ["RaceAuthority", "RaceConfig", "RaceError", "RoomOptions"]
