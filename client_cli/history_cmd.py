"""``lucie history [NAME]``: a player's races; ``lucie h2h NAME [OTHER]``: two players
over time.

Both read the server's archive, where a race shows about a second after it
ends, newest first, a page at a time (``--limit`` races, default 20). On a
terminal, Enter shows the next (older) page; ``--all`` prints every page.
Without NAME, ``lucie history`` shows your own races (your player: ``lucie
me``). ``lucie h2h NAME`` is you against NAME, ``lucie h2h NAME OTHER`` NAME
against OTHER: wins, losses and ties (a better rank wins), the average
foundation card difference, and every race both raced, each with the ``lucie
compare`` command that shows the two games head to head.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from .api import ApiError, LucieClient
from .board.model import fmt_clock, status_text
from .common import (
    Subparsers,
    add_server_arg,
    compact_width,
    console,
    doc_help,
    int_in,
    lucie_command,
    print_table,
    resolved_server,
    say,
)
from .player_common import fmt_when, run_player_command
from .player_key import PlayerKey, load_key

__all__ = ["NARROW_RACE_COLUMNS", "RACE_COLUMNS", "SHARED_COLUMNS", "add_parser",
           "compare_command", "race_rows", "shared_rows", "short_variant"]

Page = dict[str, Any]


RACE_COLUMNS = ["ended", "room", "variant", "deal", "rank", "cards", "reached", "status",
                "points"]
NARROW_RACE_COLUMNS = [c for c in RACE_COLUMNS if c != "reached"]
"""The columns of a narrow terminal's table (:func:`race_rows`, ``narrow``)."""
SHARED_COLUMNS = ["#", "ended", "room", "variant", "deal", "result", "ranks", "cards"]

_FILLERS = frozenset({"a", "and", "in", "of", "the", "with"})
SHORT_VARIANT = 19
"""The longest variant name a narrow table shows (``three-shuffles-draw``)."""


def short_variant(variant: str, most: int = SHORT_VARIANT) -> str:
    """``variant`` in at most ``most`` characters: without its filler words
    (``three-shuffles-and-a-draw`` → ``three-shuffles-draw``), then cut."""
    if len(variant) <= most:
        return variant
    words = [w for w in variant.split("-") if w not in _FILLERS] or [variant]
    short = "-".join(words)
    return short if len(short) <= most else short[:most - 1] + "…"


def race_rows(races: list[dict[str, Any]], *, narrow: bool = False) -> list[tuple[str, ...]]:
    """Table rows of a page of a player's races; ``narrow``: the columns of
    :data:`NARROW_RACE_COLUMNS`, the variant shortened, unranked as ``-``."""
    rows: list[tuple[str, ...]] = []
    for r in races:
        row = [fmt_when(r["ended_at_ms"], short=True), r["room_code"],
               short_variant(r["variant"]) if narrow else r["variant"],
               str(r["deal_number"]), f"{r['rank']}/{r['racers']}",
               str(r["foundation_cards"]), fmt_clock(r["reach_time_ms"]), status_text(r["status"]),
               str(r["points"]) if r["ranked"] else "-" if narrow else "unranked"]
        if narrow:
            del row[RACE_COLUMNS.index("reached")]
        rows.append(tuple(row))
    return rows


def compare_command(path: str, server: str | None = None) -> str:
    """The ``lucie compare`` command line of a comparison path
    (``/api/v1/rooms/{room}/compare/{a}/{b}``)."""
    parts = path.strip("/").split("/")
    ids = [parts[-4], parts[-2], parts[-1]]
    words = [lucie_command(), "compare", *(["--server", server] if server else []),
             *(["--"] if any(i.startswith("-") for i in ids) else []), *ids]
    return shlex.join(words)  # ids may start with "-": after "--", never options


def shared_rows(shared: list[dict[str, Any]], first: int = 1, *,
                narrow: bool = False) -> list[tuple[str, ...]]:
    """Table rows of a page of shared races (numbered from ``first``);
    ``narrow``: the variant shortened (:func:`short_variant`)."""
    return [(str(i), fmt_when(s["ended_at_ms"], short=True), s["room_code"],
             short_variant(s["variant"]) if narrow else s["variant"],
             str(s["deal_number"]), s["result"], f"{s['rank_a']} vs {s['rank_b']}",
             f"{s['foundation_cards_a']} vs {s['foundation_cards_b']}")
            for i, s in enumerate(shared, first)]


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _more() -> bool:
    try:
        return input("Enter: older races · q: stop ").strip().lower() not in ("q", "quit")
    except EOFError:
        return False


async def _paged(fetch: Callable[[str | None], Awaitable[Page]], show: Callable[[Page], None],
                 *, items: str, all_pages: bool, more_hint: str) -> None:
    """Show pages of ``items`` until the last or until the user stops; not on a
    terminal, the first page only (with ``more_hint``); ``all_pages``: every
    page, shown as one."""
    page = await fetch(None)
    if all_pages:
        merged = page
        while page["next"]:
            page = await fetch(page["next"])
            merged = {**merged, items: merged[items] + page[items], "next": page["next"]}
        show(merged)
        return
    show(page)
    while page["next"]:
        if not _interactive():
            say(more_hint)
            break
        if not _more():
            break
        page = await fetch(page["next"])
        show(page)


