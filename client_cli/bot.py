"""Computer racers: join a room, wait for the start, play with :mod:`server.solver.strategy`.

A bot is an ordinary client of the API (it uses :mod:`client_cli.api` only);
the server validates every move. ``think_s`` is the pause between moves in
seconds, so humans can race bots at a fair pace. In a series of races
(docs/protocol.md, "Series") a bot races every race it is seated in: it
follows the finished room's ``rematch`` link to the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from server.rules import Position
from server.solver.strategy import BOT_NAMES, Style, bot_name, choose_move

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

__all__ = ["BOT_NAMES", "BotResult", "bot_name", "next_series_room", "run_bot"]

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
                think_s: float, rng: random.Random, style: Style) -> GameView:
    info = await client.get_room(room)
    rules = info.rules.rule_set()
    game = await client.game(room, racer, token)
    seen: set[Position] = set()
    while game.status == "playing":
        pos = game.position.position()
        move = choose_move(rules, pos, seen, style)
        if move is None:
            await _concede(client, room, racer, token)
            return game
        seen.add(pos)
        if move.kind == "redeal":
            seen.clear()
        await asyncio.sleep(think_s * (0.6 + 0.8 * rng.random()))
        try:
            ack = await conn.move(str(move), game.version)
            game = ack.game
        except MoveRefused as exc:
            fresh = refused_game(exc)
            game = fresh if fresh is not None else await client.game(room, racer, token)
            if exc.code == "racer/finished":
                return game
    if game.status == "stuck":
        await _concede(client, room, racer, token)  # stuck with undo allowed: it concedes
    return game


async def _step_out(client: LucieClient, room: str, racer: str, token: str) -> None:
    try:
        await client.resign(room, racer, token)
    except ApiError:
        await client.leave(room, racer, token)


async def run_bot(url: str | None, room: str, name: str, *, think_s: float = 0.8,
                  seed: int | None = None,
                  on_joined: Callable[[str], None] | None = None) -> BotResult:
    """Join ``room`` as ``name``, race until the bot's result is final, return it.

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
        rng = random.Random(seed)
        try:
            result = await _race(client, room, racer, token, think_s, rng, Style.for_name(name))
            while (nxt := await next_series_room(client, room, racer)) is not None:
                room = nxt
                result = await _race(client, room, racer, token, think_s, rng,
                                     Style.for_name(name))
            return result
        except asyncio.CancelledError:
            # stopped from outside (its owner quit): concede so the race can end,
            # or leave a room that has not started
            with contextlib.suppress(ApiError, TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(_step_out(client, room, racer, token)), 3)
            raise


async def _race(client: LucieClient, room: str, racer: str, token: str, think_s: float,
                rng: random.Random, style: Style) -> BotResult:
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
                game = await _play(client, conn, room, racer, token, think_s, rng, style)
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
    """The racer's status as the server records it (``resigned`` after a concession)."""
    try:
        info = await client.get_room(room)
    except ApiError:
        return fallback
    return next((r.status for r in info.racers if r.id == racer), fallback)
