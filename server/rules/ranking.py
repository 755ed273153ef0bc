"""The race ranking's order and points (rules.md, "Race ranking"): one sort key
and one points formula for every ranking.

Live standings (:mod:`server.race.ranking`), comparison verdicts
(:mod:`server.records.compare`), leaderboards and ``lucie verify`` order
results with :func:`ranking_key` and score them with :func:`race_points`, so
they can never disagree. Pure: no clock, no I/O.
"""

from __future__ import annotations

__all__ = ["RankingKey", "race_points", "ranking_key"]

RankingKey = tuple[int, int, int, int]


def ranking_key(
    foundation_cards: int,
    reach_time_ms: int | None,
    moves: int,
    join_order: int | None = None,
) -> RankingKey:
    """Sort key of a result by rules.md "Race ranking": smaller is better.

    More foundation cards, then earlier reach time (``None`` counts as 0),
    then fewer moves, then earlier join (``None`` ties with everyone).
    """
    return (-foundation_cards, reach_time_ms or 0, moves, join_order if join_order is not None
            else 0)


def race_points(foundation_cards: int, won: bool, reach_time_ms: int | None) -> int:
    """Seed 003's points shown beside the rank (they do not decide it): 5 per
    foundation card; a win adds 500 plus ``max(0, 1200 − s)`` where ``s`` is
    the reach time in whole seconds (``None`` counts as 0)."""
    score = 5 * foundation_cards
    if won:
        score += 500 + max(0, 1200 - (reach_time_ms or 0) // 1000)
    return score
