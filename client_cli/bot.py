"""Computer racers: join a room, wait for the start, play a level of :mod:`server.solver.levels`.

A bot is an ordinary client of the API (it uses :mod:`client_cli.api` only);
the server validates every move. It plays its ``level`` (``novice``, ``club``,
``expert``) with a seed of its own (drawn at random unless given), and thinks
before each move as its level does, in units of ``think_s`` seconds (a club
bot's median pause), so humans can race bots at a fair pace. In a series of races
(docs/protocol.md, "Series") a bot races every race it is seated in: it
follows the finished room's ``rematch`` link to the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.solver.levels import BotMind, Level, level_move, level_of, levels_mix
from server.solver.strategy import BOT_NAMES, bot_name

from .api import (
    ApiError,
    GameView,
    LucieClient,
    MoveRefused,
    RoomConnection,
    RoomEvent,
    Snapshot,
    Welcome,
    refused_game,
)

__all__ = ["BOT_NAMES", "BotResult", "bot_levels_of", "bot_name", "bots_option",
           "next_series_room", "run_bot"]

RACING = frozenset({"racing"})
OVER = frozenset({"over", "closed"})


@dataclass(frozen=True, slots=True)
class BotResult:
    """How a bot's race went: its racer id, final status, foundation cards and moves."""

    racer: str
    status: str
    foundation_cards: int
    moves: int


async def _concede(client: LucieClient, room: str, racer: str, token: str) -> None:
    with contextlib.suppress(ApiError):
        await client.resign(room, racer, token)


async def _play(client: LucieClient, conn: RoomConnection, room: str, racer: str, token: str,
                think_s: float, mind: BotMind) -> GameView:
    info = await client.get_room(room)
    rules = info.rules.rule_set()
    game = await client.game(room, racer, token)
    mind.new_game()
    loop = asyncio.get_running_loop()
    while game.status == "playing":
        pos = game.position.position()
        began = loop.time()
        # an expert searches with the solver: off the event loop (the board's)
        move = await asyncio.to_thread(level_move, *mind.ask(rules, pos))
        if move is None:
            await _concede(client, room, racer, token)
            return game
        mind.played(pos, move)
        pause = mind.pause_ms(move, think_s * 1000) / 1000 - (loop.time() - began)
        await asyncio.sleep(max(0.0, pause))
        try:
            ack = await conn.move(str(move), game.version)
            game = ack.game
        except MoveRefused as exc:
            fresh = refused_game(exc)
            game = fresh if fresh is not None else await client.game(room, racer, token)
            if exc.code == "racer/finished":
                return game
    if game.status == "stuck":
        await _concede(client, room, racer, token)  # undo allowed: it concedes, stuck
    return game


async def _step_out(client: LucieClient, room: str, racer: str, token: str) -> None:
    try:
        await client.resign(room, racer, token)
    except ApiError:
        await client.leave(room, racer, token)


async def run_bot(url: str | None, room: str, name: str, *, think_s: float = 1.6,
                  level: Level = "club", seed: int | None = None,
                  on_joined: Callable[[str], None] | None = None) -> BotResult:
    """Join ``room`` as ``name``, race until the bot's result is final, return it.

    ``think_s``: the think-time unit (a club bot's median pause, seconds);
    ``level``: how it plays; ``seed``: its choices and pauses (``None``: drawn
    at random, so two bots of one level play different games).
    ``on_joined(name)`` is called once the server accepted the join.

    Cancelled from outside, the bot resigns (or leaves a room that has not
    started) before it stops.

    :raises ApiError: the room is gone, full or not waiting, or the server
        is unreachable (``code`` tells which).
    :raises RulesError: the room's variant is unknown to this client.
    """
    async with LucieClient(url) as client:
        joined = await client.join(room, name)
        racer, token = joined.racer.id, joined.token
        if on_joined is not None:
            on_joined(name)
        mind = BotMind(level, secrets.randbits(63) if seed is None else seed)
        try:
            result = await _race(client, room, racer, token, think_s, mind)
            while (nxt := await next_series_room(client, room, racer)) is not None:
                room = nxt
                result = await _race(client, room, racer, token, think_s, mind)
            return result
        except asyncio.CancelledError:
            # stopped from outside (its owner quit): concede so the race can end,
            # or leave a room that has not started
            with contextlib.suppress(ApiError, TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(_step_out(client, room, racer, token)), 3)
            raise


async def _race(client: LucieClient, room: str, racer: str, token: str, think_s: float,
                mind: BotMind) -> BotResult:
    started = asyncio.Event()
    over = asyncio.Event()
    async with RoomConnection(client.url, room, token) as conn:
        await conn.ready(True)

        async def listen() -> None:
            with contextlib.suppress(ApiError):
                async for msg in conn:
                    state = None
                    if isinstance(msg, Welcome | Snapshot):
                        state = msg.room.state
                    elif isinstance(msg, RoomEvent):
                        state = {"started": "racing", "race_over": "over",
                                 "closed": "closed"}.get(msg.type)
                    if state in RACING:
                        started.set()
                    if state in OVER:
                        over.set()
                        started.set()
            over.set()
            started.set()

        listener = asyncio.create_task(listen())
        try:
            await started.wait()
            game = None
            if not over.is_set():
                game = await _play(client, conn, room, racer, token, think_s, mind)
            if game is None:
                game = await client.game(room, racer, token)
            info = await client.get_room(room)
            if info.series is not None and info.series.race < info.series.races:
                await over.wait()  # the series goes on once everyone's race is over
            return BotResult(racer, await _final_status(client, room, racer, game.status),
                             game.position.foundation_cards, game.moves)
        finally:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener


async def next_series_room(client: LucieClient, room: str, racer: str, *,
                           wait_s: float = 30.0) -> str | None:
    """The id of the series' next room when ``room``'s race is over, races
    remain and ``racer`` is seated in it (the server makes it at the race's
    end: waited for up to ``wait_s``); ``None`` otherwise."""
    deadline = asyncio.get_running_loop().time() + wait_s
    while True:
        info = await client.get_room(room)
        series = info.series
        if series is None or series.race >= series.races or info.state != "over":
            return None
        if info.rematch is not None:
            nxt = await client.get_room(info.rematch.room)
            return nxt.id if nxt.racer(racer) is not None else None
        if asyncio.get_running_loop().time() > deadline:
            return None
        await asyncio.sleep(0.1)


async def _final_status(client: LucieClient, room: str, racer: str, fallback: str) -> str:
    """The racer's status as the server records it (after a concession: ``stuck``
    with no move left, else ``resigned``)."""
    try:
        info = await client.get_room(room)
    except ApiError:
        return fallback
    return next((r.status for r in info.racers if r.id == racer), fallback)


def bots_option(count: int, level: str) -> int | dict[str, Any]:
    """The room option ``bots`` for ``lucie play --bots count --level level``
    (``mix``: the count, which the server mixes; else ``{"level", "count"}``)."""
    return count if level == "mix" or not count else {"level": level, "count": count}


def bot_levels_of(count: int, level: str) -> tuple[Level, ...]:
    """The levels of ``count`` bots a client runs for ``--level level`` (``mix``:
    :func:`~server.solver.levels.levels_mix`)."""
    return levels_mix(count) if level == "mix" else (level_of(level),) * count
