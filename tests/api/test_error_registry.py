"""The one error registry (server/errors.py) against its classes, the code
that raises them, the client library and docs/protocol.md — drift either way fails."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import server
from server import errors
from server.api.openapi import check_error_lists
from server.api.rest import Endpoint
from server.errors import CLOSE_TOO_SLOW, REGISTRY, ServiceError

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
CODE = re.compile(r"^[a-z_]+/[a-z_]+$")
LIBRARIES = ("rules", "solver")
"""Standalone packages of server/ (the client uses them): their ``ValueError``
kinds are not wire codes, and the race maps them to the registry's classes."""


def _section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n## ", start + len(title))
    return DOC[start:end if end >= 0 else None]


def _rows(text: str) -> list[list[str]]:
    """The cells of every table row in ``text`` (header and rule rows skipped)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _doc_statuses() -> dict[str, frozenset[int]]:
    table = {}
    for cells in _rows(_section("## Errors")):
        if cells[0] == "code":
            continue
        codes = re.findall(r"`([^`]+)`", cells[0])
        assert len(codes) == 1, f"one code per row in docs/protocol.md, Errors: {cells[0]}"
        assert codes[0] not in table, f"{codes[0]} is listed twice"
        table[codes[0]] = frozenset(int(s) for s in re.findall(r"\d{3}", cells[1]))
    return table


def _doc_closes() -> dict[int, set[str]]:
    section = DOC[DOC.index("**Close codes**"):]
    section = section[:section.index("\n## ")]
    closes: dict[int, set[str]] = {}
    for cells in _rows(section):
        if not cells[0].isdigit():
            continue
        closes[int(cells[0])] = {m for m in re.findall(r"`([a-z_]+/[a-z_]+)", cells[1])}
    return closes


def _all_server_modules() -> None:
    for info in pkgutil.walk_packages(server.__path__, "server."):
        importlib.import_module(info.name)


def _declared() -> list[type[ServiceError]]:
    """Every class under :class:`ServiceError` that names its own code."""
    _all_server_modules()
    found, todo = [], [ServiceError]
    while todo:
        cls = todo.pop()
        if "code" in cls.__dict__:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_the_registry_is_well_formed() -> None:
    for code, spec in REGISTRY.items():
        assert spec.code == code and CODE.match(code), code
        assert 400 <= spec.status < 600 and spec.meaning, code
        assert spec.close is None or 1000 <= spec.close < 5000, code
        assert spec.status not in spec.also_status, code


def test_the_doc_table_is_the_registry() -> None:
    doc = _doc_statuses()
    registry = {code: spec.statuses for code, spec in REGISTRY.items()}
    assert sorted(set(doc) - set(registry)) == [], "in docs/protocol.md, not in the registry"
    assert sorted(set(registry) - set(doc)) == [], "in the registry, not in docs/protocol.md"
    wrong = {code: (doc[code], registry[code]) for code in doc if doc[code] != registry[code]}
    assert wrong == {}, "(doc, registry) statuses differ"


def test_the_doc_close_codes_are_the_registry() -> None:
    by_code: dict[str, set[int]] = {}
    for close, codes in _doc_closes().items():
        for code in codes:
            by_code.setdefault(code, set()).add(close)
    registry = {code: set(spec.closes) for code, spec in REGISTRY.items() if spec.closes}
    assert by_code == registry
    assert _doc_closes().get(CLOSE_TOO_SLOW) == set()


def test_every_code_has_one_class_and_every_class_a_code() -> None:
    declared = _declared()
    codes = [cls.code for cls in declared]
    assert sorted(c for c in codes if codes.count(c) > 1) == [], "two classes share a code"
    assert set(codes) == set(REGISTRY)
    for cls in declared:
        assert cls.__module__ == "server.errors", f"{cls.__qualname__} is defined outside"
        assert (cls.status, cls.close) == (REGISTRY[cls.code].status, REGISTRY[cls.code].close)
        assert errors.class_of(cls.code) is cls
        assert cls.__name__ in errors.__all__


def test_a_class_cannot_leave_the_registry() -> None:
    with pytest.raises(TypeError, match=r"not in server\.errors\.REGISTRY"):
        type("Bogus", (errors.RaceError,), {"code": "bogus/code"})
    with pytest.raises(TypeError, match="already"):
        type("Again", (errors.RaceError,), {"code": "room/full"})
    with pytest.raises(TypeError, match="come from REGISTRY"):
        type("Loud", (errors.RaceError,), {"status": 418})


def test_every_refusal_a_client_gets_is_a_race_error() -> None:
    for cls in _declared():
        if not issubclass(cls, errors.StoreError) and cls is not ServiceError:
            assert issubclass(cls, errors.RaceError), cls
    assert errors.RoomFull("the room is full").to_json() == {
        "code": "room/full", "message": "the room is full"}


def test_no_error_code_literal_outside_the_registry() -> None:
    found = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        rel = path.relative_to(ROOT / "server")
        if rel == Path("errors.py") or rel.parts[0] in LIBRARIES:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            names = {t.id if isinstance(t, ast.Name) else getattr(t, "attr", None)
                     for t in targets}
            if "code" in names and isinstance(value, ast.Constant) \
                    and isinstance(value.value, str) and CODE.match(value.value):
                found.append(f"server/{rel}:{node.lineno}: code = {value.value!r}")
    assert found == [], "error codes belong in server/errors.py"


def test_the_standalone_libraries_import_no_service_code() -> None:
    for lib in LIBRARIES:
        for path in sorted((ROOT / "server" / lib).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    top = node.module.split(".")[:2]
                    assert top[0] != "server" or top[1] in LIBRARIES, (path, node.module)


def test_every_endpoint_error_is_in_the_registry() -> None:
    check_error_lists()

    async def handler(*_: object) -> None:
        return None

    odd = Endpoint("GET", "/odd", "odd", handler, None, None, errors=("room/gone",))
    with pytest.raises(ValueError, match="room/gone"):
        check_error_lists([odd])


def test_every_code_the_client_library_names_is_in_the_registry() -> None:
    text = (ROOT / "client_cli" / "errors.py").read_text()
    named = set(re.findall(r"[`\"']([a-z_]+/[a-z_]+)[`\"']", text))
    client_side = {code for code in named if code.startswith("client/")}  # its own codes
    assert named, "client_cli/errors.py names no code any more: update this test"
    assert sorted(named - client_side - set(REGISTRY)) == []
