"""``lucie leaderboard [--variant V] [--daily|--all-time|--rating] [--date D]``, ``lucie daily``.

The daily board ranks everyone's best on the variant's deal of the UTC day;
the all-time board ranks each name's best per deal. Order: more foundation
cards, earlier reach time, fewer moves, then who got there first. The rating
board ranks players (lucie me) by rating, mu − 3 sigma; a rating is
provisional until 10 rated races.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .api import LucieClient
from .board.model import fmt_clock
from .common import (
    Subparsers,
    add_server_arg,
    console,
    doc_help,
    int_in,
    lucie_command,
    print_table,
    resolved_server,
    run_command,
)
from .player_common import PROVISIONAL_NOTE, fmt_rating, run_player_command

__all__ = ["add_parser", "leaderboard_rows", "rating_rows"]


def leaderboard_rows(board: dict[str, Any]) -> list[tuple[str, ...]]:
    """Table rows of a leaderboard answer (rank, name, cards, reached, moves, deal, room)."""
    return [(str(r["rank"]), r["name"], str(r["foundation_cards"]), fmt_clock(r["reach_time_ms"]),
             str(r["moves"]), str(r["deal_number"]), r["room"] or "-") for r in board["rows"]]


def rating_rows(board: dict[str, Any]) -> list[tuple[str, ...]]:
    """Table rows of a rating board (rank, player, rating, mu ± sigma, rated, races, wins)."""
    return [(str(e["rank"]), e["player"]["name"], fmt_rating(e["rating"]),
             f"{e['rating']['mu']:.1f} ± {e['rating']['sigma']:.1f}",
             str(e["rating"]["rated_races"]), str(e["races"]), str(e["wins"]))
            for e in board["entries"]]


def _rating_board(args: argparse.Namespace) -> int:
    url = resolved_server(args)
    if args.date:
        print("lucie leaderboard: --date is for the daily board, not --rating", file=sys.stderr)
        return 2

    async def body() -> int:
        async with LucieClient(url) as client:
            board = await client.leaderboard(args.variant, "rating", limit=args.limit)
        print_table(f"Rating leaderboard · {board['variant']}",
                    ["rank", "player", "rating", "mu ± sigma", "rated", "races", "wins"],
                    rating_rows(board), compact=True)
        if board["entries"]:
            console.print(PROVISIONAL_NOTE + "; rating: mu − 3 sigma", markup=False)
        else:
            console.print("Players show here after a ranked race with another player.",
                          markup=False)
        return 0

    return run_player_command("leaderboard", url, body)


def _leaderboard(args: argparse.Namespace) -> int:
    if args.rating:
        return _rating_board(args)
    url = resolved_server(args)

    async def body() -> int:
        kind = "all-time" if args.all_time else "daily"
        async with LucieClient(url) as client:
            board = await client.leaderboard(args.variant, kind, args.date, args.limit)
            deal = await client.daily(args.variant, board["date"]) if kind == "daily" else None
        if kind == "daily":
            assert deal is not None
            title = f"Daily leaderboard · {board['variant']} · {board['date']} " \
                    f"(deal {deal['deal_number']})"
        else:
            title = f"All-time leaderboard · {board['variant']}"
        print_table(title, ["rank", "name", "cards", "reached", "moves", "deal", "room"],
                    leaderboard_rows(board))
        return 0

    return run_player_command("leaderboard", url, body)


def _daily(args: argparse.Namespace) -> int:
    async def body() -> int:
        async with LucieClient(resolved_server(args)) as client:
            deal = await client.daily(args.variant, args.date)
        console.print(f"Daily deal of {deal['variant']} on {deal['date']}: "
                      f"{deal['deal_number']}", markup=False)
        console.print(f"race it: {lucie_command()} play --variant {deal['variant']} "
                      "--deal daily",
                      markup=False)
        return 0

    return run_command("daily", body)


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie leaderboard`` and ``lucie daily``."""
    p = sub.add_parser("leaderboard", help="daily and all-time leaderboards",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie leaderboard\n  lucie leaderboard --all-time\n"
                       "  lucie leaderboard --rating\n"
                       "  lucie leaderboard --variant trefoil --date 2026-01-31",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", default="belle-lucie", help="variant id (default belle-lucie)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--daily", action="store_true", help="today's board (the default)")
    which.add_argument("--all-time", action="store_true", help="best per name and deal")
    which.add_argument("--rating", action="store_true",
                       help="players by rating (provisional: under 10 rated races)")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="a past day's daily board (UTC)")
    p.add_argument("--limit", type=int_in(1, 100), default=20, help="rows, 1–100 (default 20)")
    add_server_arg(p)
    p.set_defaults(func=_leaderboard)

    d = sub.add_parser("daily", help="the daily deal number of a variant",
                       description="Print the daily deal of a variant: the deal number everyone\n"
                       "races on that UTC day (its best results make the daily leaderboard),\n"
                       "and the command that races it.",
                       epilog="examples:\n  lucie daily\n  lucie daily --variant trefoil\n"
                       "  lucie daily --date 2026-01-31",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("--variant", default="belle-lucie", help="variant id (default belle-lucie)")
    d.add_argument("--date", metavar="YYYY-MM-DD", help="another UTC day")
    add_server_arg(d)
    d.set_defaults(func=_daily)
