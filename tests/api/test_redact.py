"""The log filter removes bearer tokens and token fields."""

from __future__ import annotations

import logging

import pytest

from server.runtime.redact import RedactSecrets, redact


def test_redact_headers_and_json_fields() -> None:
    assert redact("< authorization: Bearer abcDEF123_-xyz") == "< authorization: Bearer [redacted]"
    assert redact('{"t": "auth", "d": {"token": "abcDEF123_-xyz"}}') == \
        '{"t": "auth", "d": {"token": "[redacted]"}}'
    assert redact('{"host_token":"abcDEF123_-xyz"}') == '{"host_token":"[redacted]"}'
    assert redact("GET /api/v1/rooms/AB12CD/ws 101") == "GET /api/v1/rooms/AB12CD/ws 101"
    # the browser's token on the upgrade (issue 33): the subprotocol names it
    assert redact("< sec-websocket-protocol: lucie.v1, lucie.bearer.abcDEF123_-xyz") == \
        "< sec-websocket-protocol: lucie.v1, lucie.bearer.[redacted]"
    assert redact("protocols ['lucie.v1', 'lucie.bearer.abcDEF123_-xyz']") == \
        "protocols ['lucie.v1', 'lucie.bearer.[redacted]']"


@pytest.mark.parametrize(("text", "clean"), [
    ("redis://:s3cret@127.0.0.1:6379/0", "redis://:[redacted]@127.0.0.1:6379/0"),
    ("REDIS_URL=rediss://app:p%40ss@db:6380/1?prefix=x:",
     "REDIS_URL=rediss://app:[redacted]@db:6380/1?prefix=x:"),
    ("redis://:p@ss@h/0", "redis://:[redacted]@h/0"),  # an unencoded @ in the password
    ("redis://h:6379/0?password=s3cret&prefix=y", "redis://h:6379/0?password=[redacted]&prefix=y"),
    ("a http://u:v@w/ b ftp://x:y@z", "a http://u:[redacted]@w/ b ftp://x:[redacted]@z"),
])
def test_redact_url_passwords(text: str, clean: str) -> None:
    assert redact(text) == clean


@pytest.mark.parametrize("text", ["redis://user@h:6379/0", "http://127.0.0.1:8000/api/v1/rooms",
                                  "redis://127.0.0.1:6379/0?prefix=lucie:"])
def test_urls_without_password_stay(text: str) -> None:
    assert redact(text) == text


def test_filter_rewrites_formatted_records() -> None:
    record = logging.LogRecord("uvicorn.error", logging.DEBUG, __file__, 1,
                               "< %s: %s", ("authorization", "Bearer s3cretTOKENvalue"), None)
    assert RedactSecrets().filter(record)
    assert record.getMessage() == "< authorization: Bearer [redacted]"


def test_uvicorn_access_record_keeps_its_args_shape() -> None:
    # a token in a query string: uvicorn's AccessFormatter unpacks record.args
    # (5 items); the filter used to set it to None ("cannot unpack NoneType")
    from uvicorn.logging import AccessFormatter

    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/v1/rooms?token=lYB6CDlqfMTIq82fBoVKCOZ9zcCiN21a",
         "1.1", 200), None)
    assert RedactSecrets().filter(record)
    assert isinstance(record.args, tuple) and len(record.args) == 5
    line = AccessFormatter("%(client_addr)s %(request_line)s %(status_code)s",
                           use_colors=False).format(record)
    assert "lYB6CDlqfMTIq82fBoVKCOZ9zcCiN21a" not in line
    assert line == '127.0.0.1:5000 GET /api/v1/rooms?token=[redacted] HTTP/1.1 200 OK'


def test_uvicorn_access_logger_logs_without_error() -> None:
    import io

    from uvicorn.logging import AccessFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s',
                                         use_colors=False))
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger("test.redact.access")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    errors: list[BaseException] = []
    orig = handler.handleError
    handler.handleError = lambda rec: errors.append(RuntimeError("logging error"))  # type: ignore[method-assign]
    try:
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET",
                    "/api/v1/rooms?token=lYB6CDlqfMTIq82fBoVKCOZ9zcCiN21a", "1.1", 200)
    finally:
        handler.handleError = orig  # type: ignore[method-assign]
        logger.removeHandler(handler)
    assert errors == []
    assert "token=[redacted]" in stream.getvalue()
    assert "lYB6CDlq" not in stream.getvalue()


@pytest.mark.parametrize("query", ["tok%65n", "TOKEN", "host_token", "access%5Ftoken"])
def test_query_parameters_named_like_a_token_are_redacted_even_percent_encoded(
    query: str,
) -> None:
    line = f'127.0.0.1:5000 - "GET /api/v1/rooms?x=1&{query}=SECRETSECRET1 HTTP/1.1" 200'
    out = redact(line)
    assert "SECRETSECRET1" not in out and "x=1" in out and f"{query}=[redacted]" in out


def test_other_query_parameters_are_kept() -> None:
    line = '"GET /api/v1/rooms/ABC/ws?since=12 HTTP/1.1"'
    assert redact(line) == line
