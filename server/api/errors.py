"""HTTP error answers: every failure is ``{"error": {"code", "message", "details"?}}``.

The codes, their statuses and their classes are the registry's
(:mod:`server.errors`); this module only maps exceptions to HTTP answers.
Nothing here leaks a traceback.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final

from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from server.errors import (
    REGISTRY,
    ArchiveUnavailable,
    MethodNotAllowed,
    RaceError,
    RequestInvalid,
    RouteNotFound,
    ServiceError,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)

__all__ = [
    "NO_STORE",
    "RETRY_AFTER_MS",
    "error_answer",
    "exception_handlers",
    "socket_store_error",
    "store_error_body",
    "validation_details",
]

log = logging.getLogger("server.api")

_SCHEMA_STATUS = 422
"""``request/invalid`` for a JSON body that does not match its schema
(``REGISTRY["request/invalid"].also_status``)."""
assert _SCHEMA_STATUS in REGISTRY[RequestInvalid.code].also_status


_UNION_BRANCH = re.compile(r"[a-z][a-z_-]*\[.*\]", re.DOTALL)
"""How pydantic names the branch of a union an error comes from in its ``loc``
(``function-before[_integral(), int]``, ``literal['random','daily']``):
the model's internals, not the request's path."""
_SCALAR_BRANCH = {"str": "string_type", "int": "int_type", "float": "float_type",
                  "bool": "bool_type"}
"""A plain type's union branch, last in ``loc``, by the error it gives."""


def validation_details(exc: ValidationError, *, tagged: bool = False) -> list[dict[str, Any]]:
    """Pydantic errors as JSON-able ``{"loc", "msg", "type"}`` (no input echoed);
    ``loc`` is the path in the request — field names and list indexes, without
    pydantic's names of union branches — and each distinct error is given once.
    ``tagged``: the input is a discriminated union (the socket's messages), whose
    errors start their ``loc`` with the tag (``["move", "d", …]``): dropped too.
    """
    details: list[dict[str, Any]] = []
    for e in exc.errors(include_url=False, include_input=False, include_context=False):
        loc = [part for i, part in enumerate(e["loc"][1:] if tagged else e["loc"])
               if i == 0 or not (isinstance(part, str) and _UNION_BRANCH.fullmatch(part))]
        if len(loc) > 1 and _SCALAR_BRANCH.get(str(loc[-1])) == e["type"]:
            loc.pop()  # ["move", "str"]: the move is not a string
        detail = {"loc": loc, "msg": e["msg"], "type": e["type"]}
        if detail not in details:
            details.append(detail)
    return details


NO_STORE: Final = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
"""The headers of every API answer, errors included (docs/protocol.md,
"Conventions"): not kept by any cache (they carry tokens and player keys),
never sniffed as another type than the one they declare. The middleware adds
them to every answer that sets no ``Cache-Control`` of its own
(:class:`server.api.observe.Observe`); error answers carry them themselves,
the server error too (its answer leaves through Starlette's outermost
middleware, outside ours)."""


def _answer(status: int, code: str, message: str, details: Any = None) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    return JSONResponse({"error": error}, status_code=status, headers=NO_STORE)


def error_answer(exc: RaceError) -> JSONResponse:
    """The HTTP answer of a refusal ``exc`` (its status, JSON error,
    ``Retry-After`` when it says when to retry)."""
    answer = _answer(exc.status, exc.code, exc.message, exc.details)
    retry_ms = exc.details.get("retry_after_ms")
    if isinstance(retry_ms, int):  # RFC 9110 Retry-After: whole seconds, rounded up
        answer.headers["Retry-After"] = str(max(1, -(-retry_ms // 1000)))
    return answer


async def _race_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RaceError)
    return error_answer(exc)


async def _validation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ValidationError)
    details = validation_details(exc)
    if any(d["type"] == "json_invalid" for d in details):
        return _answer(RequestInvalid.status, RequestInvalid.code, "the body is not valid JSON",
                       {"errors": details})
    return _answer(_SCHEMA_STATUS, RequestInvalid.code, "the request does not match its schema",
                   {"errors": details})


_HTTP_CODES = {cls.status: cls.code for cls in (RouteNotFound, MethodNotAllowed)}


async def _http_error(_: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no route, wrong method), with their headers:
    a 405 carries ``Allow`` (RFC 9110 15.5.6), set by Starlette's ``Route``."""
    assert isinstance(exc, HTTPException)
    answer = _answer(exc.status_code, _HTTP_CODES.get(exc.status_code, RequestInvalid.code),
                     str(exc.detail))
    for name, value in (exc.headers or {}).items():
        if name.lower() == "allow":  # Starlette joins a set: list the methods in one order
            value = ", ".join(sorted(m.strip() for m in value.split(",")))
        answer.headers[name] = value
    return answer


RETRY_AFTER_MS = 1000
"""The retry hint of ``store/unavailable`` and ``store/busy`` (``Retry-After``
header in whole seconds, ``details.retry_after_ms`` in the body)."""

_STORE_MESSAGES = {
    StoreUnavailable.code: "storage is unavailable; try again",
    ArchiveUnavailable.code: "the archive is unavailable; try again",
    VersionConflict.code: "too many concurrent writes; try again",
}


def store_error_body(exc: StoreError) -> dict[str, Any] | None:
    """The wire error of a store failure that a client may retry, with the
    retry hint (``{"code", "message", "details"}``); ``None`` for any other
    store failure (a ``server/error``). The store's own message is never sent."""
    message = _STORE_MESSAGES.get(exc.code)
    if message is None:
        return None
    return {"code": exc.code, "message": message, "details": {"retry_after_ms": RETRY_AFTER_MS}}


def socket_store_error(exc: StoreError) -> dict[str, Any]:
    """The wire error of a store failure on a socket: :func:`store_error_body`,
    any failure but a write conflict told as ``store/unavailable`` (retry)."""
    body = store_error_body(exc)
    if body is None:
        body = store_error_body(StoreUnavailable())
        assert body is not None
    return body


async def _store_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, StoreError)
    body = store_error_body(exc)
    if body is None:
        log.error("store error: %s", type(exc).__name__)
        return _answer(ServiceError.status, ServiceError.code, "internal error")
    answer = _answer(exc.status, body["code"], body["message"], body["details"])
    answer.headers["Retry-After"] = str(max(1, RETRY_AFTER_MS // 1000))
    return answer


async def _client_gone(_: Request, exc: Exception) -> Response:
    """The client went away before its body arrived: nothing was done and
    nobody reads the answer, so it is no server error (no traceback)."""
    log.info("client left before its request body arrived")
    return _answer(RequestInvalid.status, RequestInvalid.code, "the request body was cut off")


async def _server_error(_: Request, exc: Exception) -> Response:
    log.error("unhandled %s", type(exc).__name__, exc_info=exc)
    return _answer(ServiceError.status, ServiceError.code, "internal error")


exception_handlers: dict[Any, Any] = {
    RaceError: _race_error,
    ValidationError: _validation_error,
    HTTPException: _http_error,
    StoreError: _store_error,
    ClientDisconnect: _client_gone,
    Exception: _server_error,
}
"""Starlette ``exception_handlers`` for the app."""
