"""A challenge attempt's result, stored as its race is archived (issue 35).

:func:`record_attempt` runs inside the transaction of
:func:`server.archive.writing.store_race`, so an attempt counts exactly once
(the race's insert is the idempotence key) and a process killed mid-write
leaves neither the race nor the result. An attempt is recognised by its
room: the race document's room record names its challenge (``challenge``)
and its room id is the attempt's (``challenge_attempts.room_id``); any
other race — the settled duel's own race among them — changes nothing here.

When a rated challenge (a duel) has the results of both its creator and its
taker, the same transaction marks it ``settle_due``: the settling itself
(:meth:`server.archive.challenges_db.ChallengeQueries.settle`) is one
compare-and-set from whichever process looks first. The challenge row is
locked first (``FOR UPDATE``; SQLite holds its one write lock), so two
processes archiving the two attempts at once see each other's result.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from .schema import challenge_attempts, challenges

__all__ = ["record_attempt", "sealed_races"]

_c, _a = challenges.c, challenge_attempts.c


def sealed_races() -> Any:
    """The race ids of attempts at challenges still open: a player's history
    leaves them out until the challenge closes (nothing of an attempt shows
    before then: docs/protocol.md, "Challenges and duels")."""
    return (select(_a.race_id).join(challenges, _c.challenge_id == _a.challenge_id)
            .where(and_(_c.state == "open", _a.race_id.is_not(None))))


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
    if found.kind == "rated" and found.state == "open" and found.taker_id is not None:
        results = dict((await conn.execute(
            select(_a.player_id, _a.race_id).where(_a.challenge_id == challenge_id))).all())
        if results.get(found.creator_id) and results.get(found.taker_id):
            values["settle_due"] = True
    await conn.execute(update(challenges).where(_c.challenge_id == challenge_id)
                       .values(values))
    return True
