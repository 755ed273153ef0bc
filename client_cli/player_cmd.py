"""``lucie me``: your player on a race server; ``lucie forget-me``: delete it.

Racing needs no player: ``lucie play`` and ``lucie join`` race under a name
and nothing is kept about you. A *player* keeps a rating per variant, your
figures and your race history across races: ``lucie me --create NAME``
creates one on the server and keeps its secret key in your configuration
folder (one file per server, readable by you only); from then on ``lucie
play`` and ``lucie join`` on that server race as NAME (``--anonymous`` races
without it). ``lucie me`` shows your ratings (provisional until 10 rated
races), races, wins, average foundation cards, best times, streaks, and a
chart of your rating after each rated race; ratings move after ranked races
with two or more players. ``lucie forget-me`` deletes the player on the
server (your archived races stay, under an anonymous name) and the key file.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import plotext as plt

from .api import ApiError, LucieClient
from .common import (
    Subparsers,
    add_server_arg,
    chart_width,
    console,
    doc_help,
    lucie_command,
    print_chart,
    print_table,
    resolved_server,
    say,
)
from .compare_cmd import fmt_time
from .player_common import (
    PROVISIONAL_NOTE,
    Worded,
    fmt_rating,
    fmt_when,
    run_player_command,
)
from .player_key import PlayerKey, load_key, remove_key, save_key

__all__ = ["add_parser", "profile_rows", "rating_chart"]


def profile_rows(profile: dict[str, Any]) -> list[tuple[str, ...]]:
    """The figures of a profile: one row per figure, one column per variant."""
    vs = profile["variants"]

    def row(label: str, fmt: Any) -> tuple[str, ...]:
        return (label, *(fmt(v) for v in vs))

    return [
        row("rating", lambda v: fmt_rating(v["rating"])),
        row("mu ± sigma", lambda v: f"{v['rating']['mu']:.1f} ± {v['rating']['sigma']:.1f}"),
        row("rated races", lambda v: str(v["rating"]["rated_races"])),
        row("races", lambda v: str(v["races"])),
        row("wins", lambda v: str(v["wins"])),
        row("average cards", lambda v: f"{v['average_foundation_cards']:.1f}"),
        row("best time (won)", lambda v: fmt_time(v["best_time_ms"])),
        row("win streak (best)", lambda v: f"{v['streak']} ({v['best_streak']})"),
        row("last race", lambda v: fmt_when(v["last_race_at_ms"])),
    ]


def _ticks(n: int) -> list[int]:
    """Whole-number ticks from 0 to ``n`` (at most about 8)."""
    step = next((s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500) if n // s <= 7), 1000)
    return list(range(0, n + 1, step))


def rating_chart(histories: list[tuple[str, list[dict[str, Any]]]], width: int = 78,
                 height: int = 14, color: bool = False) -> str:
    """Each variant's rating after each of its rated races, from the new
    player's 0 (race 0), as a terminal chart (text; ANSI colours only if
    ``color``)."""
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("pro" if color else "clear")
    longest = 1
    for (variant, points), marker in zip(histories, ("braille", "dot", "hd", "fhd") * 3,
                                         strict=False):
        ys = [0.0, *(p["rating"] for p in points)]
        longest = max(longest, len(ys) - 1)
        plt.plot(list(range(len(ys))), ys, label=variant, marker=marker)
    ticks = _ticks(longest)
    plt.xticks(ticks, [str(t) for t in ticks])
    plt.title("rating (mu − 3 sigma) after each rated race")
    plt.xlabel("rated races")
    plt.ylabel("rating")
    chart: str = plt.build()
    plt.clear_figure()
    return chart if color else str(plt.uncolorize(chart))


def _need_key(url: str) -> PlayerKey:
    me = load_key(url)
    if me is None:
        raise ApiError("client/no_player", f"you race anonymously on {url} (no player key "
                       f"here); create your player with: {lucie_command()} me --create NAME")
    return me


def _create(args: argparse.Namespace, url: str) -> int:
    have = load_key(url)
    if have is not None:
        raise ApiError("client/have_player", f"you are player {have.name} on {url} already "
                       f"(key in {have.path}); `{lucie_command()} forget-me` first to start "
                       "over")

    async def body() -> int:
        async with LucieClient(url) as client:
            made = await client.create_player(args.create)
        player = made["player"]
        try:
            path = save_key(url, player, made["key"])
        except OSError as exc:  # the key is shown once: give it to the user
            print(f"lucie me: created player {player['name']}, but could not store its key "
                  f"({exc}). Keep it safe, it is not shown again:\n{made['key']}",
                  file=sys.stderr)
            return 1
        say(f"Created player {player['name']} on {url}.")
        say(f"Your key is in {path} (readable by you only): `{lucie_command()} "
            f"play` and `{lucie_command()} join` race as {player['name']} from now "
            "on (--anonymous races without it).")
        say("Anyone with the key can race as you: keep the file private. "
            f"`{lucie_command()} forget-me` deletes the player.")
        return 0

    return run_player_command("me", url, body)


def _me(args: argparse.Namespace) -> int:
    url = resolved_server(args)
    try:
        if args.create is not None:
            return _create(args, url)
        me = _need_key(url)
    except ApiError as exc:
        print(f"lucie me: {exc.message}", file=sys.stderr)
        return 1

    async def body() -> int:
        async with LucieClient(url) as client:
            profile = await client.player(me.player_id, me.key)
            rated = [v["variant"] for v in profile["variants"]
                     if v["rating"]["rated_races"] and args.variant in (None, v["variant"])]
            histories = [(v, (await client.rating_history(me.player_id, v))["points"])
                         for v in rated]
        if args.variant is not None:
            profile["variants"] = [v for v in profile["variants"]
                                   if v["variant"] == args.variant]
        p = profile["player"]
        n = profile["races"]
        say(f"{p['name']} on {url} · player since {fmt_when(p['created_at_ms'])} · "
            f"{n} archived race{'s' if n != 1 else ''}")
        notice = profile.get("fair_play")
        if notice:  # a moderator's `assisted` verdict (docs/fair-play.md)
            say(f"Fair play: {notice['message']} ({fmt_when(notice['at_ms'])}; appeal: "
                f"{notice['appeal']})")
        if not profile["variants"]:
            say(f"No ranked race yet: race with `{lucie_command()} play` or "
                f"`{lucie_command()} join CODE` (as {p['name']}).")
            return 0
        print_table("Ratings and figures", ["", *(v["variant"] for v in profile["variants"])],
                    profile_rows(profile))
        histories = [(v, pts) for v, pts in histories if pts]
        if histories:
            print_chart(rating_chart(histories, width=chart_width(),
                                     color=console.is_terminal))
        elif notice:
            say("Your races are unrated since that verdict: no rating moves.")
        else:
            say("No rated race yet: a rating moves after each ranked race with two "
                "or more players; computer racers (bot-…) and anonymous racers do not "
                "count.")
        say(f"{PROVISIONAL_NOTE}. Your races: {lucie_command()} history")
        return 0

    return run_player_command("me", url, body, me)


def _confirm(question: str) -> bool:
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _forget(args: argparse.Namespace) -> int:
    url = resolved_server(args)
    try:
        me = _need_key(url)
    except ApiError as exc:
        print(f"lucie forget-me: {exc.message}", file=sys.stderr)
        return 1
    if not args.yes and not _confirm(
            f"Forget player {me.name} on {url}? Their ratings go, their archived races stay "
            "under an anonymous name, and the name is free again. This cannot be undone. "
            "[y/N] "):
        print("Nothing forgotten.")
        return 1

    async def body() -> int:
        async with LucieClient(url) as client:
            try:
                await client.forget_player(me.player_id, me.key)
            except ApiError as exc:
                if exc.code == "player/invalid_key":
                    raise Worded(exc.code, f"the key in {me.path} is not the key of player "
                                   f"{me.name} on {url}; nothing was deleted (delete that "
                                   "file yourself if it is stale)") from None
                if exc.code != "player/not_found":
                    raise
                remove_key(url)
                say(f"{url} had no player {me.name} any more; removed the stale key "
                    f"file {me.path}.")
                return 0
        remove_key(url)
        say(f"Forgot player {me.name} on {url}, and removed the key file {me.path}. "
            "You race anonymously now.")
        return 0

    return run_player_command("forget-me", url, body, me)


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie me`` and ``lucie forget-me``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("me", help="your player: create it, or see your ratings and figures",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie me --create Ada\n  lucie me\n"
                       "  lucie me --variant trefoil --server http://192.168.1.5:8000",
                       formatter_class=fmt)
    p.add_argument("--create", metavar="NAME",
                   help="create your player NAME on the server and keep its key here")
    p.add_argument("--variant", default=None, help="show this variant only")
    add_server_arg(p)
    p.set_defaults(func=_me)

    f = sub.add_parser("forget-me", help="delete your player on the server and its key here",
                       description="Delete your player on the server (ratings and figures go; "
                       "archived races stay, under an anonymous name; the name is free again) "
                       "and remove the key file. Asks first, unless --yes.",
                       epilog="examples:\n  lucie forget-me\n  lucie forget-me --yes",
                       formatter_class=fmt)
    f.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add_server_arg(f)
    f.set_defaults(func=_forget)
