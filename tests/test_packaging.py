"""The packaging holds: the locks match pyproject.toml, the server image
installs the server lock only, and that lock carries no client package.

All offline and fast: the locks' headers record what they were compiled from
(``scripts/lock.py``), so a dependency changed without ``make lock`` fails here.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _lock_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lock_script", REPO / "scripts" / "lock.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LOCK = _lock_script()


def _names(requirements: list[str]) -> set[str]:
    """Distribution names (normalized) of requirement strings."""
    found = set()
    for req in requirements:
        match = re.match(r"[A-Za-z0-9_.-]+", req)
        assert match, req
        found.add(re.sub(r"[-_.]+", "-", match.group(0)).lower())
    return found


def _locked(name: str) -> dict[str, str]:
    """Package → version pinned in ``requirements/<name>``."""
    text = (REPO / "requirements" / name).read_text(encoding="utf-8")
    return {m.group(1).lower(): m.group(2)
            for m in re.finditer(r"^([A-Za-z0-9_.-]+)==([^\s;\\]+)", text, re.M)}


@pytest.mark.parametrize("name", sorted(LOCK.LOCKS))
def test_each_lock_was_compiled_from_the_current_pyproject(name: str) -> None:
    text = (REPO / "requirements" / name).read_text(encoding="utf-8")
    expected = LOCK.inputs(PYPROJECT, LOCK.LOCKS[name])
    assert LOCK.recorded_inputs(text) == expected, (
        f"requirements/{name} was compiled from other requirements than pyproject.toml's: "
        "run `make lock` (or `make upgrade`) and commit the lock")


@pytest.mark.parametrize("name", sorted(LOCK.LOCKS))
def test_every_locked_package_is_pinned_with_hashes(name: str) -> None:
    text = (REPO / "requirements" / name).read_text(encoding="utf-8")
    entries = re.split(r"\n(?=[A-Za-z0-9])", text)
    pins = [e for e in entries if re.match(r"[A-Za-z0-9_.-]+==", e)]
    assert pins and all("--hash=sha256:" in e for e in pins)
    assert len(pins) == len(_locked(name))


def test_a_changed_dependency_is_seen() -> None:
    """The check above can fail: one bound moved, and the recorded inputs differ."""
    changed = {"project": {**PYPROJECT["project"], "dependencies": ["pydantic>=2.7,<3"]}}
    text = (REPO / "requirements" / "server.lock").read_text(encoding="utf-8")
    assert LOCK.recorded_inputs(text) != LOCK.inputs(changed, LOCK.LOCKS["server.lock"])


def test_the_locks_satisfy_the_installed_versions_of_the_running_venv() -> None:
    """make installs the dev lock: what this suite runs on is what it pins."""
    locked = _locked("dev.lock")
    for name in ("starlette", "uvicorn", "websockets", "redis", "textual", "pydantic"):
        assert locked[name] == version(name), name


def _extra(name: str) -> set[str]:
    return _names(PYPROJECT["project"]["optional-dependencies"][name])


def test_client_only_packages_stay_out_of_the_server_lock() -> None:
    client_only = _extra("client") - _extra("server")
    assert {"textual", "rich", "plotext", "httpx"} <= client_only
    server = _locked("server.lock")
    assert not client_only & set(server), client_only & set(server)
    assert {"starlette", "uvicorn", "redis", "websockets", "pydantic"} <= set(server)
    # and the server's own pins are the dev lock's: the image runs what make test tested
    dev = _locked("dev.lock")
    assert {n: v for n, v in server.items() if dev.get(n) != v} == {}


def test_the_core_is_what_both_programs_need() -> None:
    assert _names(PYPROJECT["project"]["dependencies"]) == {"pydantic"}


def test_the_dockerfile_installs_the_server_lock_then_the_project_without_deps() -> None:
    steps = [line.strip() for line in
             (REPO / "infra" / "Dockerfile").read_text(encoding="utf-8").splitlines()
             if line.startswith(("RUN", "COPY"))]
    installs = [s for s in steps if "pip install" in s]
    assert len(installs) == 2, installs
    assert "--require-hashes -r requirements/server.lock" in installs[0]
    assert "--no-deps '.[server]'" in installs[1]
    assert "COPY requirements/server.lock ./requirements/server.lock" in steps
    assert not any("client_cli" in s for s in steps)
    ignore = (REPO / "infra" / "Dockerfile.dockerignore").read_text(encoding="utf-8")
    assert "!requirements/server.lock" in ignore and "!LICENSE" in ignore


def test_license_and_version() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    # the version is the latest release of CHANGELOG.md (Keep a Changelog), or
    # the next minor's development version while [Unreleased] holds changes
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$",
                          (REPO / "CHANGELOG.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert released, "CHANGELOG.md names no release"
    major, minor, _ = released[0].split(".")
    assert project["version"] in (released[0], f"{major}.{int(minor) + 1}.0.dev0")
    assert project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "the Belle Lucie race authors" in text


@pytest.mark.parametrize("script", ["lucie", "lucie-server"])
def test_version_option(script: str) -> None:
    done = subprocess.run([str(Path(sys.executable).with_name(script)), "--version"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == f"{script} {PYPROJECT['project']['version']}"
