"""The computer racers' levels (server.solver.levels, issue 38): legal play to the
end in every variant, ordered strengths, distinct games per seed, think times."""

from __future__ import annotations

import random
import statistics

import pytest

from server.rules import (
    FOUNDATION,
    REDEAL,
    VARIANTS,
    Move,
    Position,
    RuleSet,
    apply,
    deal,
    get_variant,
    has_legal_move,
    is_legal,
)
from server.solver.levels import (
    LEVELS,
    RATINGS,
    SPECS,
    BotMind,
    Level,
    level_move,
    level_of,
    levels_mix,
    nearest_level,
    think_ms,
)

BELLE = get_variant("belle-lucie")


def _play(rules: RuleSet, level: Level, seed: int, number: int, key: bytes = b"k" * 32,
          seconds: float = 0.3) -> tuple[Position, list[str]]:
    """A bot's whole game: the final position and its moves (each checked legal);
    ``seconds``: the expert's search time per move."""
    mind = BotMind(level, seed)
    pos = deal(rules, number)
    log: list[str] = []
    for _ in range(1500):
        move = level_move(*mind.ask(rules, pos), seconds=seconds)
        if move is None:
            break
        assert is_legal(rules, pos, move), (level, str(move))
        mind.played(pos, move)
        pos = apply(rules, pos, move, key)
        log.append(str(move))
    else:
        raise AssertionError(f"{level} did not finish in 1500 moves")
    return pos, log


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_legal_moves_to_the_end_in_every_variant(variant: str,
                                                                   level: Level) -> None:
    rules = get_variant(variant)
    pos, log = _play(rules, level, seed=1, number=7, seconds=0.02)  # legality, not strength
    assert log
    if rules.build == "down-suit" and rules.decks == 1 and not rules.king_fills_empty:
        # builds cannot go back and forth: a game not won ends with no move left
        # (stuck, as a person would be), never with moves it chose not to play
        assert pos.foundation_cards == rules.cards or not has_legal_move(rules, pos)


def test_one_seed_one_game_and_bots_of_one_level_play_different_games() -> None:
    for level in LEVELS:
        # the expert's node budget alone bounds its search here (no wall-clock cut
        # on a busy machine): the same seed plays the same game
        games = [_play(BELLE, level, seed, 11, seconds=60)[1] for seed in (1, 2, 3)]
        assert _play(BELLE, level, 1, 11, seconds=60)[1] == games[0]  # the seed decides
        assert len({tuple(g) for g in games}) == 3, level


def test_levels_are_ordered_novice_club_expert() -> None:
    """Mean foundation cards on the same deals and keys (the bench measures the
    gaps on 200 deals: python -m bench bots)."""
    rng = random.Random(3)
    deals = [(rng.randrange(1, 2**31), rng.randbytes(32)) for _ in range(12)]
    means = {level: statistics.mean(_play(BELLE, level, i, n, k, 60)[0].foundation_cards
                                    for i, (n, k) in enumerate(deals)) for level in LEVELS}
    assert means["novice"] < means["club"] < means["expert"], means


def _position_with_a_useful_build() -> Position:
    """The first position of a club game on deal 1 where it plays a build while a
    redeal is allowed (a build it judged useful)."""
    mind = BotMind("club", 5)
    pos = deal(BELLE, 1)
    for _ in range(200):
        move = level_move(*mind.ask(BELLE, pos))
        assert move is not None
        if move.kind == "play" and move.target is not None and move.target >= 0 \
                and is_legal(BELLE, pos, REDEAL):
            return pos
        mind.played(pos, move)
        pos = apply(BELLE, pos, move, b"k" * 32)
    raise AssertionError("no build found")


def test_a_novice_redeals_early_now_and_then_a_club_player_never() -> None:
    pos = _position_with_a_useful_build()
    novice = [level_move(BELLE, pos, "novice", frozenset(), seed) for seed in range(200)]
    club = [level_move(BELLE, pos, "club", frozenset(), seed) for seed in range(200)]
    assert REDEAL not in club
    early = novice.count(REDEAL) / len(novice)
    assert 0.05 < early < 0.8, early  # the early redeal, and builds it missed


def test_levels_mix_names_and_ratings() -> None:
    assert levels_mix(0) == ()
    assert levels_mix(1) == ("club",)
    assert levels_mix(2) == ("club", "expert")
    assert levels_mix(3) == ("novice", "club", "expert")
    assert levels_mix(4) == ("novice", "club", "club", "expert")
    assert level_of("expert") == "expert"
    with pytest.raises(ValueError, match="novice, club, expert"):
        level_of("grandmaster")
    assert RATINGS["novice"] < RATINGS["club"] < RATINGS["expert"]
    assert nearest_level(RATINGS["club"] + 0.1) == "club"
    assert nearest_level(-50) == "novice" and nearest_level(99) == "expert"


def test_think_times_are_log_normal_per_level_and_longer_after_a_redeal() -> None:
    unit = 1000.0
    for level in LEVELS:
        rng = random.Random(1)
        plain = [think_ms(level, rng, unit) for _ in range(4000)]
        reading = [think_ms(level, rng, unit, after_redeal=True) for _ in range(4000)]
        quick = [think_ms(level, rng, unit, follow_up=True) for _ in range(4000)]
        median = statistics.median(plain)
        assert abs(median / unit - SPECS[level].think.median) < 0.1 * SPECS[level].think.median
        assert statistics.median(reading) > median + 0.8 * SPECS[level].think.reading * unit
        assert statistics.median(quick) < median / 2
        assert all(100 <= t <= 12_000 for t in plain + reading + quick)
    medians = {level: SPECS[level].think.median for level in LEVELS}
    assert medians["novice"] > medians["club"] > medians["expert"]
    assert think_ms("club", random.Random(1), 0) == 0  # no pause at all


def test_a_mind_pauses_longer_on_a_new_layout_and_briefly_between_foundation_moves() -> None:
    mind = BotMind("club", 1)
    up = Move.play(1, FOUNDATION)

    def median_pause(last: Move | None) -> float:
        pauses = []
        for _ in range(400):
            mind.last = last
            pauses.append(mind.pause_ms(up, 1000))
        return statistics.median(pauses)

    build = Move.play(1, 2)
    # a layout to read (after a redeal, or the deal's first move) takes longest
    assert median_pause(REDEAL) > 2 * median_pause(build) > 4 * median_pause(up)
    assert median_pause(None) > 2 * median_pause(build)
    assert mind.last == up
