"""``lucie moderate``: the fair-play moderation queue and verdicts, for a server's
moderators (docs/fair-play.md, "Moderation").

The server's ``LUCIE_MODERATOR_TOKEN`` gives each moderator a token; pass
yours as ``--token`` or in ``$LUCIE_MODERATOR_TOKEN`` (your token alone, or
your ``name:token`` pair; the server's list of several is refused — the
environment keeps it out of your shell history). The server records your
token's name with every verdict.

- ``lucie moderate`` (or ``lucie moderate queue``): the players whose
  assessed rated races reach ``review``, ``likely_assisted`` first, with
  their score, reasons and races (links to replays and comparisons);
- ``lucie moderate show PLAYER``: one player's file — their verdict now,
  every assessed race with its signals (critical positions found, hard
  layouts solved, solver loss in cards, agreement, undos, each layout's
  cards reached / best (the plain strategy's), mean gap and its variation,
  share of actions under 250 ms, focus losses) and its links in full (the
  race, the replay, the comparison with the winner), and the verdicts so far;
- ``lucie moderate verdict PLAYER cleared|assisted --note TEXT``: record a
  verdict. ``assisted`` takes the player's races of the window out of the
  ratings (their rivals are refunded) and the leaderboards, and makes them
  race unrated from now on; it asks for confirmation unless ``--yes``.
"""

from __future__ import annotations

import argparse
import os
import sys
import unicodedata
from typing import Any
from urllib.parse import quote

from .api import ApiError, LucieClient
from .common import (
    Subparsers,
    add_server_arg,
    doc_help,
    print_table,
    resolved_server,
    run_command,
    say,
)
from .player_common import fmt_when

__all__ = ["add_parser", "queue_rows"]

TOKEN_VARIABLE = "LUCIE_MODERATOR_TOKEN"


def _token(args: argparse.Namespace) -> str:
    """``--token``, else ``$LUCIE_MODERATOR_TOKEN`` holding one token (bare, or one
    ``name:token`` pair as the server's setting writes it)."""
    if args.token:
        return str(args.token)
    text = os.environ.get(TOKEN_VARIABLE, "").strip()
    if "," in text:
        raise ApiError("client/usage", f"${TOKEN_VARIABLE} holds several moderators' tokens "
                       "(the server's setting): pass yours with --token TOKEN")
    token = text.rpartition(":")[2].strip()
    if not token:
        raise ApiError("client/usage", f"a moderator token is needed: --token TOKEN or "
                       f"${TOKEN_VARIABLE}")
    return token


def _plain(text: object) -> str:
    """Server text (notes, names, reasons) safe for a terminal: control and
    format characters (escape sequences, bidi overrides, NUL) become ``?``."""
    return "".join("?" if unicodedata.category(c)[0] == "C" else c for c in str(text))


def _words(exc: ApiError) -> ApiError:
    if exc.code == "request/not_found":
        return ApiError(exc.code, "this server has no moderation (its operator sets "
                        "LUCIE_MODERATOR_TOKEN to turn it on)")
    if exc.code in ("auth/invalid_token", "auth/missing"):
        return ApiError(exc.code, "the server does not know that moderator token")
    return exc


