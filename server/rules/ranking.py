"""The race ranking's order and points (rules.md, "Race ranking"): one sort key
and one points formula for every ranking.

Live standings (:mod:`server.race.ranking`), comparison verdicts
(:mod:`server.records.compare`), leaderboards and ``lucie verify`` order
results with :func:`ranking_key` and score them with :func:`race_points`, so
they can never disagree. Pure: no clock, no I/O.
"""

from __future__ import annotations

__all__ = ["DUEL_RACE_PREFIX", "RankingKey", "duel_key", "is_duel_race", "race_points",
           "ranking_key", "shared_ranks"]

DUEL_RACE_PREFIX = "duel-"
"""A settled duel's race id is this and its challenge's id (16 characters, as a
room id: a room's own race id never has this form)."""

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


def duel_key(foundation_cards: int, reach_time_ms: int | None) -> tuple[int, int]:
    """Sort key of a duel's result (rules.md, "Race ranking", its first two
    keys; smaller is better): more foundation cards, then the earlier reach
    time (``None`` counts as 0). Equal on both, a draw: a duel (two attempts
    played apart, docs/protocol.md "Challenges and duels") is not decided by
    moves nor by who played first."""
    return (-foundation_cards, reach_time_ms or 0)


def shared_ranks(keys: list[tuple[int, int]]) -> list[int]:
    """Standard competition ranks of ``keys`` (1, 1, 3 …), in their order:
    equal keys share a rank."""
    return [1 + sum(other < key for other in keys) for key in keys]


def is_duel_race(race_id: str) -> bool:
    """Whether ``race_id`` is a settled duel's race (ranked by :func:`duel_key`,
    ties sharing a rank)."""
    return race_id.startswith(DUEL_RACE_PREFIX) and len(race_id) == len(DUEL_RACE_PREFIX) + 16
