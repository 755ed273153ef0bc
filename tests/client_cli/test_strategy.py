"""The bot's strategy on real deals: legal, foundation-first, never loops, redeals."""

from __future__ import annotations

from client_cli.strategy import choose_move
from server.rules import FOUNDATION, Position, get_variant, is_legal, new_game

RULES = get_variant("belle-lucie")
KEY = b"k" * 32


def _play_out(deal_number: int) -> tuple[int, list[str]]:
    game = new_game(RULES, deal_number, KEY)
    seen: set[Position] = set()
    kinds = []
    for _ in range(400):
        if game.status != "playing":
            break
        move = choose_move(RULES, game.position, seen)
        if move is None:
            break
        assert is_legal(RULES, game.position, move)
        seen.add(game.position)
        if move.kind == "redeal":
            seen.clear()
        kinds.append(move.kind)
        game = game.play(move)
    else:
        raise AssertionError("the bot did not finish within 400 moves")
    return game.position.foundation_cards, kinds


def test_foundation_moves_come_first() -> None:
    game = new_game(RULES, 1, KEY)
    pos = game.position
    # play the bot until a top card can go up; then the bot must take that move
    for _ in range(50):
        move = choose_move(RULES, pos)
        assert move is not None
        if any(f and f[-1] % 13 == pos.foundations[f[-1] // 13] for f in pos.fans):
            assert move.target == FOUNDATION
            return
        game = game.play(move)
        pos = game.position
    raise AssertionError("no foundation move found in 50 moves")


def test_bot_finishes_games_uses_redeals_and_makes_progress() -> None:
    total = 0
    used_redeal = False
    for n in range(1, 11):
        cards, kinds = _play_out(n)
        total += cards
        used_redeal |= "redeal" in kinds
    assert used_redeal
    assert total / 10 >= 10  # a real strategy, not random play


def test_stuck_position_gives_none() -> None:
    stuck = Position(((13 * 3 + 1,), (13 * 3 + 5,)), (0, 0, 0, 0), (), 2, False)
    assert choose_move(RULES, stuck) is None
