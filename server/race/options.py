"""What a new room may be asked for: :class:`RoomOptions` (docs/protocol.md, ``POST /rooms``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .quick_state import QuickState

__all__ = ["RoomOptions"]


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """What ``create_room`` takes (docs/protocol.md, ``POST /rooms``); already
    shape-checked by the transport, range-checked here."""

    variant: str = "belle-lucie"
    redeals: int | None = None
    merci: bool | None = None
    undo: bool | None = None
    deal: int | Literal["random", "daily"] = "random"
    capacity: int = 8
    time_limit_s: int = 900
    visibility: Literal["public", "private"] = "public"
    countdown_s: int = 3
    redeal_key: bytes | None = None
    """Internal (not on the wire): replay a recorded game's redeals (ghost rooms)."""
    ranked: bool = True
    """Internal: whether final results feed the leaderboards (ghost rooms: no)."""
    room_id: str | None = None
    """Internal: the room's id, reserved beforehand (a quick race's forming lobby)."""
    quick: QuickState | None = None
    """Internal: the room is a quick-race lobby (:mod:`server.race.quick`)."""
    hints: bool = False
    """Racers may ask the solver for a hint (practice rooms; issue 7)."""
    winnable_only: bool = False
    """Draw a deal (and redeal key) the solver proves winnable (issue 7)."""
    spectator_delay_s: int | None = None
    """How far behind the race clock spectators see boards: 10…600 s, default 60;
    0 (live) only with ``open_boards`` (docs/protocol.md, "Fair play")."""
    open_boards: bool = False
    """Spectators see boards live; shown in the room's listing before anyone joins."""
    deal_public: bool = False
    """Internal: the deal number is public anyway (ghost rooms); daily rooms are too."""
    bots: int = 0
    """Computer racers seated at once and run by the server process that creates the
    room until their results are final (:mod:`server.race.bots`); fewer than
    ``capacity``."""
    series_races: int | None = None
    """Races of a series (2…9) made from this room, back to back (docs/protocol.md,
    "Series"); ``None``: a single race."""
    series_break_s: int = 20
    """Seconds between two races of a series (0…300), before the next one's countdown."""
    challenge: str | None = None
    """Internal: the room is an attempt at this challenge (:mod:`server.race.challenges`)."""
