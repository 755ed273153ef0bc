"""Checking a finished race on the client's own engine (docs/protocol.md, "Verifying a
deal"): the deal commitment the room published at its creation, then every racer's
move log replayed against the published standings.

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

:func:`verify_document` checks it, each check one :class:`Check` (a line to
print): the commitment (the room's revealed deal hashes to what it
published; the race view reveals the same), then one per racer of the
standings (every move legal in the engine on the revealed deal and redeal
key; the moves counted, the foundation cards, the redeals used and the
status where the engine can tell it — ``won`` exactly when every card is
up, ``stuck`` when no move is left — as published). Pure: no I/O;
:func:`fetch_document` reads the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from server.rules import Game, RulesError, RuleSet, new_game, parse_move
from server.rules.commitment import deal_commitment

from .errors import ApiError
from .rest import LucieClient

__all__ = ["FORMAT", "FORMAT_VERSION", "NOT_OVER", "Check", "fetch_document",
           "verify_document"]

FORMAT: Final = "lucie-verify"
FORMAT_VERSION: Final = 1
NOT_OVER: Final = "the race is not over: the deal is revealed when it ends"


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome: ``ok``, and the line that says what held or what did not."""

    ok: bool
    line: str


def _short(hex_text: object) -> str:
    text = str(hex_text)
    return text if len(text) <= 12 else text[:8] + "…"


def _doc_error(what: str) -> ApiError:
    return ApiError("client/bad_file", f"not a verification document: {what}")


