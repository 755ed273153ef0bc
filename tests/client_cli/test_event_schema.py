"""The client's reading of room events against the published schema (docs/ws-schema.json).

Fails on drift between the server's events (:mod:`server.race.events`, whose
JSON Schema the docs copy is) and what ``client_cli`` reads of them:

* every event type the client handles exists in the schema, and every type
  of the schema is listed in :data:`CLIENT_READS` (the client may ignore it);
* every field the client reads of a type is in the schema for that type,
  and the client's views of the embedded objects (a racer, a standing) read
  no field the server does not send;
* the event fields the board copies onto its racers are racer fields;
* ``client_cli`` imports nothing of the server but ``server.rules`` and
  ``server.solver``;
* real events of live races on a ``lucie-server`` process validate against
  the schema (``jsonschema`` when installed, else the server models' type
  adapter), with exactly the schema's fields.
"""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from client_cli.api import LucieClient
from client_cli.board.model import apply_progress
from client_cli.room_socket import ws_url
from client_cli.views import RacerView, StandingView
from server.race.events import EVENT_ADAPTER

from .helpers import play_moves

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client_cli"
SCHEMA: dict[str, Any] = json.loads((ROOT / "docs" / "ws-schema.json").read_text())
DEFS: dict[str, Any] = SCHEMA["$defs"]

COMMON = {"seq", "type", "race_clock_ms"}
"""Read of every event: ``room_socket.RoomConnection._handle`` (seq, type,
race_clock_ms), ``board.app.BoardApp._on_event`` (race_clock_ms)."""

CLIENT_READS: dict[str, set[str]] = {
    "created": set(),
    "joined": {"racer"},  # board/app.py: RacerView.model_validate(data["racer"])
    "left": {"racer"},  # board/app.py → board/model.py apply_progress
    "ready": {"racer", "ready"},  # apply_progress
    "countdown": {"starts_in_ms"},  # board/app.py
    "started": set(),  # board/app.py, bot.py: race_clock_ms only
    "progress": {"racer", "foundation_cards", "moves", "redeals_used", "merci_used",
                 "status", "reach_time_ms"},  # apply_progress
    "finished": {"racer", "status"},  # apply_progress
    "race_over": {"standings"},  # board/app.py: StandingView per row; bot.py: type
    "par": set(),  # not read by the client
    "closed": set(),  # room_socket.py, board/app.py, bot.py: type
    "rematch": set(),  # not read yet: the room view's rematch link is
}
"""Per event type, the fields ``client_cli`` reads beyond :data:`COMMON`."""

ALLOWED_SERVER_IMPORTS = ("server.rules", "server.solver")


def _event_defs() -> dict[str, dict[str, Any]]:
    """Event type → its JSON Schema, from the ``event`` message's ``d``."""
    mapping = DEFS["EventOut"]["properties"]["d"]["discriminator"]["mapping"]
    return {etype: DEFS[ref.rsplit("/", 1)[1]] for etype, ref in mapping.items()}


def _ref(prop: dict[str, Any]) -> dict[str, Any]:
    return DEFS[prop["$ref"].rsplit("/", 1)[1]]


def _client_sources() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(), str(p)) for p in sorted(CLIENT.rglob("*.py"))}


