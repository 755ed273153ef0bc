"""What the player commands share: errors in words, the player a race joins as.

``lucie me``, ``lucie history``, ``lucie h2h``, ``lucie forget-me`` and
``lucie leaderboard`` (every board) print every error code of the players routes in words
(:func:`player_error_words`), and, as ``lucie play`` does, start the embedded
server for the command when nothing listens at a local URL (players and races
live in the server's archive, a database on disk: what the command does
stays); ``lucie play`` and ``lucie join`` race as the player stored for the
server (:func:`stored_player`, :func:`join_as_player`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from .api import ApiError, JoinedRoom, LucieClient
from .common import (
    lucie_command,
    lucie_command_for,
    run_command,
    server_commands,
    start_server_hint,
)
from .embedded import ensure_server, nothing_listens
from .player_key import PlayerKey, load_key

__all__ = ["PROVISIONAL_NOTE", "Worded", "anonymous_tip", "fmt_rating", "fmt_when",
           "join_as_player", "player_error_words", "run_player_command", "stored_player"]


class Worded(ApiError):
    """An error whose message is already in words for the command that raises it."""


def player_error_words(exc: ApiError, url: str, me: PlayerKey | None = None) -> str:
    """What went wrong with a players request, in words (every code they answer).

    ``me``: the stored player, when the request was about them.
    """
    code, details = exc.code, exc.details
    who = str(details.get("player") or "")
    if code == "request/not_found":
        return (f"{url} has no players API (an older race server): players, ratings and "
                "race history need a newer one; racing works as before")
    if code == "player/not_found":
        if me is not None and who in (me.player_id, me.name):
            return (f"{url} no longer knows your player {me.name} (it was forgotten, or the "
                    f"server's database is new): `{lucie_command()} forget-me` removes the "
                    f"stale key, `{lucie_command()} me --create NAME` makes a new player")
        return ((f"no player {who!r} on {url}" if who else f"no such player on {url}")
                + NOT_PLAYERS)
    if code == "player/name_taken":
        name = details.get("name")
        return (f"the player name {name!r} is taken on {url}; pick another" if name
                else f"that player name is taken on {url}; pick another")
    if code == "player/invalid_key":
        return (f"{url} does not accept your player key (the player was forgotten, or the "
                f"server's database is new): `{lucie_command()} forget-me` removes the stale "
                "key; --anonymous races without it")
    if code == "request/invalid":
        field = details.get("field")
        if field == "name":
            return f"not a valid player name: {exc.message}"
        if field == "variant":
            return f"unknown variant: {exc.message}"
        return f"{url} refused the request: {exc.message}"
    if code == "archive/unavailable":
        return (f"the race archive (database) of {url} does not answer right now: races run "
                "on, but players, ratings and history wait for it; try again in a while")
    if code == "rate/limited":
        return f"too many requests to {url} from here; wait a minute and try again"
    if code == "auth/missing":
        return "this needs your player key, and there is none for this server"
    if code == "server/error":
        return f"{url} failed (a server bug; its log says more): {exc.message}"
    return exc.message


NOT_PLAYERS = (": only players have a history, ratings and head-to-head records; computer "
               "racers (bot-Ada, …) and racers who race without a player (anonymously) are "
               "not players")
"""Said after "no player NAME": who is not a player."""


def run_player_command(name: str, url: str, body: Callable[[], Awaitable[int]],
                       me: PlayerKey | None = None) -> int:
    """:func:`~client_cli.common.run_command` with the players' errors in words.

    When ``url`` is on this machine and nothing listens there, the embedded
    server runs for the command (as for ``lucie play``; said on stderr).
    """
    async def worded() -> int:
        try:
            return await body()
        except ApiError as exc:
            if exc.code.startswith("client/") or isinstance(exc, Worded):
                raise
            raise Worded(exc.code, player_error_words(exc, url, me), status=exc.status,
                         details=exc.details) from None

    if not nothing_listens(url):  # a server of another machine, or one that listens here
        return run_command(name, worded)
    try:
        with ensure_server(url) as started:
            if started:
                keep = " or ".join(f"`{w}`" for w in server_commands()) or "`lucie-server`"
                print(f"lucie {name}: no race server answered at {url}: started one for this "
                      f"command ({keep} in another terminal keeps one up)", file=sys.stderr)
            return run_command(name, worded)
    except ApiError as exc:  # ServerUnreachable: it could not start one
        print(f"lucie {name}: {exc.message}", file=sys.stderr)
        print(f"  {start_server_hint()}, or pass --server URL", file=sys.stderr)
        return 1


def stored_player(args: argparse.Namespace, url: str) -> PlayerKey | None:
    """The player ``lucie play``/``lucie join`` race as: the key stored for ``url``
    unless ``--anonymous``. A ``--name`` that is not the player's is said to be
    unused (on stderr).

    :raises ApiError: ``client/key_file`` — a key file that cannot be used.
    """
    if getattr(args, "anonymous", False):
        return None
    player = load_key(url)
    name = getattr(args, "name", None)
    if player is not None and name and name.casefold() != player.name.casefold():
        print(f"lucie {getattr(args, 'command', 'play')}: racing as your player "
              f"{player.name}; --name is for anonymous races (add --anonymous)",
              file=sys.stderr)
    return player


async def join_as_player(client: LucieClient, room: str, player: PlayerKey,
                         host_token: str | None = None) -> JoinedRoom:
    """Join ``room`` as the stored ``player``; a refusal comes back in words.
    With the ``host_token`` of a room just made for this, the room is closed
    when the join fails (it is of no use to anyone).

    :raises ApiError: ``racer/name_taken`` (another racer of the room has the
        player's name), ``player/invalid_key``, ``archive/unavailable``…
    """
    try:
        return await client.join(room, player_key=player.key)
    except ApiError as exc:
        if host_token:
            with contextlib.suppress(ApiError):
                await client.close(room, host_token)
        if exc.code == "racer/name_taken":
            if await _seated(client, room, player):
                other = lucie_command_for(client.url, "join", room, "--anonymous", "--name",
                                          "NAME")
                raise Worded(exc.code, f"you (player {player.name}) already have a seat in "
                             "this room: race from the board that took it (another "
                             f"terminal?); someone else on this machine joins with {other}",
                             status=exc.status) from None
            raise Worded(exc.code, f"another racer in this room is called {player.name}, "
                         "your player's name; join with --anonymous --name OTHER to race "
                         "anonymously", status=exc.status) from None
        if exc.code == "archive/unavailable":
            raise Worded(exc.code, f"{client.url} cannot check your player key now (its "
                         "database does not answer); try again in a while, or race with "
                         "--anonymous", status=exc.status) from None
        if exc.code == "player/invalid_key":
            raise Worded(exc.code, player_error_words(exc, client.url),
                         status=exc.status) from None
        raise


async def _seated(client: LucieClient, room: str, player: PlayerKey) -> bool:
    """Whether ``player`` has a racer in ``room`` already (one seat per player)."""
    try:
        view = await client.get_room(room)
    except ApiError:
        return False
    return any(r.player == player.player_id for r in view.racers)


def anonymous_tip(args: argparse.Namespace, url: str) -> None:
    """After an anonymous race on a terminal (not one with ``--anonymous``): how
    to keep a rating and a history."""
    if getattr(args, "anonymous", False) or getattr(args, "watch", False) \
            or not sys.stdout.isatty():
        return
    with contextlib.suppress(ApiError):
        if load_key(url) is not None:
            return
        print(f"Tip: keep a rating and your race history with a player: {lucie_command()} "
              "me --create NAME", flush=True)


def fmt_when(ms: int | None, *, short: bool = False) -> str:
    """Unix ms as local ``YYYY-MM-DD HH:MM`` (``-`` for ``None``); ``short``:
    ``MM-DD HH:MM`` in the current year, else ``YYYY-MM-DD``."""
    if ms is None:
        return "-"
    when = datetime.fromtimestamp(ms / 1000)
    if not short:
        return when.strftime("%Y-%m-%d %H:%M")
    return when.strftime("%m-%d %H:%M" if when.year == datetime.now().year else "%Y-%m-%d")


PROVISIONAL_NOTE = "* provisional: fewer than 10 rated races"
"""The footnote of the mark :func:`fmt_rating` puts on a provisional rating."""


def fmt_rating(rating: dict[str, Any]) -> str:
    """A rating (mu − 3 sigma), marked ``*`` while provisional."""
    text = f"{rating['rating']:.1f}"
    return text + "*" if rating["provisional"] else text
