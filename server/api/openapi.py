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

from .h2h_routes import H2H_ENDPOINTS
from .models import ClientMessage, ErrorBody, ServerMessage
from .rest import ENDPOINTS, PREFIX, Endpoint
from .solver_routes import SOLVER_ENDPOINTS

__all__ = ["check_error_lists", "openapi", "write_docs", "ws_schemas"]

_REF = "#/components/schemas/{model}"
_PARAMS = {"room": "room id or short code", "racer": "racer id",
           "a": "first racer: id or name", "b": "second racer: id or name",
           "variant": "variant id", "date": "UTC date, YYYY-MM-DD"}
_ALL = (*ENDPOINTS, *H2H_ENDPOINTS, *SOLVER_ENDPOINTS)


def check_error_lists(endpoints: Iterable[Endpoint] = _ALL) -> None:
    """Every endpoint's error codes are :data:`server.errors.REGISTRY` codes
    (run at import, so a code outside the registry fails at once).

    :raises ValueError: naming the endpoint and the unknown code.
    """
    for ep in endpoints:
        for code in ep.errors:
            if code not in REGISTRY:
                raise ValueError(f"{ep.method} {ep.path}: error code {code!r} is not in "
                                 "server.errors.REGISTRY")


check_error_lists()


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API (served at ``/api/v1/openapi.json``)."""
    models: set[type[BaseModel]] = {ErrorBody}
    for ep in _ALL:
        models.update(m for m in (ep.body, ep.answer) if m is not None)
    refs, defs = models_json_schema(
        [(m, "validation" if any(ep.body is m for ep in _ALL) else "serialization")
         for m in sorted(models, key=lambda m: m.__name__)],
        ref_template=_REF)
    schemas = defs.get("$defs", {})
    paths: dict[str, Any] = {}
    for ep in _ALL:
        op: dict[str, Any] = {"summary": ep.summary, "operationId": ep.handler.__name__,
                              "responses": {}}
        params = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"},
                   "description": _PARAMS.get(name, name)}
                  for name in re.findall(r"{(\w+)}", ep.path)]
        if params:
            op["parameters"] = params
        if ep.auth == "optional":
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
        op["responses"][str(ep.status)] = ok
        by_status: dict[int, list[str]] = {}
        for code in ep.errors:
            for status in sorted(REGISTRY[code].statuses):
                by_status.setdefault(status, []).append(code)
        for status, codes in sorted(by_status.items()):
            op["responses"][str(status)] = {
                "description": "error: " + ", ".join(f"`{c}`" for c in codes),
                "content": {"application/json": {"schema": {"$ref": _REF.format(
                    model="ErrorBody")}}}}
        paths.setdefault(PREFIX + ep.path, {})[ep.method.lower()] = op
    del refs
    return {
        "openapi": "3.1.0",
        "info": {"title": "La Belle Lucie race service", "version": "1",
                 "description": "See docs/protocol.md for the WebSocket protocol; its "
                 "message schemas are at /api/v1/schemas/ws.json."},
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"}}},
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
