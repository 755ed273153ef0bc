"""Compact JSON bytes for records and wire messages, exact for big integers."""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["json_bytes"]


def json_bytes(data: Any) -> bytes:
    """Compact UTF-8 JSON of ``data`` as ``orjson.dumps`` writes it; integers
    beyond 64 bits (deal numbers go up to 10**20 − 1) are written exactly by
    the standard library instead (orjson refuses them)."""
    try:
        return orjson.dumps(data)
    except TypeError:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode()
