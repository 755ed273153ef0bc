"""Errors of the solver."""

from __future__ import annotations

from server.rules import RulesError

__all__ = ["SolverError", "UnsupportedRulesError"]


class SolverError(RulesError):
    """Base class of the solver's errors; ``SolverError`` itself means a
    solver line did not replay in the engine (a bug, never expected)."""

    code = "solver/error"


class UnsupportedRulesError(SolverError):
    """A rule set the solver does not handle (two decks, free cells)."""

    code = "solver/unsupported"
