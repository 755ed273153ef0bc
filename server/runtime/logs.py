"""The server's logging: one configuration for its own lines and uvicorn's.

:func:`log_config` is a :func:`logging.config.dictConfig` dictionary that
``lucie-server`` hands to uvicorn (``log_config``), so uvicorn's lines and
the service's come out of one handler on stderr, in one format:

* ``json`` — one JSON object per line (python-json-logger): ``time`` (ISO
  8601, UTC), ``level``, ``logger``, ``message``, then the record's fields
  (``request_id``, ``room``, ``racer``, ``status``, ``duration_ms``, …;
  docs/operations.md, "Logs");
* ``text`` — ``time level logger: message key=value …`` for a terminal;
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

__all__ = ["REQUEST_ID", "RequestContext", "TextFormatter", "log_config", "resolve_format"]

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


class TextFormatter(logging.Formatter):
    """``%(asctime)s %(levelname)s %(name)s: %(message)s`` and then the record's
    extra fields as ``key=value`` (those that are not ``None``)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        extra = [f"{k}={v}" for k, v in record.__dict__.items()
                 if k not in _STANDARD and v is not None]
        if not extra:
            return text
        head, sep, tail = text.partition("\n")  # a traceback stays below the line
        return f"{head} {' '.join(extra)}{sep}{tail}"


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
