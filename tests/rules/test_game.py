"""Games: undo through the history, autoplay, replay (rules.md "Undo", "Autoplay")."""

from __future__ import annotations

import pytest

from server.rules import (
    AUTOPLAY,
    REDEAL,
    UNDO,
    Game,
    IllegalMoveError,
    Move,
    get_variant,
    new_game,
    parse_move,
    replay,
)
from server.rules.game import _History

from .helpers import KEY, position

BELLE = get_variant("belle-lucie")
THREE = get_variant("three-shuffles-and-a-draw")


def _game_at(rules_id: str, *fans: str, **kw: object) -> Game:
    rules = get_variant(rules_id)
    pos = position(*fans, **kw)  # type: ignore[arg-type]
    return Game(rules, 1, KEY, _History(pos, None, 0))


def test_undo_restores_each_previous_position_including_redeal_and_merci() -> None:
    game = new_game(THREE, 1, KEY)
    positions = [game.position]
    game = game.play(REDEAL)
    positions.append(game.position)
    game = game.play(REDEAL)
    positions.append(game.position)
    merci = next(m for m in game.legal_moves() if m.kind == "merci")
    game = game.play(merci)
    assert game.position.merci_used
    for expected in reversed(positions):
        game = game.play(UNDO)
        assert game.position == expected
    assert [str(m) for m in game.log] == ["r", "r", str(merci), "u", "u", "u"]
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        game.play(UNDO)


def test_undo_then_redeal_gives_the_same_layout() -> None:
    game = new_game(BELLE, 42, KEY).play(REDEAL)
    again = game.play(UNDO).play(REDEAL)
    assert again.position == game.position
    other_room = new_game(BELLE, 42, b"other key").play(REDEAL)
    assert other_room.position.fans != game.position.fans


def test_undo_disabled_by_room_override() -> None:
    rules = BELLE.with_overrides(undo=False)
    game = new_game(rules, 3, KEY).play(REDEAL)
    assert not game.can_undo
    with pytest.raises(IllegalMoveError, match="not allowed"):
        game.play(UNDO)


def test_autoplay_moves_every_playable_card_as_logged_foundation_moves() -> None:
    game = _game_at("belle-lucie", "3C 2D", "AD 2C", "AC", "9S")
    game = game.play(AUTOPLAY)
    assert [str(m) for m in game.log] == ["3f", "2f", "2f", "1f", "1f"]
    assert game.position.foundations == (3, 2, 0, 0)
    # undo takes back one foundation move of the autoplay at a time
    assert game.play(UNDO).position.foundations == (2, 2, 0, 0)


def test_autoplay_with_nothing_to_move_is_refused() -> None:
    game = _game_at("belle-lucie", "3C", "9S")
    with pytest.raises(IllegalMoveError, match="autoplay"):
        game.play(AUTOPLAY)


def test_autoplay_takes_free_cell_cards() -> None:
    game = _game_at("fan-with-reserve", "9S", cells="AC - - -")
    assert [str(m) for m in game.play(AUTOPLAY).log] == ["c1f"]


def test_replay_rebuilds_the_game_exactly() -> None:
    game = new_game(THREE, 9, KEY)
    for text in ("r", "u", "r", "r"):
        game = game.play(parse_move(text))
    again = replay(THREE, 9, KEY, game.log)
    assert again.position == game.position
    assert again.log == game.log


def test_replay_names_the_bad_move() -> None:
    with pytest.raises(IllegalMoveError, match=r"move 4 \(r\): the redeal is used"):
        replay(get_variant("no-redeal").with_overrides(redeals=1), 9, KEY,
               [REDEAL, UNDO, REDEAL, REDEAL])


def test_illegal_play_leaves_the_game_unchanged() -> None:
    game = new_game(BELLE, 1, KEY)
    with pytest.raises(IllegalMoveError):
        game.play(Move.play(0, 0))
    assert game.log == ()


def test_game_json_document() -> None:
    game = new_game(BELLE, 5, KEY).play(REDEAL)
    doc = game.to_json()
    assert doc["deal_number"] == 5
    assert doc["redeal_key"] == KEY.hex()
    assert doc["moves"] == ["r"]
    assert doc["rules"]["variant"] == "belle-lucie"


def test_game_status_and_counts() -> None:
    game = _game_at("no-redeal", "KS", foundations="KC KD KH QS")
    assert game.status == "playing"
    won = game.play(parse_move("1f"))
    assert (won.status, won.foundation_cards) == ("won", 52)
    assert _game_at("no-redeal", "5H 9C KS", "7H").status == "stuck"


def test_a_replay_takes_time_in_proportion_to_its_log() -> None:
    """Each move copied the log so far (``Game.play``): replaying 40,000 moves
    took ~70 times as long as 5,000, seconds of a server's event loop for a
    spectator's delayed board or a comparison. Now ~8 times (linear)."""
    import time

    from server.rules import get_variant, new_game, parse_move, replay

    rules = get_variant("belle-lucie")
    first = next(m for m in new_game(rules, 2, b"k" * 32).legal_moves() if str(m) != "r")
    undo = parse_move("u")

    def took(n: int) -> float:
        moves = [first if i % 2 == 0 else undo for i in range(n)]
        best = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            game = replay(rules, 2, b"k" * 32, moves)
            best = min(best, time.perf_counter() - started)
        assert game.log == tuple(moves)
        return best

    assert took(40_000) < 20 * took(5_000)
