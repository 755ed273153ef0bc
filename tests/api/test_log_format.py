"""The logging configuration (:mod:`server.runtime.logs`): formats, fields,
request ids, redaction, and the ``LUCIE_LOG_FORMAT`` setting."""

from __future__ import annotations

import io
import json
import logging
import logging.config
from collections.abc import Iterator

import pytest

from server.runtime.logs import REQUEST_ID, log_config, resolve_format
from server.runtime.settings import Settings


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_is_text_on_a_terminal_and_json_elsewhere() -> None:
    assert resolve_format("auto", _Tty()) == "text"
    assert resolve_format("auto", io.StringIO()) == "json"
    assert resolve_format("json", _Tty()) == "json"
    assert resolve_format("text", io.StringIO()) == "text"
    with pytest.raises(ValueError, match="log_format"):
        resolve_format("xml")


def test_the_setting_is_validated() -> None:
    assert Settings.from_env({"LUCIE_LOG_FORMAT": "JSON"}).log_format == "json"
    assert Settings.from_env({}).log_format == "auto"
    with pytest.raises(ValueError, match="LUCIE_LOG_FORMAT=yaml"):
        Settings.from_env({"LUCIE_LOG_FORMAT": "yaml"})


@pytest.fixture
def configured() -> Iterator[None]:
    """Restore the root and uvicorn loggers after a test configures them."""
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access")
    saved = [(logging.getLogger(n), logging.getLogger(n).handlers[:],
              logging.getLogger(n).level, logging.getLogger(n).propagate) for n in names]
    yield
    for logger, handlers, level, propagate in saved:
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate


def _capture(fmt: str) -> io.StringIO:
    config = log_config("info", fmt)
    logging.config.dictConfig(config)
    stream = io.StringIO()
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(stream)
    return stream


def test_json_lines_carry_the_fields_the_request_id_and_no_token(configured: None) -> None:
    stream = _capture("json")
    token = REQUEST_ID.set("req-1")
    try:
        logging.getLogger("server.test").info("moved with token=abcdefghijklmnop",
                                              extra={"room": "R1", "duration_ms": 1.5})
    finally:
        REQUEST_ID.reset(token)
    logging.getLogger("uvicorn.error").warning("uvicorn says %s", "hi")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[0]["logger"] == "server.test" and lines[0]["level"] == "INFO"
    assert lines[0]["room"] == "R1" and lines[0]["duration_ms"] == 1.5
    assert lines[0]["request_id"] == "req-1"
    assert "abcdefghijklmnop" not in stream.getvalue()
    assert lines[1] == {"level": "WARNING", "logger": "uvicorn.error",
                        "message": "uvicorn says hi", "time": lines[1]["time"]}


def test_text_lines_end_with_the_fields(configured: None) -> None:
    stream = _capture("text")
    logging.getLogger("server.test").info("hello", extra={"room": "R1", "status": 200,
                                                          "racer": None})
    line = stream.getvalue().strip()
    assert line.endswith(" INFO server.test: hello room=R1 status=200")


def test_text_lines_cannot_be_forged(configured: None) -> None:
    """A ``%0a`` in a request's path reached the text log decoded: a new line
    that read as a record of its own (issue 33). Control characters are
    escaped, and a traceback's lines are indented below their record."""
    stream = _capture("text")
    forged = "2026-01-01 00:00:00,000 INFO server.api.access: forged"
    logging.getLogger("server.test").info("GET %s", f"/x\n{forged}",
                                          extra={"path": f"/x\r\n{forged}\x00\x1b[2J"})
    try:
        raise ValueError(f"bad\n{forged}")
    except ValueError:
        logging.getLogger("server.test").exception("failed")
    lines = stream.getvalue().splitlines()
    assert lines[0].endswith(f"INFO server.test: GET /x\\n{forged} "
                             f"path=/x\\r\\n{forged}\\x00\\x1b[2J")
    assert lines[1].endswith("ERROR server.test: failed")
    assert lines[2] == "    Traceback (most recent call last):"
    assert all(line.startswith("    ") for line in lines[2:])
    assert not any(line.startswith(forged) for line in lines)
