"""The client library's room socket over a path that goes silent without
closing (issue 33, item 10), against a real ``lucie-server`` behind
:class:`~tests.faults.blackhole.BlackholeProxy`: the missing pong is taken as
a lost connection within two ping periods (a ``ConnectionState`` the board
shows as "reconnecting…"), and once the path is back the connection resumes
and the move sent into the silence is answered and applied once."""

from __future__ import annotations

import asyncio
import time

from client_cli.api import ConnectionState, LucieClient, RoomConnection, Welcome
from tests.conftest import ServerFactory
from tests.faults.blackhole import BlackholeProxy

from .helpers import until

PING_S = 0.5


async def test_a_silent_path_is_a_lost_connection(server_factory: ServerFactory) -> None:
    url = server_factory()
    proxy = BlackholeProxy(int(url.rsplit(":", 1)[1]))
    try:
        async with LucieClient(url) as client:
            created = await client.create_room(deal=5, visibility="private", countdown_s=0)
            code = created.room.code
            joined = await client.join(code, "ann")
            await client.start(code, created.host_token)
            game = await client.game(code, joined.racer.id, joined.token)
            seen: list[object] = []
            conn = RoomConnection(proxy.url, code, joined.token, ping_interval=PING_S,
                                  backoff=0.05, max_backoff=0.2)
            conn.on_message = seen.append
            async with conn:
                await until(lambda: any(isinstance(m, Welcome) for m in seen), what="welcome")
                await asyncio.sleep(PING_S * 2)  # pings answered: the path is fine
                assert not any(isinstance(m, ConnectionState) for m in seen)

                proxy.cut()
                cut_at = time.monotonic()
                sent = asyncio.create_task(conn.move(game.legal_moves[0], 0, timeout=30))
                await until(lambda: any(isinstance(m, ConnectionState) and not m.connected
                                        for m in seen), timeout=2 * PING_S + 5,
                            what="the lost connection reported")
                # two ping periods, and the polling's slack
                assert time.monotonic() - cut_at <= 2 * PING_S + 1.0
                assert (await client.game(code, joined.racer.id, joined.token)).version == 0

                proxy.mend()
                ack = await asyncio.wait_for(sent, 20)
                assert ack.version == 1
                assert any(isinstance(m, ConnectionState) and m.connected for m in seen)
            after = await client.game(code, joined.racer.id, joined.token)
            assert after.version == 1 and after.moves == 1  # applied once
    finally:
        proxy.close()
