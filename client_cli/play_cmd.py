"""``lucie play``, ``lucie join CODE``, ``lucie watch CODE``: race on the full-screen board."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import sys
from typing import TYPE_CHECKING

from server.rules import DEFAULT_VARIANT, VARIANTS
from server.solver.levels import LEVELS, Level, level_of

from .api import ApiError, JoinedRoom, LucieClient, StandingsView
from .bot import bot_levels_of, bots_option, run_bot
from .bot_cmd import free_bot_names
from .common import (
    Subparsers,
    add_server_arg,
    detach_std_streams,
    lucie_command_for,
    non_negative_float,
    non_negative_int,
    on_hangup,
    positive_int,
    resolved_server,
    room_link,
    start_server_hint,
)
from .embedded import ensure_server
from .play_report import exit_report, resigning_with_the_server, standings_of, wait_for_race_over
from .player_common import anonymous_tip, join_as_player, stored_player

if TYPE_CHECKING:
    from .board.app import RaceApp
    from .board.state import Seat

__all__ = ["add_parser", "add_race_options", "default_name", "join_room", "race", "run_race"]


def default_name() -> str:
    try:
        return getpass.getuser()[:24] or "racer"
    except (OSError, KeyError):
        return "racer"


def _races(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 2 <= value <= 9:
        raise argparse.ArgumentTypeError("a series has 2 to 9 races")
    return value


def _deal(text: str) -> int | str:
    if text in ("random", "daily"):
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a deal number, 'random' or 'daily'") from None


async def join_room(client: LucieClient, room: str, name: str | None) -> JoinedRoom:
    """Join ``room`` as ``name``; ``None`` means the default name (the login).

    The default name, when taken (a second terminal on the same machine),
    becomes ``login-2``, ``login-3``…; a name the user gave that is taken
    fails with a message that says to pick another with ``--name``.
    """
    if name is not None:
        try:
            return await client.join(room, name)
        except ApiError as exc:
            if exc.code == "racer/name_taken":
                raise ApiError(exc.code, f"the name {name!r} is taken in this room; pick "
                               "another with --name NAME", status=exc.status) from None
            raise
    base = default_name()
    for n in range(1, 100):
        suffix = "" if n == 1 else f"-{n}"
        try:
            return await client.join(room, base[:24 - len(suffix)] + suffix)
        except ApiError as exc:
            if exc.code != "racer/name_taken":
                raise
    raise ApiError("racer/name_taken", f"every name like {base!r} is taken in this room; "
                   "pick one with --name NAME")


async def race(args: argparse.Namespace, url: str, *, hosting: bool = False) -> int:
    """Create or join the room the arguments ask for, then run the board.

    ``hosting``: this process started the (embedded) server the room lives
    on; after the board closes, it keeps the server up until the race is over
    for the racers but the room's bots (Ctrl-C stops it sooner). The
    standings are printed at the end of any race.

    ``--bots N`` of a room this creates are the server's (room option ``bots``:
    ``--level`` says which, a mix by default): they race on when this racer
    quits, and race every race of a series. In a room this joins (``--code``)
    or a rematch room, this process runs bots of those names and levels
    (:func:`client_cli.bot.run_bot`): they stop with it.
    """
    from .board.app import RaceApp  # Textual loads only for the board
    from .board.state import Seat

    bots: list[asyncio.Task[object]] = []  # this process's bots
    own_bots: frozenset[str] = frozenset()
    levels: dict[str, Level] = {}  # their levels, by name
    think = 1.6 if getattr(args, "bot_think", None) is None else args.bot_think  # ours
    async with LucieClient(url) as client:
        host_token = None
        code: str | None = getattr(args, "code", None)
        if getattr(args, "watch", False) and code is not None:
            room = await client.get_room(code)
            seat = Seat(url, room.id)
        else:
            player = stored_player(args, url)
            seat_with = getattr(args, "seat_with", None)  # lucie quick: quick_cmd
            if seat_with is not None:
                joined, code = await seat_with(client, args, player)
            else:
                if code is None:
                    created = await client.create_room(
                        variant=args.variant, deal=args.deal, capacity=args.capacity,
                        time_limit_s=args.time_limit, countdown_s=args.countdown,
                        visibility="private" if args.private else "public",
                        redeals=args.redeals, merci=args.merci, undo=args.undo,
                        series=args.series, series_break_s=args.series_break,
                        bots=bots_option(args.bots, args.level))
                    code, host_token = created.room.code, created.host_token
                    own_bots = frozenset(r.name for r in created.room.racers)  # the server's
                    levels = {r.name: level_of(r.bot_level or "club") for r in created.room.racers}
                    print(f"Room {code} (deal {created.room.deal_number}). A second player "
                          f"joins with:  {lucie_command_for(url, 'join', code)}  "
                          f"Browser: {room_link(url, code)}", flush=True)
                joined = await (join_room(client, code, args.name) if player is None
                                else join_as_player(client, code, player, host_token))
            assert code is not None
            room = await client.get_room(code, joined.token)  # a challenge attempt: needs it
            seat = Seat(url, room.id, joined.racer.id, joined.token, host_token)
            if not own_bots and args.bots:  # a room it joins: bots of this process
                names = free_bot_names({r.name for r in room.racers}, args.bots)
                levels = dict(zip(names, bot_levels_of(args.bots, args.level), strict=True))
                own_bots = frozenset(names)
                bots = [asyncio.create_task(_quiet_bot(url, room.id, name, think, levels[name]))
                        for name in sorted(own_bots)]
    if host_token and getattr(args, "start_in", None) is not None:
        bots.append(asyncio.create_task(_start_later(url, room.id, host_token, args.start_in)))
    while True:
        app = RaceApp(seat, hosts_server=hosting, own_bots=own_bots)
        with on_hangup(app.lose_terminal):
            status = await _run_board(app, url, seat, seat.room, seat.host_token, bots,
                                      hosting=hosting)
        if app.next_seat is None or app.terminal_gone:
            await _stop(bots)
            return status
        series = app.next_seat == app.series_seat
        seat = app.next_seat  # a rematch or a series' next race: its board next
        if not series:  # the bots of a series go on by themselves (client_cli.bot)
            await _stop(bots)
            # this process's bots take seats too (by name: their old tokens were the bots')
            bots = [asyncio.create_task(_quiet_bot(url, seat.room, name, think,
                                                   levels.get(name, "club")))
                    for name in sorted(own_bots)]


async def _run_board(app: RaceApp, url: str, seat: Seat, room_id: str, host_token: str | None,
                     bots: list[asyncio.Task[object]], *, hosting: bool) -> int:
    """Run the board, stop the bots, print the standings; the board's exit status."""
    try:
        result = await app.run_async()
    finally:
        if app.next_seat is None or app.next_seat != app.series_seat or app.terminal_gone:
            await _stop(bots)  # (a series' bots race on: client_cli.bot follows it)
        if host_token and app.room is not None and app.room.state == "waiting":
            async with LucieClient(url) as client:  # the host left before the start
                with contextlib.suppress(ApiError):
                    await client.close(room_id, host_token)
    if app.terminal_gone:
        detach_std_streams()  # what follows prints to nobody, and must not fail
    fetched: StandingsView | None = None
    fetch_failed = False
    started = app.room is not None and app.room.state in ("countdown", "racing", "over")
    if not app.standings and started:  # no race_over seen: ask the server
        try:
            if hosting:  # the room's bots stop with the server (they resign)
                fetched = await wait_for_race_over(url, seat.room, ignore=app.own_bots)
            else:
                fetched = await standings_of(url, seat.room, seat.token)
        except ApiError:
            fetch_failed = True
    code = app.room.code if app.room else seat.room
    fetched, racing = resigning_with_the_server(fetched) if hosting and fetched else (fetched, [])
    exit_report(code, app.standings, fetched, fetch_failed, list(app.racers.values()),
                waiting=app.room is not None and app.room.state == "waiting")
    if racing:  # the room's bots, which stop with the server
        print(f"The local server stops now: {', '.join(racing)} resign"
              f"{'s' if len(racing) == 1 else ''}.", flush=True)
    return result or 0