def _me_or(me: PlayerKey | None, usage: str) -> str:
    """Your player id; without a player: an error that says ``usage``."""
    if me is None:
        raise ApiError("client/no_player", f"you have no player on this server: {usage}, or "
                       f"create yours with: {lucie_command()} me --create NAME")
    return me.player_id


def _history(args: argparse.Namespace) -> int:
    url = resolved_server(args)
    try:
        me = load_key(url)
        who = args.name or _me_or(me, "give a player NAME")
    except ApiError as exc:
        print(f"lucie history: {exc.message}", file=sys.stderr)
        return 1
    limit = 100 if args.all else args.limit

    async def body() -> int:
        count = 0
        shown = args.name or (me.name if me else who)  # until the server names the player

        async def fetch(client: LucieClient, cursor: str | None) -> Page:
            nonlocal shown
            page: Page = await client.player_races(who, limit, cursor)
            if cursor is None:  # the player's name as the server stores it
                shown = (page["races"][0].get("name", shown) if page["races"]
                         else (await client.player(who))["player"]["name"])
            return page

        def show(page: Page) -> None:
            nonlocal count
            if not page["races"] and not count:
                say(f"{shown} has no archived race on {url} yet (a race shows "
                    "here about a second after it ends).")
                return
            title = f"Races of {shown} on {url}, newest first" if not count else "Older races"
            count += len(page["races"])
            rows = race_rows(page["races"])
            narrow = compact_width(RACE_COLUMNS, rows) > console.width  # it would cut
            if narrow:  # what matters least goes, one space apart: 80 columns
                rows = race_rows(page["races"], narrow=True)
            print_table(title, NARROW_RACE_COLUMNS if narrow else RACE_COLUMNS, rows,
                        compact=True, tight=narrow)
            if narrow and not all(r["ranked"] for r in page["races"]):
                say("points -: an unranked race")

        async with LucieClient(url) as client:
            await _paged(lambda cursor: fetch(client, cursor), show, items="races",
                         all_pages=args.all, more_hint=f"Older races: {lucie_command()} history"
                         + (f" {shlex.quote(args.name)}" if args.name else "") + " --all")
        return 0

    return run_player_command("history", url, body, me)


def _h2h(args: argparse.Namespace) -> int:
    url = resolved_server(args)
    try:
        me = load_key(url)
        a = args.name if args.other else _me_or(me, "give two players (NAME OTHER)")
        b = args.other or args.name
    except ApiError as exc:
        print(f"lucie h2h: {exc.message}", file=sys.stderr)
        return 1
    limit = 100 if args.all else args.limit

    async def body() -> int:
        numbered: list[str] = []

        def show(page: Page) -> None:
            if page["a"]["id"] == page["b"]["id"]:
                raise ApiError("client/usage", f"{page['a']['name']} against themselves? Give "
                               "another player")
            if not numbered:
                pa, pb = page["a"]["name"], page["b"]["name"]
                n, diff = page["races"], page["average_card_difference"]
                say(f"{pa} vs {pb} on {url}: {n} shared race{'s' if n != 1 else ''}"
                    f" · {pa}: {_count(page['wins'], 'win')}, "
                    f"{_count(page['losses'], 'loss')}, {_count(page['ties'], 'tie')}"
                    + ("" if diff is None else
                       f" · average card difference {diff:+.1f} ({pa} − {pb})"))
                if not n:
                    return
            rows = shared_rows(page["shared"], len(numbered) + 1)
            narrow = compact_width(SHARED_COLUMNS, rows) > console.width  # it would cut
            if narrow:
                rows = shared_rows(page["shared"], len(numbered) + 1, narrow=True)
            numbered.extend(compare_command(s["comparison"], args.server)
                            for s in page["shared"])
            print_table("Shared races, newest first" if len(rows) == len(numbered)
                        else "Older shared races",
                        SHARED_COLUMNS, rows, compact=True, tight=narrow)
            say("Each race head to head:")
            for i, line in enumerate(numbered[-len(rows):], len(numbered) - len(rows) + 1):
                console.print(f"  #{i}  {line}", markup=False, soft_wrap=True)  # one line

        async with LucieClient(url) as client:
            await _paged(lambda cursor: client.versus(a, b, limit, cursor), show,
                         items="shared", all_pages=args.all,
                         more_hint="Older shared races: add --all")
        return 0

    return run_player_command("h2h", url, body, me)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("s") else "s")


def add_parser(sub: Subparsers) -> None:
    """Register ``lucie history`` and ``lucie h2h``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("history", help="a player's races, newest first",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie history\n  lucie history Ada --limit 50\n"
                       "  lucie history Ada --all", formatter_class=fmt)
    p.add_argument("name", nargs="?", help="player name or id (default: you)")
    _paging(p)
    p.set_defaults(func=_history)

    h = sub.add_parser("h2h", help="two players over time: wins, losses, shared races",
                       description=doc_help(__doc__),
                       epilog="examples:\n  lucie h2h Bob          (you against Bob)\n"
                       "  lucie h2h Ada Bob\n  lucie h2h Bob --all", formatter_class=fmt)
    h.add_argument("name", help="the other player (with OTHER: the first player)")
    h.add_argument("other", nargs="?", help="the second player (default: NAME against you)")
    _paging(h)
    h.set_defaults(func=_h2h)


def _paging(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=int_in(1, 100), default=20,
                   help="races per page, 1–100 (default 20)")
    p.add_argument("--all", action="store_true", help="every page at once, no questions")
    add_server_arg(p)
