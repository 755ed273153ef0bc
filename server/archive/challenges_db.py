"""Challenges and duels in the archive database (issue 35; docs/protocol.md,
"Challenges and duels").

:class:`server.archive.db.ArchiveDb` holds one :class:`ChallengeQueries` and
hands its methods out; the live side (``server.race.challenges``) decides and
builds, this module stores and reads. Times are Unix ms of the caller's
service clock (``now``), passed in.

- A challenge row is written with its creator's attempt
  (:meth:`~ChallengeQueries.create_challenge`); every later attempt is one
  row per player and challenge — the primary key ``(challenge_id,
  player_id)`` is what makes a second attempt impossible
  (:meth:`~ChallengeQueries.add_attempt`, under the challenge row's lock).
- A duel (``kind`` ``rated``) is handed to one taker at a time by
  compare-and-set (:meth:`~ChallengeQueries.take_duel`); the matchmaker's
  candidates are :meth:`~ChallengeQueries.duel_candidates` (rating band
  widening with the challenge's age).
- Results arrive with the attempts' races (:mod:`server.archive.challenge_results`);
  :meth:`~ChallengeQueries.settle` settles a duel and
  :meth:`~ChallengeQueries.close_challenge` voids or closes an expired
  challenge — each one ``UPDATE … WHERE state = 'open'`` with its effects
  (the duel's race, its ratings, the notifications) in the same
  transaction, so whichever process comes first does it, once, and a
  process killed halfway did nothing.

Size: every challenge query in one class (the ``ChallengeArchive`` protocol's
and the seal's), each a few statements; the matchmaking query is
:mod:`server.archive.duel_match`, an attempt's result and a forgotten
player's rows :mod:`server.archive.challenge_results`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    and_,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.errors import (
    ChallengeAlreadyPlayed,
    ChallengeClosed,
    ChallengeExpired,
    ChallengeNotFound,
)

from .duel_match import candidates
from .ratings import rating_of
from .schema import challenge_attempts, challenges, notifications
from .writing import race_rows, store_race

__all__ = ["ChallengeQueries"]

_Guard = Callable[[], Any]
_KEPT = 10_000
"""Closed challenges a process remembers at most (then it starts again)."""
_c, _a, _n = challenges.c, challenge_attempts.c, notifications.c
_INSERT = {"postgresql": postgresql.insert(challenges).on_conflict_do_nothing(),
           "sqlite": sqlite.insert(challenges).on_conflict_do_nothing()}
_ATTEMPT = {"postgresql": postgresql.insert(challenge_attempts).on_conflict_do_nothing(),
            "sqlite": sqlite.insert(challenge_attempts).on_conflict_do_nothing()}


def _in_progress(now: int) -> Any:
    """An attempt of the challenge handed out, without a result, before its deadline."""
    return exists().where(and_(_a.challenge_id == _c.challenge_id, _a.race_id.is_(None),
                               _a.deadline_ms > now))


def _refuse(found: Any, player_id: str, played: bool, now: int) -> None:
    """The refusals of a new attempt, in order: played already, expired, not open.

    :raises ChallengeAlreadyPlayed, ChallengeExpired, ChallengeClosed:
    """
    if played:
        raise ChallengeAlreadyPlayed("you played this challenge already: only the first "
                                     "attempt counts", {"challenge": found.challenge_id})
    if found.state == "open" and found.expires_ms <= now:
        raise ChallengeExpired("this challenge has expired", {
            "challenge": found.challenge_id, "expires_at_ms": found.expires_ms})
    if found.state != "open":
        raise ChallengeClosed(f"this challenge is {found.state}", {
            "challenge": found.challenge_id, "state": found.state})
    if found.kind == "rated":
        raise ChallengeClosed("a rated challenge is played by its creator and the rival the "
                              "matchmaker gives it (POST /duels)",
                              {"challenge": found.challenge_id, "state": found.state})
    if found.kind == "tiebreak" and player_id not in (found.creator_id, found.taker_id):
        raise ChallengeClosed("a tie-break is played by the two players of its duel only",
                              {"challenge": found.challenge_id, "state": found.state})


class ChallengeQueries:
    """Challenge reads and writes over ``engine`` (module docstring); ``ready``
    and ``guard`` as :class:`~server.archive.players.PlayerQueries`'."""

    def __init__(self, engine: AsyncEngine, ready: Callable[[], Any], guard: _Guard) -> None:
        self.engine = engine
        self._ready = ready
        self._guard = guard
        self._closed: set[str] = set()
        """Challenges this process read closed (a close is for good)."""

    def _known_closed(self, challenge_id: str) -> None:
        if len(self._closed) > _KEPT:
            self._closed.clear()
        self._closed.add(challenge_id)

    def _dialect(self) -> str:
        return "postgresql" if self.engine.dialect.name == "postgresql" else "sqlite"

    async def create_challenge(self, row: dict[str, Any], attempt: dict[str, Any]) -> bool:
        """Store a new challenge (a ``challenges`` row) with its creator's
        attempt (a ``challenge_attempts`` row); ``False``: its id or code is
        taken (nothing stored: draw new ones). :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.begin() as conn:
                done = await conn.execute(_INSERT[self._dialect()], row)
                if not done.rowcount:
                    return False
                await conn.execute(insert(challenge_attempts), attempt)
        return True

    async def find_challenge(self, ref: str) -> dict[str, Any] | None:
        """The challenge by id or code (any case) with its attempts, oldest
        first (``{…challenges row, "attempts": [challenge_attempts rows]}``),
        or ``None``. :raises ArchiveUnavailable:"""
        if not ref or len(ref) > 32 or "\x00" in ref:
            return None
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                found = (await conn.execute(select(challenges).where(or_(
                    _c.challenge_id == ref, _c.code == ref.upper())))).mappings().first()
                if found is None:
                    return None
                return await self._with_attempts(conn, dict(found))

    async def _with_attempts(self, conn: AsyncConnection,
                             row: dict[str, Any]) -> dict[str, Any]:
        attempts = (await conn.execute(
            select(challenge_attempts).where(_a.challenge_id == row["challenge_id"])
            .order_by(_a.started_ms, _a.player_id))).mappings().all()
        return {**row, "attempts": [dict(a) for a in attempts]}

    async def check_attempt(self, ref: str, player_id: str, now: int) -> dict[str, Any]:
        """The challenge ``ref`` names, when ``player_id`` may attempt it at
        ``now`` (a look before the attempt's room is made; :meth:`add_attempt`
        decides). :raises ChallengeNotFound, ChallengeAlreadyPlayed,
        ChallengeExpired, ChallengeClosed, ArchiveUnavailable:"""
        found = await self.find_challenge(ref)
        if found is None:
            raise ChallengeNotFound(f"no challenge {ref[:32]!r}", {"challenge": ref[:32]})
        played = any(a["player_id"] == player_id for a in found["attempts"])
        _refuse(_Row(found), player_id, played, now)
        return found

    async def add_attempt(self, challenge_id: str, attempt: dict[str, Any], now: int) -> None:
        """Store the attempt (a ``challenge_attempts`` row) under the challenge
        row's lock, refused as :meth:`check_attempt` refuses.

        :raises ChallengeNotFound, ChallengeAlreadyPlayed, ChallengeExpired,
            ChallengeClosed, ArchiveUnavailable:
        """
        await self._ready()
        with self._guard():
            async with self.engine.begin() as conn:
                found = (await conn.execute(select(challenges).where(
                    _c.challenge_id == challenge_id).with_for_update())).first()
                if found is None:
                    raise ChallengeNotFound(f"no challenge {challenge_id!r}",
                                            {"challenge": challenge_id})
                done = await conn.execute(_ATTEMPT[self._dialect()], attempt)
                _refuse(found, attempt["player_id"], not done.rowcount, now)

    async def duel_candidates(self, variant: str, player_id: str, rating: float, now: int,
                              width: float, widen_ms: int, limit: int) -> list[dict[str, Any]]:
        """Open duels of ``variant`` whose creator played and nobody holds,
        not ``player_id``'s nor played by them, whose creator's rating is
        within ``width × (1 + ⌊age / widen_ms⌋)`` of ``rating`` (age: since
        the challenge was made) — nearest rating first, then oldest; at most
        ``limit``. :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                return await candidates(conn, variant, player_id, rating, now, width,
                                         widen_ms, limit)

    async def match_duel(self, variant: str, player_id: str, now: int, width: float,
                         widen_ms: int, limit: int) -> tuple[float, list[dict[str, Any]]]:
        """The player's rating in ``variant`` (mu − 3 sigma, 0 before a rated race
        there) and their :meth:`duel_candidates`, read on one connection (``POST
        /duels`` asks both). :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                rating = await rating_of(conn, player_id, variant) or 0.0
                return rating, await candidates(conn, variant, player_id, rating, now,
                                                 width, widen_ms, limit)

    async def take_duel(self, challenge_id: str, attempt: dict[str, Any], now: int) -> bool:
        """Hand the duel to ``attempt``'s player (its taker until the attempt's
        ``deadline_ms``) and store the attempt, by compare-and-set: ``False``
        when someone else holds it now, or it closed. :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.begin() as conn:
                got = await conn.execute(update(challenges).where(and_(
                    _c.challenge_id == challenge_id, _c.kind == "rated", _c.state == "open",
                    _c.offered_ms.is_not(None), _c.expires_ms > now,
                    _c.creator_id != attempt["player_id"],
                    or_(_c.taker_id.is_(None), _c.taker_until_ms < now)))
                    .values(taker_id=attempt["player_id"],
                            taker_until_ms=attempt["deadline_ms"]))
                if not got.rowcount:
                    return False
                done = await conn.execute(_ATTEMPT[self._dialect()], attempt)
                if not done.rowcount:  # played it before: undo the hold
                    raise ChallengeAlreadyPlayed("you played this challenge already",
                                                 {"challenge": challenge_id})
        return True

    async def due_settlements(self, limit: int) -> list[dict[str, Any]]:
        """Duels with both results, not settled yet, with their attempts.
        :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(select(challenges).where(and_(
                    _c.state == "open", _c.settle_due)).limit(limit))).mappings().all()
                return [await self._with_attempts(conn, dict(r)) for r in rows]

    async def settle(self, challenge_id: str, race: dict[str, Any], result: dict[str, Any],
                     notes: list[dict[str, Any]], now: int, *,
                     tiebreak: dict[str, Any] | None = None,
                     decides: tuple[str, dict[str, Any]] | None = None) -> bool:
        """Settle the duel: ``settled`` with ``result``, its race document
        ``race`` stored and rated (:func:`~server.archive.writing.store_race`:
        figures, openskill ratings, the fair-play queue; unrated when the
        document says ``"rated": false`` — a tie-break's) and ``notes``
        (``{"player_id", "kind", "message"}``) kept — all in one transaction,
        by compare-and-set on the challenge's state: ``False`` when it was not
        due (settled or voided already: nothing written).

        ``tiebreak``: a drawn duel's tie-break (a ``challenges`` row, no
        attempt yet), made in the same transaction (its id or code taken:
        nothing written, ``False`` — the next sweep draws new ones).
        ``decides``: this is a tie-break; ``(duel id, the duel's result)`` —
        the duel's result is replaced in the same transaction.
        :raises ArchiveUnavailable:"""
        await self._ready()
        row, racer_rows = race_rows(race)
        try:
            with self._guard():
                async with self.engine.begin() as conn:
                    got = await conn.execute(update(challenges).where(and_(
                        _c.challenge_id == challenge_id, _c.state == "open", _c.settle_due))
                        .values(state="settled", settle_due=False, closed_ms=now,
                                result=result))
                    if not got.rowcount:
                        return False
                    await store_race(conn, row, racer_rows, rated=bool(race.get("rated", True)))
                    if tiebreak is not None and not (await conn.execute(
                            _INSERT[self._dialect()], tiebreak)).rowcount:
                        raise _Taken
                    if decides is not None:
                        await conn.execute(update(challenges).where(
                            _c.challenge_id == decides[0]).values(result=decides[1]))
                    await self._notify(conn, challenge_id, notes, now)
        except _Taken:
            return False
        self._known_closed(challenge_id)
        return True

    async def due_closings(self, now: int, limit: int) -> list[dict[str, Any]]:
        """Open challenges past their expiry with no attempt under way and no
        duel to settle, with their attempts. :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(select(challenges).where(and_(
                    _c.state == "open", _c.expires_ms <= now, ~_c.settle_due,
                    ~_in_progress(now))).order_by(_c.expires_ms).limit(limit))).mappings().all()
                return [await self._with_attempts(conn, dict(r)) for r in rows]

    async def close_challenge(self, challenge_id: str, state: str,
                              notes: list[dict[str, Any]], now: int) -> bool:
        """Close an expired challenge as ``state`` (``void``: a duel nobody
        completed, unrated; ``closed``: a link challenge) with ``notes``, in
        one transaction, by compare-and-set (still open, expired, nothing
        under way, no duel to settle); ``False``: not so (nothing written).
        :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.begin() as conn:
                got = await conn.execute(update(challenges).where(and_(
                    _c.challenge_id == challenge_id, _c.state == "open",
                    _c.expires_ms <= now, ~_c.settle_due, ~_in_progress(now)))
                    .values(state=state, closed_ms=now))
                if not got.rowcount:
                    return False
                await self._notify(conn, challenge_id, notes, now)
        self._known_closed(challenge_id)
        return True

    @staticmethod
    async def _notify(conn: AsyncConnection, challenge_id: str, notes: list[dict[str, Any]],
                      now: int) -> None:
        if notes:
            await conn.execute(insert(notifications), [
                {**n, "challenge_id": challenge_id, "at_ms": now, "read": False}
                for n in notes])

    async def notifications(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        """The player's last ``limit`` notifications, newest first, each with
        ``read`` as it was; those unread are marked read now.
        :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.begin() as conn:
                rows = [dict(r) for r in (await conn.execute(
                    select(notifications).where(_n.player_id == player_id)
                    .order_by(_n.notification_id.desc()).limit(limit))).mappings().all()]
                fresh = [r["notification_id"] for r in rows if not r["read"]]
                if fresh:
                    await conn.execute(update(notifications).where(
                        _n.notification_id.in_(fresh)).values(read=True))
        return rows

    async def unread_notifications(self, player_id: str) -> int:
        """How many notifications the player has not listed yet.
        :raises ArchiveUnavailable:"""
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                return int((await conn.execute(select(func.count()).where(and_(
                    _n.player_id == player_id, ~_n.read)))).scalar_one())

    async def player_challenges(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        """The challenges the player made, attempted or is to play (a drawn
        duel's tie-break), newest first, with their attempts; at most
        ``limit``. :raises ArchiveUnavailable:"""
        await self._ready()
        attempted = select(_a.challenge_id).where(_a.player_id == player_id)
        with self._guard():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(select(challenges).where(or_(
                    _c.creator_id == player_id, _c.challenge_id.in_(attempted),
                    and_(_c.kind == "tiebreak", _c.taker_id == player_id)))
                    .order_by(_c.created_ms.desc(), _c.challenge_id)
                    .limit(limit))).mappings().all()
                return [await self._with_attempts(conn, dict(r)) for r in rows]

    async def attempt_racer(self, room_id: str, token: str) -> str | None:
        """The racer of the attempt whose room is ``room_id`` when ``token`` is
        that racer's (checked against its digest), else ``None``: an archived
        attempt read by its own racer (the archive keeps no other token).
        :raises ArchiveUnavailable:"""
        if not token or len(room_id) > 64:
            return None
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                found = (await conn.execute(select(_a.racer_id, _a.token_digest).where(
                    _a.room_id == room_id))).first()
        presented = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
        if found is None or not found.token_digest \
                or not hmac.compare_digest(presented, found.token_digest):
            return None
        return str(found.racer_id)

    async def challenge_closed(self, challenge_id: str) -> bool:
        """Whether the challenge is over (settled, void or closed): its
        attempts are public then. A challenge not found is not (its rooms
        stay sealed). :raises ArchiveUnavailable:

        Asked on reads of an attempt's room (its seal): a challenge this
        process saw closed (or closed itself) is answered without a query —
        a close is for good."""
        if challenge_id in self._closed:
            return True
        await self._ready()
        with self._guard():
            async with self.engine.connect() as conn:
                state = (await conn.execute(select(_c.state).where(
                    _c.challenge_id == challenge_id))).scalar_one_or_none()
        closed = state is not None and state != "open"
        if closed:
            self._known_closed(challenge_id)
        return closed


class _Taken(Exception):
    """A new tie-break's id or code is taken: the settling's transaction undone."""


class _Row:
    """Attribute access to a row read as a mapping (for :func:`_refuse`)."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.__dict__.update(row)