def _part(doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    if not isinstance(value, dict):
        raise _doc_error(f'no "{key}" object')
    return value


def verify_document(doc: Any) -> list[Check]:
    """Every check of ``doc`` (module docstring), in order: the commitment, then
    each racer of the standings.

    :raises ApiError: ``client/bad_file`` — not a verification document (its
        shape, format or version); ``race/hidden_until_over`` — the race it holds
        is not over (:data:`NOT_OVER`); ``client/no_commitment`` — the room
        published no commitment (a room made before them).
    """
    if not isinstance(doc, dict):
        raise _doc_error("not a JSON object")
    if doc.get("format", FORMAT) != FORMAT or doc.get("format_version", 1) != FORMAT_VERSION:
        raise _doc_error(f"format {doc.get('format')!r} version {doc.get('format_version')!r}"
                         f" (this lucie reads {FORMAT!r} version {FORMAT_VERSION})")
    room, race = _part(doc, "room"), _part(doc, "race")
    replays = doc.get("replays")
    if not isinstance(replays, dict):
        raise _doc_error('no "replays" object')
    if room.get("state") not in ("over", "closed"):
        raise ApiError("race/hidden_until_over", f"{NOT_OVER} (room {room.get('code')} is "
                       f"{room.get('state')})")
    if room.get("deal_commitment") is None:
        raise ApiError("client/no_commitment", f"room {room.get('code')} published no deal "
                       "commitment (a room made before commitments): nothing to check")
    try:
        rules = RuleSet.from_json(room["rules"])
    except (KeyError, TypeError, RulesError) as exc:
        raise _doc_error(f"the room's rules: {exc}") from None
    checks = [_commitment(room, race)]
    key = room.get("redeal_key")
    if not checks[0].ok or not isinstance(key, str):
        return checks  # nothing to replay on
    table = race.get("standings")
    standings = table.get("standings") if isinstance(table, dict) else None
    if not isinstance(standings, list) or not all(isinstance(s, dict) for s in standings):
        raise _doc_error('no standings in "race"')
    racers = {r.get("id"): r for r in race.get("racers") or [] if isinstance(r, dict)}
    listed = {s.get("racer") for s in standings}
    for rid in sorted(set(racers) - listed, key=str):
        checks.append(Check(False, f"racer {racers[rid].get('name', rid)}: in the race but "
                            "not in its standings"))
    for line in standings:
        checks.append(_racer(rules, int(room["deal_number"]), key, line,
                             racers.get(line.get("racer"), {}),
                             replays.get(line.get("racer"))))
    return checks


def _commitment(room: dict[str, Any], race: dict[str, Any]) -> Check:
    """The room's revealed deal hashes to its published commitment, and the race
    view reveals the same deal."""
    published = str(room["deal_commitment"])
    variant = room.get("rules", {}).get("variant")
    deal, key, salt = room.get("deal_number"), room.get("redeal_key"), room.get("deal_salt")
    if deal is None or key is None or salt is None:
        missing = ", ".join(n for n, v in (("deal_number", deal), ("redeal_key", key),
                                           ("deal_salt", salt)) if v is None)
        return Check(False, f"commitment: the room reveals no {missing} although its race "
                     "is over")
    try:
        actual = deal_commitment(str(variant), deal, key, salt)
    except ValueError as exc:
        return Check(False, f"commitment: the revealed deal cannot be hashed: {exc}")
    if actual != published.lower():
        return Check(False, f"commitment mismatch: sha256 of the revealed deal is {actual} "
                     f"but the room published {published}")
    for field in ("deal_number", "redeal_key", "deal_salt", "deal_commitment"):
        if field in race and race[field] != room.get(field):
            return Check(False, f"commitment: the race view reveals {field} "
                         f"{_short(race[field])} but the room view {_short(room.get(field))}")
    return Check(True, f"commitment: sha256 of {variant} deal {deal} (redeal key "
                 f"{_short(key)}, salt {_short(salt)}) is {published}, as published")


def _racer(rules: RuleSet, deal: int, key: str, line: dict[str, Any], view: dict[str, Any],
           replay: Any) -> Check:
    """One racer's move log replayed on the engine against their standings line."""
    who = f"racer {line.get('name') or line.get('racer')}"
    if not isinstance(replay, dict) or not isinstance(replay.get("moves"), list):
        return Check(False, f"{who}: no move log in the document")
    if (replay.get("deal_number"), replay.get("redeal_key")) != (deal, key):
        return Check(False, f"{who}: the move log is for deal {replay.get('deal_number')} "
                     f"(redeal key {_short(replay.get('redeal_key'))}), the room revealed "
                     f"deal {deal} (redeal key {_short(key)})")
    game: Game = new_game(rules, deal, bytes.fromhex(key))
    moves = replay["moves"]
    for i, entry in enumerate(moves, 1):
        text = entry.get("move") if isinstance(entry, dict) else None
        try:
            game = game.play(parse_move(str(text))).with_log(())
        except RulesError as exc:
            kind = "is illegal in the engine" if exc.code == "move/illegal" else "is not a move"
            return Check(False, f"{who}: move {i} ({text}) {kind}: {exc}")
    pos, status = game.position, game.status
    claimed = line.get("status")
    problems = [
        f"the log holds {len(moves)} moves, the standings say {line.get('moves')}"
        if len(moves) != line.get("moves") else "",
        f"replay reaches {pos.foundation_cards} foundation cards, standings say "
        f"{line.get('foundation_cards')}" if pos.foundation_cards != line.get(
            "foundation_cards") else "",
        f"the replay used {pos.redeals_used} redeals, the race says {view.get('redeals_used')}"
        if "redeals_used" in view and pos.redeals_used != view["redeals_used"] else "",
        f"the replay ends {status}, the standings say {claimed}"
        if (status == "won") != (claimed == "won") or (claimed == "stuck" and status != "stuck")
        else "",
    ]
    wrong = [p for p in problems if p]
    if wrong:
        return Check(False, f"{who}: " + "; ".join(wrong))
    return Check(True, f"{who}: {len(moves)} moves replayed, {pos.foundation_cards} "
                 f"foundation cards, {claimed}, as the standings say")


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
    for racer in race.get("racers", []):
        rid = str(racer.get("id"))
        replays[rid] = await client.get_json(f"/rooms/{room_id}/racers/{quote(rid, safe='')}"
                                             "/replay")
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "server": client.url,
            "room": room, "race": race, "replays": replays}
