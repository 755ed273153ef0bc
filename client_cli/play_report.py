"""What ``lucie play``/``join``/``watch`` print when the board closes: the
standings (received, fetched, or the last known), and the host's wait for
the others' race to end."""

from __future__ import annotations

import asyncio

from .api import LucieClient, RacerView, StandingsView, StandingView
from .board.model import is_final, rank_racers, standing_rows
from .common import print_table

__all__ = ["exit_report", "resigning_with_the_server", "standings_of", "wait_for_race_over"]


def exit_report(code: str, received: list[StandingView] | None, fetched: StandingsView | None,
                fetch_failed: bool, racers: list[RacerView], *, waiting: bool = False) -> None:
    """Print the standings once the board closed.

    ``received``: the final standings of the board's ``race_over`` event
    (``None`` when it saw none), printed without asking the server;
    otherwise ``fetched`` (what the server answered); when that request
    failed (the host's server stops once the race is over), one line says
    so, followed by the board's last known standings of ``racers``.
    ``waiting``: the board closed before the room's race started (a rematch
    room, say): one line says so, after the previous room's results.
    """
    columns = ["rank", "name", "cards", "reached", "moves", "status", "points"]
    if received:
        print_table(f"Room {code} · final results", columns, standing_rows(received))
    elif fetched is not None and fetched.standings:
        print_table(f"Room {code} · " + ("final results" if fetched.final else "standings so far"),
                    columns, standing_rows(fetched.standings))
    elif fetch_failed:
        known = [StandingView(rank=i, racer=r.id, name=r.name,
                              foundation_cards=r.foundation_cards,
                              reach_time_ms=r.reach_time_ms, moves=r.moves,
                              join_order=r.join_order, status=r.status, final=r.final,
                              bot_level=r.bot_level, bot_rating=r.bot_rating)
                 for i, r in enumerate(rank_racers(racers), 1)]
        if not known:
            print(f"Room {code}: results unavailable: the server is gone.", flush=True)
            return
        print(f"Room {code}: the server is gone; last known standings:", flush=True)
        print_table(f"Room {code} · last known standings (points unknown)", columns,
                    [(*row[:-1], "–") for row in standing_rows(known)])
    elif waiting:
        print(f"Room {code}: no results: you left before its race started.", flush=True)


def resigning_with_the_server(fetched: StandingsView) -> tuple[StandingsView, list[str]]:
    """The standings a host prints as its local server stops, and the names of
    those still racing (the room's bots): they resign with the server, so
    their rows say ``resigns``, not ``playing`` (the line under the table
    names them)."""
    racing = [r.name for r in fetched.standings if not r.final]
    if not racing:
        return fetched, []
    rows = [r if r.final else r.model_copy(update={"status": "resigns"})
            for r in fetched.standings]
    return fetched.model_copy(update={"standings": rows}), racing


async def standings_of(url: str, room: str, token: str | None = None) -> StandingsView:
    """The room's standings now (``token``: the racer's, which a challenge attempt needs)."""
    async with LucieClient(url) as client:
        return await client.standings(room, token)


async def wait_for_race_over(url: str, room: str, *, poll_s: float = 1.0,
                             ignore: frozenset[str] = frozenset()) -> StandingsView:
    """Wait until ``room``'s race is over (or the room closed), or until only
    racers named in ``ignore`` race on; return the standings.

    Says once, on stdout, who is still racing and that Ctrl-C stops the
    server now: the caller hosts the server the other racers depend on.
    The server's bots (``bot``) are not waited for: they resign when it stops.
    ``ignore``: names of other bots that stop with it (a process's bots, when
    it stops them).
    """
    async with LucieClient(url) as client:
        announced = False
        while True:
            info = await client.get_room(room)
            if info.state not in ("countdown", "racing"):
                break
            racing = [r for r in info.racers if not is_final(r)]
            still = [r.name for r in racing if not r.bot and r.name not in ignore]
            if racing and not still:  # only bots race on
                break
            if still and not announced:
                announced = True
                n = len(still)
                print(f"You host the local server: it keeps running until the race is over "
                      f"for the {n} racer{'s' if n != 1 else ''} still racing "
                      f"({', '.join(still)}).\nPress Ctrl-C to stop it now (their race "
                      "ends).", flush=True)
            await asyncio.sleep(poll_s)
        return await client.standings(room)
