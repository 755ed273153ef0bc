"""The board survives its server process dying: two ``lucie-server`` processes share
Redis; the board's process is killed, the board reconnects (through the proxy)
to the other one, resumes the room's events and keeps racing without losing a move."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client_cli.api import LucieClient
from client_cli.board.app import RaceApp
from client_cli.board.state import Seat
from tests.redis.cluster import Cluster

from .conftest import Proxy
from .helpers import keys, play_moves, until

pytestmark = pytest.mark.redis


@pytest.fixture
def pair() -> Iterator[Cluster]:
    cluster = Cluster(2)
    yield cluster
    cluster.stop()


async def test_board_moves_on_to_another_process_when_its_server_dies(pair: Cluster) -> None:
    first, second = pair.urls
    proxy = Proxy(int(first.rsplit(":", 1)[1]))
    await proxy.start()
    try:
        async with LucieClient(first) as client:
            created = await client.create_room(deal=2, countdown_s=0, visibility="private")
            room = created.room.id
            ann = await client.join(room, "ann")
            bob = await client.join(room, "bob")
        app = RaceApp(Seat(proxy.url, room, ann.racer.id, ann.token, created.host_token))
        async with LucieClient(second) as other, app.run_test(size=(110, 40)) as pilot:
            await until(lambda: app.room is not None, what="welcome")
            await pilot.press("s", "enter")
            await until(lambda: app.game is not None, timeout=10, what="start")
            assert app.game is not None
            up = next(m for m in play_moves(app.game) if m.endswith("f"))
            await pilot.press(*keys(up), "enter")
            await until(lambda: app.game is not None and app.game.version == 1, what="move")

            pair.kill(0)  # kill -9 the board's server process
            proxy.target_port = int(second.rsplit(":", 1)[1])
            proxy.cut()
            bob_game = await other.game(room, bob.racer.id, bob.token)
            await other.move(room, bob.racer.id, bob.token, play_moves(bob_game)[0], 0)

            await until(lambda: app.connection_note == "live"
                        and app.racers[bob.racer.id].moves == 1, timeout=15,
                        what="reconnected to the other process with bob's move")
            assert app.game is not None and app.game.version == 1  # nothing lost
            move = play_moves(app.game)[0]
            await pilot.press(*keys(move.replace("-", " ")), "enter")
            await until(lambda: app.game is not None and app.game.version == 2,
                        what="a move served by the other process")
    finally:
        await proxy.close()
