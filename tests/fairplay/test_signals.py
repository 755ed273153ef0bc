"""The race signals: solver loss and agreement, critical positions, hard
layouts, timing — on real deals through the engine and the solver."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.fairplay.signals import READING_MS, RaceSignals, race_signals
from server.rules import REDEAL, RuleSet, apply, deal, legal_moves
from server.solver import play_layouts
from server.solver.strategy import Style, choose_move

RULES = RuleSet.from_json({"variant": "belle-lucie"})
KEY = bytes(range(32))


def _timed(moves: list[str], gap_ms: int = 1_500) -> list[tuple[str, int]]:
    return [(m, (i + 1) * gap_ms) for i, m in enumerate(moves)]


def _bot_line(number: int, name: str = "bot-Ada") -> tuple[list[str], str]:
    pos, seen, line, style = deal(RULES, number), [], [], Style.for_name(name)
    seen.append(pos)
    for _ in range(400):
        move = choose_move(RULES, pos, seen, style)
        if move is None:
            break
        pos = apply(RULES, pos, move, KEY)
        line.append(str(move))
        seen = [pos] if move == REDEAL else [*seen, pos]
    return line, "won" if pos.foundation_cards == 52 else "stuck"


def test_the_solvers_line_gives_nothing_up_and_solves_every_hard_layout() -> None:
    hard = 0
    for number in (77, 123, 999, 4242):
        played = play_layouts(RULES, deal(RULES, number), KEY)
        s = race_signals(RULES, number, KEY, _timed([str(m) for m in played.moves]),
                         status="won" if played.won else "stuck")
        assert s.loss_cards == 0 and s.found == s.critical and s.agreed == s.decisions
        assert s.hard_solved == s.hard_layouts and all(lay.solved for lay in s.layouts)
        assert len(s.layouts) == played.moves.count(REDEAL) + 1
        assert s.layouts[-1].reached == played.foundation
        hard += s.hard_layouts
    assert hard >= 1  # the deals hold at least one layout the plain strategy misplays


def test_the_plain_strategy_misses_critical_positions_and_gives_cards_up() -> None:
    totals = [race_signals(RULES, n, KEY, _timed(line), status=status)
              for n in (5, 77, 123, 999, 4242, 31337) for line, status in [_bot_line(n)]]
    assert sum(s.loss_cards for s in totals) > 0
    assert sum(s.found for s in totals) < sum(s.critical for s in totals)
    assert sum(s.hard_solved for s in totals) < sum(s.hard_layouts for s in totals)


def test_undone_moves_leave_the_line_and_count_as_undos() -> None:
    line, status = _bot_line(77)
    pos = deal(RULES, 77)
    detour = next(str(m) for m in legal_moves(RULES, pos) if m.kind == "play")
    with_undo = [detour, "undo", *line]
    plain = race_signals(RULES, 77, KEY, _timed(line), status=status)
    undone = race_signals(RULES, 77, KEY, _timed(with_undo), status=status)
    assert undone.undos == 1 and plain.undos == 0
    assert (undone.moves, undone.loss_cards, undone.found, undone.critical) == (
        plain.moves, plain.loss_cards, plain.found, plain.critical)


def test_timing_counts_an_autoplay_chain_as_one_action() -> None:
    line, status = _bot_line(77)
    log = [(m, 1_000 * (i // 3 + 1)) for i, m in enumerate(line)]  # three moves per instant
    s = race_signals(RULES, 77, KEY, log, status=status)
    assert s.gap_mean_ms == 1_000 and s.gap_cv == 0 and s.fast_share == 0
    fast = race_signals(RULES, 77, KEY, [(m, 100 * (i + 1)) for i, m in enumerate(line)])
    assert fast.fast_share == 1 and READING_MS > 100


def test_the_time_to_read_a_new_layout_is_measured_from_each_redeal() -> None:
    line, status = _bot_line(77)
    assert "r" in line
    log, clock = [], 0
    for move in line:
        clock += 4_000 if log and log[-1][0] == "r" else 1_000
        log.append((move, clock))
    s = race_signals(RULES, 77, KEY, log, status=status)
    assert s.redeal_read_ms and set(s.redeal_read_ms) == {4_000}


def test_a_layout_left_open_counts_only_when_it_was_solved() -> None:
    line, _ = _bot_line(77)
    first = line[: line.index("r")]
    s = race_signals(RULES, 77, KEY, _timed(first[:2]), status="resigned")
    assert [lay.end for lay in s.layouts] == ["open"]
    assert s.hard_layouts == int(s.layouts[0].hard and s.layouts[0].solved)


def test_signals_survive_their_json_form() -> None:
    line, status = _bot_line(123)
    s = race_signals(RULES, 123, KEY, _timed(line), status=status, focus_losses=3)
    back = RaceSignals.from_json(s.to_json())
    assert back.to_json() == s.to_json() and back.focus_losses == 3


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 10**6), st.integers(0, 2**32 - 1), st.integers(0, 120))
def test_signals_are_consistent_on_any_legal_game(number: int, seed: int, length: int) -> None:
    """Invariants on random legal games (undo included)."""
    rng, pos, log = random.Random(seed), deal(RULES, number), []
    history = [pos]
    for i in range(length):
        moves = list(legal_moves(RULES, pos))
        if not moves:
            break
        if len(history) > 1 and rng.random() < 0.1:
            history.pop()
            pos = history[-1]
            log.append(("undo", i * 700))
            continue
        move = rng.choice(moves)
        pos = apply(RULES, pos, move, KEY)
        history.append(pos)
        log.append((str(move), i * 700))
    s = race_signals(RULES, number, KEY, log, status="resigned", budget_s=0.05)
    assert 0 <= s.found <= s.critical and 0 <= s.agreed <= s.decisions <= s.moves
    assert s.loss_cards >= 0 and 0 <= s.hard_solved <= s.hard_layouts <= len(s.layouts)
    assert len(s.layouts) == pos.redeals_used + 1
    assert s.layouts[-1].reached == pos.foundation_cards
    assert all(lay.best >= lay.start and lay.yardstick >= lay.start for lay in s.layouts)
