"""Schemathesis against a real ``lucie-server``: every operation of the served
OpenAPI document with every check, then stateful runs that follow the
document's links (a new room's host token → start/close, a new racer's token
→ ready, moves, resign, hint, …). Settings: schemathesis.toml.

Bounded for ``make test`` (25 examples per operation, 40 stateful scenarios:
well under 90 s on two cores); ``make fuzz`` sets ``LUCIE_FUZZ_EXAMPLES`` for
a long run (over 10,000 requests).

The contract says all JSON Schema can say (issue 33, item 7): schema-valid
replay documents and player names are refused only for what it cannot say
(schemathesis.toml lists it), and the bodies' examples are accepted — else
``st run`` warns "schema validation mismatch": an operation that refuses every
schema-valid request."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig

from server.api.openapi import openapi
from tests.conftest import ServerFactory

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("LUCIE_FUZZ_EXAMPLES", "25"))
"""Examples per operation (the stateful run takes this many scenarios)."""

pytestmark = pytest.mark.timeout(600 if EXAMPLES > 100 else 120)


@pytest.fixture(scope="module")
def api_url(server_factory: ServerFactory) -> str:
    # moderation on (a random token): its routes answer as documented (401/403
    # without the token); off, they answer 404 as a path the server has not
    return server_factory(LUCIE_MODERATOR_TOKEN=f"fuzz:{os.urandom(16).hex()}")


# the document the server serves (tests/api/test_openapi_valid.py checks they
# are equal), loaded at import: schemathesis' lazy fixture loader does not run
# under pytest 9; every case is sent to the real server (base_url). A copy:
# schemathesis changes the dict it loads (openapi() is cached).
schema = schemathesis.openapi.from_dict(
    copy.deepcopy(openapi()), config=SchemathesisConfig.from_path(REPO / "schemathesis.toml"))

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                     suppress_health_check=list(HealthCheck), print_blob=True)


SEEN: Counter[tuple[str, str, int]] = Counter()
"""(test, operation id, status) of every request sent, for the summary."""


@pytest.fixture(scope="module", autouse=True)
def summary() -> Iterator[None]:
    yield
    total = sum(SEEN.values())
    print(f"\nschemathesis: {total} requests", file=sys.stderr)
    if os.environ.get("LUCIE_FUZZ_SUMMARY"):
        for (test, op, status), n in sorted(SEEN.items()):
            print(f"  {test:9} {op:26} {status} ×{n}", file=sys.stderr)


@schema.parametrize()
@_SETTINGS
def test_api(case: Any, api_url: str) -> None:
    response = case.call_and_validate(base_url=api_url)
    SEEN["cases", case.operation.definition.raw.get("operationId", "?"),
         response.status_code] += 1


def test_stateful(api_url: str) -> None:
    """The stateful phase along the OpenAPI links, with st's own engine: under
    pytest, Hypothesis' state machine calls a run against a live server a
    "flaky strategy" (which links can be followed depends on the server's
    answers, so a replayed choice sequence draws other steps)."""
    if EXAMPLES > 100:
        pytest.skip("make fuzz runs scripts/fuzz_stateful.py with its own server")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "fuzz_stateful.py"), str(max(40, EXAMPLES)),
         "--url", api_url], capture_output=True, text=True, timeout=110)
    print(result.stdout[-3000:], file=sys.stderr)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def _without_examples(doc: Any) -> Any:
    """``doc`` without its ``examples``: what the schema alone generates
    (schemathesis mixes a body's examples into one case in five)."""
    if isinstance(doc, dict):
        return {k: _without_examples(v) for k, v in doc.items() if k != "examples"}
    if isinstance(doc, list):
        return [_without_examples(v) for v in doc]
    return doc


_BARE = schemathesis.openapi.from_dict(_without_examples(openapi()))
_POSITIVE = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                     suppress_health_check=list(HealthCheck))
_BEYOND_THE_SCHEMA = {"replay/forged", "compare/different_deal", "room/not_found",
                      "racer/not_found"}
"""A schema-valid replay's refusals: the log's legality and the claimed result
(replay/forged), two games on two deals, live sources that are not there."""


def _beyond_the_schema(operation_id: str, code: str, field: Any, message: str) -> bool:
    """Whether a refusal of a schema-valid replay body is for what JSON Schema
    cannot say (schemathesis.toml): see :data:`_BEYOND_THE_SCHEMA`; a deal
    number written as a float; a ghost's recorded name that is no display
    name, a live room whose race is not over."""
    if code in _BEYOND_THE_SCHEMA:
        return True
    if (code, field) == ("replay/invalid", "deal_number"):
        return "digits only" in message
    return operation_id == "createGhostRoom" and code == "request/invalid" and field in (
        "name", "room")


def _refusal(answer: httpx.Response) -> tuple[int, str, Any, str]:
    error = answer.json()["error"] if answer.status_code >= 400 else {}
    return (answer.status_code, error.get("code", ""), (error.get("details") or {}).get("field"),
            error.get("message", ""))


@pytest.mark.parametrize("operation_id", ["checkReplay", "compareGames", "createGhostRoom"])
def test_schema_valid_replays_are_refused_only_beyond_the_schema(api_url: str,
                                                                 operation_id: str) -> None:
    """Schema-valid replay documents were refused 400 ``replay/invalid`` for
    rules, keys, move texts and bounds the schema did not state; now only the
    deal number written as a float (JSON Schema's ``integer`` takes ``5.0``;
    a deal number is digits only) is, and the rest beyond the schema is
    ``replay/forged`` (legality, the claimed result) or a missing live game."""
    operation = _BARE.find_operation_by_id(operation_id)
    seen: Counter[tuple[int, str, Any, str]] = Counter()

    @_POSITIVE
    @given(operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
    def send(case: Any) -> None:
        seen[_refusal(httpx.post(api_url + case.formatted_path, json=case.body, timeout=30))] += 1

    send()
    off = {k: n for k, n in seen.items()
           if k[0] in (400, 422) and not _beyond_the_schema(operation_id, *k[1:])}
    assert not off, f"schema-valid bodies refused for what the schema could say: {off}"
    assert sum(seen.values()) >= 30


def test_schema_valid_player_names_are_often_taken(api_url: str) -> None:
    """A schema-valid name (1–64 characters) was taken one time in twelve:
    controls, symbols, punctuation; with the pattern of what no name may hold
    in U+0000–U+00FF, at least one in ten is (one in six to one in three).
    One script, the length after NFKC, unassigned characters stay beyond it."""
    operation = _BARE.find_operation_by_id("createPlayer")
    statuses: Counter[int] = Counter()

    @_POSITIVE
    @given(operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
    def send(case: Any) -> None:
        statuses[httpx.post(api_url + case.formatted_path, json=case.body,
                            timeout=30).status_code] += 1

    send()
    judged = statuses[201] + statuses[400] + statuses[422]
    assert statuses[201] * 10 >= judged > 0, statuses


@pytest.mark.parametrize(("path", "body"), [("/replays/check", "ReplayCheckBody"),
                                            ("/compare", "CompareBody"),
                                            ("/ghost-rooms", "GhostRoomBody")])
def test_body_examples_are_accepted(api_url: str, path: str, body: str) -> None:
    """The examples of the bodies whose validity JSON Schema cannot say (a
    legal log, its true result) hold up: schemathesis sends them in every phase."""
    examples = openapi()["components"]["schemas"][body]["examples"]
    for example in examples:
        answer = httpx.post(f"{api_url}/api/v1{path}", json=example, timeout=30)
        assert answer.status_code in (200, 201), answer.text
    assert examples
