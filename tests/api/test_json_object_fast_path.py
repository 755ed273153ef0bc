"""``json_object_problem``'s fast path (issue 23: a compact object as orjson
writes it is taken without the slow duplicate-key parse) gives the answer the
full check gives, for every kind of input."""

from __future__ import annotations

import json

import orjson
import pytest

from server.api import models
from server.api.models import json_object_problem


def _full_check(raw: str | bytes) -> str | None:
    """The answer without the fast path."""
    if not raw.strip():
        return "the body is empty: send a JSON object ({} for all defaults)"
    try:
        value = json.loads(raw, object_pairs_hook=models._no_duplicates)
    except models._DuplicateKey as exc:
        return f"duplicate key {str(exc)[:64]!r} in the JSON object"
    except (ValueError, RecursionError):
        return "not valid JSON"
    return None if isinstance(value, dict) else "the body must be a JSON object"


MOVE = {"t": "move", "d": {"move": "3f", "expected_version": 10, "client_move_id": "12"}}


@pytest.mark.parametrize("raw", [
    orjson.dumps(MOVE).decode(), orjson.dumps(MOVE), json.dumps(MOVE),
    '{"t":"move","t":"ping"}', '{"d":{"a":1,"a":2}}', '{"a":[{"b":1,"b":1}]}',
    '{"a":1.0}', '{"a":1e2}', '{"a":NaN}', '{"a":123456789012345678901234567890}',
    '{"é":"ü"}', '{"\\u00e9":1}', '{"a":"\\ud800"}', '[1]', '"text"', "", "   ", "nope",
    '{"a":1}  ', "{}", "[" * 2000 + "]" * 2000, '{"a":' * 600 + "1" + "}" * 600,
])
def test_the_fast_path_answers_as_the_full_check(raw: str | bytes) -> None:
    assert json_object_problem(raw) == _full_check(raw)


def test_duplicate_keys_are_still_refused() -> None:
    assert json_object_problem('{"t":"move","d":{"move":"3f","move":"4f"}}') == \
        "duplicate key 'move' in the JSON object"
