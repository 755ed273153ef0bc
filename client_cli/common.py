"""Shared pieces of the ``lucie`` subcommands: the ``--server`` option and running
an async command with clear error messages (never a traceback)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeAlias

from rich import box
from rich.console import Console
from rich.table import Table

from .api import DEFAULT_SERVER, ApiError, server_url

__all__ = ["Subparsers", "add_server_arg", "console", "detach_std_streams", "doc_help", "int_in",
           "lucie_command",
           "non_negative_float", "non_negative_int", "positive_float", "positive_int",
           "print_table", "resolved_server", "room_link", "run_command"]

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

console = Console(highlight=False)
"""Where subcommands print (rich markup allowed)."""


def add_server_arg(p: argparse.ArgumentParser) -> None:
    """Add ``--server URL`` (default ``$LUCIE_SERVER`` or the local server)."""
    p.add_argument("--server", metavar="URL", default=None,
                   help=f"race server URL (default: $LUCIE_SERVER or {DEFAULT_SERVER})")


def run_command(name: str, func: Callable[[], Awaitable[int]]) -> int:
    """Run an async command body; report :class:`ApiError` as ``lucie NAME: message``.

    Returns the body's exit status, 1 on an API error, 130 on Ctrl-C.
    """
    try:
        return asyncio.run(func())  # type: ignore[arg-type]
    except ApiError as exc:
        print(f"lucie {name}: {exc.message}", file=sys.stderr)
        if exc.code == "client/unreachable":
            print("  start one with `lucie-server`, or pass --server URL", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise  # the reader of our output went away: ``cli.main`` stops quietly
    except Exception as exc:  # the user-facing boundary: one line, never a traceback
        print(f"lucie {name}: unexpected error: {exc!r}", file=sys.stderr)
        return 1


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *,
                compact: bool = False) -> None:
    """Print a simple table (or ``title: none`` when there are no rows).

    ``compact``: lines under the header only, no outer padding — many
    columns still fit 80 characters.
    """
    if not rows:
        console.print(f"{title}: none")
        return
    table = (Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                   padding=(0, 1, 0, 0))
             if compact else Table(title=title, title_justify="left"))
    for col in columns:
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def resolved_server(args: argparse.Namespace) -> str:
    """The server URL the command line asked for."""
    return server_url(getattr(args, "server", None))




def detach_std_streams() -> None:
    """Point the standard output and error at ``/dev/null``: the terminal is gone,
    and what is printed from now on (the standings, any message) must not fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                os.dup2(devnull, fd)
    finally:
        os.close(devnull)
    for stream in (sys.stdout, sys.stderr):  # what was left for the dead terminal
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def room_link(url: str, code: str) -> str:
    """The room's page in the browser client served by the server at ``url``
    (``http://127.0.0.1:8000/r/CODE``, docs/web.md)."""
    return f"{url.rstrip('/')}/r/{code}"


def lucie_command() -> str:
    """How to type ``lucie`` in this shell: ``lucie`` when it is on ``PATH``, else the
    path of the running script (``.venv/bin/lucie`` from the repository)."""
    found = shutil.which("lucie")
    if found:
        return "lucie"
    candidates = [Path(sys.argv[0]) if sys.argv and sys.argv[0] else None,
                  Path(sys.executable).with_name("lucie")]
    for cand in candidates:
        if cand is not None and cand.name == "lucie" and cand.is_file():
            path = cand.absolute()
            try:
                rel = path.relative_to(Path.cwd())
            except ValueError:
                return str(path)
            return str(rel) if os.sep in str(rel) else f".{os.sep}{rel}"
    return "lucie"


def doc_help(doc: str | None) -> str:
    """A module docstring as ``--help`` text: no reST markup (double backticks)."""
    return (doc or "").replace("``", "")


def _number(kind: type[int] | type[float], text: str) -> float:
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    """argparse type: a whole number above 0."""
    value = int(_number(int, text))
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: a whole number, 0 or more."""
    value = int(_number(int, text))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number above 0 (not NaN or infinite)."""
    value = _number(float, text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a number, 0 or more (not NaN or infinite)."""
    value = _number(float, text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def int_in(low: int, high: int) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high``."""
    def check(text: str) -> int:
        value = int(_number(int, text))
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {text}")
        return value
    check.__name__ = f"int_in_{low}_{high}"
    return check
