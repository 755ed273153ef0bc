"""Compact JSON bytes for records and wire messages, exact for big integers."""

from __future__ import annotations

import json
from typing import Any, Final

import orjson

__all__ = ["SAFE_INTEGER", "integral", "json_bytes"]

SAFE_INTEGER: Final = 2**53
"""From here on a JSON number read as a float may not be the number its text
wrote (``9007199254740993.0`` reads as 2⁵³, ``12345678901234567.0`` as …568):
below it are JavaScript's safe integers."""


def integral(value: Any) -> Any:
    """A JSON number with no fraction (``3.0``, ``1e3``) is that integer: JSON
    and JSON Schema do not tell ``3`` from ``3.0`` (strict models refused it) —
    as long as it is a safe integer (:data:`SAFE_INTEGER`); beyond, the float is
    left as it is, for a strict ``int`` to refuse. Anything else is left as it is."""
    if isinstance(value, float) and value.is_integer() and -SAFE_INTEGER < value < SAFE_INTEGER:
        return int(value)
    return value


def json_bytes(data: Any) -> bytes:
    """Compact UTF-8 JSON of ``data`` as ``orjson.dumps`` writes it; integers
    beyond 64 bits (deal numbers go up to 10**20 − 1) are written exactly by
    the standard library instead (orjson refuses them)."""
    try:
        return orjson.dumps(data)
    except TypeError:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode()
