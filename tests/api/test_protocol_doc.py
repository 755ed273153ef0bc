"""docs/protocol.md names every route, error code, message and event the server has."""

from __future__ import annotations

import typing
from pathlib import Path

from server.api.models import ClientMessage, ServerMessage
from server.api.rest import ENDPOINTS
from server.race import errors
from server.race.events import EVENT_MODELS, EVENT_TYPES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def test_every_route_is_documented() -> None:
    for ep in ENDPOINTS:
        assert f"`{ep.method} {ep.path}`" in DOC, ep.path


def test_every_error_code_is_documented() -> None:
    codes = {cls.code for cls in vars(errors).values()
             if isinstance(cls, type) and issubclass(cls, errors.RaceError)}
    codes -= {"race/error"}
    missing = sorted(code for code in codes if f"`{code}`" not in DOC)
    assert not missing, f"add these codes to docs/protocol.md, Errors: {missing}"


def _tags(union: object) -> set[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return {typing.get_args(m.model_fields["t"].annotation)[0] for m in members}


def test_every_socket_message_and_event_is_documented() -> None:
    for tag in _tags(ClientMessage) | _tags(ServerMessage):
        assert f'"t":"{tag}"' in DOC or f"`{tag} " in DOC or f"`{tag}`" in DOC, tag
    for event in EVENT_TYPES:
        assert f"| `{event}` |" in DOC, event


def test_every_event_field_is_documented() -> None:
    table = DOC.split("**Room events**", 1)[1].split("\n\n")[1]
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines()
            if line.startswith("| `")}
    for model in EVENT_MODELS:
        row = rows[model.model_fields["type"].default]
        for name in set(model.model_fields) - {"seq", "type", "race_clock_ms"}:
            assert f"`{name}`" in row or f"`{name}:" in row, (model.__name__, name)
