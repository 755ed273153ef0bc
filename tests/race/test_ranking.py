"""Standings and points exactly as rules.md "Race ranking" and seed 003."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.race.ranking import points, standings
from server.race.views import RacerView


def racer(i: int, fc: int, reach: int | None, moves: int, status: Any = "playing") -> RacerView:
    return RacerView(id=f"r{i}", name=f"n{i}", join_order=i, ready=True, status=status,
                     foundation_cards=fc, moves=moves, redeals_used=0, merci_used=False,
                     reach_time_ms=reach, finished_ms=None, final=status != "playing")


def test_each_rule_in_turn() -> None:
    table = standings([
        racer(1, 10, 5000, 50),   # fewer cards: last
        racer(2, 20, 9000, 40),   # later reach time
        racer(3, 20, 8000, 60),   # earlier reach time, more moves: first
        racer(4, 20, 9000, 30),   # same reach, fewer moves than 2
        racer(5, 20, 9000, 30),   # same as 4, joined later
    ])
    assert [s.racer for s in table] == ["r3", "r4", "r5", "r2", "r1"]
    assert [s.rank for s in table] == [1, 2, 3, 4, 5]


def test_no_reach_time_ranks_as_zero() -> None:
    table = standings([racer(1, 0, 10, 3), racer(2, 0, None, 3)])
    assert [s.racer for s in table] == ["r2", "r1"]


def test_points_seed_003() -> None:
    assert points(racer(1, 30, 100_000, 10, "resigned")) == 150
    assert points(racer(1, 52, 299_999, 90, "won")) == 260 + 500 + (1200 - 299)
    assert points(racer(1, 52, 1_500_000, 90, "won")) == 260 + 500  # no negative bonus


@given(st.lists(st.tuples(st.integers(0, 52), st.none() | st.integers(0, 900_000),
                          st.integers(0, 500)), min_size=1, max_size=12))
def test_order_is_the_rule_book_key(rows: list[tuple[int, int | None, int]]) -> None:
    racers = [racer(i, fc, reach, moves) for i, (fc, reach, moves) in enumerate(rows, 1)]
    table = standings(racers)
    keys = [(-s.foundation_cards, s.reach_time_ms or 0, s.moves, s.join_order) for s in table]
    assert keys == sorted(keys)
    assert sorted(s.racer for s in table) == sorted(r.id for r in racers)
