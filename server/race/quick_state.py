"""The pure part of quick races (docs/protocol.md, "Quick race"): the settings,
the lobby's state in its room record, its deadline, its view, rating bands.

A quick-race lobby is an ordinary public room whose record carries a
:class:`QuickState`. Its next automatic step is a deadline computed from the
record alone (:meth:`QuickState.deadline`), so the store's timer index and
every process's sweep can act on it (:func:`server.race.timers.deadline`):

- one racer: computer racers join ``fill_ms`` after they came alone
  (``bots`` of them; none when 0: the racer waits for people), of the level
  nearest the lobby's rating band for a player (:func:`quick_bot_levels`);
- two racers or more: the countdown starts ``wait_ms`` after the second one
  joined — at once when the room is full (in the join's own write);
- once computer racers were claimed for it (``filling_ms``), the countdown
  starts as soon as they are seated, or ``FILL_GRACE_MS`` later whoever is
  there (the process seating them died).

Rating bands: a player's rating for the variant (mu − 3 sigma, docs/players.md)
floored to a multiple of ``band_width``: band ``floor(rating / band_width)``;
anonymous racers and players without a rated race in the variant have rating 0
(band 0, with the new players). Lobbies form per variant and band (the
forming-lobby slot ``<variant>:<band>``); a lobby open for ``d × widen_ms``
also takes racers ``d`` bands away.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from server.solver.levels import Level, levels_mix, nearest_level

__all__ = ["FILL_GRACE_MS", "QuickConfig", "QuickInfo", "QuickState", "band_of",
           "quick_bot_levels", "slot_of"]

FILL_GRACE_MS: Final = 5_000
"""How long the process that claimed a lone racer's computer racers has to
seat them and start the countdown before any process starts it anyway."""


@dataclass(frozen=True, slots=True)
class QuickConfig:
    """Quick-race settings (``LUCIE_QUICK_*``, docs/settings.md), in ms."""

    capacity: int = 6
    wait_ms: int = 20_000
    fill_ms: int = 30_000
    bots: int = 3
    time_limit_s: int = 600
    countdown_s: int = 3
    band_width: float = 5.0
    widen_ms: int = 10_000

    @property
    def reach(self) -> int:
        """How many bands away a caller looks: as far as a lobby can widen
        while it waits (``fill_ms + wait_ms``), at least 1, at most 10."""
        longest = self.fill_ms + self.wait_ms + FILL_GRACE_MS
        return max(1, min(10, longest // max(1, self.widen_ms)))


def band_of(rating: float | None, width: float) -> int:
    """The rating band of ``rating`` (``None``: anonymous, rating 0)."""
    if rating is None or not math.isfinite(rating):
        return 0
    return math.floor(rating / width)


def quick_bot_levels(player: str | None, band: int, width: float,
                     count: int) -> tuple[Level, ...]:
    """The levels of the ``count`` computer racers a lone racer of a lobby of
    ``band`` gets: for a player, all of the level whose rating is nearest the
    band's middle (``(band + ½) × width``: a new player's band 0 gets novices);
    for an anonymous racer, a mix (:func:`~server.solver.levels.levels_mix`)."""
    if player is None:
        return levels_mix(count)
    return (nearest_level((band + 0.5) * width),) * count


def slot_of(variant: str, band: int) -> str:
    """The forming-lobby slot of a variant and band (``RoomIndexes.take_seat``)."""
    return f"{variant}:{band}"


class QuickState(BaseModel):
    """A quick-race lobby's state in its room record (module docstring).
    Times are Unix ms of the service clock."""

    model_config = ConfigDict(extra="forbid")

    slot: str
    band: int
    opened_ms: int
    wait_ms: int
    fill_ms: int
    bots: int
    alone_ms: int | None = None
    """When a racer joined the empty room (the one-racer deadline counts from it)."""
    pair_ms: int | None = None
    """When the room first held two racers (the countdown's deadline counts from it)."""
    filling_ms: int | None = None
    """When a process claimed the lone racer's computer racers."""

    def joined(self, racers: int, now: int) -> QuickState:
        """The state after a join that made ``racers`` racers at ``now``."""
        if racers == 1:
            return self.model_copy(update={"alone_ms": now})
        if racers >= 2 and self.pair_ms is None:
            return self.model_copy(update={"pair_ms": now})
        return self

    def deadline(self, racers: int, capacity: int) -> int | None:
        """The lobby's next automatic step (Unix ms) with ``racers`` racers, or
        ``None`` (empty, or alone without computer racers to come)."""
        if racers == 0:
            return None
        if self.filling_ms is not None:
            return self.filling_ms + FILL_GRACE_MS
        if racers >= capacity or (racers >= 2 and self.pair_ms is None):
            return self.alone_ms or self.opened_ms  # due now (a join wrote no countdown)
        if racers >= 2:
            assert self.pair_ms is not None
            return self.pair_ms + self.wait_ms
        if self.bots <= 0:
            return None
        return (self.alone_ms or self.opened_ms) + self.fill_ms

    def info(self, racers: int, capacity: int, now: int) -> QuickInfo:
        """The lobby as room views show it while it waits."""
        at = self.deadline(racers, capacity)
        alone = racers == 1 and self.filling_ms is None
        left = None if at is None else max(0, at - now)
        return QuickInfo(band=self.band, starts_in_ms=None if alone else left,
                         bots_in_ms=left if alone else None)


class QuickInfo(BaseModel):
    """A quick-race lobby (docs/protocol.md, "Quick race")."""

    model_config = ConfigDict(extra="forbid")

    band: int = Field(description="the rating band the lobby formed in: floor(rating / band "
                      "width); anonymous racers race in band 0")
    starts_in_ms: int | None = Field(
        None, description="while it waits with two racers or more: ms until its countdown "
        "starts by itself (at once when it fills)")
    bots_in_ms: int | None = Field(
        None, description="while one racer waits alone: ms until computer racers join "
        "(null: none will)")
