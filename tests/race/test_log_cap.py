"""Issue 33: a live move log has a cap — the replay file's limit
(:data:`server.rules.MAX_LOG`) — with a clear refusal; nothing past it is applied
(a racer sending 200 messages/s for 4 h grew a log no replay could hold)."""

from __future__ import annotations

import pytest

from server.race import decide as decide_module
from server.race import errors as err
from server.race.authority import RaceAuthority, RoomOptions
from server.records.replay_file import MAX_MOVES
from server.rules import MAX_LOG


def test_the_cap_is_the_replay_files_limit() -> None:
    assert MAX_LOG == MAX_MOVES == 20_000


async def test_a_move_past_the_cap_is_refused_and_nothing_applied(
        race: RaceAuthority, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decide_module, "MAX_LOG", 4)
    room, host = await race.create_room(RoomOptions(deal=7, countdown_s=0))
    ada, token = await race.join(room.id, "ada")
    await race.start(room.id, host)
    for i in range(4):  # a move and its undo, twice: four entries
        game = await race.game(room.id, ada.id, token)
        move = game.legal_moves[0] if i % 2 == 0 else "undo"
        await race.move(room.id, ada.id, token, move, game.version, f"m{i}")
    game = await race.game(room.id, ada.id, token)
    assert game.version == 4
    with pytest.raises(err.MoveLogFull) as refused:
        await race.move(room.id, ada.id, token, game.legal_moves[0], 4, "m4")
    assert refused.value.code == "move/log_full" and refused.value.status == 409
    assert refused.value.details == {"limit": 4, "version": 4}
    assert (await race.game(room.id, ada.id, token)).version == 4  # nothing applied
    await race.resign(room.id, ada.id, token)  # resigning stays open
