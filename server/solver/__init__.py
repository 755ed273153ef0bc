"""Search over the rules engine: winnability, hints, par and deal difficulty (issue 7).

``solve`` answers ``won`` (with the line) / ``lost`` (proved) / ``unknown``
(budget spent) in two modes, ``known-redeals`` and ``one-layout``; ``hint``,
``par``, ``difficulty`` and ``proved_winnable`` serve the race service, and
:class:`SolverPool` runs any of them in worker processes. ``docs/solver.md``
describes the search and its measured figures.
"""

from __future__ import annotations

from .analysis import Difficulty, DifficultyLabel, difficulty, hint, par, proved_winnable
from .errors import SolverError, UnsupportedRulesError
from .play import LayoutPlay, play_layouts
from .pool import SolverBusyError, SolverPool
from .solve import (
    DEFAULT_MAX_NODES,
    MODES,
    Mode,
    SolveResult,
    Verdict,
    default_redeal_key,
    solve,
    verify_line,
)

__all__ = [
    "DEFAULT_MAX_NODES",
    "MODES",
    "Difficulty",
    "DifficultyLabel",
    "LayoutPlay",
    "Mode",
    "SolveResult",
    "SolverBusyError",
    "SolverError",
    "SolverPool",
    "UnsupportedRulesError",
    "Verdict",
    "default_redeal_key",
    "difficulty",
    "hint",
    "par",
    "play_layouts",
    "proved_winnable",
    "solve",
    "verify_line",
]
