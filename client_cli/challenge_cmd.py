"""``lucie challenge [--variant V]``, ``lucie challenge CODE``, ``lucie duel``
and ``lucie challenges`` (docs/protocol.md, "Challenges and duels").

A challenge is a deal played by several players one at a time, each once; a
duel is a rated one, played later by a rival of a near rating the server
finds. Your attempt is a room of one racer on the full-screen board of
``lucie play`` (type ``ready`` and Enter to start it); the results, the deal
and the comparison show once you have played. As your player only (``lucie
me --create NAME``): a challenge needs a player key.

The calls go through :class:`client_cli.rest.LucieClient`'s request method
(its answers are read as plain JSON here).
"""

from __future__ import annotations

import argparse
from typing import Any

from server.rules import DEFAULT_VARIANT, VARIANTS

from .api import ApiError, JoinedRoom, LucieClient, RacerView
from .common import Subparsers, add_server_arg, lucie_command_for, print_table, run_command
from .common import resolved_server as server_of
from .play_cmd import run_race
from .player_key import PlayerKey, load_key

__all__ = ["add_parser", "challenge_seat", "list_challenges"]


def _need(player: PlayerKey | None, url: str) -> PlayerKey:
    if player is None:
        raise ApiError("client/no_player", "challenges are played as a player: "
                       f"{lucie_command_for(url, 'me', '--create', 'NAME')} first")
    return player


async def challenge_seat(client: LucieClient, args: argparse.Namespace,
                         player: PlayerKey | None) -> tuple[JoinedRoom, str]:
    """The attempt ``args`` ask for (a new challenge, ``CODE``'s, or a duel) →
    the seat and its room's code; says what it is and how to share it."""
    me = _need(player, client.url)
    if args.command == "duel":
        got = await client._call("POST", "/duels", token=me.key,
                                 json={"variant": args.variant})
    elif getattr(args, "code", None):
        got = await client._call("POST", f"/challenges/{args.code}/attempts", token=me.key)
    else:
        got = await client._call("POST", "/challenges", token=me.key,
                                 json={"variant": args.variant, "open_to": "link"})
    challenge = got["challenge"]
    if args.command == "duel":
        found = ("someone's duel: beat their result" if got["matched"]
                 else "a fresh duel: a rival of your rating plays it later")
        print(f"Duel {challenge['code']} ({challenge['variant']}), {found}.", flush=True)
    else:
        print(f"Challenge {challenge['code']} ({challenge['variant']}), {challenge['played']} "
              f"played it so far. Others play it with:  "
              f"{lucie_command_for(client.url, 'challenge', challenge['code'])}", flush=True)
    print("Type ready and Enter on the board to start your attempt (once only).", flush=True)
    joined = JoinedRoom(racer=RacerView.model_validate(got["racer"]), token=got["token"])
    return joined, str(got["room"]["code"])


def _result(c: dict[str, Any], me: str) -> str:
    if c["state"] == "open":
        return "waiting" if (c["you"] or {}).get("finished") else "to play"
    if c["state"] != "settled" or c["result"] is None:
        return {"void": "void (expired)", "closed": "closed"}.get(c["state"], str(c["state"]))
    r = c["result"]
    if r["winner"] is None:
        return "draw"
    won = "won" if r["winner"] == me else "lost"
    if r["decided_by"] == "tiebreak":
        return f"{won} on the tie-break"
    by = (f"{r['margin_cards']} cards" if r["decided_by"] == "foundation_cards"
          else f"{(r['margin_ms'] or 0) / 1000:.1f} s")
    return f"{won} by {by}"


async def list_challenges(url: str) -> int:
    """Print the stored player's challenges (waiting, settled, expired) and what
    they are told; 0, or 1 without a player."""
    me = _need(load_key(url), url)
    async with LucieClient(url) as client:
        mine = await client._call("GET", f"/players/{me.player_id}/challenges", token=me.key)
        told = await client._call("GET", f"/players/{me.player_id}/notifications", token=me.key)
    kinds = {"rated": "duel", "tiebreak": "tie-break"}
    rows = [[c["code"], kinds.get(c["open_to"], "link"), c["variant"],
             str(c["played"]), _result(c, me.player_id)] for c in mine["challenges"]]
    print_table(f"Challenges of {me.name}", ["code", "kind", "variant", "played", "result"],
                rows)
    for note in told["notifications"]:
        if not note["read"]:
            print(f"  new: {note['message']}")
    return 0


def add_parser(sub: Subparsers) -> None:
    """Register ``challenge``, ``duel`` and ``challenges``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "challenge", help="play a challenge: a new one (share its code) or CODE's",
        description="Without CODE: make a challenge (a random deal of the variant) and play "
        "it at once; others play the same deal later with its code, each once. With CODE: "
        "your attempt at that challenge. Results show once you played (lucie challenges).",
        epilog="examples:\n  lucie challenge\n  lucie challenge --variant trefoil\n"
        "  lucie challenge H6HCAS7E", formatter_class=fmt)
    p.add_argument("code", nargs="?", default=None, help="a challenge's code (or id)")
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=list(VARIANTS))
    add_server_arg(p)
    p.set_defaults(func=run_race, command="challenge", bots=0, embedded=False,
                   seat_with=challenge_seat, name=None, anonymous=False)
    d = sub.add_parser(
        "duel", help="a rated duel: a near-rated player's deal, or a fresh one",
        description="Play a rated duel: the deal someone of a near rating played (beat "
        "their result), or a fresh deal a rival of your rating plays later. Settled and "
        "rated when both played; lucie challenges shows the result.", formatter_class=fmt)
    d.add_argument("--variant", default=DEFAULT_VARIANT, choices=list(VARIANTS))
    add_server_arg(d)
    d.set_defaults(func=run_race, command="duel", bots=0, embedded=False,
                   seat_with=challenge_seat, name=None, anonymous=False)
    c = sub.add_parser("challenges", help="your challenges and duels: waiting, settled, "
                       "expired; and what you are told")
    add_server_arg(c)
    c.set_defaults(func=lambda a: run_command("challenges", lambda: list_challenges(
        server_of(a))))
