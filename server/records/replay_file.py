"""Replay files: one recorded game as a documented JSON document, and its checked import.

Format (``format_version`` 1; ``docs/replay.md`` repeats it)::

    {
      "format": "lucie-replay",          # optional on import, always written
      "format_version": 1,               # optional on import, always written
      "rules": {"variant": "belle-lucie", "redeals": 2, "merci": false,
                "undo": true, ...},      # RuleSet.to_json(); a subset is read
                                         # as variant + overrides
      "deal_number": 123,                # 1 … 10**20 − 1
      "redeal_key": "9f2c…",             # hex, 1–64 bytes
      "player": "ada",                   # display name, may be ""
      "moves": [                         # the move log: undo included,
        {"move": "3f",                   # autoplay written as its foundation
         "race_clock_ms": 1250,          # moves; times never decrease
         "version": 1}                   # optional: 1-based log index
      ],
      "result": {"status": "won", "foundation_cards": 52, "moves": 97,
                 "redeals_used": 1, "merci_used": false,
                 "reach_time_ms": 201345, "finished_ms": 201345}
    }

``result`` may carry more fields of the wire's Racer view (``id``,
``name``, ``join_order``, ``ready``, ``final``, ``player``, ``bot``, ``bot_level``,
``bot_rating``); they are read and ignored,
so the server's replay answer imports as it is.

:func:`import_replay` checks, in this order, and refuses with
:class:`ReplayInvalid` (``replay/invalid``: not a replay document — shape,
format version, rules, deal number, key, move text) or
:class:`ReplayForged` (``replay/forged``: a well-formed document whose log
or result does not hold up when replayed — times going back, version gaps,
an illegal move, a claimed result that differs from the replayed one). The
``details`` of a forged refusal name the move index or result field.

:class:`ReplayDocument` is the shape (its JSON Schema is the contract's,
docs/openapi.json): all of the ``replay/invalid`` checks but one are in it —
each variant's rule set with the JSON types as written (``0`` is not
``false``), hex keys, the move notation, bounds. Beyond JSON Schema: a deal
number is written with digits only (its ``integer`` takes ``5.0``; other
integers may be written so, below 2⁵³), and all of ``replay/forged``.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema

from server.errors import ReplayError, ReplayForged, ReplayInvalid
from server.rules import (
    DEFAULT_VARIANT,
    MAX_DEAL_NUMBER,
    MAX_LOG,
    VARIANTS,
    Move,
    RulesError,
    RuleSet,
)
from server.rules.notation import log_move_text_schema
from server.rules.variants import MAX_REDEALS
from server.runtime.jsoncodec import integral

from .record import GameRecord, IllegalLogMove, TimedMove, timeline

__all__ = [
    "EXAMPLE",
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_MOVES",
    "ReplayDocument",
    "ReplayError",
    "ReplayForged",
    "ReplayInvalid",
    "export_replay",
    "import_replay",
]

FORMAT: Final = "lucie-replay"
FORMAT_VERSION: Final = 1
MAX_MOVES: Final = MAX_LOG
"""Longest move log a replay file may hold (a race's log never grows past it:
:data:`server.rules.MAX_LOG`)."""

_OVERRIDES: Final = {"redeals": {"type": "integer", "minimum": 0, "maximum": MAX_REDEALS},
                     "merci": {"type": "boolean"}, "undo": {"type": "boolean"}}
_RULES_SCHEMA: Final = {
    "description": "the rule set (RuleSet.to_json(), or a subset): a variant (default "
                   f"{DEFAULT_VARIANT}) and the overrides redeals, merci, undo; every other "
                   "field given is the variant's",
    "anyOf": [{"type": "object", "additionalProperties": False,
               **({} if rules.id == DEFAULT_VARIANT else {"required": ["variant"]}),
               "properties": {**{name: {"const": value} for name, value in rules.to_json().items()
                                 if name not in _OVERRIDES}, **_OVERRIDES}}
              for rules in VARIANTS.values()]}
"""Each variant's rule set, overrides aside: what :func:`_read_rules` reads."""
_ASCII_SPACE: Final = "[\\t-\\r ]"
_KEY_SCHEMA: Final = {"type": "string", "description": "the redeal key: 1–64 bytes in hex "
                      "(ASCII whitespace between bytes is skipped, as bytes.fromhex does)",
                      "maxLength": 128,
                      "pattern": f"^{_ASCII_SPACE}*(?:[0-9A-Fa-f]{{2}}{_ASCII_SPACE}*){{1,64}}$"}
_MAX_CARDS: Final = max(rules.cards for rules in VARIANTS.values())


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _whole(value: Any) -> Any:
    if isinstance(value, float):  # 1e19 would name another deal than the one written
        raise ValueError("a deal number is written with digits only (no fraction, no exponent)")
    return value


