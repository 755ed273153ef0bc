"""The bearer token of a request: ``Authorization: Bearer <token>``."""

from __future__ import annotations

from typing import Any

__all__ = ["bearer_token"]


def bearer_token(request_headers: Any) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else ``None``."""
    value = str(request_headers.get("authorization", ""))
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