async def _stop(bots: list[asyncio.Task[object]]) -> None:
    """Cancel the bots (each resigns, or leaves a room not started) and wait for them."""
    for task in bots:
        task.cancel()
    for task in bots:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def _quiet_bot(url: str, room: str, name: str, think_s: float, level: Level) -> object:
    with contextlib.suppress(ApiError):
        return await run_bot(url, room, name, think_s=think_s, level=level)
    return None



async def _start_later(url: str, room: str, host_token: str, delay_s: float) -> None:
    await asyncio.sleep(delay_s)
    async with LucieClient(url) as client:
        with contextlib.suppress(ApiError):
            await client.start(room, host_token)


def run_race(args: argparse.Namespace) -> int:
    url = resolved_server(args)
    if args.command == "play" and args.code is None and args.bots + 1 > args.capacity:
        print(f"lucie play: {args.bots} bots and you do not fit in a room of {args.capacity}; "
              "raise --capacity", file=sys.stderr)
        return 2
    embedded = getattr(args, "embedded", False)
    think: float | None = getattr(args, "bot_think", None)  # the embedded server's bots
    settings = {} if think is None else {"LUCIE_BOT_THINK_MS": str(round(think * 1000))}
    try:
        with ensure_server(url, allow_start=embedded, settings=settings) as hosting:
            if not hosting and think is not None and args.bots and args.code is None:
                print(f"lucie play: the bots are {url}'s: they move at its pace "
                      "(LUCIE_BOT_THINK_MS); --bot-think sets the pace of a server lucie "
                      "play starts", file=sys.stderr)
            status = asyncio.run(race(args, url, hosting=hosting))
        anonymous_tip(args, url)
        return status
    except ApiError as exc:
        print(f"lucie {args.command}: {exc.message}", file=sys.stderr)
        if exc.code == "client/unreachable" and not embedded:
            print(f"  {start_server_hint()}" + (
                " (or drop --no-embedded)" if args.command == "play" else
                " (or use `lucie play`, which starts one)"), file=sys.stderr)
        elif exc.code == "room/not_waiting" and getattr(args, "code", None):
            print("  watch it with:", lucie_command_for(url, "watch", args.code), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise  # the reader of our output went away: ``cli.main`` stops quietly
    except Exception as exc:  # the user-facing boundary: one line, never a traceback
        print(f"lucie {args.command}: unexpected error: {exc!r}", file=sys.stderr)
        return 1


def add_race_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default=None,
                   help="your display name when anonymous (default: your login, with -2, -3… "
                   "when taken); a player races under its own name")
    p.add_argument("--anonymous", action="store_true",
                   help="race without your player (lucie me): not rated, not in your history")
    add_server_arg(p)


