"""A racer's game as the authority hands it to analysis (head to head, ghosts):
:class:`RacerLog`, not a wire view (it holds the redeal key as bytes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.rules import RuleSet

__all__ = ["RacerLog"]


@dataclass(frozen=True, slots=True)
class RacerLog:
    """A racer's game for analysis (head to head, ghosts): the deal, the redeal key
    and the log of ``(move text, race-clock ms)``. Not a wire view: the redeal key
    stays on the server (``RaceAuthority.racer_log``)."""

    room_id: str
    rules: RuleSet
    deal_number: int
    redeal_key: bytes
    moves: Sequence[tuple[str, int]]
    name: str
    join_order: int
    status: str
    finished_ms: int
    """When the result became final; a running game: the race clock now (ms)."""