def queue_rows(queue: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """One row per queued player: name, id, verdict, score, races read, reasons."""
    return [(_plain(e["player"]["name"]), e["player"]["id"], e["verdict"],
             f"{e['score']:.1f}", str(e["races_read"]),
             _plain("; ".join(e["reasons"][1:3]))) for e in queue]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _races(races: list[dict[str, Any]]) -> None:
    """Each assessed race: its score and every signal, then its links in full."""
    rows = []
    for r in races:
        g = r["signals"]
        layouts = " ".join(f"{lay['reached']}/{lay['best']}({lay['yardstick']})"
                           for lay in g.get("layouts", []))
        gap = g.get("gap_mean_ms")
        rows.append((fmt_when(r["ended_at_ms"]), r["room"], f"{r['score']:.1f}",
                     f"{g.get('found', 0)}/{g.get('critical', 0)}",
                     f"{g.get('hard_solved', 0)}/{g.get('hard_layouts', 0)}",
                     str(g.get("loss_cards", 0)), _pct(g.get("agreement")),
                     str(g.get("undos", 0)), layouts or "-",
                     "-" if gap is None else f"{gap / 1000:.1f}s",
                     "-" if g.get("gap_cv") is None else f"{g['gap_cv']:.2f}",
                     _pct(g.get("fast_share")), str(g.get("focus_losses", 0))))
    print_table("Assessed races (newest first)",
                ["ended", "room", "score", "found", "hard", "loss", "agree", "undos",
                 "layouts reached/best(plain)", "gap", "cv", "<250ms", "focus"], rows)
    for r in races:
        links = r["links"]
        say(f"{r['room']}: race {links['race']} · replay {links['replay']}"
            + (f" · vs winner {links['compare']}" if links.get("compare") else ""))


def _run(args: argparse.Namespace) -> int:
    async def body() -> int:
        token = _token(args)
        async with LucieClient(resolved_server(args)) as client:
            try:
                if args.action == "show":
                    return _show(await client.get_json(
                        f"/moderation/players/{quote(args.player, safe='')}", token))
                if args.action == "verdict":
                    return await _verdict(client, args, token)
                got = await client.get_json("/moderation/queue", token)
            except ApiError as exc:
                raise _words(exc) from None
        if not got["queue"]:
            say(f"Nobody to review (a verdict reads {got['min_races']} or more assessed "
                "rated races).")
            return 0
        print_table("Fair-play queue", ["player", "id", "verdict", "score", "races",
                                        "why"], queue_rows(got["queue"]))
        say("Read one: lucie moderate show PLAYER · decide: lucie moderate verdict PLAYER "
            "cleared|assisted --note TEXT")
        return 0

    return run_command("moderate", body)


def _show(file: dict[str, Any]) -> int:
    p, j = file["player"], file["judgement"]
    now = j["verdict"] if j["ready"] else "no verdict yet (too few races)"
    say(f"{_plain(p['name'])} ({p['id']}) · {now}: {j['score']:.1f} points over "
        f"{j['races_read']} races" + (f" · standing: {file['fair_play']}"
                                      if file["fair_play"] else ""))
    for reason in j["reasons"]:
        say(f"  - {_plain(reason)}")
    if file["races"]:
        _races(file["races"])
    for v in file["verdicts"]:
        say(f"{fmt_when(v['at_ms'])}: {v['verdict']} by {_plain(v['moderator'])} — "
            f"{_plain(v['note'])}")
    return 0


async def _verdict(client: LucieClient, args: argparse.Namespace, token: str) -> int:
    if not args.note:
        raise ApiError("client/usage", "a verdict needs --note TEXT (why, for the record)")
    if args.verdict == "assisted" and not args.yes:
        try:
            answer = input(f"Record `assisted` for {args.player}? Their recent rated races "
                           "leave the ratings and leaderboards and they race unrated from "
                           "now on. [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            say("Nothing recorded.")
            return 1
    done = await client.post_json(f"/moderation/players/{quote(args.player, safe='')}/verdict",
                                  {"verdict": args.verdict, "note": args.note}, token)
    say(f"Recorded: {_plain(done['player']['name'])} {done['verdict']} by "
        f"{_plain(done['moderator'])}"
        + (f" · {done['races_removed']} races out of ratings and boards, "
           f"{len(done['refunded'])} players' ratings recomputed"
           if done["verdict"] == "assisted" else ""))
    return 0


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie moderate``."""
    p = sub.add_parser("moderate", help="fair-play queue and verdicts (moderators)",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie moderate\n  lucie moderate show ada\n"
                       "  lucie moderate verdict ada assisted --note \"solver line in 9 of "
                       "10 races\"",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", nargs="?", default="queue", choices=("queue", "show", "verdict"),
                   help="queue (default), show PLAYER, verdict PLAYER VERDICT")
    p.add_argument("player", nargs="?", metavar="PLAYER", help="player id or name")
    p.add_argument("verdict", nargs="?", choices=("cleared", "assisted"),
                   help="the verdict (with `verdict`)")
    p.add_argument("--note", help="why (kept with the verdict)")
    p.add_argument("--yes", action="store_true", help="do not ask before `assisted`")
    p.add_argument("--token", help=f"your moderator token (default ${TOKEN_VARIABLE})")
    add_server_arg(p)
    p.set_defaults(func=_check_then_run)


def _check_then_run(args: argparse.Namespace) -> int:
    if args.action in ("show", "verdict") and not args.player:
        print(f"lucie moderate {args.action}: name a PLAYER", file=sys.stderr)
        return 2
    if args.player is not None and ("/" in args.player or args.player.strip(".") == ""):
        print(f"lucie moderate {args.action}: {args.player!r} is not a player id or name",
              file=sys.stderr)
        return 2
    if args.action == "verdict" and not args.verdict:
        print("lucie moderate verdict: give the VERDICT, cleared or assisted", file=sys.stderr)
        return 2
    return _run(args)
