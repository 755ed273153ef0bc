"""Checking a finished race on the client's own engine (docs/protocol.md, "Verifying a
deal"; docs/client.md, "Verifying a race"): the deal commitment the room published
at its creation, the rules, the race view, the racers and the standings, then every
racer's move log replayed against what every view publishes of their result.

The **verification document** (what ``lucie verify ROOM`` fetches, ``--save``
writes and ``--file`` reads) holds the server's answers as they came::

    {
      "format": "lucie-verify",            # optional on reading
      "format_version": 1,                 # optional on reading
      "server": "http://127.0.0.1:8000",   # where it was fetched (not checked)
      "room": Room,                        # GET /rooms/{room}, the race over:
                                           #   rules, deal_number, redeal_key,
                                           #   deal_salt, deal_commitment, racers
      "race": Race,                        # GET /races/{race}: standings, racers
      "replays": {"<racer id>": Replay}    # GET /rooms/{room}/racers/{racer}/replay
    }

Its shape is checked first, in one place (:mod:`client_cli.verify_doc`): a
document out of shape is one ``client/bad_file`` line naming what is wrong
(``not a verification document: room.rules is not an object``).
:func:`verify_document` then makes every check, each one :class:`Check` (a
line to print), all of them whichever fail:

1. ``commitment`` — the room's revealed deal hashes to what it published; the
   race view reveals the same;
2. ``rules`` — the room's rules are a rule set of the engine, and the race
   view and every replay name the same;
3. ``race`` — the race view is the room's race (id, code, time limit);
4. ``racers`` — at least one; the same racers, each once, in the room view,
   the race view, the standings and the replays (each filed under its racer);
5. ``standings`` — final; ranks 1 … n in the order of the race ranking
   (:func:`server.rules.ranking.ranking_key`), points as seed 003
   (:func:`server.rules.ranking.race_points`), ``to_par`` from the par; a
   settled duel's race (``duel-…``) ranks by foundation cards then reach time
   alone, a tie sharing its rank (:func:`server.rules.ranking.duel_key`);
6. one per racer (:mod:`client_cli.verify_racer`) — the move log replayed on
   the engine against every view of the racer's result: the moves, the
   foundation cards, the reach time, the redeals and the merci used, the
   status where the engine can tell it; the moves' race-clock times and
   ``finished_ms`` within the race.

Pure: no I/O; :func:`fetch_document` reads the server.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import quote

from server.rules import RulesError, RuleSet
from server.rules.commitment import deal_commitment
from server.rules.ranking import (
    RankingKey,
    duel_key,
    is_duel_race,
    race_points,
    ranking_key,
    shared_ranks,
)

from .errors import ApiError
from .rest import LucieClient
from .verify_doc import (
    FORMAT,
    FORMAT_VERSION,
    Check,
    Document,
    Race,
    Room,
    Rules,
    Standing,
    as_json,
    clip,
    doc_error,
    join_words,
    parse_document,
    racer_ids,
    racer_name,
    short,
)
from .verify_racer import check_racer

__all__ = ["FORMAT", "FORMAT_VERSION", "NOT_OVER", "Check", "fetch_document",
           "verify_document"]

NOT_OVER: Final = "the race is not over: the deal is revealed when it ends"


def verify_document(doc: Any) -> list[Check]:
    """Every check of ``doc`` (module docstring), in order: commitment, rules, race,
    racers, standings, then each racer.

    :raises ApiError: ``client/bad_file`` — not a verification document (its
        shape, format or version, or rules the engine does not know);
        ``race/hidden_until_over`` — the race it holds is not over
        (:data:`NOT_OVER`); ``client/no_commitment`` — the room published no
        commitment (a room made before them).
    """
    document = parse_document(doc)
    room, race = document.room, document.race
    if room.state not in ("over", "closed"):
        raise ApiError("race/hidden_until_over", f"{NOT_OVER} (room {room.code} is "
                       f"{room.state})")
    if room.deal_commitment is None:
        raise ApiError("client/no_commitment", f"room {room.code} published no deal "
                       "commitment (a room made before commitments): nothing to check")
    try:
        rules = RuleSet.from_json(room.rules.model_dump())
    except RulesError as exc:
        raise doc_error(f"the room's rules: {exc}") from None
    checks = [_commitment(room, race), _rules(rules, document), _race(room, race),
              _racers(document), _standings(race)]
    checks += [check_racer(rules, document, rid) for rid in racer_ids(document)]
    return checks


# -- the race as a whole ----------------------------------------------------------


def _commitment(room: Room, race: Race) -> Check:
    """The room's revealed deal hashes to its published commitment, and the race
    view reveals the same deal."""
    published = str(room.deal_commitment)
    variant = room.rules.variant
    deal, key, salt = room.deal_number, room.redeal_key, room.deal_salt
    if deal is None or key is None or salt is None:
        missing = ", ".join(n for n, v in (("deal_number", deal), ("redeal_key", key),
                                           ("deal_salt", salt)) if v is None)
        return Check(False, f"commitment: the room reveals no {missing} although its race "
                     "is over")
    try:
        actual = deal_commitment(variant, deal, key, salt)
    except ValueError as exc:
        return Check(False, f"commitment: the revealed deal cannot be hashed: {exc}")
    if actual != published.lower():
        return Check(False, f"commitment mismatch: sha256 of the revealed deal is {actual} "
                     f"but the room published {published}")
    for field in ("deal_number", "redeal_key", "deal_salt", "deal_commitment"):
        theirs, ours = getattr(race, field), getattr(room, field)
        if theirs != ours:
            return Check(False, f"commitment: the race view reveals {field} "
                         f"{short(theirs)} but the room view {short(ours)}")
    return Check(True, f"commitment: sha256 of {variant} deal {deal} (redeal key "
                 f"{short(key)}, salt {short(salt)}) is {published}, as published")


def _differences(given: dict[str, Any], wanted: dict[str, Any], whose: str) -> str:
    """``"redeals 0 (the room's: 2), undo false (…)"`` — the fields of ``given``
    that are not ``wanted``'s; empty when none."""
    return ", ".join(f"{k} {as_json(given.get(k))} ({whose}: {as_json(v)})"
                     for k, v in wanted.items() if given.get(k) != v)


