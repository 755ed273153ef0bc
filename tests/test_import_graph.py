"""The shape of the code: import graph of ``server`` and ``client_cli``, read from the source.

The graph is built with :mod:`ast`, without importing anything: every
``import`` and ``from … import`` counts, at module level or nested in a
function, a class or an ``if TYPE_CHECKING:`` block. Relative imports are
resolved against the importing module's package, and ``from package import
name`` points at the submodule ``package.name`` when that module exists
(else at ``package``). Dynamic imports (``importlib.import_module``) are not
seen.

The checks:

* no import cycle, per package (the failure shows one cycle per strongly
  connected group of modules);
* every import of ``server…`` / ``client_cli…`` names a module that exists;
* no module over :data:`MAX_LINES` lines unless its module docstring has a
  line starting with ``Size:`` that says why it stays one module;
* a table of forbidden arrows between the layers (:data:`RULES`), one test
  per rule so that a failure names the rule and every import that breaks it.

Every rule holds today; a rule that had to be broken for a while would be
listed in the ``_PENDING_*`` tables with the offending imports (a strict
``xfail``: it fails again as soon as the rule holds, so the entry goes).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

__all__ = [
    "MAX_LINES",
    "PACKAGES",
    "RULES",
    "Graph",
    "Rule",
    "build_graph",
    "find_cycles",
    "imports_in",
    "violations",
]

REPO = Path(__file__).resolve().parents[1]

PACKAGES: tuple[str, ...] = ("server", "client_cli")
"""Top-level packages whose modules make the graph."""

MAX_LINES = 350
"""A module longer than this needs a ``Size:`` line in its docstring."""


def _under(module: str, prefix: str) -> bool:
    """Whether ``module`` is ``prefix`` or one of its submodules."""
    return module == prefix or module.startswith(prefix + ".")


def _internal(module: str) -> bool:
    """Whether ``module`` belongs to one of :data:`PACKAGES`."""
    return any(_under(module, p) for p in PACKAGES)


def _is_stdlib(module: str) -> bool:
    """Whether the top-level name of ``module`` is a standard-library module."""
    return module.split(".")[0] in sys.stdlib_module_names


@dataclass(frozen=True)
class Graph:
    """Modules found under :data:`PACKAGES` and the imports between them."""

    files: dict[str, Path]
    """Module name → source file (a package is its ``__init__.py``)."""
    imports: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    """Importer → imported module (internal or not) → line numbers."""

    def internal_edges(self) -> dict[str, set[str]]:
        """Importer → the imported modules that exist in the graph."""
        return {
            src: {dst for dst in targets if dst in self.files}
            for src, targets in self.imports.items()
        }


def _module_name(path: Path) -> str:
    """Dotted module name of a source file under :data:`REPO`."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_from(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module named by ``from <node.module> import …`` inside ``module``."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    if node.module:
        base = [*base, *node.module.split(".")]
    return ".".join(base)


def imports_in(module: str, source: str, known: Iterable[str], *,
               is_package: bool = False) -> Iterator[tuple[str, int]]:
    """Every (imported module, line) of ``source``, the text of ``module``.

    ``known``: the modules that exist, so that ``from package import name``
    resolves to ``package.name`` when that is one of them.
    """
    modules = set(known)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_from(module, is_package, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in modules else base), node.lineno


@cache
def build_graph() -> Graph:
    """The import graph of :data:`PACKAGES`, from the files under :data:`REPO`."""
    files = {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
    }
    graph = Graph(files=files)
    for module, path in files.items():
        targets: dict[str, list[int]] = {}
        source = path.read_text(encoding="utf-8")
        for target, line in imports_in(module, source, files,
                                       is_package=path.name == "__init__.py"):
            targets.setdefault(target, []).append(line)
        graph.imports[module] = targets
    return graph


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``[a, b, …, a]``) per strongly connected component of ``edges``.

    Tarjan's algorithm, iterative; a self-import counts as a cycle.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    components.append(component)
    return [_cycle_in(component, edges) for component in components]


