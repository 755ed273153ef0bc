"""The rating refund of an ``assisted`` verdict: ratings recomputed as if the
player had not raced the races the verdict took out (docs/fair-play.md,
"Verdicts"; lichess's ``RatingRefund`` is the anchor).

Ratings (:mod:`server.archive.ratings`) are openskill updates applied race
after race in the order races were archived; each rated race with two or
more players left one ``rating_history`` row per player. :func:`refund`
replays, per variant, every rated race from the first one taken out onward:
each player starts from their rating before it (their last history row of an
earlier race, or a new player's), the taken-out races rank their other
players without the flagged one (a race left with one player rates nobody),
the others as they were. The history rows of the replayed races are written
again and every replayed player's rating row takes its final figures
(``rated_races``: their history rows). Figures other than ratings (wins,
streaks) stay as they were.

Runs in the verdict's transaction (all or nothing), under the same
row locks as :func:`~server.archive.ratings.apply_race` (player id order).
Cost: the replayed races' rows — a moderator's action, not a move's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import and_, delete, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection

from .ratings import MODEL, display_rating
from .schema import archived_racers, player_variants, races, rating_history

__all__ = ["refund"]

_h, _r, _a = rating_history.c, races.c, archived_racers.c


async def refund(conn: AsyncConnection, player_id: str, race_ids: list[str]) -> list[str]:
    """Recompute ratings without ``player_id`` in ``race_ids`` (module
    docstring); the ids of the players whose ratings were replayed."""
    if not race_ids:
        return []
    taken = (await conn.execute(
        select(_r.race_id, _r.variant, _r.archived_at_ms)
        .where(_r.race_id.in_(race_ids)))).all()
    touched: set[str] = set()
    for variant in sorted({t.variant for t in taken}):
        first = min((t.archived_at_ms, t.race_id) for t in taken if t.variant == variant)
        out = {t.race_id for t in taken if t.variant == variant}
        touched |= await _replay(conn, variant, first, player_id, out)
    return sorted(touched)


async def _replay(conn: AsyncConnection, variant: str, first: tuple[int, str],
                  player_id: str, out: set[str]) -> set[str]:
    order = tuple_(_r.archived_at_ms, _r.race_id)
    later = (await conn.execute(
        select(_h.race_id, _h.player_id, _r.archived_at_ms, _r.ended_at_ms)
        .join(races, _r.race_id == _h.race_id)
        .where(and_(_h.variant == variant, order >= tuple_(*first)))
        .order_by(_r.archived_at_ms, _r.race_id))).all()
    if not later:
        return set()
    seats: dict[str, list[str]] = defaultdict(list)
    when: dict[str, tuple[int, int]] = {}
    for row in later:
        seats[row.race_id].append(row.player_id)
        when[row.race_id] = (row.archived_at_ms, row.ended_at_ms)
    ids = sorted({row.player_id for row in later})
    await conn.execute(select(player_variants.c.player_id).where(and_(
        player_variants.c.variant == variant, player_variants.c.player_id.in_(ids)))
        .order_by(player_variants.c.player_id).with_for_update())
    ratings = await _before(conn, variant, first, ids)
    ranks = await _ranks(conn, list(seats))
    history: list[dict[str, Any]] = []
    for race_id in sorted(seats, key=lambda r: (when[r][0], r)):
        field = sorted(p for p in seats[race_id] if not (race_id in out and p == player_id))
        if len(field) < 2:
            continue
        teams = [[MODEL.rating(mu=ratings[p][0], sigma=ratings[p][1])] for p in field]
        new = MODEL.rate(teams, ranks=[float(ranks[race_id][p]) for p in field])
        for p, (after,) in zip(field, new, strict=True):
            ratings[p] = (after.mu, after.sigma)
            history.append({"player_id": p, "variant": variant, "race_id": race_id,
                            "mu": after.mu, "sigma": after.sigma, "at_ms": when[race_id][1]})
    await conn.execute(delete(rating_history).where(and_(
        _h.variant == variant, _h.race_id.in_(list(seats)))))
    if history:
        await conn.execute(rating_history.insert(), history)
    counts = await _counts(conn, variant, ids)
    v = player_variants.c
    for p in ids:
        mu, sigma = ratings[p]
        await conn.execute(update(player_variants).where(and_(
            v.player_id == p, v.variant == variant)).values(
            mu=mu, sigma=sigma, rating=display_rating(mu, sigma),
            rated_races=counts.get(p, 0)))
    return set(ids)


async def _before(conn: AsyncConnection, variant: str, first: tuple[int, str],
                  ids: list[str]) -> dict[str, tuple[float, float]]:
    """Each player's (mu, sigma) after their last rated race archived before
    ``first`` (a new player's when none)."""
    rows = (await conn.execute(
        select(_h.player_id, _h.mu, _h.sigma)
        .join(races, _r.race_id == _h.race_id)
        .where(and_(_h.variant == variant, _h.player_id.in_(ids),
                    tuple_(_r.archived_at_ms, _r.race_id) < tuple_(*first)))
        .order_by(_r.archived_at_ms, _r.race_id))).all()
    out = {p: (MODEL.mu, MODEL.sigma) for p in ids}
    for row in rows:  # in archive order: the last one stays
        out[row.player_id] = (row.mu, row.sigma)
    return out


async def _ranks(conn: AsyncConnection, race_ids: list[str]) -> dict[str, dict[str, int]]:
    """Per race, each player's best rank among their racers."""
    rows = (await conn.execute(
        select(_a.race_id, _a.player_id, _a.rank)
        .where(and_(_a.race_id.in_(race_ids), _a.player_id.is_not(None))))).all()
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for row in rows:
        got = out[row.race_id].get(row.player_id)
        if got is None or row.rank < got:
            out[row.race_id][row.player_id] = row.rank
    return out


async def _counts(conn: AsyncConnection, variant: str, ids: list[str]) -> dict[str, int]:
    rows = (await conn.execute(
        select(_h.player_id).where(and_(_h.variant == variant, _h.player_id.in_(ids))))).all()
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row.player_id] += 1
    return counts