def _rules(rules: RuleSet, document: Document) -> Check:
    """The room's rules are the engine's rule set for them; the race view and every
    replay name the same."""
    room = document.room.rules.model_dump()
    problems = []
    engine = _differences(room, rules.to_json(), f"{rules.id} in the engine")
    if engine:
        problems.append(f"the room's rules are not a rule set of the engine: {engine}")
    views: list[tuple[str, Rules]] = [("the race view", document.race.rules)]
    views += [(f"{racer_name(document, rid)}'s replay", replay.rules)
              for rid, replay in document.replays.items()]
    for what, other in views:
        changed = _differences(other.model_dump(), room, "the room's")
        if changed:
            problems.append(f"the rules of {what} differ from the room's: {changed}")
    if problems:
        return Check(False, "rules: " + "; ".join(problems))
    return Check(True, f"rules: {rules.name} ({rules.id}, redeals {rules.redeals}, merci "
                 f"{'on' if rules.merci else 'off'}, undo {'on' if rules.undo else 'off'}), "
                 "the same in the room view, the race view and every replay")


def _race(room: Room, race: Race) -> Check:
    """The race view is the room's race, with its time limit."""
    problems = []
    if (race.room_id, race.room_code) != (room.id, room.code):
        problems.append(f"the race view is of room {race.room_code} (id {race.room_id}), not "
                        f"of room {room.code} (id {room.id})")
    if race.time_limit_ms != room.time_limit_ms:
        problems.append(f"the race view's time limit is {race.time_limit_ms} ms, the room's "
                        f"{room.time_limit_ms} ms")
    if race.ended_at_ms < race.started_at_ms:
        problems.append(f"the race view ends (ended_at_ms {race.ended_at_ms}) before it "
                        f"starts (started_at_ms {race.started_at_ms})")
    if problems:
        return Check(False, "race: " + "; ".join(problems))
    return Check(True, f"race: the race view is of room {room.code}, time limit "
                 f"{room.time_limit_ms} ms")


def _racers(document: Document) -> Check:
    """The same racers, each once, in every view and with a replay each."""
    ids = racer_ids(document)
    if not ids:
        return Check(False, "racers: none in the room view, the race view, the standings or "
                     "the replays — a race nobody raced proves nothing")
    lists = [("the room view", [r.id for r in document.room.racers]),
             ("the race view", [r.id for r in document.race.racers]),
             ("the standings", [s.racer for s in document.race.standings.standings])]
    problems = []
    for where, listed in lists:
        for rid in dict.fromkeys(listed):
            if listed.count(rid) > 1:
                problems.append(f"{racer_name(document, rid)} is listed {listed.count(rid)} "
                                f"times in {where}")
    for rid in ids:
        name = racer_name(document, rid)
        missing = [where for where, listed in lists if rid not in listed]
        if missing:
            problems.append(f"{name} is missing from {join_words(missing)}")
        replay = document.replays.get(rid)
        if replay is None:
            problems.append(f"{name} has no replay")
        elif replay.result.id != rid:
            problems.append(f"the replay filed under {name} is "
                            f"{clip(racer_name(document, replay.result.id))}'s")
    if problems:
        return Check(False, "racers: " + "; ".join(problems))
    names = [racer_name(document, rid) for rid in ids]
    return Check(True, f"racers: {len(ids)} ({', '.join(names)}), the same in the room "
                 "view, the race view, the standings and the replays")


