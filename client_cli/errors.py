"""Errors of the client library, each carrying the server's stable error code.

Every failure the service reports arrives as ``{"error": {"code", "message",
"details"}}`` (docs/protocol.md, "Errors"); :class:`ApiError` keeps those
three fields. Failures the client detects itself use codes under
``client/``: ``client/unreachable`` (no server answers at the URL),
``client/protocol`` (the server sent something that is not the protocol)
and ``client/timeout`` (no answer in time).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ApiError",
    "MoveRefused",
    "ProtocolError",
    "RoomGone",
    "ServerUnreachable",
    "error_for",
]


class ApiError(Exception):
    """A request the service refused or could not answer.

    ``code`` is the stable namespaced code (``move/illegal``, ``room/full``…),
    ``message`` the human sentence, ``status`` the HTTP status (``None`` on
    the WebSocket), ``details`` the optional extra object.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{message} [{code}]")
        self.code = code
        self.message = message
        self.status = status
        self.details = details or {}


class ServerUnreachable(ApiError):
    """No server answers at the URL (refused, timed out, name not found)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__("client/unreachable", f"no race server answers at {url} ({reason})")
        self.url = url


class RoomGone(ApiError):
    """The room does not exist (any more): ``room/not_found`` or close code 4004."""


class ProtocolError(ApiError):
    """The server answered with something that is not the documented protocol."""

    def __init__(self, message: str) -> None:
        super().__init__("client/protocol", message)


class MoveRefused(ApiError):
    """The server refused a move; ``game`` is the current game when it sent one.

    ``client_move_id`` is the id the move was sent with.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        client_move_id: str | None = None,
        game: dict[str, Any] | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(code, message, status=status, details={"game": game} if game else None)
        self.client_move_id = client_move_id
        self.game = game


def error_for(status: int | None, body: Any) -> ApiError:
    """The right :class:`ApiError` for an error answer ``body`` (parsed JSON or text).

    Never raises: a body that is not the documented error object still gives
    an :class:`ApiError` (code ``server/error`` for 5xx, ``client/protocol``
    otherwise).
    """
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict) and isinstance(err.get("code"), str):
        code = err["code"]
        message = str(err.get("message") or code)
        details = err.get("details") if isinstance(err.get("details"), dict) else None
        if code == "room/not_found":
            return RoomGone(code, message, status=status, details=details)
        if code.startswith("move/"):
            game = details.get("game") if details else None
            return MoveRefused(code, message, status=status,
                               game=game if isinstance(game, dict) else None)
        return ApiError(code, message, status=status, details=details)
    text = body if isinstance(body, str) else repr(body)
    code = "server/error" if status is not None and status >= 500 else "client/protocol"
    return ApiError(code, f"unexpected answer (HTTP {status}): {text[:200]}", status=status)
