"""A challenge attempt's result, stored as its race is archived (issue 35).

:func:`record_attempt` runs inside the transaction of
:func:`server.archive.writing.store_race`, so an attempt counts exactly once
(the race's insert is the idempotence key) and a process killed mid-write
leaves neither the race nor the result. An attempt is recognised by its
room: the race document's room record names its challenge (``challenge``)
and its room id is the attempt's (``challenge_attempts.room_id``); any
other race — the settled duel's own race among them — changes nothing here.

When a rated challenge (a duel) or a drawn duel's tie-break has the results
of both its creator and its taker, the same transaction marks it ``settle_due``: the settling itself
(:meth:`server.archive.challenges_db.ChallengeQueries.settle`) is one
compare-and-set from whichever process looks first. The challenge row is
locked first (``FOR UPDATE``; SQLite holds its one write lock), so two
processes archiving the two attempts at once see each other's result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import and_, delete, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from .schema import challenge_attempts, challenges, notifications

__all__ = ["forget_in_challenges", "record_attempt", "unlisted"]

_c, _a = challenges.c, challenge_attempts.c


def unlisted(race_id: Any) -> Any:
    """Whether the race ``race_id`` (a column) is left out of a player's
    history: an attempt at a challenge still open (nothing of an attempt shows
    before then: docs/protocol.md, "Challenges and duels"), or an attempt at
    a settled duel or tie-break, whose own race (``duel-<id>``) holds both
    games — a duel is listed once. A correlated ``EXISTS`` on
    ``ix_challenge_attempts_race``: one index probe per row read."""
    return (exists().where(and_(
        _a.race_id == race_id, _c.challenge_id == _a.challenge_id,
        or_(_c.state == "open",
            and_(_c.state == "settled", _c.kind.in_(("rated", "tiebreak")))))))


async def record_attempt(conn: AsyncConnection, row: dict[str, Any],
                         racer_rows: list[dict[str, Any]]) -> bool:
    """Store the result of the attempt the race ``row`` (a ``races`` row) was,
    when it was one (module docstring): ``True`` when a result was stored."""
    challenge_id = (row.get("room") or {}).get("challenge")
    if not challenge_id or not racer_rows:
        return False
    found = (await conn.execute(
        select(_c.creator_id, _c.taker_id, _c.kind, _c.state, _c.offered_ms)
        .where(_c.challenge_id == challenge_id).with_for_update())).first()
    if found is None:
        return False
    racer = racer_rows[0]
    done = await conn.execute(
        update(challenge_attempts)
        .where(and_(_a.challenge_id == challenge_id, _a.room_id == row["room_id"],
                    _a.race_id.is_(None)))
        .values(race_id=row["race_id"], status=racer["status"],
                foundation_cards=racer["foundation_cards"],
                reach_time_ms=racer["reach_time_ms"], moves=len(racer["moves"]),
                finished_at_ms=row["ended_at_ms"]))
    if not done.rowcount:
        return False
    values: dict[str, Any] = {"played": _c.played + 1}
    if racer["player_id"] == found.creator_id and found.offered_ms is None:
        values["offered_ms"] = row["ended_at_ms"]  # a duel is offered once its creator played
    if found.kind in ("rated", "tiebreak") and found.state == "open" \
            and found.taker_id is not None:
        results = dict((await conn.execute(
            select(_a.player_id, _a.race_id).where(_a.challenge_id == challenge_id))).all())
        if results.get(found.creator_id) and results.get(found.taker_id):
            values["settle_due"] = True
    await conn.execute(update(challenges).where(_c.challenge_id == challenge_id)
                       .values(values))
    return True


async def forget_in_challenges(conn: AsyncConnection, player_id: str,
                               name_of: Callable[[str], str]) -> None:
    """A forgotten player in challenges (in ``PlayerQueries.delete_player``'s
    transaction), as in archived races: in every challenge they made, played
    or were to play, their id becomes ``anonymous-<racer id>`` (the racer
    of their attempt there; the challenge's id before any attempt) and their
    name ``name_of`` of the same — attempts, creator, taker and a settled
    duel's result alike, so nothing links their challenges to one another;
    their notifications go."""
    mine = {r.challenge_id: r.racer_id for r in (await conn.execute(
        select(_a.challenge_id, _a.racer_id).where(_a.player_id == player_id))).all()}
    theirs = (await conn.execute(select(
        _c.challenge_id, _c.creator_id, _c.taker_id, _c.result).where(or_(
            _c.creator_id == player_id, _c.taker_id == player_id,
            _c.challenge_id.in_(list(mine)))))).all()
    for found in theirs:
        cid = found.challenge_id
        seed = mine.get(cid) or cid[:8]
        anon, name = f"anonymous-{seed}", name_of(seed)
        if cid in mine:
            await conn.execute(update(challenge_attempts).where(and_(
                _a.challenge_id == cid, _a.player_id == player_id))
                .values(player_id=anon, name=name))
        values: dict[str, Any] = {}
        if found.creator_id == player_id:
            values.update(creator_id=anon, creator_name=name)
        if found.taker_id == player_id:
            values["taker_id"] = anon
        if found.result:
            result = dict(found.result)
            if result.get("winner") == player_id:
                result["winner"] = anon
            result["players"] = [anon if p == player_id else p
                                 for p in result.get("players") or []]
            values["result"] = result
        if values:
            await conn.execute(update(challenges).where(_c.challenge_id == cid).values(values))
    await conn.execute(delete(notifications).where(notifications.c.player_id == player_id))
