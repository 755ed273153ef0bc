"""Race ranking and points (rules.md, "Race ranking"; seed 003 for points).

Pure functions over :class:`~server.race.views.RacerView` values.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.rules.ranking import duel_key, race_points, ranking_key, shared_ranks

from .views import RacerView, Standing

__all__ = ["points", "rank_key", "standings"]


def rank_key(racer: RacerView) -> tuple[int, int, int, int]:
    """Sort key, best first: more foundation cards, earlier reach time (none = 0),
    fewer moves, earlier join."""
    return ranking_key(racer.foundation_cards, racer.reach_time_ms, racer.moves,
                       racer.join_order)


def points(racer: RacerView) -> int:
    """Seed 003's score: 5 per foundation card; a win adds 500 plus
    ``max(0, 1200 − s)`` where ``s`` is the reach time in whole seconds."""
    return race_points(racer.foundation_cards, racer.status == "won", racer.reach_time_ms)


def standings(racers: Iterable[RacerView], *, duel: bool = False) -> list[Standing]:
    """Ranked standings, rank 1 first (ranks are unique: join order breaks ties).
    ``duel``: a settled duel's race — ranked by foundation cards then reach
    time alone, equal on both the same rank (a draw, as the duel's result),
    listed in join order within a rank (:func:`server.rules.ranking.duel_key`)."""
    if duel:
        given = list(racers)
        placed = shared_ranks([duel_key(r.foundation_cards, r.reach_time_ms) for r in given])
        order = sorted(zip(placed, given, strict=True),
                       key=lambda pr: (pr[0], pr[1].join_order or 0))
    else:
        order = list(enumerate(sorted(racers, key=rank_key), 1))
    return [
        Standing(
            rank=rank, racer=r.id, name=r.name, foundation_cards=r.foundation_cards,
            reach_time_ms=r.reach_time_ms, moves=r.moves, join_order=r.join_order,
            status=r.status, final=r.final, points=points(r), bot_level=r.bot_level,
            bot_rating=r.bot_rating,
        )
        for rank, r in order
    ]
