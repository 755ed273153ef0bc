"""The race ranking's order (rules.md, "Race ranking"): one sort key for every ranking.

Live standings (:mod:`server.race.ranking`), comparison verdicts
(:mod:`server.records.compare`) and leaderboards order results with
:func:`ranking_key`, so they can never disagree. Pure: no clock, no I/O.
"""

from __future__ import annotations

__all__ = ["RankingKey", "ranking_key"]

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

