"""Keep secrets out of the logs: a logging filter that redacts bearer tokens
and URL passwords (:func:`redact`; ``lucie-server --print-settings`` uses it too).

Tokens never travel in URLs, so access logs are clean by construction; but
at debug level the WebSocket library logs request headers
(``authorization: Bearer …``, ``sec-websocket-protocol: lucie.v1,
lucie.bearer.…``) and frames (``{"t":"auth","d":{"token":…}}``).
:class:`RedactSecrets` rewrites such records; :func:`install` puts it on
every handler of the root and uvicorn loggers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import unquote

__all__ = ["RedactSecrets", "install", "redact"]

_PATTERNS: Final = (
    (re.compile(r"(?i)(authorization['\"]?\s*[:=,]\s*['\"]?bearer\s+)[^\s'\",)]+"),
     r"\1[redacted]"),
    (re.compile(r"(?i)([\"']?(?:host_)?token[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9_\-]{8,}"),
     r"\1[redacted]"),
    # a browser's racer token on the upgrade: Sec-WebSocket-Protocol: lucie.v1, lucie.bearer.…
    (re.compile(r"(?i)(lucie\.bearer\.)[^\s,'\"]+"), r"\1[redacted]"),
    # the password of a URL's userinfo: redis://user:secret@host → redis://user:[redacted]@host
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s/@:]*:)[^\s/]+@"), r"\1[redacted]@"),
)


_QUERY_PARAM: Final = re.compile(r"([?&;])([^=&;\s\"']{1,64})=([^&;\s\"']+)")


def _redact_param(m: re.Match[str]) -> str:
    name = unquote(m.group(2)).lower()
    if name.endswith("token") or name in ("authorization", "secret", "password"):
        return f"{m.group(1)}{m.group(2)}=[redacted]"
    return m.group(0)


def redact(text: str) -> str:
    """``text`` with bearer tokens, ``"token": "…"`` values, URL passwords
    (``scheme://user:password@``, ``?password=``) and URL query parameters
    named like a token (percent-encoded names included) replaced."""
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return _QUERY_PARAM.sub(_redact_param, text)


class RedactSecrets(logging.Filter):
    """Rewrites each record's message with :func:`redact` (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken record is not ours to fix
            return True
        cleaned = redact(message)
        if cleaned == message:
            return True
        # keep the shape of ``args``: formatters such as uvicorn's AccessFormatter
        # unpack it (``client_addr, method, full_path, … = record.args``)
        if isinstance(record.args, tuple):
            args: Any = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, Mapping):
            args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        else:
            args = record.args
        msg = redact(record.msg) if isinstance(record.msg, str) else record.msg
        record.msg, record.args = msg, args
        try:
            if record.getMessage() == cleaned:
                return True
        except Exception:
            pass
        # the secret spans the format and its arguments: keep the cleaned text
        # (an empty tuple: ``getMessage`` does not format, unpacking still works)
        record.msg, record.args = cleaned, ()
        return True


def install() -> None:
    """Add :class:`RedactSecrets` to every handler of the root and uvicorn loggers."""
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "websockets")
    for name in names:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactSecrets) for f in handler.filters):
                handler.addFilter(RedactSecrets())