_INT: Final = BeforeValidator(integral)
"""Integers as the API reads them: ``3.0`` is 3 (JSON Schema's ``integer``), up
to 2⁵³; the deal number alone is written with digits only, as ``POST /rooms``'s."""


def _at_most(limit: int) -> WithJsonSchema:
    """The schema of an integer 0 … ``limit``: the replay checks that bound (a
    figure is compared with the replayed one), not the model."""
    return WithJsonSchema({"type": "integer", "minimum": 0, "maximum": limit})


class ReplayDocumentMove(_Model):
    """One entry of the move log."""

    move: Annotated[str, WithJsonSchema(log_move_text_schema())] = Field(
        min_length=1, max_length=32)
    race_clock_ms: Annotated[int, Field(ge=0), _INT] = Field(
        description="never less than the entry before's")
    version: Annotated[int, WithJsonSchema(  # checked against the index: replay/forged
        {"type": "integer", "minimum": 1, "maximum": MAX_MOVES}), _INT] | None = Field(
        None, description="the 1-based index of the entry, when given")


class ReplayDocumentResult(_Model):
    """What the racer reached, checked against the replayed game; the Racer
    view's other fields (``id``, ``name``, …) are read and ignored."""

    status: Literal["waiting", "playing", "won", "stuck", "resigned", "timed_out", "left"]
    foundation_cards: Annotated[int, Field(ge=0), _at_most(_MAX_CARDS), _INT]
    moves: Annotated[int, Field(ge=0), _at_most(MAX_MOVES), _INT]
    redeals_used: Annotated[int, Field(ge=0), _at_most(MAX_REDEALS), _INT]
    merci_used: bool
    reach_time_ms: Annotated[int, Field(ge=0), _INT] | None = None
    finished_ms: Annotated[int, Field(ge=0), _INT] | None = None
    # Racer-view fields, read and ignored:
    id: str | None = None
    name: str | None = None
    join_order: Annotated[int, _INT] | None = None
    ready: bool | None = None
    final: bool | None = None
    player: str | None = None
    bot: bool | None = None
    bot_level: str | None = None
    bot_rating: float | None = None


EXAMPLE: Final[dict[str, Any]] = {
    "format": FORMAT, "format_version": FORMAT_VERSION,
    "rules": {"variant": "belle-lucie", "redeals": 2, "merci": False, "undo": True},
    "deal_number": 2, "redeal_key": "9f2c41d07be35a18", "player": "ada",
    "moves": [{"move": move, "race_clock_ms": ms, "version": i}
              for i, (move, ms) in enumerate((("8f", 1200), ("15f", 2050), ("2f", 3210),
                                              ("3f", 4680), ("5-17", 6460), ("5f", 8550)), 1)],
    "result": {"status": "resigned", "foundation_cards": 5, "moves": 6, "redeals_used": 0,
               "merci_used": False, "reach_time_ms": 8550, "finished_ms": 9000}}
"""A replay document that holds up (the contract's example; a test imports it)."""


class ReplayDocument(_Model):
    """A replay file (docs/replay.md): one recorded game, checked by replaying it."""

    model_config = ConfigDict(json_schema_extra={"examples": [EXAMPLE]})

    format: Literal["lucie-replay"] = FORMAT
    format_version: Annotated[Literal[1], _INT] = FORMAT_VERSION
    rules: Annotated[dict[str, Any], WithJsonSchema(_RULES_SCHEMA)]
    deal_number: Annotated[int, WithJsonSchema(  # the range: the rules' (replay/invalid)
        {"type": "integer", "minimum": 1, "maximum": MAX_DEAL_NUMBER}),
                           BeforeValidator(_whole)] = Field(
        description="digits only, as POST /rooms takes it: 5.0 and 1e19 are refused")
    redeal_key: Annotated[str | None, WithJsonSchema(_KEY_SCHEMA)] = Field(  # null: refused
        max_length=128)
    player: str = Field(default="", max_length=64, description="display name, may be empty")
    moves: list[ReplayDocumentMove] = Field(max_length=MAX_MOVES)
    result: ReplayDocumentResult


def export_replay(record: GameRecord) -> dict[str, Any]:
    """The replay document of ``record`` (module docstring), result computed by replaying.

    ``record.status`` gives the result status when set, else the replayed
    game's (``playing``, ``won`` or ``stuck``).

    :raises IllegalLogMove: the record's log is not legal (a bug upstream).
    """
    game, steps = timeline(record)
    last = steps[-1] if steps else None
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rules": record.rules.to_json(),
        "deal_number": record.deal_number,
        "redeal_key": record.redeal_key.hex(),
        "player": record.name,
        "moves": [{"move": s.move, "race_clock_ms": s.race_clock_ms, "version": s.index}
                  for s in steps],
        "result": {
            "status": record.status or game.status,
            "foundation_cards": game.foundation_cards,
            "moves": len(steps),
            "redeals_used": game.position.redeals_used,
            "merci_used": game.position.merci_used,
            "reach_time_ms": last.reach_time_ms if last else None,
            "finished_ms": record.finished_ms,
        },
    }


