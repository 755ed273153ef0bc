"""``lucie quick [--variant V]``: the fastest way to a race — a seat in the
server's quick-race lobby that starts soonest (docs/protocol.md, "Quick race"),
then the full-screen board as ``lucie play`` shows it.

As the stored player (``lucie me``) unless ``--anonymous``: the lobby is then
the one of the player's rating band. The lobby starts by itself (full, or a
while after its second racer); a racer alone gets computer racers.
"""

from __future__ import annotations

import argparse

from server.rules import DEFAULT_VARIANT, VARIANTS

from .api import ApiError, JoinedRoom, LucieClient
from .common import Subparsers, lucie_command, lucie_command_for, room_link
from .play_cmd import add_race_options, default_name, run_race
from .player_key import PlayerKey

__all__ = ["add_parser", "quick_join"]


async def quick_join(client: LucieClient, args: argparse.Namespace,
                     player: PlayerKey | None) -> tuple[JoinedRoom, str]:
    """Take a quick-race seat (as ``player``, else anonymously under ``--name``
    or the login) → the seat and the room's code; says where it is.

    :raises ApiError: in words for ``racer/name_taken`` (the player waits in a
        quick race already) and ``request/not_found`` (an older server).
    """
    try:
        got = await client.quick(args.variant, None if player else args.name or default_name(),
                                 player_key=player.key if player else None)
    except ApiError as exc:
        if exc.code == "racer/name_taken" and player is not None:
            raise ApiError(exc.code, f"your player {player.name} already waits in that "
                           "quick race (another terminal or browser?); --anonymous races "
                           "without it", status=exc.status) from None
        if exc.code == "request/not_found":
            raise ApiError(exc.code, f"{client.url} has no quick race (an older race "
                           f"server): {lucie_command()} play, or join a room",
                           status=exc.status) from None
        raise
    room = got.room
    wait = ""
    if room.quick is not None and room.quick.starts_in_ms is not None:
        wait = f"; it starts in {-(-room.quick.starts_in_ms // 1000)} s or when full"
    elif room.quick is not None and room.quick.bots_in_ms is not None:
        wait = (f"; computer racers join in {-(-room.quick.bots_in_ms // 1000)} s if nobody "
                "comes")
    print(f"Quick race: room {room.code}, {len(room.racers)}/{room.capacity} racers{wait}. "
          f"Others join with:  "
          f"{lucie_command_for(client.url, 'quick', '--variant', args.variant)}  "
          f"Browser: {room_link(client.url, room.code)}", flush=True)
    return JoinedRoom(racer=got.racer, token=got.token), room.code


def add_parser(sub: Subparsers) -> None:
    """Register ``quick``."""
    p = sub.add_parser(
        "quick", help="race now: a seat in the quick-race lobby that starts soonest",
        description="Join the server's public quick-race lobby of the variant that starts "
        "soonest (or open one) and race on the full-screen board: no room code to share. "
        "The lobby starts by itself when it is full, or a little after its second racer "
        "came; alone, you get computer racers after a while. As your player (lucie me) the "
        "lobby is the one of your rating band. Starts a local server when none answers at "
        "the local URL (you then race alone, with computer racers).\n\nBoard keys as in "
        "lucie play: type a move and Enter (3f, 3 7, r, u, a, m 5H f), ready and Enter to "
        "start sooner when every racer is ready, q resign/quit.",
        epilog="examples:\n  lucie quick\n  lucie quick --variant trefoil\n"
        "  lucie quick --anonymous --name ada --server http://192.168.1.5:8000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_race_options(p)
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=list(VARIANTS),
                   help=f"the variant to race (default {DEFAULT_VARIANT})")
    p.add_argument("--no-embedded", dest="embedded", action="store_false",
                   help="never start a local server")
    p.set_defaults(func=run_race, command="quick", bots=0, embedded=True, seat_with=quick_join)
