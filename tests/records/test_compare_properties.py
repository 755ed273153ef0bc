"""Invariants of the comparison over random games on one deal (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.records.compare import compare
from server.records.record import GameRecord, TimedMove
from server.rules import get_variant, new_game

RULES = get_variant("belle-lucie")
KEY = b"p" * 32


def _random_game(seed: int, length: int, deal_number: int) -> GameRecord:
    rng = random.Random(seed)
    game = new_game(RULES, deal_number, KEY)
    moves, clock = [], 0
    while len(moves) < length and game.status == "playing":
        move = rng.choice(game.legal_moves())
        game = game.play(move)
        clock += rng.randint(0, 3000)
        moves.append(TimedMove(move, clock))
    return GameRecord(RULES, deal_number, KEY, tuple(moves), name=f"p{seed}")


games = st.builds(_random_game, st.integers(0, 10**6), st.integers(0, 40), st.just(17))


@settings(max_examples=40, deadline=None)
@given(games, games)
def test_comparison_invariants(a: GameRecord, b: GameRecord) -> None:
    c = compare(a, b)
    end = max(c.a.end_ms, c.b.end_ms)
    lead = c.lead
    assert lead.a_ms + lead.b_ms + lead.level_ms == end
    assert sum(s.end_ms - s.start_ms for s in lead.segments) == end
    for side in (c.a, c.b):
        assert sum(f.cards_to_foundation for f in side.layouts) == (
            side.foundation_cards - side.start_foundation_cards)
        assert sum(f.moves for f in side.layouts) == side.moves
        assert sum(f.time_ms for f in side.layouts) == side.end_ms
    swapped = compare(b, a)
    assert swapped.divergence.move_index == c.divergence.move_index
    assert (swapped.lead.a_ms, swapped.lead.b_ms) == (lead.b_ms, lead.a_ms)
    flip = {"a": "b", "b": "a", None: None}
    assert swapped.verdict.winner == flip[c.verdict.winner]
    assert swapped.verdict.decided_by == c.verdict.decided_by
    same = compare(a, a)
    assert same.divergence.move_index is None and same.verdict.decided_by == "tie"
