"""The race authority: rooms, racers, the race clock, ranking and replays.

Independent of HTTP: :class:`RaceAuthority` over a :class:`server.store.LiveStore`.
"""

from __future__ import annotations

from .authority import RaceAuthority, RaceConfig, RoomOptions
from .errors import RaceError

__all__ = ["RaceAuthority", "RaceConfig", "RaceError", "RoomOptions"]
