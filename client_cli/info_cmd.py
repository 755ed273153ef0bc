"""``lucie rooms``, ``lucie results CODE``, ``lucie replay CODE RACER``: read-only views."""

from __future__ import annotations

import argparse
import json

from .api import ApiError, LucieClient, RoomView
from .board.model import fmt_clock, standing_rows, status_text
from .common import (
    Subparsers,
    add_server_arg,
    console,
    lucie_command_for,
    print_table,
    resolved_server,
    run_command,
)

__all__ = ["add_parser", "find_racer"]


def find_racer(room: RoomView, who: str) -> str:
    """The id of the racer named ``who`` (or with that id; names match case-insensitively).

    :raises ApiError: ``racer/not_found`` with the names in the room.
    """
    for r in room.racers:
        if r.id == who or r.name.lower() == who.lower():
            return r.id
    names = ", ".join(r.name for r in room.racers) or "nobody"
    raise ApiError("racer/not_found", f"no racer {who!r} in room {room.code} (racers: {names})")


def _rooms(args: argparse.Namespace) -> int:
    async def body() -> int:
        async with LucieClient(resolved_server(args)) as client:
            rooms = await client.list_rooms()
        rows = [(r.code, r.rules.name or r.rules.variant, str(r.deal_number or "?"),
                 f"{len(r.racers)}/{r.capacity}", fmt_clock(r.time_limit_ms), r.state)
                for r in rooms]
        print_table("Public rooms waiting", ["code", "variant", "deal", "racers", "limit",
                                              "state"], rows)
        if rows:
            console.print("join one with: " + lucie_command_for(resolved_server(args), "join",
                                                                 rows[0][0]), markup=False)
        return 0
    return run_command("rooms", body)


def _results(args: argparse.Namespace) -> int:
    async def body() -> int:
        async with LucieClient(resolved_server(args)) as client:
            room = await client.get_room(args.code)
            st = await client.standings(args.code)
        deal = room.deal_number if room.deal_number is not None else "hidden until the start"
        title = f"Room {room.code} · deal {deal} · " + (
            "final results" if st.final else f"standings so far ({room.state})")
        print_table(title, ["rank", "name", "cards", "reached", "moves", "status", "points"],
                    standing_rows(st.standings, {r.id for r in room.racers if r.ready}))
        return 0
    return run_command("results", body)


def _replay(args: argparse.Namespace) -> int:
    async def body() -> int:
        async with LucieClient(resolved_server(args)) as client:
            room = await client.get_room(args.code)
            racer = find_racer(room, args.racer)
            if args.json:
                doc = await client.get_json(f"/rooms/{room.id}/racers/{racer}/replay")
                print(json.dumps(doc, indent=2))
                return 0
            rep = await client.replay(args.code, racer)
        name = rep.result.name if rep.result else args.racer
        console.print(f"Replay of {name} in room {room.code}: {rep.rules.name or rep.rules.variant}"
                      f", deal {rep.deal_number}")
        rows = [(str(m.version), fmt_clock(m.race_clock_ms), m.move) for m in rep.moves]
        print_table("Moves", ["#", "clock", "move"], rows)
        if rep.result is not None:
            console.print(f"result: {status_text(rep.result.status)}, "
                          f"{rep.result.foundation_cards} cards, {rep.result.moves} moves")
        console.print(f"redeal key: {rep.redeal_key or '(revealed when the race is over)'}")
        return 0
    return run_command("replay", body)


def add_parser(sub: Subparsers) -> None:
    """Register ``rooms``, ``results`` and ``replay``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("rooms", help="list public rooms waiting for racers",
                       description="List the public rooms that are waiting for racers.",
                       epilog="examples:\n  lucie rooms\n  lucie rooms --server http://host:8000",
                       formatter_class=fmt)
    add_server_arg(p)
    p.set_defaults(func=_rooms)

    p = sub.add_parser("results", help="standings of a room",
                       description="Show a room's standings (final once the race is over).",
                       epilog="examples:\n  lucie results ABCD", formatter_class=fmt)
    p.add_argument("code", help="room code or id")
    add_server_arg(p)
    p.set_defaults(func=_results)

    p = sub.add_parser("replay", help="a racer's moves with race-clock times",
                       description="Print one racer's move log with race-clock times, and the "
                       "redeal key once the race is over (to verify the redeals).",
                       epilog="examples:\n  lucie replay ABCD alice\n"
                       "  lucie replay ABCD alice --json > alice.json",
                       formatter_class=fmt)
    p.add_argument("code", help="room code or id")
    p.add_argument("racer", help="racer name or id")
    p.add_argument("--json", action="store_true",
                   help="print the replay document as JSON (a replay file for lucie compare)")
    add_server_arg(p)
    p.set_defaults(func=_replay)