def _read_rules(given: dict[str, Any]) -> RuleSet:
    data = {name: integral(value) for name, value in given.items()}  # 2.0 is 2
    try:
        rules = RuleSet.from_json(data)
    except RulesError as exc:
        raise ReplayInvalid(f"rules: {exc}", {"field": "rules"}) from None
    full = rules.to_json()
    for name, value in data.items():
        if name not in full:
            raise ReplayInvalid(f"rules: unknown field {name!r}", {"field": f"rules.{name}"})
        if full[name] != value or isinstance(full[name], bool) != isinstance(value, bool):
            # (0 is not false, nor true 1: the JSON types as the contract has them)
            raise ReplayInvalid(
                f"rules: {name} is {value!r} but variant {rules.id} with these overrides "
                f"has {full[name]!r}", {"field": f"rules.{name}"})
    return rules


def _read_key(text: str | None) -> bytes:
    if text is None:
        raise ReplayInvalid("redeal_key is missing (a replay is exported after the race)",
                            {"field": "redeal_key"})
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise ReplayInvalid("redeal_key is not hex", {"field": "redeal_key"}) from None
    if not 1 <= len(key) <= 64:
        raise ReplayInvalid("redeal_key must be 1–64 bytes", {"field": "redeal_key"})
    return key


def _read_moves(entries: list[ReplayDocumentMove]) -> tuple[TimedMove, ...]:
    out: list[TimedMove] = []
    previous = 0
    for i, entry in enumerate(entries, 1):
        try:
            move = Move.from_text(entry.move)
        except RulesError as exc:
            raise ReplayInvalid(f"move {i}: {exc}", {"move_index": i}) from None
        if move.kind == "autoplay":
            raise ReplayInvalid(f"move {i}: autoplay is written as its foundation moves",
                                {"move_index": i})
        if entry.version is not None and entry.version != i:
            raise ReplayForged(f"move {i}: version {entry.version} out of sequence",
                               {"move_index": i})
        if entry.race_clock_ms < previous:
            raise ReplayForged(
                f"move {i}: race clock goes back ({entry.race_clock_ms} ms < {previous} ms)",
                {"move_index": i})
        previous = entry.race_clock_ms
        out.append(TimedMove(move, entry.race_clock_ms))
    return tuple(out)


def _check_result(claimed: ReplayDocumentResult, replayed: dict[str, Any],
                  game_status: str) -> None:
    for name, value in replayed.items():
        if name == "status":
            continue
        if getattr(claimed, name) != value:
            raise ReplayForged(
                f"result: {name} is {getattr(claimed, name)!r} but the replay gives {value!r}",
                {"field": f"result.{name}", "claimed": getattr(claimed, name),
                 "replayed": value})
    status = claimed.status
    consistent = (status == "won") == (game_status == "won") and (
        status != "stuck" or game_status == "stuck")
    if not consistent:
        raise ReplayForged(
            f"result: status {status!r} but the replayed game is {game_status!r}",
            {"field": "result.status", "claimed": status, "replayed": game_status})


def import_replay(document: Any) -> GameRecord:
    """Read and check a replay document (module docstring) into a :class:`GameRecord`.

    :raises ReplayInvalid: not a readable replay document.
    :raises ReplayForged: the log or the claimed result does not hold up when replayed.
    """
    if not isinstance(document, dict):
        raise ReplayInvalid("a replay document is a JSON object")
    try:
        doc = ReplayDocument.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReplayInvalid(f"{where}: {first['msg']}", {"field": where}) from None
    rules = _read_rules(doc.rules)
    key = _read_key(doc.redeal_key)
    moves = _read_moves(doc.moves)
    finished = doc.result.finished_ms
    if finished is not None and moves and finished < moves[-1].race_clock_ms:
        raise ReplayForged("result: finished_ms is before the last move",
                           {"field": "result.finished_ms"})
    record = GameRecord(rules, doc.deal_number, key, moves, name=doc.player or doc.result.name
                        or "", status=doc.result.status, finished_ms=doc.result.finished_ms)
    try:
        game, steps = timeline(record)
    except IllegalLogMove as exc:
        raise ReplayForged(f"illegal move in the log: {exc}", {"move_index": exc.index}) from None
    except RulesError as exc:
        raise ReplayInvalid(str(exc), {"field": "deal_number"}) from None
    replayed = {
        "foundation_cards": game.foundation_cards,
        "moves": len(steps),
        "redeals_used": game.position.redeals_used,
        "merci_used": game.position.merci_used,
        "reach_time_ms": steps[-1].reach_time_ms if steps else None,
    }
    _check_result(doc.result, replayed, game.status)
    return record
