"""Known solver results on real deals (``tests/data/solver-deals.txt``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.rules import deal, get_variant
from server.solver import default_redeal_key, solve

DATA = Path(__file__).parent.parent / "data" / "solver-deals.txt"
ROWS = [line.split() for line in DATA.read_text().splitlines() if line and line[0] != "#"]


@pytest.mark.parametrize("variant", sorted({row[0] for row in ROWS}))
def test_known_results(variant: str) -> None:
    rules = get_variant(variant)
    rows = [r for r in ROWS if r[0] == variant]
    assert len(rows) >= 10
    rows = rows[:6]  # the file holds more; six keep the suite quick
    for _, number, best, verdict in rows:
        n = int(number)
        one = solve(rules, deal(rules, n), None, mode="one-layout", max_seconds=20)
        assert (one.best_foundation, one.exact) == (int(best), True), f"deal {n}"
        known = solve(rules, deal(rules, n), default_redeal_key(n), max_seconds=20)
        assert known.verdict == verdict, f"deal {n}"