def _cycle_in(component: set[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the smallest module of a strongly connected ``component``."""
    start = min(component)
    paths: dict[str, list[str]] = {start: [start]}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(edges.get(node, ())):
                if child == start:
                    return [*paths[node], start]
                if child in component and child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # pragma: no cover


def _docstring_size_reason(path: Path) -> str | None:
    """The ``Size:`` line of a module's docstring, if it has one."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    for line in doc.splitlines():
        if line.strip().startswith("Size:"):
            return line.strip()
    return None


def _line_count(path: Path) -> int:
    """Lines in a source file, as ``wc -l`` counts them."""
    return len(path.read_text(encoding="utf-8").splitlines())


# -- the rule table ----------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """Imports that modules under :attr:`importer` must not make.

    An import is forbidden when it is under one of :attr:`forbidden`, or when
    it is under :attr:`scope` but under none of :attr:`allowed` (if given);
    with :attr:`stdlib_only`, anything outside :attr:`allowed` that is not
    in the standard library is forbidden too.
    """

    importer: str
    forbidden: tuple[str, ...] = ()
    allowed: tuple[str, ...] | None = None
    scope: str = "server"
    stdlib_only: bool = False

    @property
    def id(self) -> str:
        """Short name for the test id."""
        if self.forbidden:
            return f"{self.importer} -/-> {'|'.join(self.forbidden)}"
        only = "|".join(self.allowed or ())
        extra = " + stdlib only" if self.stdlib_only else ""
        return f"{self.importer} -> {self.scope} only {only}{extra}"

    def breaks(self, target: str) -> bool:
        """Whether an import of ``target`` from :attr:`importer` breaks the rule."""
        if any(_under(target, f) for f in self.forbidden):
            return True
        if self.allowed is None or any(_under(target, a) for a in self.allowed):
            return False
        if _under(target, self.scope):
            return True
        return self.stdlib_only and not _is_stdlib(target)


RULES: tuple[Rule, ...] = (
    Rule("server.api", forbidden=("server.store", "server.archive")),
    Rule("server.rules", allowed=("server.rules",), stdlib_only=True),
    Rule("server.store", forbidden=("server.race", "server.api", "server.records",
                                    "server.archive")),
    Rule("server.records", forbidden=("server.race", "server.api", "server.store",
                                      "server.archive")),
    Rule("server.race", forbidden=("server.api", "server.records", "server.archive")),
    Rule("server.archive", allowed=("server.archive", "server.errors", "server.runtime")),
    Rule("server.runtime", allowed=("server.runtime", "server.errors")),
    Rule("server.errors", allowed=("server.errors",)),
    Rule("server.solver", allowed=("server.solver", "server.rules")),
    Rule("server.fairplay", allowed=("server.fairplay", "server.rules", "server.solver",
                                     "server.errors", "server.runtime")),
    Rule("server.web", allowed=("server.web",)),
    Rule("client_cli", allowed=("server.rules", "server.solver")),
)
"""Forbidden arrows between the layers."""


def violations(rule: Rule, graph: Graph) -> list[str]:
    """Every import that breaks ``rule``, as ``importer -> imported (file:line)``."""
    found: list[str] = []
    for src, targets in sorted(graph.imports.items()):
        if not _under(src, rule.importer):
            continue
        rel = graph.files[src].relative_to(REPO)
        for dst, lines in sorted(targets.items()):
            if rule.breaks(dst):
                where = ",".join(str(n) for n in sorted(set(lines)))
                found.append(f"{src} -> {dst} ({rel}:{where})")
    return found


# A check server/ fails would be listed here with the imports that break it
# (each entry makes its check xfail); the layout of issue 16 keeps them empty.
_PENDING_RULES: dict[str, str] = {}
_PENDING_CYCLES: dict[str, str] = {}
_PENDING_SIZES: dict[str, str] = {}
_PENDING_MISSING: dict[str, str] = {}


def _pending(key: str, pending: dict[str, str]) -> list[pytest.MarkDecorator]:
    """The ``xfail`` mark for a check ``server/`` fails today, else none."""
    if key in pending:
        return [pytest.mark.xfail(strict=True, reason=pending[key])]
    return []


# -- the tests ---------------------------------------------------------------


def test_the_graph_sees_the_packages() -> None:
    """Sanity: both packages are found, and a known import edge is in the graph."""
    graph = build_graph()
    assert "server.rules" in graph.files and "client_cli.cli" in graph.files
    assert "server.rules" in graph.imports["client_cli.views"]


@pytest.mark.parametrize(
    "package",
    [pytest.param(p, id=p, marks=_pending(p, _PENDING_CYCLES)) for p in PACKAGES],
)
def test_no_import_cycles(package: str) -> None:
    """No module of ``package`` imports itself back, directly or through others
    (the cycles are looked for in the whole graph, across packages too)."""
    cycles = [
        cycle for cycle in find_cycles(build_graph().internal_edges())
        if any(_under(m, package) for m in cycle)
    ]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize(
    "package",
    [pytest.param(p, id=p, marks=_pending(p, _PENDING_MISSING)) for p in PACKAGES],
)
def test_internal_imports_name_existing_modules(package: str) -> None:
    """Every import of ``server…`` or ``client_cli…`` in ``package`` names a module
    that exists (else the rules above would not see where it really points)."""
    graph = build_graph()
    missing = [
        f"{src} -> {dst} ({graph.files[src].relative_to(REPO)}:{min(lines)})"
        for src, targets in sorted(graph.imports.items()) if _under(src, package)
        for dst, lines in sorted(targets.items()) if _internal(dst) and dst not in graph.files
    ]
    assert not missing, "imports of modules that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    "package",
    [pytest.param(p, id=p, marks=_pending(p, _PENDING_SIZES)) for p in PACKAGES],
)
def test_modules_are_small_or_say_why(package: str) -> None:
    """No module over :data:`MAX_LINES` lines without a ``Size:`` reason in its docstring."""
    graph = build_graph()
    too_long = [
        f"{path.relative_to(REPO)}: {_line_count(path)} lines"
        for module, path in sorted(graph.files.items())
        if _under(module, package)
        and _line_count(path) > MAX_LINES
        and _docstring_size_reason(path) is None
    ]
    assert not too_long, (
        f"over {MAX_LINES} lines with no 'Size:' line in the module docstring:\n"
        + "\n".join(too_long)
    )


@pytest.mark.parametrize(
    "rule",
    [pytest.param(r, id=r.id, marks=_pending(r.id, _PENDING_RULES)) for r in RULES],
)
def test_forbidden_arrows(rule: Rule) -> None:
    """No module under ``rule.importer`` imports what the rule forbids."""
    graph = build_graph()
    assert any(_under(m, rule.importer) for m in graph.files), f"no module {rule.importer}"
    broken = violations(rule, graph)
    assert not broken, f"{rule.id}:\n" + "\n".join(broken)


def test_find_cycles_reports_a_cycle() -> None:
    """The cycle finder itself: a three-module loop and a self-import are found."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert find_cycles(edges) == [["a", "b", "c", "a"], ["e", "e"]]


def test_imports_are_resolved() -> None:
    """Relative, nested and ``TYPE_CHECKING`` imports; ``from pkg import sub`` is the submodule."""
    source = """
from __future__ import annotations
import json, server.rules.cards
from . import sibling, NAME
from .sibling import thing
from .. import other
from ..other.deep import x
from server.rules import parse_move
if TYPE_CHECKING:
    from .typed import T
def f():
    from .late import y
"""
    known = ["pkg.sub.sibling", "pkg.other", "pkg.other.deep", "server.rules.cards"]
    found = sorted(set(imports_in("pkg.sub.mod", source, known)))
    assert found == [
        ("__future__", 2), ("json", 3), ("pkg.other", 6), ("pkg.other.deep", 7),
        ("pkg.sub", 4), ("pkg.sub.late", 12), ("pkg.sub.sibling", 4), ("pkg.sub.sibling", 5),
        ("pkg.sub.typed", 10), ("server.rules", 8), ("server.rules.cards", 3),
    ]
    # in a package's __init__, "." is the package itself
    init = sorted(imports_in("pkg.sub", "from .sibling import a\n", known, is_package=True))
    assert init == [("pkg.sub.sibling", 1)]


@pytest.mark.parametrize("package", ["server", "client_cli"])
def test_every_source_folder_is_a_package(package: str) -> None:
    """setuptools' ``packages.find`` ships only folders with an ``__init__.py``: a
    folder without one is left out of the wheel (the Docker image) although an
    editable install still imports it."""
    missing = [str(d.relative_to(REPO)) for d in sorted((REPO / package).rglob("*"))
               if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py"))
               and not (d / "__init__.py").is_file()]
    assert not missing, f"folders without __init__.py: {missing}"


def test_every_data_file_of_the_packages_ships() -> None:
    """A file the code reads at run time (the board's stylesheet, schemas…) must
    match ``[tool.setuptools.package-data]``, or a wheel and the Docker image
    leave it out while an editable install still finds it."""
    import fnmatch
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["*"]
    missing = [str(f.relative_to(REPO)) for package in ("server", "client_cli")
               for f in sorted((REPO / package).rglob("*"))
               if f.is_file() and f.suffix not in (".py", ".pyc") and "__pycache__" not in f.parts
               and not any(fnmatch.fnmatch(f.name, p) for p in patterns)]
    assert not missing, f"not shipped in a wheel: {missing}"


# -- the extras ----------------------------------------------------------------


IMPORT_NAMES = {"python_json_logger": "pythonjsonlogger"}
"""Distributions imported under another name than their own."""


def _extra_names(extra: str) -> set[str]:
    """Top-level import names of an extra of pyproject.toml (each distribution
    there is imported under its own name, or the one :data:`IMPORT_NAMES` gives)."""
    import re
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.match(r"[A-Za-z0-9_]+", r.replace("-", "_")).group(0)  # type: ignore[union-attr]
             for r in project["optional-dependencies"][extra]}
    return {IMPORT_NAMES.get(name, name) for name in names}


def _third_party_imports(graph: Graph, importers: tuple[str, ...],
                         names: set[str]) -> list[str]:
    """Imports of ``names`` (top-level packages) by modules under ``importers``."""
    return [
        f"{src} -> {dst} ({graph.files[src].relative_to(REPO)}:{min(lines)})"
        for src, targets in sorted(graph.imports.items())
        if any(_under(src, i) for i in importers)
        for dst, lines in sorted(targets.items()) if dst.split(".")[0] in names
    ]


def test_the_server_imports_no_client_only_package() -> None:
    """``pip install '.[server]'`` (the Docker image) has no Textual, Rich,
    plotext or httpx: no module of ``server`` may import them."""
    client_only = _extra_names("client") - _extra_names("server")
    assert {"textual", "rich", "plotext", "httpx"} <= client_only
    found = _third_party_imports(build_graph(), ("server",), client_only)
    assert not found, "server imports client-only packages:\n" + "\n".join(found)


def test_the_client_imports_no_server_only_package() -> None:
    """``pip install '.[client]'`` has no Starlette, uvicorn, Redis or orjson:
    neither ``client_cli`` nor the server modules it uses may import them (the
    embedded server is a ``lucie-server`` process, started only when they are
    installed: ``client_cli.embedded``)."""
    server_only = _extra_names("server") - _extra_names("client")
    assert {"starlette", "uvicorn", "redis", "orjson"} <= server_only
    found = _third_party_imports(build_graph(), ("client_cli", "server.rules", "server.solver"),
                                 server_only)
    assert not found, "the client imports server-only packages:\n" + "\n".join(found)
    from client_cli.embedded import SERVER_PACKAGES
    assert set(SERVER_PACKAGES) == server_only
