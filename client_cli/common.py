"""Shared pieces of the ``lucie`` subcommands: the ``--server`` option and running
an async command with clear error messages (never a traceback)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeAlias

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .api import DEFAULT_SERVER, ApiError, server_url

__all__ = ["Subparsers", "add_server_arg", "chart_width", "compact_width", "console",
           "detach_std_streams", "doc_help", "int_in", "lucie_command", "lucie_command_for",
           "non_negative_float", "non_negative_int", "on_hangup", "positive_float",
           "positive_int", "print_chart", "print_table",
           "resolved_server", "room_link", "run_command", "say", "server_commands",
           "start_server_hint"]

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
            print(f"  {start_server_hint()}, or pass --server URL", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise  # the reader of our output went away: ``cli.main`` stops quietly
    except Exception as exc:  # the user-facing boundary: one line, never a traceback
        print(f"lucie {name}: unexpected error: {exc!r}", file=sys.stderr)
        return 1


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *,
                compact: bool = False, tight: bool = False) -> None:
    """Print a simple table (or ``title: none`` when there are no rows).

    ``compact``: lines under the header only, no outer padding — many
    columns still fit 80 characters; ``tight`` (with ``compact``): one space
    between columns, none at the edges.
    """
    if not rows:
        console.print(f"{title}: none")
        return
    table = (Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                   padding=(0, 0 if tight else 1, 0, 0), show_edge=not tight)
             if compact else Table(title=title, title_justify="left"))
    for col in columns:
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    console.print(table)


CHART_MARGIN = 2
"""Columns a chart leaves free at the right of the terminal."""


def chart_width(most: int = 100, least: int = 40) -> int:
    """The width of a terminal chart (plotext): the console's width less
    :data:`CHART_MARGIN`, from ``least`` to ``most`` columns."""
    return max(least, min(console.width - CHART_MARGIN, most))


def print_chart(chart: str) -> None:
    """Print a chart as plotext built it, one line per chart row: its ANSI colours
    become styles (as raw text their escape sequences would count as columns,
    and the lines would wrap), and nothing is wrapped."""
    console.print(Text.from_ansi(chart.rstrip("\n")), soft_wrap=True)


def compact_width(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The columns :func:`print_table` needs for a ``compact`` table that cuts
    nothing: each column as wide as its widest cell, with a space and a divider
    between two columns and an edge on each side."""
    widths = [max(cell_len(str(cell)) for cell in column) for column in zip(columns, *rows,
                                                                           strict=True)]
    return sum(widths) + 2 * len(widths)


def say(text: str) -> None:
    """Print a message as it is written (no markup). On a terminal, long lines are
    wrapped between words; elsewhere (a pipe, a file) never, so that paths and
    commands in it stay whole on their line."""
    console.print(text, markup=False, highlight=False, soft_wrap=not console.is_terminal)


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


@contextlib.contextmanager
def on_hangup(callback: Callable[[], None]) -> Iterator[None]:
    """Call ``callback`` on SIGHUP (the terminal went away) instead of dying:
    the racer resigns and the embedded server is stopped, as on quitting."""
    loop = asyncio.get_running_loop()
    hup = getattr(signal, "SIGHUP", None)
    if hup is None:  # Windows
        yield
        return
    loop.add_signal_handler(hup, callback)
    try:
        yield
    finally:
        loop.remove_signal_handler(hup)


def room_link(url: str, code: str) -> str:
    """The room's page in the browser client served by the server at ``url``
    (``http://127.0.0.1:8000/r/CODE``, docs/web.md)."""
    return f"{url.rstrip('/')}/r/{code}"


def lucie_command() -> str:
    """How to type ``lucie`` in this shell: ``lucie`` when it is on ``PATH``, else the
    path of the running script (``.venv/bin/lucie`` from the repository)."""
    found = _script_command("lucie", [Path(sys.argv[0]) if sys.argv and sys.argv[0] else None,
                                      Path(sys.executable).with_name("lucie")])
    return found or "lucie"


def lucie_command_for(url: str, *words: str) -> str:
    """The ``lucie`` command line another terminal types to reach the server at
    ``url``: ``lucie join CODE --server URL`` for ``words`` ``join CODE``; without
    ``--server`` when ``url`` is the default server (:data:`DEFAULT_SERVER`)."""
    server = [] if url.rstrip("/") == DEFAULT_SERVER else ["--server", url.rstrip("/")]
    return shlex.join([lucie_command(), *words, *server])


def _script_command(name: str, candidates: Sequence[Path | None]) -> str | None:
    """How to type the script ``name``: ``name`` when it is on ``PATH``, else the
    first of ``candidates`` that is that script (relative to the working folder
    when under it); ``None``: none is."""
    if shutil.which(name):
        return name
    for cand in candidates:
        if cand is not None and cand.name == name and cand.is_file():
            path = cand.absolute()
            try:
                rel = path.relative_to(Path.cwd())
            except ValueError:
                return str(path)
            return str(rel) if os.sep in str(rel) else f".{os.sep}{rel}"
    return None


def server_commands() -> list[str]:
    """The commands that start a race server from here, as typed in this shell:
    ``make server`` in the repository's folder (its Makefile), and the
    ``lucie-server`` script by the path it has here (``.venv/bin/lucie-server``
    when it is not on ``PATH``); empty when the script is not installed."""
    script = _script_command("lucie-server", [Path(sys.executable).with_name("lucie-server")])
    if script is None:
        return []
    try:
        make = "\nserver:" in Path("Makefile").read_text(encoding="utf-8", errors="replace")
    except OSError:
        make = False
    return (["make server"] if make else []) + [script]


def start_server_hint() -> str:
    """How to start a race server, in words that work in this shell
    (:func:`server_commands`); without the server, the package to install."""
    ways = server_commands()
    if not ways:
        return ("start a race server (install it: pip install 'belle-lucie-race[server]', "
                "then run `lucie-server`)")
    return "start a race server in another terminal with " + " or ".join(
        f"`{w}`" for w in ways)


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
