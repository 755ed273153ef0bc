"""The solver's private board moves exactly as the engine does, and its key is exact."""

from __future__ import annotations

import random

import pytest

from server.rules import FOUNDATION, Move, apply, deal, get_variant, legal_moves
from server.solver.board import MERCI_SALT, PLAY, REDEAL_KIND, Board, pair_hash, to_move

from .helpers import KEY

CASES = [
    ("belle-lucie", {}), ("three-shuffles-and-a-draw", {}), ("trefoil", {}),
    ("the-fan", {"redeals": 2}), ("super-flower-garden", {}), ("shamrocks", {}),
]


def _do(board: Board, move: Move) -> tuple[int, ...]:
    if move.kind == "redeal":
        board.redeal()
        return (REDEAL_KIND,)
    dst = -1 if move.target == FOUNDATION else move.target
    assert dst is not None
    if move.kind == "merci":
        assert move.card is not None
        return board.merci(move.card, dst)
    assert move.source is not None
    return board.play(move.source, dst)


@pytest.mark.parametrize(("variant", "overrides"), CASES)
def test_random_games_match_the_engine(variant: str, overrides: dict[str, int]) -> None:
    rules = get_variant(variant).with_overrides(**overrides)  # type: ignore[arg-type]
    rng = random.Random(7)
    for number in range(1, 6):
        pos = deal(rules, number)
        board = Board(rules, pos, KEY)
        stack = []
        for _ in range(150):
            moves = list(legal_moves(rules, pos))
            if not moves:
                break
            move = rng.choice(moves)
            rec = _do(board, move)
            if rec[0] != REDEAL_KIND:
                assert to_move(rec) == move  # type: ignore[arg-type]
            stack.append((pos, rec, board.hash))
            pos = apply(rules, pos, move, KEY)
            assert board.position() == pos
            merci = MERCI_SALT if board.merci_used else 0
            assert board.hash == pair_hash(board.fans) ^ board.salt ^ merci
            if rng.random() < 0.2 and rec[0] == PLAY:  # take one back now and then
                board.unplay(rec[1], rec[2], rec[3])
                pos, _, _ = stack.pop()
                assert board.position() == pos
                assert board.hash == (stack[-1][2] if stack else Board(rules, pos, KEY).hash)
