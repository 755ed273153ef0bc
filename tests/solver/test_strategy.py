"""The bot's strategy on real deals: legal, foundation-first, never loops, redeals."""

from __future__ import annotations

from server.rules import FOUNDATION, Position, get_variant, is_legal, new_game
from server.solver.strategy import Style, bot_name, choose_move

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


def _log(deal_number: int, style: Style) -> list[str]:
    game = new_game(RULES, deal_number, KEY)
    seen: set[Position] = set()
    log = []
    while game.status == "playing" and len(log) < 400:
        move = choose_move(RULES, game.position, seen, style)
        if move is None:
            break
        seen.add(game.position)
        if move.kind == "redeal":
            seen.clear()
        log.append(str(move))
        game = game.play(move)
    return log


def test_bots_with_different_names_play_different_games() -> None:
    names = [bot_name(i) for i in range(4)]
    for deal_number in (1, 2, 3):
        logs = [_log(deal_number, Style.for_name(n)) for n in names]
        assert len({tuple(g) for g in logs}) >= 3, deal_number  # not one game for all
        # a name's game is the same every time (deterministic)
        assert _log(deal_number, Style.for_name(names[0])) == logs[0]


def test_a_style_still_plays_well() -> None:
    total = sum(len([m for m in _log(n, Style.for_name("bot-Dot")) if m.endswith("f")])
                for n in range(1, 11))
    assert total / 10 >= 8
