"""The replay document's JSON Schema (``ReplayDocument``, docs/openapi.json)
says what the import reads (issue 33, item 7): a document the schema takes is
refused only for what JSON Schema cannot say — the log's legality and the
claimed result (``replay/forged``), a deal number written as a float — and
one it does not take is refused ``replay/invalid``."""

from __future__ import annotations

import copy
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.records.record import GameRecord
from server.records.replay_file import (
    EXAMPLE,
    ReplayDocument,
    ReplayForged,
    ReplayInvalid,
    export_replay,
    import_replay,
)
from server.rules import DEFAULT_VARIANT, VARIANTS

from .games import KEY, record

_SCHEMA = ReplayDocument.model_json_schema()
_VALID = jsonschema.Draft202012Validator(_SCHEMA)
_RULES = jsonschema.Draft202012Validator(_SCHEMA["properties"]["rules"])
_KEY = re.compile(_SCHEMA["properties"]["redeal_key"]["pattern"])


def _empty(variant: str) -> dict[str, Any]:
    """The document of a game with no move yet on deal 2 of ``variant``."""
    return export_replay(GameRecord(VARIANTS[variant], 2, KEY, (), name="ada",
                                    status="resigned", finished_ms=0))


def _outcome(doc: dict[str, Any]) -> str | None:
    try:
        import_replay(doc)
    except ReplayInvalid as exc:
        return f"invalid {exc.details.get('field')}"
    except ReplayForged:
        return "forged"
    return None


def test_documents_the_server_writes_are_in_the_schema() -> None:
    game = export_replay(record([("8f", 1000), ("15f", 3000), ("2-3", 4000), ("r", 6000),
                                 ("u", 7000)], name="ada", status="resigned", finished_ms=9000))
    answer = copy.deepcopy(game)  # GET …/replay: the Racer view as the result
    del answer["format"], answer["format_version"]
    answer["result"] |= {"id": "r1", "name": "ada", "join_order": 1, "ready": True,
                         "final": True, "player": None, "bot": False}
    for doc in (game, answer, EXAMPLE, *(_empty(v) for v in VARIANTS)):
        _VALID.validate(doc)
        import_replay(doc)


_VALUES = sorted({repr(v) for rules in VARIANTS.values() for v in rules.to_json().values()}
                 | {"0", "1", "2", "9", "10", "True", "False", "'2'", "2.0", "None", "-1"})
_FIELDS = [*next(iter(VARIANTS.values())).to_json(), "pysol_id"]


@settings(max_examples=1500, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.dictionaries(st.sampled_from(_FIELDS), st.sampled_from(_VALUES).map(eval),
                       max_size=4),
       st.sampled_from([*VARIANTS, None, "chess"]))
def test_the_rules_schema_takes_what_the_import_reads(rules: dict[str, Any],
                                                      variant: str | None) -> None:
    """Each variant's rule set: its fixed fields as they are, the overrides
    redeals 0–9, merci and undo true or false — the JSON types as written
    (``0`` is not ``false``: the import took it)."""
    if variant is not None:
        rules["variant"] = variant
    doc = _empty(rules["variant"] if rules.get("variant") in VARIANTS else DEFAULT_VARIANT)
    doc["rules"] = rules
    outcome = _outcome(doc)
    if _RULES.is_valid(rules):
        assert outcome is None, (rules, outcome)
    else:
        assert outcome is not None and outcome.startswith("invalid rules"), (rules, outcome)


@pytest.mark.parametrize(("rules", "field"), [
    ({"merci": 0}, "rules.merci"), ({"undo": 1}, "rules.undo"), ({"decks": True}, "rules.decks"),
    ({"king_fills_empty": 0}, "rules.king_fills_empty"), ({"cells": False}, "rules.cells"),
])
def test_rules_keep_their_json_types(rules: dict[str, Any], field: str) -> None:
    doc = _empty(DEFAULT_VARIANT)
    doc["rules"] = rules
    assert _outcome(doc) == f"invalid {field}"


@settings(max_examples=1500, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.text("0123456789abcdefABCDEFxg \t\n\r\x0b\x0c\x1c\x85\xa0\u3000", max_size=12)
       | st.text("0123456789abcdef", min_size=120, max_size=134))
def test_the_key_pattern_is_what_bytes_fromhex_reads(text: str) -> None:
    doc = _empty(DEFAULT_VARIANT)
    doc["redeal_key"] = text
    taken = bool(_KEY.fullmatch(text)) and len(text) <= 128
    assert _outcome(doc) == (None if taken else "invalid redeal_key"), text


def test_whole_numbers_written_as_floats_but_the_deal_number() -> None:
    """JSON Schema's ``integer`` takes ``1200.0``: so does the import, below
    2⁵³ (as every integer field of the API); a deal number is written with
    digits only (a float does not hold 10¹⁹ + 1), as ``POST /rooms`` takes it."""
    doc = copy.deepcopy(EXAMPLE)
    doc["format_version"] = 1.0
    doc["moves"][0] |= {"race_clock_ms": 1200.0, "version": 1.0}
    doc["result"] |= {"foundation_cards": 5.0, "moves": 6.0, "reach_time_ms": 8550.0}
    doc["rules"]["redeals"] = 2.0
    assert _outcome(doc) is None
    doc["deal_number"] = 2.0
    with pytest.raises(ReplayInvalid, match="digits only") as exc:
        import_replay(doc)
    assert exc.value.details == {"field": "deal_number"}
    doc["deal_number"], doc["moves"][0]["race_clock_ms"] = 2, 2.0**53
    assert _outcome(doc) == "invalid moves.0.race_clock_ms"
