"""The ``lucie`` console script: terminal client and tools.

Each subcommand lives in its own module with an ``add_parser(sub)`` function
registered in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from importlib.metadata import version

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: list[str] = [
    "client_cli.play_cmd",
    "client_cli.quick_cmd",
    "client_cli.challenge_cmd",
    "client_cli.info_cmd",
    "client_cli.bot_cmd",
    "client_cli.deal_cmd",
    "client_cli.solve_cmd",
    "client_cli.compare_cmd",
    "client_cli.leaderboard_cmd",
    "client_cli.ghost_cmd",
    "client_cli.player_cmd",
    "client_cli.history_cmd",
    "client_cli.verify_cmd",
    "client_cli.moderate_cmd",
]
"""Modules that register a subcommand, in help order."""


def build_parser() -> argparse.ArgumentParser:
    """The full ``lucie`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="lucie",
        description="La Belle Lucie races from the terminal, and tools.",
    )
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {version('belle-lucie-race')}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        status = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        # the reader went away (``lucie deal 1 | head -5``): stop quietly, as
        # a program killed by SIGPIPE would; stdout goes to devnull so that the
        # interpreter's final flush does not complain either
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
