"""HTTP error answers: every failure is ``{"error": {"code", "message", "details"?}}``.

Race refusals keep their code and status (:mod:`server.race.errors`); the
transport adds its own codes below. Nothing here leaks a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from server.errors import RaceError, StoreError, StoreUnavailable, VersionConflict

__all__ = [
    "RETRY_AFTER_MS",
    "BadJson",
    "RateLimited",
    "RequestTooLarge",
    "UnsupportedMediaType",
    "UpgradeRequired",
    "exception_handlers",
    "validation_details",
]

log = logging.getLogger("server.api")


class RequestTooLarge(RaceError):
    """The body or message is larger than the configured limit."""

    code = "request/too_large"
    status = 413


class BadJson(RaceError):
    """The body is not JSON at all."""

    code = "request/invalid"
    status = 400


class UnsupportedMediaType(RaceError):
    """A body that is not declared as JSON (``Content-Type: application/json``)."""

    code = "request/invalid"
    status = 415


class UpgradeRequired(RaceError):
    """A plain HTTP request to the WebSocket endpoint."""

    code = "request/upgrade_required"
    status = 426


class RateLimited(RaceError):
    """Too many requests from one client."""

    code = "rate/limited"
    status = 429


def validation_details(exc: ValidationError) -> list[dict[str, Any]]:
    """Pydantic errors as JSON-able ``{"loc", "msg", "type"}`` (no input echoed)."""
    return [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
            for e in exc.errors(include_url=False, include_input=False, include_context=False)]


def _answer(status: int, code: str, message: str, details: Any = None) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    return JSONResponse({"error": error}, status_code=status)


async def _race_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RaceError)
    return _answer(exc.status, exc.code, exc.message, exc.details)


async def _validation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ValidationError)
    details = validation_details(exc)
    if any(d["type"] == "json_invalid" for d in details):
        return _answer(400, "request/invalid", "the body is not valid JSON", {"errors": details})
    return _answer(422, "request/invalid", "the request does not match its schema",
                   {"errors": details})


async def _http_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: "request/not_found", 405: "request/method_not_allowed"}
    return _answer(exc.status_code, codes.get(exc.status_code, "request/invalid"),
                   str(exc.detail))


RETRY_AFTER_MS = 1000
"""The retry hint of ``store/unavailable`` and ``store/busy`` (``Retry-After``
header in whole seconds, ``details.retry_after_ms`` in the body)."""


async def _store_error(_: Request, exc: Exception) -> Response:
    hint = {"retry_after_ms": RETRY_AFTER_MS}
    headers = {"Retry-After": str(max(1, RETRY_AFTER_MS // 1000))}
    if isinstance(exc, StoreUnavailable):
        answer = _answer(503, "store/unavailable", "storage is unavailable; try again", hint)
        answer.headers.update(headers)
        return answer
    if isinstance(exc, VersionConflict):
        answer = _answer(503, "store/busy", "too many concurrent writes; try again", hint)
        answer.headers.update(headers)
        return answer
    log.error("store error: %s", type(exc).__name__)
    return _answer(500, "server/error", "internal error")


async def _client_gone(_: Request, exc: Exception) -> Response:
    """The client went away before its body arrived: nothing was done and
    nobody reads the answer, so it is no server error (no traceback)."""
    log.info("client left before its request body arrived")
    return _answer(400, "request/invalid", "the request body was cut off")


async def _server_error(_: Request, exc: Exception) -> Response:
    log.error("unhandled %s", type(exc).__name__, exc_info=exc)
    return _answer(500, "server/error", "internal error")


exception_handlers: dict[Any, Any] = {
    RaceError: _race_error,
    ValidationError: _validation_error,
    HTTPException: _http_error,
    StoreError: _store_error,
    ClientDisconnect: _client_gone,
    Exception: _server_error,
}
"""Starlette ``exception_handlers`` for the app."""