def add_parser(sub: Subparsers) -> None:
    """Register ``play``, ``join`` and ``watch``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "play", help="create a room and race in it (optionally against bots)",
        description="Create a room, print its code for others to join, and race on the "
        "full-screen board. Starts a local server when none answers at the local URL. "
        "As host, type s and Enter to start the countdown.\n\nBoard keys: type a move and "
        "Enter: 3f (fan 3 to its foundation), 3 7 (fan 3 onto fan 7), r redeal, u undo, "
        "a autoplay, m 5H f (merci), q resign/quit. Mouse: click a card, then a highlighted "
        "place; double-click sends to the foundation. On the results: r rematch, q leave."
        "\n\nYou race as your player (rated, in your history) once you have one on the "
        "server: lucie me --create NAME.",
        epilog="examples:\n  lucie play --bots 3     (a novice, a club player, an expert)\n"
        "  lucie play --bots 3 --level club\n  lucie play --deal 123 --time-limit 600\n"
        "  lucie play --code ABCD         (join instead of creating)\n"
        "  lucie play --variant trefoil --bots 2 --start-in 10\n"
        "  lucie play --bots 2 --series 3     (three races; the table after each)",
        formatter_class=fmt)
    add_race_options(p)
    p.add_argument("--code", help="join this room instead of creating one")
    p.add_argument("--bots", type=non_negative_int, default=0, metavar="N",
                   help="computer racers to add (default 0); the server runs them: they "
                   "race on if you quit (with --code: this process runs them)")
    p.add_argument("--level", choices=["mix", *LEVELS], default="mix",
                   help="the bots' level: novice, club, expert, or mix (default: 3 bots are "
                   "one of each)")
    p.add_argument("--bot-think", type=non_negative_float, default=None, metavar="S",
                   help="bots' think-time unit: a club bot's median pause, seconds (default "
                   "1.6; novices think longer, experts less; the server's bots: for a server "
                   "lucie play starts)")
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=list(VARIANTS))
    p.add_argument("--deal", type=_deal, default="random",
                   help="deal number, 'random' (default) or 'daily'")
    p.add_argument("--time-limit", type=positive_int, default=900, metavar="S",
                   help="race time limit, seconds (default 900)")
    p.add_argument("--countdown", type=non_negative_int, default=3, metavar="S",
                   help="countdown before the start, seconds (default 3)")
    p.add_argument("--capacity", type=positive_int, default=8, help="most racers (default 8)")
    p.add_argument("--private", action="store_true", help="do not list the room publicly")
    p.add_argument("--redeals", type=non_negative_int, default=None,
                   help="override the variant's redeals")
    p.add_argument("--merci", action=argparse.BooleanOptionalAction, default=None,
                   help="allow the merci")
    p.add_argument("--undo", action=argparse.BooleanOptionalAction, default=None,
                   help="allow undo (default: allowed)")
    p.add_argument("--series", type=_races, default=None, metavar="N",
                   help="a series of N races (2-9) on new deals with the same racers; the "
                   "next race starts by itself after each one")
    p.add_argument("--series-break", type=non_negative_int, default=None, metavar="S",
                   help="seconds between two races of a series (default 20)")
    p.add_argument("--start-in", type=non_negative_float, default=None, metavar="S",
                   help="start the countdown by itself after S seconds")
    p.add_argument("--no-embedded", dest="embedded", action="store_false",
                   help="never start a local server")
    p.set_defaults(func=run_race, command="play", embedded=True)

    p = sub.add_parser("join", help="join a room by its code and race",
                       description="Join the room with this code and race on the board (as "
                       "your player when you have one: lucie me).",
                       epilog="examples:\n  lucie join ABCD\n  lucie join ABCD --name bob "
                       "--server http://192.168.1.5:8000", formatter_class=fmt)
    p.add_argument("code", help="room code (or id)")
    add_race_options(p)
    p.set_defaults(func=run_race, command="join", bots=0, embedded=False)

    p = sub.add_parser("watch", help="watch a room's race live",
                       description="Spectate a room: every racer's progress live, and the "
                       "leading racer's board (type w NAME and Enter to watch another racer).",
                       epilog="examples:\n  lucie watch ABCD", formatter_class=fmt)
    p.add_argument("code", help="room code (or id)")
    add_server_arg(p)
    p.set_defaults(func=run_race, command="watch", watch=True, bots=0, embedded=False)
