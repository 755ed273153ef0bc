"""The server's logging: one configuration for its own lines and uvicorn's.

:func:`log_config` is a :func:`logging.config.dictConfig` dictionary that
``lucie-server`` hands to uvicorn (``log_config``), so uvicorn's lines and
the service's come out of one handler on stderr, in one format:

* ``json`` — one JSON object per line (python-json-logger): ``time`` (ISO
  8601, UTC), ``level``, ``logger``, ``message``, then the record's fields
  (``request_id``, ``room``, ``racer``, ``status``, ``duration_ms``, …;
  docs/operations.md, "Logs");
* ``text`` — ``time level logger: message key=value …`` for a terminal,
  one line per record: control characters in the message and the values
  (a ``%0a`` in a request's path, decoded) are written as escapes (``\\n``,
  ``\\x00``), so nobody can forge a line; a traceback follows on lines of its
  own, each indented, so none of them can pass for a record either;
* ``auto`` (``LUCIE_LOG_FORMAT`` default) — text when stderr is a terminal,
  else JSON.

Every record passes :class:`~server.runtime.redact.RedactSecrets` (tokens out)
and :class:`RequestContext`, which adds the ``request_id`` of the HTTP request
or WebSocket being served (:data:`REQUEST_ID`, set by the transport's
middleware) to every line logged while serving it — race lifecycle lines
included. uvicorn's access log is off: the transport logs one line per
request itself (``server.api.observe``).
"""

from __future__ import annotations

import contextvars
import logging
import sys
from typing import IO, Any, Final

__all__ = ["REQUEST_ID", "RequestContext", "TextFormatter", "log_config", "one_line",
           "resolve_format"]

REQUEST_ID: Final[contextvars.ContextVar[str | None]] = contextvars.ContextVar(
    "lucie_request_id", default=None)
"""The id of the request or socket being served in this context (tasks the
handler starts inherit it)."""

_STANDARD: Final = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message", "asctime", "taskName", "color_message"}
"""Attributes every record has (``color_message``: uvicorn's coloured copy of
the message): the rest are the fields a caller passed with ``extra=``."""


def resolve_format(fmt: str, stream: IO[str] | None = None) -> str:
    """``json`` or ``text`` for a ``LUCIE_LOG_FORMAT`` value (``auto``: text
    when ``stream``, default stderr, is a terminal).

    :raises ValueError: not ``json``, ``text`` or ``auto``.
    """
    if fmt not in ("json", "text", "auto"):
        raise ValueError(f"log_format {fmt!r}: json, text or auto")
    if fmt != "auto":
        return fmt
    stream = sys.stderr if stream is None else stream
    try:
        return "text" if stream.isatty() else "json"
    except (AttributeError, ValueError):  # a closed or odd stream
        return "json"


class RequestContext(logging.Filter):
    """Adds ``request_id`` (:data:`REQUEST_ID`) to records that have none."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            request_id = REQUEST_ID.get()
            if request_id is not None:
                record.request_id = request_id
        return True


_ESCAPES: Final = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7f, 0xa0))} | {
    0x09: "\\t", 0x0a: "\\n", 0x0d: "\\r", 0x2028: "\\u2028", 0x2029: "\\u2029"}
"""Control characters (C0, DEL, C1) and Unicode's line and paragraph
separators, as the escapes a text line shows instead."""


def one_line(text: str) -> str:
    """``text`` with its control characters escaped (:data:`_ESCAPES`): one line."""
    return text.translate(_ESCAPES) if not text.isprintable() else text


class TextFormatter(logging.Formatter):
    """``%(asctime)s %(levelname)s %(name)s: %(message)s`` and then the record's
    extra fields as ``key=value`` (those that are not ``None``), on one line
    (:func:`one_line`); a traceback below it, each of its lines indented."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        return one_line(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        head, sep, tail = text.partition("\n")  # a traceback stays below the line
        extra = [f"{k}={one_line(str(v))}" for k, v in record.__dict__.items()
                 if k not in _STANDARD and v is not None]
        if extra:
            head = f"{head} {' '.join(extra)}"
        if tail:
            tail = "\n".join("    " + one_line(line) for line in tail.split("\n"))
        return f"{head}{sep}{tail}"


def log_config(level: str = "info", fmt: str = "auto") -> dict[str, Any]:
    """The logging configuration (module docstring) at ``level`` (``debug``,
    ``info``, ``warning``, …) in format ``fmt``.

    :raises ValueError: an unknown format.
    """
    chosen = resolve_format(fmt)
    upper = level.upper()
    formatter: dict[str, Any] = {"()": "server.runtime.logs.TextFormatter"} if chosen == "text" \
        else {"()": "pythonjsonlogger.json.JsonFormatter",
              "fmt": "%(levelname)s %(name)s %(message)s",
              "rename_fields": {"levelname": "level", "name": "logger"},
              "reserved_attrs": sorted(_STANDARD - {"levelname", "name", "message"}),
              "timestamp": "time"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "redact": {"()": "server.runtime.redact.RedactSecrets"},
            "context": {"()": "server.runtime.logs.RequestContext"},
        },
        "formatters": {"default": formatter},
        "handlers": {
            "default": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                        "formatter": "default", "filters": ["context", "redact"]},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": upper, "propagate": False},
            "uvicorn.error": {"level": upper},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
        "root": {"handlers": ["default"], "level": upper},
    }