def _key(line: Standing) -> RankingKey:
    return ranking_key(line.foundation_cards, line.reach_time_ms, line.moves, line.join_order)


def _ranked_by(best: Standing, other: Standing) -> str:
    """Which rule of the race ranking puts ``best`` above ``other``."""
    a, b = _key(best), _key(other)
    if a[0] != b[0]:
        return f"more foundation cards: {best.foundation_cards} to {other.foundation_cards}"
    if a[1] != b[1]:
        return f"earlier reach time: {a[1]} ms to {b[1]} ms"
    if a[2] != b[2]:
        return f"fewer moves: {best.moves} to {other.moves}"
    return f"earlier join: {best.join_order} to {other.join_order}"


def _standings(race: Race) -> Check:
    """Ranks 1 … n in the order of the race ranking; points and to_par as computed."""
    table = race.standings
    lines = table.standings
    if not lines:
        return Check(False, "standings: nobody is ranked")
    problems = [] if table.final else ["they are not final although the race is over"]
    ranks = [s.rank for s in lines]
    duel = is_duel_race(race.id)
    if duel:  # a settled duel: foundation cards, then reach time; a tie shares a rank
        shared = shared_ranks([duel_key(s.foundation_cards, s.reach_time_ms) for s in lines])
        if ranks != shared:
            problems.append(f"the ranks are {', '.join(map(str, ranks))}, a duel's ranking "
                            f"(foundation cards, then reach time) gives "
                            f"{', '.join(map(str, shared))}")
    elif sorted(ranks) != list(range(1, len(lines) + 1)):
        problems.append(f"the ranks are {', '.join(map(str, ranks))}, not 1 to {len(lines)}")
    else:
        published = sorted(lines, key=lambda s: s.rank)
        ranked = sorted(lines, key=_key)
        for rank, (got, want) in enumerate(zip(published, ranked, strict=True), 1):
            if got.racer != want.racer and _key(got) != _key(want):
                problems.append(f"rank {rank} is {got.name}'s, but the race ranking gives it "
                                f"to {want.name} ({_ranked_by(want, got)})")
                break
    for s in lines:
        points = race_points(s.foundation_cards, s.status == "won", s.reach_time_ms)
        if s.points != points:
            problems.append(f"{s.name} has {s.points} points, seed 003 gives {points}")
        if table.par is not None and s.to_par is not None \
                and s.to_par != table.par - s.foundation_cards:
            problems.append(f"{s.name} is {s.to_par} to par, par {table.par} less "
                            f"{s.foundation_cards} foundation cards is "
                            f"{table.par - s.foundation_cards}")
    if problems:
        return Check(False, "standings: " + "; ".join(problems))
    if duel:
        return Check(True, "standings: ranked as a duel (foundation cards, then reach time; "
                     "a tie shares its rank), points as seed 003")
    return Check(True, f"standings: ranks 1 to {len(lines)} in the race ranking's order "
                 "(foundation cards, reach time, moves, join), points as seed 003")


async def fetch_document(client: LucieClient, ref: str) -> dict[str, Any]:
    """The verification document of the race ``ref`` (race id, room id or code).

    :raises ApiError: ``race/hidden_until_over`` (:data:`NOT_OVER`),
        ``room/not_found`` (no room or race by that name), or any other error
        of the server or the connection.
    """
    try:
        race = await client.get_json(f"/races/{quote(ref, safe='')}")
    except ApiError as exc:
        if exc.code == "race/hidden_until_over":
            state = exc.details.get("state")
            raise ApiError(exc.code, NOT_OVER + (f" (room {ref} is {state})" if state else ""),
                           status=exc.status) from None
        if exc.code == "room/not_found":
            raise ApiError(exc.code, f"no room or race {ref!r} on {client.url}",
                           status=exc.status) from None
        raise
    if not isinstance(race, dict) or not isinstance(race.get("room_id"), str):
        raise ApiError("client/protocol", f"GET /races/{ref} answered no race")
    room_id = quote(race["room_id"], safe="")
    room = await client.get_json(f"/rooms/{room_id}")
    replays = {}
    racers = race.get("racers")
    for racer in racers if isinstance(racers, list) else []:
        rid = racer.get("id") if isinstance(racer, dict) else None
        if isinstance(rid, str) and rid not in replays:
            replays[rid] = await client.get_json(f"/rooms/{room_id}/racers/"
                                                 f"{quote(rid, safe='')}/replay")
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "server": client.url,
            "room": room, "race": race, "replays": replays}
