"""``lucie bot CODE``: add computer racers to a room (they race until their result is final)."""

from __future__ import annotations

import argparse
import asyncio

from server.solver.levels import LEVELS

from .api import LucieClient
from .board.model import status_text
from .bot import BotResult, bot_name, run_bot
from .common import (
    Subparsers,
    add_server_arg,
    non_negative_float,
    positive_int,
    print_table,
    resolved_server,
    run_command,
)

__all__ = ["add_parser", "free_bot_names"]


def free_bot_names(taken: set[str], count: int, name: str | None = None) -> list[str]:
    """``count`` bot names not ``taken`` in the room (case-insensitive): ``name``
    itself for one bot, else ``<name or bot>-Ada``, ``-Bix``… skipping taken ones
    (a room made by ``lucie play --bots N`` already has the first N)."""
    if count == 1 and name:
        return [name]
    used = {t.casefold() for t in taken}
    names: list[str] = []
    index = 0
    while len(names) < count:
        candidate = f"{name or 'bot'}-{bot_name(index)[4:]}"
        if candidate.casefold() not in used:
            names.append(candidate)
            used.add(candidate.casefold())
        index += 1
    return names


def _run(args: argparse.Namespace) -> int:
    url = resolved_server(args)

    async def body() -> int:
        async with LucieClient(url) as client:
            room = await client.get_room(args.code)
        names = free_bot_names({r.name for r in room.racers}, args.count, args.name)
        def joined(name: str) -> None:  # said only once the server accepted the bot
            print(f"{name} joined room {args.code}", flush=True)

        results: list[BotResult] = list(await asyncio.gather(
            *(run_bot(url, args.code, n, think_s=args.think, level=args.level,
                      on_joined=joined) for n in names)))
        print_table("Bots", ["name", "status", "cards", "moves"],
                    [(n, status_text(r.status), str(r.foundation_cards), str(r.moves))
                     for n, r in zip(names, results, strict=True)])
        return 0
    return run_command("bot", body)


def add_parser(sub: Subparsers) -> None:
    """Register ``bot``."""
    p = sub.add_parser(
        "bot", help="add computer racers to a room",
        description="Join a waiting room with computer racers. They say they are ready, wait "
        "for the start, then play legal moves at their level (novice: misses builds, redeals "
        "early; club: foundation moves first, useful builds, redeal when nothing helps; "
        "expert: plans each layout with the solver) until their result is final. Each draws "
        "its own seed: bots of one level play different games.",
        epilog="examples:\n  lucie bot ABCD\n  lucie bot ABCD --count 3 --level expert "
        "--think 0.5",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("code", help="room code (or id)")
    p.add_argument("--count", type=positive_int, default=1, help="how many bots (default 1)")
    p.add_argument("--name", default=None, help="bot name (prefix when several)")
    p.add_argument("--level", choices=LEVELS, default="club",
                   help="how they play (default club)")
    p.add_argument("--think", type=non_negative_float, default=1.6, metavar="S",
                   help="think-time unit: a club bot's median pause before a move, seconds "
                   "(default 1.6; novices think longer, experts shorter, all longer after a "
                   "redeal)")
    add_server_arg(p)
    p.set_defaults(func=_run)
