"""The pure part of challenges and duels (docs/protocol.md, "Challenges and
duels"): ranking attempts, a settled duel's race and result, and the words
players are told. No I/O, no clock: :mod:`server.race.challenges` reads and
writes around it.

- :func:`attempt_key` — the race ranking's first two keys (rules.md, "Race
  ranking": more foundation cards, then the earlier reach time, ``None``
  counting 0); two attempts equal on both rank alike (a draw).
- :func:`duel_race` — a settled duel as one finished race document (the
  archive's ``FinishedRace``): both attempts' racers in one room record (the
  challenge's deal and keys, the first attempt's rules), their records and
  the standings ranked by :func:`attempt_key`. The archive stores and rates
  it as any race (openskill, a tie a draw), keeps it in both players' history
  and head-to-head, and the comparison routes show it.
- A **tie-break**: a duel settled as a draw is rated as a draw at once, and
  its two players get a tie-break challenge (:func:`tiebreak_row`: a fresh
  deal of the variant, theirs only, each plays it when they like within its
  life). Settled like a duel (:func:`duel_race`, its race stored unrated),
  its winner becomes the duel's (:func:`tiebreak_decides`); unplayed by
  either, or drawn too, the duel stays a draw. Nothing is rated twice.
"""

from __future__ import annotations

from typing import Any

from server.rules.ranking import DUEL_RACE_PREFIX, duel_key, race_points, shared_ranks

__all__ = ["attempt_key", "closing_notes", "duel_race", "duel_race_id", "settle_notes",
           "tiebreak_decides", "tiebreak_notes", "tiebreak_row"]


attempt_key = duel_key
"""Sort key of an attempt (smaller is better): more cards, then earlier reach
(:func:`server.rules.ranking.duel_key`)."""
ranks = shared_ranks
"""Standard competition ranks (1, 1, 3 …): :func:`server.rules.ranking.shared_ranks`."""


def duel_race_id(challenge_id: str) -> str:
    """The race id of a settled duel."""
    return f"{DUEL_RACE_PREFIX}{challenge_id}"


def _duration(room: dict[str, Any]) -> int:
    return max(0, int(room.get("ended_ms") or 0) - int(room.get("start_at_ms") or 0))


