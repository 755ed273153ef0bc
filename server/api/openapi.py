"""The OpenAPI 3.1 document and the WebSocket JSON Schemas, generated from the
pydantic models and the route table (:data:`server.api.rest.ENDPOINTS`) —
no hand-written duplicate."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any, cast

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import models_json_schema

from server.errors import REGISTRY
from server.records.leaderboard import MAX_LIMIT
from server.rules import VARIANTS

from .challenge_routes import CHALLENGE_ENDPOINTS
from .h2h_routes import H2H_ENDPOINTS
from .models import ClientMessage, ErrorBody, ServerMessage
from .moderation_routes import MODERATION_ENDPOINTS
from .player_routes import PLAYER_ENDPOINTS
from .quick_routes import QUICK_ENDPOINTS
from .rematch_routes import REMATCH_ENDPOINTS
from .rest import ENDPOINTS, PREFIX, Endpoint
from .solver_routes import SOLVER_ENDPOINTS

__all__ = ["check_error_lists", "error_codes", "openapi", "write_docs", "ws_schemas"]

_REF = "#/components/schemas/{model}"
_ID = {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}
"""Room ids (16 url-safe characters), room codes (6 letters and digits, any
case) and racer ids (8 url-safe characters): anything else finds nothing (404)."""
_DATE = {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
_PARAMS: dict[str, tuple[str, dict[str, Any]]] = {
    "room": ("room id or short code", {**_ID, "maxLength": 64}),
    "racer": ("racer id", {**_ID, "maxLength": 64}),
    "race": ("race id, room id or the short code of its room (the latest race with it)",
             {**_ID, "maxLength": 64}),
    "series": ("series id (its first room's id), or the id or code of one of its rooms",
               {**_ID, "maxLength": 64}),
    "a": ("first racer: id or name", {"type": "string", "minLength": 1, "maxLength": 64}),
    "b": ("second racer: id or name", {"type": "string", "minLength": 1, "maxLength": 64}),
    "variant": ("variant id (docs/rules.md)", {"type": "string", "enum": list(VARIANTS)}),
    "date": ("UTC date, YYYY-MM-DD", _DATE),
    "limit": ("rows (boards: best first; histories: newest first)",
              {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 20}),
    "cursor": ("the `next` of the page before (omit for the first page)",
               {"type": "string", "minLength": 1, "maxLength": 200}),
    "player": ("player id or player name (compared after NFKC and case folding)",
               {"type": "string", "minLength": 1, "maxLength": 64}),
    "other": ("the other player: id or name", {"type": "string", "minLength": 1,
                                                 "maxLength": 64}),
    "challenge": ("challenge id or its short code (8 characters, any case)",
                  {**_ID, "maxLength": 32}),
}
"""Path and query parameters: description and schema (as the handlers check them)."""
_ALL = (*ENDPOINTS, *H2H_ENDPOINTS, *SOLVER_ENDPOINTS, *REMATCH_ENDPOINTS, *PLAYER_ENDPOINTS,
        *QUICK_ENDPOINTS, *MODERATION_ENDPOINTS, *CHALLENGE_ENDPOINTS)
_BODY_CODES = ("request/invalid", "request/too_large", "request/unsupported_media_type")
_STORE_CODES = {"none": (), "read": ("store/unavailable",),
                "write": ("store/unavailable", "store/busy")}
_RETRY_AFTER = ("rate/limited", "server/full", "store/unavailable", "store/busy",
                "archive/unavailable")
"""Codes answered with a ``Retry-After`` header (server/api/errors.py)."""
_OPERATION_ID = re.compile(r"[a-z][A-Za-z0-9]*")


def check_error_lists(endpoints: Iterable[Endpoint] = _ALL) -> None:
    """Every endpoint's error codes are :data:`server.errors.REGISTRY` codes
    and its operation id is set, camelCase and unique (run at import, so a bad
    declaration fails at once).

    :raises ValueError: naming the endpoint and what is wrong.
    """
    seen: dict[str, str] = {}
    for ep in endpoints:
        for code in ep.errors:
            if code not in REGISTRY:
                raise ValueError(f"{ep.method} {ep.path}: error code {code!r} is not in "
                                 "server.errors.REGISTRY")
        if not _OPERATION_ID.fullmatch(ep.operation_id):
            raise ValueError(f"{ep.method} {ep.path}: operation_id {ep.operation_id!r} "
                             "is not a camelCase name")
        if ep.operation_id in seen:
            raise ValueError(f"{ep.method} {ep.path}: operation_id {ep.operation_id!r} is "
                             f"also {seen[ep.operation_id]}'s")
        seen[ep.operation_id] = f"{ep.method} {ep.path}"
        for name in (*re.findall(r"{(\w+)}", ep.path), *ep.query):
            if name not in _PARAMS:
                raise ValueError(f"{ep.method} {ep.path}: no schema for parameter {name!r}")


check_error_lists()


def error_codes(ep: Endpoint) -> dict[int, list[str]]:
    """Every error code ``ep`` can answer, by HTTP status: its own codes, the
    body's (when it has one), the store's (as it uses it), ``rate/limited``
    (every route spends a budget; an address holds a number of connections),
    ``request/headers_too_large`` (any request head may be over the limit),
    ``request/not_found`` where the path has parameters (one holding a
    control character or bytes that are not UTF-8 names nothing:
    :mod:`server.api.guard`) and ``server/error``."""
    codes = dict.fromkeys((*ep.errors, *(_BODY_CODES if ep.body else ()),
                           *_STORE_CODES[ep.store], "rate/limited",
                           *(("request/not_found",) if "{" in ep.path else ()),
                           "request/headers_too_large", "server/error"))
    by_status: dict[int, list[str]] = {}
    for code in codes:
        statuses = REGISTRY[code].statuses
        if code == "request/invalid" and ep.body is None:
            statuses = frozenset({REGISTRY[code].status})  # 422: a body off its schema
        for status in sorted(statuses):
            by_status.setdefault(status, []).append(code)
    return dict(sorted(by_status.items()))


def _error_response(status: int, codes: list[str]) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": "error: " + ", ".join(f"`{c}`" for c in codes),
        "content": {"application/json": {"schema": {"$ref": _REF.format(
            model="ErrorBody")}}}}
    if any(c in _RETRY_AFTER for c in codes):
        answer["headers"] = {"Retry-After": {
            "$ref": "#/components/headers/RetryAfter" if status == 429
            else "#/components/headers/RetryAfterOptional"}}
    return answer


def _bearer(expr: str) -> str:
    return "Bearer {" + expr + "}"


_LINKS: dict[str, dict[str, dict[str, Any]]] = {
    "createRoom": {
        op: {"operationId": op, "parameters": {
            "path.room": "$response.body#/room/id",
            **({"header.Authorization": _bearer("$response.body#/host_token")}
               if op in ("startRoom", "closeRoom", "getRoom") else {})}}
        for op in ("getRoom", "joinRoom", "startRoom", "closeRoom", "getStandings")},
    "joinRoom": {
        op: {"operationId": op, "parameters": {
            "path.room": "$request.path.room", "path.racer": "$response.body#/racer/id",
            "header.Authorization": _bearer("$response.body#/token")}}
        for op in ("setReady", "submitMove", "resign", "getHint", "getGame", "getReplay",
                   "leaveRoom")} | {
        "offerRematch": {"operationId": "offerRematch", "parameters": {
            "path.room": "$request.path.room",
            "header.Authorization": _bearer("$response.body#/token")}}},
    "offerRematch": {
        op: {"operationId": op, "parameters": {
            "path.room": "$response.body#/room/id", "path.racer": "$response.body#/racer/id",
            "header.Authorization": _bearer("$response.body#/token")}}
        for op in ("setReady", "submitMove", "resign", "getGame", "leaveRoom")},
    "quickRace": {
        op: {"operationId": op, "parameters": {
            "path.room": "$response.body#/room/id", "path.racer": "$response.body#/racer/id",
            "header.Authorization": _bearer("$response.body#/token")}}
        for op in ("setReady", "submitMove", "resign", "getGame", "getReplay", "leaveRoom")} | {
        "offerRematch": {"operationId": "offerRematch", "parameters": {
            "path.room": "$response.body#/room/id",
            "header.Authorization": _bearer("$response.body#/token")}}},
}
"""OpenAPI links (stateful testing, client generators): a new room's id and host
token lead to its host's operations, a new racer's id and token to theirs (and
to a rematch once their race is over; a rematch's seat to the next room's)."""


def _operation(ep: Endpoint) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": ep.summary, "operationId": ep.operation_id,
                          "responses": {}}
    params = [{"name": name, "in": "path", "required": True,
               "description": _PARAMS[name][0], "schema": _PARAMS[name][1]}
              for name in re.findall(r"{(\w+)}", ep.path)]
    params += [{"name": name, "in": "query", "required": False,
                "description": _PARAMS[name][0], "schema": _PARAMS[name][1]}
               for name in ep.query]
    if params:
        op["parameters"] = params
    if ep.auth == "optional player":
        op["security"] = [{"bearer": []}, {}]
        op["description"] = ("Authorization: Bearer <player key> (optional): race as that "
                             "player (docs/players.md).")
    elif ep.auth == "optional":
        op["security"] = [{"bearer": []}, {}]
        op["description"] = ("Authorization: Bearer <racer or host token> (optional): what "
                             "it shows depends on who asks (docs/protocol.md, "
                             "\"Fair play\").")
    elif ep.auth:
        op["security"] = [{"bearer": []}]
        op["description"] = f"Authorization: Bearer <{ep.auth} token>."
    if ep.body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": {"$ref": _REF.format(model=ep.body.__name__)}}}}
    ok: dict[str, Any] = {"description": "success"}
    if ep.answer is not None:
        ok["content"] = {"application/json": {
            "schema": {"$ref": _REF.format(model=ep.answer.__name__)}}}
    if ep.operation_id in _LINKS:
        ok["links"] = _LINKS[ep.operation_id]
    op["responses"][str(ep.status)] = ok
    for status, codes in error_codes(ep).items():
        op["responses"][str(status)] = _error_response(status, codes)
    return op


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API (served at ``/api/v1/openapi.json``)."""
    models: set[type[BaseModel]] = {ErrorBody}
    for ep in _ALL:
        models.update(m for m in (ep.body, ep.answer) if m is not None)
    _, defs = models_json_schema(
        [(m, "validation" if any(ep.body is m for ep in _ALL) else "serialization")
         for m in sorted(models, key=lambda m: m.__name__)],
        ref_template=_REF)
    paths: dict[str, Any] = {}
    for ep in _ALL:
        paths.setdefault(PREFIX + ep.path, {})[ep.method.lower()] = _operation(ep)
    retry_after = {"description": "whole seconds to wait before trying again (RFC 9110)",
                   "schema": {"type": "integer", "minimum": 1}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "La Belle Lucie race service", "version": "1",
                 "description": "See docs/protocol.md for the WebSocket protocol; its "
                 "message schemas are at /api/v1/schemas/ws.json. Every `GET` also "
                 "answers `HEAD`; a method a path does not take is answered 405 "
                 "`request/method_not_allowed` with `Allow`."},
        "paths": paths,
        "components": {
            "schemas": defs.get("$defs", {}),
            "headers": {"RetryAfter": {**retry_after, "required": True},
                        "RetryAfterOptional": retry_after},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }


