"""The client library against a real ``lucie-server`` process."""

from __future__ import annotations

import asyncio

import pytest

from client_cli.api import (
    ApiError,
    ConnectionState,
    LucieClient,
    MoveRefused,
    RoomConnection,
    RoomEvent,
    RoomGone,
    Welcome,
)
from client_cli.bot import run_bot

from .conftest import Proxy
from .helpers import non_legal_build, play_moves, until


async def _racing_room(url: str) -> tuple[str, str, str]:
    """A private room on deal 5 with one racer, started: (code, racer id, token)."""
    async with LucieClient(url) as client:
        created = await client.create_room(deal=5, countdown_s=0, visibility="private")
        joined = await client.join(created.room.code, "ann")
        await client.start(created.room.code, created.host_token)
        return created.room.code, joined.racer.id, joined.token


async def _wait_racing(client: LucieClient, code: str) -> None:
    for _ in range(200):
        if (await client.get_room(code)).state == "racing":
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the race did not start")


async def test_rest_round_trip_with_server_error_codes(lucie_server: str) -> None:
    async with LucieClient(lucie_server) as client:
        created = await client.create_room(deal=3, capacity=1, visibility="public")
        code = created.room.code
        assert created.room.deal_number == 3 and created.room.state == "waiting"
        assert code in [r.code for r in await client.list_rooms()]
        joined = await client.join(code, "ann")
        with pytest.raises(ApiError) as info:
            await client.join(code, "bob")
        assert info.value.code == "room/full"
        with pytest.raises(RoomGone):
            await client.get_room("NOPE-NOT-A-ROOM")
        with pytest.raises(ApiError) as info:
            await client.start(code, joined.token)
        assert info.value.code.startswith("auth/")


async def test_moves_acks_refusals_and_stale_versions(lucie_server: str) -> None:
    code, racer, token = await _racing_room(lucie_server)
    async with LucieClient(lucie_server) as client:
        await _wait_racing(client, code)
        game = await client.game(code, racer, token)
        async with RoomConnection(lucie_server, code, token) as conn:
            move = play_moves(game)[0]
            ack = await conn.move(move, game.version, client_move_id="m-1")
            assert ack.version == game.version + 1 and ack.game.version == ack.version
            again = await conn.move(move, game.version, client_move_id="m-1")
            assert again.version == ack.version  # answered once, applied once
            with pytest.raises(MoveRefused) as info:
                await conn.move(non_legal_build(ack.game), ack.version)
            assert info.value.code == "move/illegal" and info.value.message
            with pytest.raises(MoveRefused) as info:
                await conn.move("r", 0)
            assert info.value.code == "move/stale_version"
            rest_ack = await client.move(code, racer, token, "r", ack.version)
            assert rest_ack.game.position.redeals_used == 1


async def test_events_resume_after_a_dropped_socket(lucie_server: str, proxy: Proxy) -> None:
    async with LucieClient(lucie_server) as client:
        created = await client.create_room(deal=9, countdown_s=0)
        code = created.room.code
        ann = await client.join(code, "ann")
        seen: list[object] = []
        async with RoomConnection(proxy.url, code, ann.token, backoff=0.05) as conn:
            conn.on_message = seen.append
            await until(lambda: any(isinstance(m, Welcome) for m in seen), what="welcome")
            proxy.cut()
            await until(lambda: any(isinstance(m, ConnectionState) and not m.connected
                                    for m in seen), what="drop noticed")
            await client.join(code, "bob")  # happens while (maybe) disconnected
            await until(lambda: any(isinstance(m, ConnectionState) and m.connected
                                    for m in seen), what="reconnected")
            await until(lambda: any(isinstance(m, RoomEvent) and m.type == "joined"
                                    and m.data["racer"]["name"] == "bob" for m in seen),
                        what="bob's joined event")
            seqs = [m.seq for m in seen if isinstance(m, RoomEvent)]
            assert seqs == sorted(set(seqs))  # no event twice, in order


async def test_bots_race_to_a_final_result(lucie_server: str) -> None:
    async with LucieClient(lucie_server) as client:
        created = await client.create_room(deal=11, countdown_s=0, time_limit_s=60)
        code = created.room.code
        bots = [run_bot(lucie_server, code, f"bot{i}", think_s=0, seed=i) for i in range(2)]
        # both bots say they are ready, so the countdown starts by itself
        results = await asyncio.wait_for(asyncio.gather(*bots), 60)
        assert all(r.status in ("won", "resigned", "stuck") for r in results)
        assert all(r.foundation_cards > 0 and r.moves > 0 for r in results)
        standings = await client.standings(code)
        assert standings.final
        assert {s.name for s in standings.standings} == {"bot0", "bot1"}


async def test_a_stopped_bot_leaves_a_waiting_room(lucie_server: str) -> None:
    async with LucieClient(lucie_server) as client:
        created = await client.create_room(deal=12, visibility="private")
        code = created.room.code
        await client.join(code, "ann")  # ann is not ready: the race does not start
        bot = asyncio.create_task(run_bot(lucie_server, code, "bot0", think_s=0))
        for _ in range(200):
            if len((await client.get_room(code)).racers) == 2:
                break
            await asyncio.sleep(0.02)
        bot.cancel()
        with pytest.raises(asyncio.CancelledError):
            await bot
        room = await client.get_room(code)
        assert [r.name for r in room.racers] == ["ann"]