def duel_race(challenge: dict[str, Any], first: tuple[dict[str, Any], dict[str, Any]],
              second: tuple[dict[str, Any], dict[str, Any]]
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The settled duel's race document and its result.

    ``challenge``: the ``challenges`` row; ``first``/``second``: the creator's
    and the taker's attempt as ``(archived room record JSON, archived racer
    record JSON)``. The race's clock spans the longer attempt (each log keeps
    its own attempt's race clock); it ends when the second attempt ended.
    The result: ``{"winner": player id | None, "decided_by", "margin_cards",
    "margin_ms", "race", "comparison", "players": [creator, taker]}``.
    """
    race_id = duel_race_id(challenge["challenge_id"])
    entries, racers, lines = [], {}, []
    for order, (room, racer) in enumerate((first, second), 1):
        entry = {**room["roster"][0], "join_order": order, "ready": True}
        entries.append(entry)
        racers[entry["id"]] = racer
        lines.append((entry, racer))
    keys = [attempt_key(r["foundation_cards"], r.get("reach_time_ms")) for _, r in lines]
    placed = ranks(keys)
    standings = [{
        "rank": rank, "racer": entry["id"], "name": entry["name"],
        "foundation_cards": racer["foundation_cards"], "reach_time_ms": racer.get("reach_time_ms"),
        "moves": len(racer.get("log") or []), "join_order": entry["join_order"],
        "status": racer["status"], "final": True, "to_par": None,
        "points": race_points(racer["foundation_cards"], racer["status"] == "won",
                              racer.get("reach_time_ms"))}
        for (entry, racer), rank in zip(lines, placed, strict=True)]
    standings.sort(key=lambda s: (s["rank"], s["join_order"]))
    ended = int(second[0].get("ended_ms") or 0)
    room = {**first[0], "id": race_id, "code": challenge["code"], "capacity": 2,
            "roster": entries, "joins": 2, "state": "over", "ranked": False,
            "start_at_ms": ended - max(_duration(first[0]), _duration(second[0])),
            "ended_ms": ended, "redeal_key": challenge["redeal_key"],
            "deal_salt": challenge["deal_salt"], "deal_commitment": challenge["deal_commitment"],
            "par": None, "rematch": None, "rematch_of": None, "series": None, "quick": None,
            "challenge": challenge["challenge_id"]}
    (a_cards, a_reach), (b_cards, b_reach) = keys
    if keys[0] == keys[1]:
        winner, decided_by = None, "tie"
    else:
        winner = challenge["creator_id"] if keys[0] < keys[1] else challenge["taker_id"]
        decided_by = "foundation_cards" if a_cards != b_cards else "reach_time"
    result = {
        "winner": winner, "decided_by": decided_by, "margin_cards": abs(a_cards - b_cards),
        "margin_ms": abs(a_reach - b_reach) if decided_by == "reach_time" else None,
        "race": race_id,
        "comparison": f"/api/v1/rooms/{race_id}/compare/{entries[0]['id']}/{entries[1]['id']}",
        "tiebreak": None, "players": [challenge["creator_id"], challenge["taker_id"]]}
    doc = {"race_id": race_id, "room": room, "racers": racers, "seq": 0,
           "rated": challenge["kind"] != "tiebreak",
           "standings": {"final": True, "standings": standings, "par": None}}
    return doc, result


def _margin(result: dict[str, Any]) -> str:
    if result["decided_by"] == "foundation_cards":
        n = result["margin_cards"]
        return f"by {n} card{'s' if n != 1 else ''}"
    return f"by {result['margin_ms'] / 1000:.1f} s"


def _outcome(result: dict[str, Any], player_id: str) -> str:
    if result["winner"] is None:
        return "a draw (as many cards, at the same time)"
    return ("you won " if result["winner"] == player_id else "you lost ") + _margin(result)


def settle_notes(challenge: dict[str, Any], taker_name: str, result: dict[str, Any],
                 tiebreak: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """What the two players of a settled duel are told (``notifications`` rows
    but the challenge and the time): "Bob played your duel: you won by 3
    cards". ``tiebreak``: a draw's tie-break (its ``challenges`` row), named
    to both."""
    variant, creator = challenge["variant"], challenge["creator_id"]
    then = ""
    if tiebreak is not None:
        then = (f"; a tie-break deal decides the duel — play it before it expires (challenge "
                f"{tiebreak['code']}, /api/v1/challenges/{tiebreak['challenge_id']})")
    return [
        {"player_id": creator, "kind": "duel_settled",
         "message": f"{taker_name} played your duel ({variant}): "
                    f"{_outcome(result, creator)}{then}"},
        {"player_id": challenge["taker_id"], "kind": "duel_settled",
         "message": f"Your duel with {challenge['creator_name']} ({variant}) is settled: "
                    f"{_outcome(result, challenge['taker_id'])}{then}"}]


def tiebreak_row(duel: dict[str, Any], challenge_id: str, code: str, deal: dict[str, Any],
                 now: int, life_ms: int) -> dict[str, Any]:
    """The ``challenges`` row of a drawn duel's tie-break: a fresh deal
    (``deal``: ``deal_number`` text, ``redeal_key``, ``deal_salt``,
    ``deal_commitment``) of the duel's variant, for the duel's two players
    only (its creator and taker, as the duel's), open ``life_ms`` from ``now``,
    no attempt yet: each plays it when they like."""
    return {
        "challenge_id": challenge_id, "code": code, "kind": "tiebreak",
        "variant": duel["variant"], **deal, "time_limit_ms": duel["time_limit_ms"],
        "creator_id": duel["creator_id"], "creator_name": duel["creator_name"],
        "creator_rating": duel["creator_rating"], "created_ms": now,
        "expires_ms": now + life_ms, "state": "open", "played": 0, "offered_ms": None,
        "taker_id": duel["taker_id"], "taker_until_ms": None, "settle_due": False,
        "closed_ms": None, "result": None, "tiebreak_of": duel["challenge_id"]}


def tiebreak_decides(duel_result: dict[str, Any], tiebreak: dict[str, Any]
                     ) -> dict[str, Any]:
    """The drawn duel's result once its tie-break (``tiebreak``: the tie-break's
    result) is settled: the tie-break's winner wins the duel (``decided_by``
    ``tiebreak``); a tie-break drawn too leaves the duel a draw. The duel's
    race, margins and comparison stay its own (the duel was rated as a draw
    when it settled: nothing is rated again)."""
    if tiebreak["winner"] is None:
        return dict(duel_result)
    return {**duel_result, "winner": tiebreak["winner"], "decided_by": "tiebreak"}


def tiebreak_notes(challenge: dict[str, Any], names: dict[str, str],
                   result: dict[str, Any]) -> list[dict[str, Any]]:
    """What the two players of a settled tie-break are told (``names``: player
    id → name): "The tie-break of your duel with Bob (belle-lucie): you won by
    3 cards — the duel is yours"."""
    out = []
    for me, other in ((challenge["creator_id"], challenge["taker_id"]),
                      (challenge["taker_id"], challenge["creator_id"])):
        if result["winner"] is None:
            verdict = "a draw again (as many cards, at the same time): the duel stays a draw"
        elif result["winner"] == me:
            verdict = f"you won {_margin(result)} — the duel is yours"
        else:
            verdict = f"you lost {_margin(result)} — the duel is {names[other]}'s"
        out.append({"player_id": me, "kind": "tiebreak_settled",
                    "message": f"The tie-break of your duel with {names[other]} "
                               f"({challenge['variant']}): {verdict}"})
    return out


def closing_notes(challenge: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The state an expired challenge closes as and what its creator is told:
    a duel is ``void`` (nobody completed it: unrated), a tie-break ``void``
    too (both its players told: the duel stays a draw), a link challenge
    ``closed`` (its results stand)."""
    variant, played = challenge["variant"], challenge["played"]
    if challenge["kind"] == "tiebreak":
        return "void", [{"player_id": pid, "kind": "tiebreak_void",
                         "message": f"The tie-break of your duel ({variant}) expired before "
                                    "you both played it: the duel stays a draw"}
                        for pid in (challenge["creator_id"], challenge["taker_id"])]
    if challenge["kind"] == "rated":
        return "void", [{"player_id": challenge["creator_id"], "kind": "duel_void",
                         "message": f"Your duel ({variant}) expired before a rival played "
                                    "it: void, unrated"}]
    return "closed", [{"player_id": challenge["creator_id"], "kind": "challenge_closed",
                       "message": f"Your challenge ({variant}) closed: {played} "
                                  f"played it"}]