@cache
def ws_schemas() -> dict[str, Any]:
    """JSON Schemas (2020-12) of every WebSocket message, both directions
    (served at ``/api/v1/schemas/ws.json``)."""
    client = TypeAdapter(cast(Any, ClientMessage)).json_schema(ref_template="#/$defs/{model}")
    server = TypeAdapter(cast(Any, ServerMessage)).json_schema(ref_template="#/$defs/{model}",
                                                    mode="serialization")
    defs = {**client.pop("$defs", {}), **server.pop("$defs", {})}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "/api/v1/schemas/ws.json",
        "title": "Room WebSocket messages",
        "$defs": {**defs, "ClientMessage": client, "ServerMessage": server},
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
    }


def write_docs(directory: str) -> list[str]:
    """Write ``openapi.json`` and ``ws-schema.json`` into ``directory``; returns the paths.

    ``python -m server.api.openapi docs/`` refreshes the copies kept in the
    repository (a test checks that they match the models).
    """
    import json
    from pathlib import Path

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, doc in (("openapi.json", openapi()), ("ws-schema.json", ws_schemas())):
        path = out / name
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        written.append(str(path))
    return written


if __name__ == "__main__":
    import sys

    for written_path in write_docs(sys.argv[1] if len(sys.argv) > 1 else "docs"):
        print(written_path)
