"""The verification document's shape (docs/client.md, "Verifying a race"):
pydantic models of what ``lucie verify`` reads, checked in one place at load.

:func:`parse_document` turns the JSON of a document (``--file``, or what
:func:`client_cli.verify.fetch_document` fetched) into a :class:`Document`,
or raises ``client/bad_file`` with one line naming the first thing out of
shape: ``not a verification document: room.rules is not an object``. The
models are strict — a number in a string, a float for a whole number, a list
for an object is out of shape — and ignore fields they do not know (a newer
server adds some). They hold only the fields the checks read
(:mod:`client_cli.verify`); whether the values agree is the checks' business.

Beside them: :class:`Check`, a check's outcome, and the few helpers the
checks word their lines with (:func:`racer_name`, :func:`short`, …).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Final

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from .errors import ApiError

__all__ = ["FORMAT", "FORMAT_VERSION", "Check", "Document", "Race", "Racer", "Replay",
           "ReplayMove", "Room", "Rules", "Standing", "as_json", "clip", "doc_error",
           "join_words", "parse_document", "racer_ids", "racer_name", "short"]

FORMAT: Final = "lucie-verify"
FORMAT_VERSION: Final = 1


_HEX: Final = re.compile(r"(?:[0-9a-fA-F]{2})*")


def _hex(text: str) -> str:
    if not _HEX.fullmatch(text):
        raise ValueError("is not hex")
    return text


Hex = Annotated[str, AfterValidator(_hex)]
"""Text of hex digits (either case), an even number of them."""


class _Part(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Rules(_Part):
    """The rules view (docs/protocol.md, "Rules")."""

    variant: str
    name: str
    decks: int
    layout: str
    build: str
    max_fan: int | None
    king_fills_empty: bool
    redeals: int
    merci: bool
    undo: bool
    cells: int


class Racer(_Part):
    """One racer's result as a view shows it (docs/protocol.md, "Racer")."""

    id: str
    name: str
    join_order: int
    status: str
    foundation_cards: int
    moves: int
    redeals_used: int
    merci_used: bool
    reach_time_ms: int | None
    finished_ms: int | None
    final: bool


class Standing(_Part):
    """One line of the standings (docs/protocol.md, "Standing")."""

    rank: int
    racer: str
    name: str
    foundation_cards: int
    reach_time_ms: int | None
    moves: int
    join_order: int
    status: str
    final: bool
    points: int
    to_par: int | None = None


class Standings(_Part):
    """The ranked table: its lines, final once the race is over, the par when known."""

    final: bool
    standings: list[Standing]
    par: int | None = None


class Room(_Part):
    """``GET /rooms/{room}``, the race over: the revealed deal and the racers."""

    id: str
    code: str
    rules: Rules
    deal_number: int | None
    deal_commitment: str | None = None
    redeal_key: Hex | None = None
    deal_salt: Hex | None = None
    state: str
    time_limit_ms: int
    racers: list[Racer]


class Race(_Part):
    """``GET /races/{race}``: the same deal revealed, standings and racers."""

    id: str
    room_id: str
    room_code: str
    rules: Rules
    deal_number: int
    redeal_key: Hex
    deal_salt: Hex | None
    deal_commitment: str | None
    started_at_ms: int
    ended_at_ms: int
    time_limit_ms: int
    standings: Standings
    racers: list[Racer]


class ReplayMove(_Part):
    """One entry of a move log: the move's text, its race-clock time, its number."""

    move: str
    race_clock_ms: int
    version: int


class Replay(_Part):
    """``GET /rooms/{room}/racers/{racer}/replay``: one racer's move log."""

    rules: Rules
    deal_number: int
    redeal_key: Hex | None
    player: str
    moves: list[ReplayMove]
    result: Racer


class Document(_Part):
    """The whole document (module docstring of :mod:`client_cli.verify`)."""

    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    server: Any = None
    room: Room
    race: Race
    replays: dict[str, Replay]


def doc_error(what: str) -> ApiError:
    """``client/bad_file``: ``not a verification document: {what}``."""
    return ApiError("client/bad_file", f"not a verification document: {what}")


_SAYS: Final = {
    "missing": "is missing",
    "model_type": "is not an object",
    "model_attributes_type": "is not an object",
    "dict_type": "is not an object",
    "list_type": "is not a list",
    "int_type": "is not a whole number",
    "int_parsing": "is not a whole number",
    "int_from_float": "is not a whole number",
    "string_type": "is not text",
    "bool_type": "is not true or false",
}


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        text = str(part) if len(str(part)) <= 40 else str(part)[:39] + "…"
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + text
    return out or "the document"


def _problem(error: Any) -> str:
    kind = error["type"]
    if kind == "value_error":
        said = str(error.get("ctx", {}).get("error", error["msg"]))
    elif kind != "missing" and error.get("input", ...) is None:
        said = "is null"
    else:
        said = _SAYS.get(kind, str(error["msg"]).lower())
    return f"{_where(tuple(error['loc']))} {said}"


def parse_document(doc: Any) -> Document:
    """``doc`` (parsed JSON) as a :class:`Document`.

    :raises ApiError: ``client/bad_file`` — not a JSON object, another format
        or version, or out of shape: one line naming the first problem (and
        how many more there are).
    """
    if not isinstance(doc, dict):
        raise doc_error("not a JSON object")
    if doc.get("format", FORMAT) != FORMAT or doc.get("format_version", 1) != FORMAT_VERSION:
        raise doc_error(f"format {doc.get('format')!r} version {doc.get('format_version')!r}"
                        f" (this lucie reads {FORMAT!r} version {FORMAT_VERSION})")
    try:
        return Document.model_validate(doc)
    except ValidationError as exc:
        errors = exc.errors()
        more = len(errors) - 1
        raise doc_error(_problem(errors[0]) + (f" (and {more} more problem{'s' * (more > 1)})"
                                               if more else "")) from None


# -- a check's outcome, and the words of its line ------------------------------------


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome: ``ok``, and the line that says what held or what did not."""

    ok: bool
    line: str


def short(hex_text: object) -> str:
    """Hex text cut to 8 digits and an ellipsis when longer than 12."""
    text = str(hex_text)
    return text if len(text) <= 12 else text[:8] + "…"


def clip(text: str, most: int = 24) -> str:
    """``text``, at most ``most`` characters (an ellipsis when cut)."""
    return text if len(text) <= most else text[:most - 1] + "…"


def as_json(value: object) -> str:
    """``value`` written as in the document: ``true``, ``null``, ``"text"``."""
    return json.dumps(value, ensure_ascii=False)


def join_words(items: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def racer_ids(document: Document) -> list[str]:
    """Every racer id the document names, each once: standings order first, then
    the race view's, the room view's and the replays'."""
    race = document.race
    ids = [s.racer for s in race.standings.standings] + [r.id for r in race.racers]
    ids += [r.id for r in document.room.racers] + list(document.replays)
    return list(dict.fromkeys(ids))


def racer_name(document: Document, rid: str) -> str:
    """The racer's name as a view gives it (the id, cut, when none does)."""
    for line in document.race.standings.standings:
        if line.racer == rid:
            return line.name
    for racer in (*document.race.racers, *document.room.racers):
        if racer.id == rid:
            return racer.name
    replay = document.replays.get(rid)
    return replay.player if replay is not None else clip(rid)
