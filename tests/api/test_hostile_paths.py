"""Paths a browser never sends, on a real ``lucie-server`` in the text log
format (issue 33, item 6).

* ``GET /static/%00`` was a 500 with two tracebacks in the log and none of
  the security headers: now any path holding a control character or bytes
  that are not UTF-8 is a JSON 404 ``request/not_found`` with them, and the
  log has no traceback.
* A ``%0a`` in a path forged a line of the TEXT log (the access line wrote
  the decoded path as it was): now every record is one line, its control
  characters escaped.

Requests go over raw sockets: an HTTP client would encode the path itself.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from tests.conftest import SERVER_LOGS, ServerFactory

FORGED = "1999-01-01 00:00:00,000 INFO server.api.access: forged"

HOSTILE = ["/static/%00", "/static/a%00b.js", "/static/%ff", "/static/%0a",
           "/api/v1/rooms/%00", "/api/v1/players/%00", "/%00", "/r/%00", "/r/%00/watch",
           "/api/v1/rooms/%c3%28", "/rules%0d%0aSet-Cookie:%20x=1",
           "/api/v1/rooms/x%0a" + FORGED.replace(" ", "%20")]


@pytest.fixture(scope="module")
def text_server(server_factory: ServerFactory) -> str:
    return server_factory(LUCIE_LOG_FORMAT="text", LUCIE_LOG_LEVEL="info")


async def _raw(url: str, path: str, accept: str = "application/json") -> bytes:
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: {accept}\r\n"
                 "Connection: close\r\n\r\n".encode())
    try:
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


@pytest.mark.parametrize("accept", ["application/json", "text/html"])
async def test_paths_that_name_nothing_are_a_json_404(text_server: str, accept: str) -> None:
    for path in HOSTILE:
        raw = await _raw(text_server, path, accept)
        head, _, body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
        assert lines[0].startswith("HTTP/1.1 404"), (path, raw[:300])
        assert json.loads(body)["error"]["code"] == "request/not_found", path
        assert headers["content-type"] == "application/json"
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["cache-control"] == "no-store", path
        assert "set-cookie" not in headers


async def test_the_text_log_has_one_line_per_record_and_no_traceback(text_server: str) -> None:
    for path in HOSTILE:
        await _raw(text_server, path)
    assert (await _raw(text_server, "/healthz")).startswith(b"HTTP/1.1 200")
    log = SERVER_LOGS[text_server].read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
    record = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ [\w.]+: ")
    lines = log.splitlines()
    assert lines and all(record.match(line) for line in lines), \
        [line for line in lines if not record.match(line)][:5]
    assert not any(line.startswith(FORGED) for line in lines)
    assert any("x\\n" + FORGED in line for line in lines)  # the path, escaped, on its line
