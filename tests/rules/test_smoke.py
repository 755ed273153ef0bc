"""First checks of the engine: deal 1 is PySolFC's, a random game replays."""

from __future__ import annotations

import random

from server.rules import card_str, deal, get_variant, new_game, replay


def test_deal_1_is_pysolfc_game_1() -> None:
    fans = deal(get_variant("belle-lucie"), 1).fans
    assert [" ".join(card_str(c) for c in f) for f in fans[:2]] == ["JD KS 4S", "2D 9D TH"]
    assert [len(f) for f in fans] == [3] * 17 + [1]


def test_random_game_replays_exactly() -> None:
    rules = get_variant("belle-lucie")
    game = new_game(rules, 7, b"k" * 32)
    rng = random.Random(1)
    while game.status == "playing" and len(game.log) < 200:
        game = game.play(rng.choice(game.legal_moves()))
    assert replay(rules, 7, b"k" * 32, game.log).position == game.position
