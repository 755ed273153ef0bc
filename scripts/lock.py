"""Hashed lock files for the install sets, with uv (``make lock``, ``make upgrade``).

``python scripts/lock.py [--upgrade]`` writes one lock per install set
(:data:`LOCKS`) under ``requirements/``: ``uv pip compile --universal
--generate-hashes`` of ``pyproject.toml`` with that set's extras, so pip installs
it with ``--require-hashes`` on any platform (environment markers, every wheel's
hash). Without ``--upgrade`` the pins already in a lock are kept where they
still fit (uv reads the output file as preferences); with it, every package is
re-resolved to its newest allowed version.

Each lock starts with the requirements it was compiled from (:func:`inputs`):
``tests/test_lock.py`` compares them with ``pyproject.toml``, so a dependency
changed without ``make lock`` fails the suite — offline, in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = "3.11"
"""The lowest Python the project supports (``requires-python``); the universal
resolution holds for it and every later one."""

LOCKS: dict[str, tuple[str, ...]] = {
    "server.lock": ("server",),  # infra/Dockerfile: lucie-server only
    "dev.lock": ("server", "client", "test", "load"),  # make: run, test, load
}
"""Lock file name → the extras it installs (beside the core dependencies)."""

INPUTS_MARK = "# pyproject inputs:"


def inputs(pyproject: dict[str, object], extras: tuple[str, ...]) -> list[str]:
    """The lines naming what a lock of ``extras`` was compiled from: the
    supported Pythons, the core requirements and each extra's, sorted.

    :raises KeyError: an extra that ``pyproject`` does not define.
    """
    project = pyproject["project"]
    assert isinstance(project, dict)
    optional = project.get("optional-dependencies", {})
    lines = [f"requires-python {project['requires-python']}"]
    lines += sorted(f"[core] {r}" for r in project.get("dependencies", []))
    for extra in extras:
        lines += sorted(f"[{extra}] {r}" for r in optional[extra])
    return lines


def header(extras: tuple[str, ...]) -> str:
    """The comment block a lock starts with (:data:`INPUTS_MARK`, then one line
    per :func:`inputs` entry)."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    body = "".join(f"#   {line}\n" for line in inputs(pyproject, extras))
    return f"{INPUTS_MARK}\n{body}"


def recorded_inputs(lock_text: str) -> list[str]:
    """The :func:`inputs` lines recorded at the top of a lock file ([] if none)."""
    lines = lock_text.splitlines()
    if INPUTS_MARK not in lines:
        return []
    found = []
    for line in lines[lines.index(INPUTS_MARK) + 1:]:
        if not line.startswith("#   "):
            break
        found.append(line[4:])
    return found


def _uv() -> str:
    here = Path(sys.executable).with_name("uv")
    found = str(here) if here.exists() else shutil.which("uv")
    if not found:
        sys.exit("lock: uv is missing (make installs it into .venv from the dev lock)")
    return found


def compile_lock(name: str, extras: tuple[str, ...], *, upgrade: bool) -> None:
    """Write ``requirements/<name>`` (:func:`header`, then uv's output)."""
    out = REPO / "requirements" / name
    out.parent.mkdir(exist_ok=True)
    if out.exists():  # uv keeps an existing output's pins: strip our header first
        text = out.read_text(encoding="utf-8")
        out.write_text("\n".join(line for line in text.splitlines()
                                 if line not in header(extras).splitlines()) + "\n",
                       encoding="utf-8")
    command = [
        _uv(), "pip", "compile", "pyproject.toml", "--quiet", "--universal",
        "--python-version", PYTHON, "--generate-hashes", "--no-emit-package", "belle-lucie-race",
        "--custom-compile-command", "make lock (or make upgrade)", "-o", str(out),
        *(f"--extra={extra}" for extra in extras),
    ]
    if upgrade:
        command.append("--upgrade")
    subprocess.run(command, cwd=REPO, check=True, env={**os.environ, "UV_NO_PROGRESS": "1"})
    out.write_text(header(extras) + out.read_text(encoding="utf-8"), encoding="utf-8")
    print(f"lock: requirements/{name} ({', '.join(extras)})")


def main(argv: list[str] | None = None) -> int:
    """``scripts/lock.py [--upgrade]``: refresh every lock of :data:`LOCKS`."""
    parser = argparse.ArgumentParser(prog="lock", description=__doc__.splitlines()[0])
    parser.add_argument("--upgrade", action="store_true",
                        help="newest allowed versions, not the pins already locked")
    args = parser.parse_args(argv)
    for name, extras in LOCKS.items():
        compile_lock(name, extras, upgrade=args.upgrade)
    return 0


if __name__ == "__main__":
    sys.exit(main())
