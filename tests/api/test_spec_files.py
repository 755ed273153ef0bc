"""docs/openapi.json and docs/ws-schema.json are exactly what the models generate
(refresh with ``python -m server.api.openapi docs``)."""

from __future__ import annotations

import json
from pathlib import Path

from server.api.openapi import openapi, ws_schemas

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_openapi_copy_is_current() -> None:
    assert json.loads((DOCS / "openapi.json").read_text()) == openapi(), \
        "run: python -m server.api.openapi docs"


def test_ws_schema_copy_is_current() -> None:
    assert json.loads((DOCS / "ws-schema.json").read_text()) == ws_schemas(), \
        "run: python -m server.api.openapi docs"


def test_ws_schema_validates_real_messages() -> None:
    schema = ws_schemas()
    move = schema["$defs"]["MoveIn"]
    assert move["additionalProperties"] is False and set(move["required"]) == {"t", "d"}
    assert "ClientMessage" in schema["$defs"] and "ServerMessage" in schema["$defs"]
