"""The client library's room socket and a room's spectator cap (issue 33, item 2),
against a real ``lucie-server`` with the cap lowered to 2: a racer (its token on
the upgrade) gets in past it; a watcher past it is closed 1008 ``rate/limited``
and keeps trying — reported as a dropped connection, not failed as a refused
token — and gets in once a watcher leaves."""

from __future__ import annotations

from client_cli.api import ConnectionState, LucieClient, RoomConnection, Welcome
from client_cli.room_socket import _refusal
from tests.conftest import ServerFactory

from .helpers import until


def _welcomed(seen: list[object]) -> bool:
    return any(isinstance(m, Welcome) for m in seen)


async def test_past_the_spectator_cap(server_factory: ServerFactory) -> None:
    url = server_factory(LUCIE_SPECTATORS_PER_ROOM="2", LUCIE_AUTH_GRACE_S="0.5")
    async with LucieClient(url) as client:
        created = await client.create_room(deal=5, visibility="private")
        code = created.room.code
        joined = await client.join(code, "ann")
    watchers = [RoomConnection(url, code.lower(), None) for _ in range(2)]
    seen: list[list[object]] = [[], []]
    try:
        for watcher, log in zip(watchers, seen, strict=True):
            watcher.on_message = log.append
            await watcher.open()
            await until(lambda log=log: _welcomed(log), what="a watcher's welcome")
        async with RoomConnection(url, code, joined.token) as racer:
            await until(lambda: racer.racer_id == joined.racer.id, what="the racer's welcome")
        extra = RoomConnection(url, created.room.id, None, backoff=0.05)
        late: list[object] = []
        extra.on_message = late.append
        await extra.open()
        try:
            await until(lambda: any(isinstance(m, ConnectionState) and not m.connected
                                    and "rate/limited" in m.reason for m in late),
                        what="the watcher past the cap turned away")
            assert not _welcomed(late)
            assert extra._task is not None and not extra._task.done()  # still trying
            await watchers[0].close()
            await until(lambda: _welcomed(late), timeout=10, what="a free slot taken")
        finally:
            await extra.close()
    finally:
        for watcher in watchers:
            await watcher.close()


def test_a_refused_upgrade_names_its_code() -> None:
    body = b'{"error":{"code":"request/origin_not_allowed","message":"not here"}}'
    assert _refusal(body) == ("request/origin_not_allowed", "not here")
    assert _refusal(b"<html>") == ("", "")
    assert _refusal(None) == ("", "")