def _handled_types() -> set[str]:
    """Event types ``client_cli`` compares an event's type with: ``ev.type == "x"``,
    ``ev.type in ("x", …)``, ``etype == "x"``, ``{"x": …}.get(msg.type)``."""
    def is_type(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "type") or \
            (isinstance(node, ast.Name) and node.id.endswith("type"))

    def strings(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return {s for e in node.elts for s in strings(e)}
        return set()

    found: set[str] = set()
    for tree in _client_sources().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and is_type(node.left):
                for comp in node.comparators:
                    found |= strings(comp)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "get" and isinstance(node.func.value, ast.Dict) \
                    and node.args and is_type(node.args[0]):
                found |= {s for k in node.func.value.keys if k is not None for s in strings(k)}
    return found


def test_the_schema_and_the_client_know_the_same_event_types() -> None:
    types = set(_event_defs())
    assert set(CLIENT_READS) == types, "list new event types in CLIENT_READS"
    handled = _handled_types()
    assert {"joined", "progress", "race_over", "closed"} <= handled  # the scan works
    assert handled <= types, f"the client handles unknown event types: {handled - types}"


def test_every_field_the_client_reads_is_in_the_schema() -> None:
    for etype, schema in _event_defs().items():
        props, required = set(schema["properties"]), set(schema["required"])
        reads = COMMON | CLIENT_READS[etype]
        assert reads <= props, f"{etype}: the client reads {reads - props}, never sent"
        assert reads <= required, f"{etype}: the client reads optional {reads - required}"
        assert schema["additionalProperties"] is False
        assert schema["properties"]["type"]["const"] == etype


def test_embedded_views_read_only_what_the_server_sends() -> None:
    events = _event_defs()
    racer = _ref(events["joined"]["properties"]["racer"])
    assert set(RacerView.model_fields) <= set(racer["properties"]), \
        set(RacerView.model_fields) - set(racer["properties"])
    standing = _ref(events["race_over"]["properties"]["standings"]["items"])
    assert set(StandingView.model_fields) <= set(standing["properties"]), \
        set(StandingView.model_fields) - set(standing["properties"])


def test_the_fields_the_board_applies_are_racer_fields() -> None:
    """apply_progress copies an event's racer fields onto the racer: a field
    renamed on one side would silently stop updating the board."""
    for etype in ("progress", "finished", "ready"):
        fields = set(_event_defs()[etype]["properties"]) - COMMON - {"racer"}
        assert fields <= set(RacerView.model_fields), (etype, fields - set(RacerView.model_fields))
    racers = {"r": RacerView(id="r", name="Ada")}
    apply_progress(racers, {"racer": "r", "foundation_cards": 3, "moves": 4, "status": "won"})
    assert (racers["r"].foundation_cards, racers["r"].moves, racers["r"].status) == (3, 4, "won")


def test_the_client_imports_only_rules_and_solver_of_the_server() -> None:
    for path, tree in _client_sources().items():
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level \
                else []
            for name in names:
                if name == "server" or name.startswith("server."):
                    assert name.startswith(ALLOWED_SERVER_IMPORTS), \
                        f"{path.relative_to(ROOT)} imports {name}"


# -- real events ---------------------------------------------------------------------


def _validator() -> Any:
    """Validates one server message against docs/ws-schema.json: ``jsonschema`` when
    installed, else the server's event models (the schema's source)."""
    try:
        import jsonschema  # type: ignore[import-untyped]
    except ImportError:
        def check(message: dict[str, Any]) -> None:
            assert message["t"] == "event"
            EVENT_ADAPTER.validate_python(message["d"])
        return check
    root = {"$schema": SCHEMA["$schema"], "$defs": DEFS, "$ref": "#/$defs/ServerMessage"}
    validator = jsonschema.Draft202012Validator(root)
    return validator.validate


async def _recorded(url: str, code: str) -> list[dict[str, Any]]:
    """Every event message of room ``code`` so far, as sent (a spectator socket
    with ``since=0``)."""
    async with connect(ws_url(url, code, 0)) as ws:
        welcome = json.loads(await ws.recv())
        assert welcome["t"] == "welcome"
        last = welcome["d"]["room"]["seq"]
        messages: list[dict[str, Any]] = []
        while not messages or messages[-1]["d"]["seq"] < last:
            message = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if message["t"] == "event":
                messages.append(message)
        return messages


async def _live_races(url: str) -> list[dict[str, Any]]:
    """Two rooms: a race with ready, moves, a racer leaving, a resign, the race
    end, par and a rematch; a room closed before its start."""
    async with LucieClient(url) as client:
        created = await client.create_room(deal=7, countdown_s=0, visibility="private")
        code, host = created.room.code, created.host_token
        ann = await client.join(code, "ann")
        bob = await client.join(code, "bob")
        await client.ready(code, ann.racer.id, ann.token, True)
        await client.start(code, host)
        for _ in range(200):
            game = await client.game(code, ann.racer.id, ann.token)
            if game.status == "playing":
                break
            await asyncio.sleep(0.02)
        for _ in range(3):
            moves = play_moves(game)
            if not moves:
                break
            game = (await client.move(code, ann.racer.id, ann.token, moves[0],
                                      game.version)).game
        await client.leave(code, bob.racer.id, bob.token)
        await client.resign(code, ann.racer.id, ann.token)
        for _ in range(250):  # the solver's par arrives after the race end
            if any(m["d"]["type"] == "par" for m in await _recorded(url, code)):
                break
            await asyncio.sleep(0.02)
        again = await client.rematch(code, ann.token)
        assert again.racer.id == ann.racer.id and again.host_token
        linked = (await client.get_room(code)).rematch
        assert linked is not None and linked.room == again.room.id
        raced = await _recorded(url, code)
        waiting = await client.create_room(deal=7, visibility="private")
        await client.join(waiting.room.code, "cy")
        await client.close(waiting.room.code, waiting.host_token)
        return raced + await _recorded(url, waiting.room.code)


async def test_live_events_validate_against_the_schema(lucie_server: str) -> None:
    messages = await _live_races(lucie_server)
    validate = _validator()
    events = _event_defs()
    for message in messages:
        validate(message)
        event = message["d"]
        schema = events[event["type"]]
        assert set(event) == set(schema["properties"]), event["type"]
        assert set(schema["required"]) <= set(event)
    seen = {m["d"]["type"] for m in messages}
    assert seen == set(events), f"not seen live: {set(events) - seen}"
