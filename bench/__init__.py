"""Benchmarks (``make bench``), kept apart from the tests.

Every module ``bench/<name>.py`` that defines ``run(quick: bool) -> list[str]``
is a benchmark: it measures, then returns lines of results, each figure shown
as a ratio against a baseline measured in the same run (so figures from
different machines compare). ``python -m bench`` runs them all,
``python -m bench NAME …`` some, ``--quick`` shortens every run.
Timing targets live here, never in the unit tests.
"""

from __future__ import annotations

__all__: list[str] = []
