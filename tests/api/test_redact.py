"""The log filter removes bearer tokens and token fields."""

from __future__ import annotations

import logging

from server.redact import RedactSecrets, redact


def test_redact_headers_and_json_fields() -> None:
    assert redact("< authorization: Bearer abcDEF123_-xyz") == "< authorization: Bearer [redacted]"
    assert redact('{"t": "auth", "d": {"token": "abcDEF123_-xyz"}}') == \
        '{"t": "auth", "d": {"token": "[redacted]"}}'
    assert redact('{"host_token":"abcDEF123_-xyz"}') == '{"host_token":"[redacted]"}'
    assert redact("GET /api/v1/rooms/AB12CD/ws 101") == "GET /api/v1/rooms/AB12CD/ws 101"


def test_filter_rewrites_formatted_records() -> None:
    record = logging.LogRecord("uvicorn.error", logging.DEBUG, __file__, 1,
                               "< %s: %s", ("authorization", "Bearer s3cretTOKENvalue"), None)
    assert RedactSecrets().filter(record)
    assert record.getMessage() == "< authorization: Bearer [redacted]"
