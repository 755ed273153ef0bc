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
"""

from __future__ import annotations

from typing import Any

from server.rules.ranking import race_points

__all__ = ["attempt_key", "closing_notes", "duel_race", "duel_race_id", "settle_notes"]


def attempt_key(foundation_cards: int, reach_time_ms: int | None) -> tuple[int, int]:
    """Sort key of an attempt (smaller is better): more cards, then earlier reach."""
    return (-foundation_cards, reach_time_ms or 0)


def ranks(keys: list[tuple[int, int]]) -> list[int]:
    """Standard competition ranks of ``keys`` (1, 1, 3 …), in their order."""
    return [1 + sum(other < key for other in keys) for key in keys]


def duel_race_id(challenge_id: str) -> str:
    """The race id of a settled duel."""
    return f"duel-{challenge_id}"


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
        "players": [challenge["creator_id"], challenge["taker_id"]]}
    doc = {"race_id": race_id, "room": room, "racers": racers, "seq": 0, "rated": True,
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


def settle_notes(challenge: dict[str, Any], taker_name: str,
                 result: dict[str, Any]) -> list[dict[str, Any]]:
    """What the two players of a settled duel are told (``notifications`` rows
    but the challenge and the time): "Bob played your duel: you won by 3 cards"."""
    variant, creator = challenge["variant"], challenge["creator_id"]
    return [
        {"player_id": creator, "kind": "duel_settled",
         "message": f"{taker_name} played your duel ({variant}): "
                    f"{_outcome(result, creator)}"},
        {"player_id": challenge["taker_id"], "kind": "duel_settled",
         "message": f"Your duel with {challenge['creator_name']} ({variant}) is settled: "
                    f"{_outcome(result, challenge['taker_id'])}"}]


def closing_notes(challenge: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The state an expired challenge closes as and what its creator is told:
    a duel is ``void`` (nobody completed it: unrated), a link challenge
    ``closed`` (its results stand)."""
    variant, played = challenge["variant"], challenge["played"]
    if challenge["kind"] == "rated":
        return "void", [{"player_id": challenge["creator_id"], "kind": "duel_void",
                         "message": f"Your duel ({variant}) expired before a rival played "
                                    "it: void, unrated"}]
    return "closed", [{"player_id": challenge["creator_id"], "kind": "challenge_closed",
                       "message": f"Your challenge ({variant}) closed: {played} "
                                  f"played it"}]
