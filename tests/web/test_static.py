"""The browser client's static route (``server.web``): pages, files, headers, refusals."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from server.api.errors import exception_handlers
from server.web import CSP, PAGES, STATIC_DIR, web_routes

from ..conftest import ServerFactory

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(Starlette(routes=web_routes(), exception_handlers=exception_handlers))


@pytest.mark.parametrize("path", ["/", "/r/ABC234", "/r/abc234/watch", "/leaderboards", "/rules"])
def test_every_page_is_the_shell_with_the_policy(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["cache-control"] == "no-cache"
    assert '<script type="module" src="/static/app.js">' in r.text
    assert r.text == (STATIC_DIR / "index.html").read_text(encoding="utf-8")


def test_the_policy_forbids_inline_script_and_other_origins() -> None:
    rules = dict(part.strip().split(" ", 1) for part in CSP.split(";"))
    assert rules["default-src"] == "'none'"
    for directive in ("script-src", "style-src", "connect-src"):
        assert rules[directive] == "'self'", directive  # no 'unsafe-inline', no host
    assert rules["frame-ancestors"] == "'none'"
    assert "unsafe" not in CSP and "*" not in CSP and "http" not in CSP


def test_no_inline_script_or_style_in_the_shell() -> None:
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert "<style" not in html and " style=" not in html and "onclick" not in html.lower()


def test_static_files_have_types_etags_and_a_short_cache(client: TestClient) -> None:
    r = client.get("/static/app.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["cache-control"] == "public, max-age=300"
    etag = r.headers["etag"]
    again = client.get("/static/app.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")


def test_head_answers_like_get_without_a_body(client: TestClient) -> None:
    for path in ("/", "/static/board.js", "/r/ABC234"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == 200
        assert head.content == b""
        assert head.headers["content-length"] == get.headers["content-length"]
        assert head.headers["etag"] == get.headers["etag"]


@pytest.mark.parametrize("path", [
    "/static/nope.js", "/static/vendor/nope.js", "/static/", "/static/vendor",
    "/static/../__init__.py", "/static/%2e%2e/__init__.py", "/static/..%2f__init__.py",
    "/static/vendor/../../__init__.py", "/static//etc/passwd", "/static/%2fetc%2fpasswd",
    "/r/ABC234/nope", "/nope",
])
def test_unknown_files_and_escapes_are_404(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404, path
    assert r.json()["error"]["code"] == "request/not_found"
    assert "import" not in r.text


BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
"""What a browser sends when it navigates to an address."""


@pytest.mark.parametrize("path", ["/nope", "/r/ABC234/nope", "/leaderboards/daily", "/index.html",
                                  "/static"])
def test_a_browser_at_an_unknown_address_gets_the_shell_as_a_404(client: TestClient,
                                                                  path: str) -> None:
    """A mistyped address in the browser: the shell (its router says "Page not
    found", with a link home), status 404, the same policy and headers."""
    r = client.get(path, headers=BROWSER)
    assert r.status_code == 404, path
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["cache-control"] == "no-cache"
    assert r.text == (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    head = client.head(path, headers=BROWSER)
    assert head.status_code == 404 and head.content == b""


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/api/v1/nope"), ("GET", "/api/v1/rooms/NOPE/nope"), ("GET", "/api"),
    ("GET", "/static/nope.js"), ("GET", "/static/vendor/nope.js"), ("POST", "/nope"),
    ("DELETE", "/nope"),
])
def test_api_and_files_answer_json_errors_even_to_a_browser(client: TestClient, method: str,
                                                            path: str) -> None:
    r = client.request(method, path, headers=BROWSER)
    assert r.status_code == 404, path
    assert r.json() == {"error": {"code": "request/not_found", "message": "Not Found"}}


def test_a_trailing_slash_still_redirects_to_the_page(client: TestClient) -> None:
    r = client.get("/rules/", headers=BROWSER, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"].endswith("/rules")


def test_a_symlink_out_of_the_folder_is_not_followed(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html>")
    (static / "leak.txt").symlink_to(secret)
    import server.web as web
    monkeypatch.setattr(web, "STATIC_DIR", static)
    app = Starlette(routes=web.web_routes(), exception_handlers=exception_handlers)
    r = TestClient(app).get("/static/leak.txt")
    assert r.status_code == 404 and "secret" not in r.text


def test_only_get_and_head(client: TestClient) -> None:
    assert client.post("/").status_code == 405
    assert client.post("/static/app.js").status_code == 405


def test_the_rules_page_copy_is_docs_rules_md() -> None:
    """The client renders ``static/rules.md``: it must be the rule book as it is."""
    assert (STATIC_DIR / "rules.md").read_bytes() == (REPO / "docs" / "rules.md").read_bytes()


def test_the_vendored_renderer_is_recorded() -> None:
    readme = (STATIC_DIR / "vendor" / "README.md").read_text(encoding="utf-8")
    head = (STATIC_DIR / "vendor" / "marked.esm.js").read_text(encoding="utf-8")[:200]
    version = re.search(r"marked v(\d+\.\d+\.\d+)", head)
    assert version and f"| {version.group(1)} |" in readme
    assert "MIT" in (STATIC_DIR / "vendor" / "marked.LICENSE.txt").read_text(encoding="utf-8")


def test_every_module_the_client_imports_exists() -> None:
    """A typo in an import path is a blank page: every relative import resolves."""
    for js in STATIC_DIR.rglob("*.js"):
        for target in re.findall(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""",
                                 js.read_text(encoding="utf-8")):
            assert (js.parent / target).resolve().is_file(), f"{js.name} imports {target}"


def test_the_live_server_serves_the_client(server_factory: ServerFactory) -> None:
    url = server_factory()
    r = httpx.get(url + "/")
    assert r.status_code == 200 and r.headers["content-security-policy"] == CSP
    assert httpx.get(url + "/static/api.js").status_code == 200
    assert httpx.get(url + "/api/v1/rooms").status_code == 200  # the API is unchanged
    assert httpx.get(url + "/static/../../pyproject.toml").status_code == 404
    # an unknown address: the "page not found" shell for a browser, JSON for the API
    page = httpx.get(url + "/nope", headers=BROWSER)
    assert page.status_code == 404 and page.headers["content-security-policy"] == CSP
    assert '<script type="module" src="/static/app.js">' in page.text
    for path in ("/api/v1/nope", "/api/v1/rooms/NOPE"):
        api = httpx.get(url + path, headers=BROWSER)
        assert api.status_code == 404 and api.headers["content-type"] == "application/json"
        assert api.json()["error"]["code"] in ("request/not_found", "room/not_found")
    assert set(PAGES) >= {"/", "/r/{code}", "/r/{code}/watch", "/leaderboards"}
