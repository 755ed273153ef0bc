"""``lucie ghost CODE RACER`` / ``lucie ghost --replay FILE``: race a recorded game.

Creates a ghost room on the recorded game's deal, rule set and redeal key:
the ghost (``👻 name``) replays the recorded moves on the race clock as they
were played. Join it with ``lucie join CODE`` and type ``ready`` on the
board: the race starts when everyone is ready (the ghost gets ready with the
first racer). The room's host token is printed too, for the API only.
"""

from __future__ import annotations

import argparse

from .api import ApiError, LucieClient
from .common import (
    Subparsers,
    add_server_arg,
    console,
    doc_help,
    lucie_command_for,
    non_negative_int,
    positive_int,
    resolved_server,
    run_command,
)
from .compare_cmd import load_replay

__all__ = ["add_parser"]


def _run(args: argparse.Namespace) -> int:
    async def body() -> int:
        if args.replay:
            source = {"replay": load_replay(args.replay)}
        elif args.code and args.racer:
            source = {"room": args.code, "racer": args.racer}
        else:
            raise ApiError("client/usage", "give CODE RACER, or --replay FILE")
        async with LucieClient(resolved_server(args)) as client:
            made = await client.create_ghost_room(
                source, time_limit_s=args.time_limit, countdown_s=args.countdown,
                visibility="private" if args.private else "public")
        room, ghost = made["room"], made["ghost"]
        console.print(f"Ghost room {room['code']} · deal {room['deal_number']} · "
                      f"{room['rules']['variant']}: racing {ghost['name']}", markup=False)
        console.print("Race it:  " + lucie_command_for(resolved_server(args), "join", room["code"])
                      + "  then type ready and Enter on the board: the ghost gets ready with "
                      "you and the countdown starts (others join the same way first, if any).",
                      markup=False)
        console.print("The room's host token (not needed to race; it starts or closes the "
                      f"room over the API, docs/protocol.md): {made['host_token']}",
                      markup=False)
        return 0

    return run_command("ghost", body)


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie ghost``."""
    p = sub.add_parser("ghost", help="race against a recorded game (a ghost)",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie ghost ABCD alice\n"
                       "  lucie replay ABCD alice --json > alice.json\n"
                       "  lucie ghost --replay alice.json --time-limit 600",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("code", nargs="?", help="room code of the recorded game")
    p.add_argument("racer", nargs="?", help="the recorded racer (name or id)")
    p.add_argument("--replay", metavar="FILE", help="a replay file instead")
    p.add_argument("--time-limit", type=positive_int, default=900, metavar="S",
                   help="race time limit, seconds (default 900)")
    p.add_argument("--countdown", type=non_negative_int, default=3, metavar="S",
                   help="countdown seconds (default 3)")
    p.add_argument("--private", action="store_true", help="do not list the room publicly")
    add_server_arg(p)
    p.set_defaults(func=_run)
