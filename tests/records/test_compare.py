"""Head-to-head comparison: values checked by hand on two small games of deal 2."""

from __future__ import annotations

import pytest

from server.records.compare import CompareError, LeadSegment, compare
from server.rules import get_variant

from .games import record

# Ada: AD at 1.0 s, AS at 3.0 s, a tableau move at 4.0 s, redeal at 6.0 s.
ADA = [("8f", 1000), ("15f", 3000), ("2-3", 4000), ("r", 6000)]
# Bob: AS at 1.5 s, AD at 2.0 s, a tableau move at 2.5 s.
BOB = [("15f", 1500), ("8f", 2000), ("17-18", 2500)]


def test_timelines_move_by_move() -> None:
    c = compare(record(ADA, name="ada"), record(BOB, name="bob"))
    assert [(s.index, s.move, s.race_clock_ms, s.foundation_cards, s.layout)
            for s in c.a.steps] == [(1, "8f", 1000, 1, 1), (2, "15f", 3000, 2, 1),
                                    (3, "2-3", 4000, 2, 1), (4, "r", 6000, 2, 2)]
    assert [(s.race_clock_ms, s.foundation_cards) for s in c.b.steps] == [
        (1500, 1), (2000, 2), (2500, 2)]
    assert (c.a.foundation_cards, c.a.reach_time_ms, c.a.moves, c.a.redeals_used) == (
        2, 3000, 4, 1)
    assert (c.b.foundation_cards, c.b.reach_time_ms, c.b.moves, c.b.redeals_used) == (
        2, 2000, 3, 0)


def test_divergence_at_first_different_move() -> None:
    d = compare(record(ADA), record(BOB)).divergence
    assert (d.move_index, d.reason, d.a_move, d.b_move) == (1, "moves", "8f", "15f")


def test_divergence_later_and_on_prefix() -> None:
    a = record([("8f", 100), ("15f", 200), ("2-3", 300)])
    b = record([("8f", 150), ("15f", 250), ("17-18", 300)])
    assert compare(a, b).divergence.move_index == 3
    prefix = record([("8f", 100), ("15f", 200)])
    d = compare(a, prefix).divergence
    assert (d.move_index, d.reason, d.a_move, d.b_move) == (3, "ended", "2-3", None)
    same = compare(a, record([("8f", 9), ("15f", 99), ("2-3", 999)])).divergence
    assert same.move_index is None and same.reason is None


def test_divergence_by_layout_across_rooms_with_other_redeal_keys() -> None:
    a = record([("8f", 100), ("r", 200)], key=b"k" * 32)
    b = record([("8f", 100), ("r", 200)], key=b"x" * 32)
    d = compare(a, b).divergence
    assert (d.move_index, d.reason) == (2, "layouts")


def test_per_layout_figures() -> None:
    c = compare(record(ADA, finished_ms=8000), record(BOB))
    figs = [(f.layout, f.reached, f.cards_to_foundation, f.moves, f.time_ms)
            for f in c.a.layouts]
    # layout 1: 0 → 6.0 s (the redeal), 4 moves, 2 cards; layout 2: 6.0 → 8.0 s
    assert figs == [(1, True, 2, 4, 6000), (2, True, 0, 0, 2000), (3, False, 0, 0, 0)]
    first = c.b.layouts[0]
    assert (first.cards_to_foundation, first.moves, first.time_ms) == (2, 3, 2500)


def test_undo_of_a_redeal_goes_back_to_the_first_layout() -> None:
    a = record([("8f", 1000), ("r", 2000), ("u", 5000), ("15f", 6000)])
    figs = [(f.cards_to_foundation, f.moves, f.time_ms) for f in compare(a, a).a.layouts]
    # layout 1: [0, 2 s) + [5 s, 6 s): 3 s, moves 8f, r, 15f; layout 2: [2 s, 5 s), the undo
    assert figs[:2] == [(2, 3, 3000), (0, 1, 3000)]


def test_who_led_for_how_long() -> None:
    lead = compare(record(ADA), record(BOB)).lead
    # level until 1.0 s; Ada 1.0–1.5 s; level 1.5–2.0 s; Bob 2.0–3.0 s; level 3.0–6.0 s
    assert lead.segments == (
        LeadSegment(0, 1000, None), LeadSegment(1000, 1500, "a"), LeadSegment(1500, 2000, None),
        LeadSegment(2000, 3000, "b"), LeadSegment(3000, 6000, None))
    assert (lead.a_ms, lead.b_ms, lead.level_ms, lead.changes) == (500, 1000, 4500, 1)


def test_the_lead_of_long_logs_takes_one_pass() -> None:
    """Two logs of 20,000 moves (the replay format's most): the lead looked up
    every step once per time mark (quadratic, ~10 s of the event loop per
    ``POST /compare``); it is the same lead, from one pass."""
    import time

    from server.records.compare import _lead

    moves = [("8f" if i % 2 == 0 else "u", i) for i in range(20_000)]
    c = compare(record(moves), record(moves[:15_000]))
    started = time.perf_counter()
    lead = _lead(c.a, c.b)
    assert time.perf_counter() - started < 1.0
    assert lead == c.lead
    slow = [(c.a.foundation_cards_at(s.start_ms), c.b.foundation_cards_at(s.start_ms))
            for s in lead.segments[:50]]
    assert [("a" if x > y else "b" if y > x else None) for x, y in slow] \
        == [s.leader for s in lead.segments[:50]]
    assert (lead.a_ms, lead.b_ms, lead.changes) == (2_500, 0, 0)  # a ahead every other ms


def test_a_comparison_takes_time_in_proportion_to_its_logs() -> None:
    """The timelines and the divergence replayed each log move by move, each
    move copying the log so far: quadratic (a comparison of two 40,000-move
    logs held the event loop ~12 s)."""
    import time

    def took(n: int) -> float:
        moves = [("8f" if i % 2 == 0 else "u", i) for i in range(n)]
        a, b = record(moves), record(moves)
        started = time.perf_counter()
        c = compare(a, b)
        assert c.divergence.move_index is None and len(c.a.steps) == n
        assert a.game().log == b.game().log and len(a.game().log) == n
        return time.perf_counter() - started

    took(1_000)  # warm
    assert took(32_000) < 20 * took(4_000)


def test_verdict_by_ranking_rules() -> None:
    v = compare(record(ADA), record(BOB)).verdict
    assert (v.winner, v.decided_by) == ("b", "reach_time")  # 2 cards each, Bob at 2.0 s
    more = compare(record([("8f", 9000)]), record([])).verdict
    assert (more.winner, more.decided_by) == ("a", "foundation_cards")
    same = [("8f", 10)]
    joined = compare(record(same, join_order=2), record(same, join_order=1)).verdict
    assert (joined.winner, joined.decided_by) == ("b", "join_order")
    tie = compare(record(same), record(same)).verdict
    assert (tie.winner, tie.decided_by) == (None, "tie")


def test_moves_decide_when_cards_and_reach_time_are_equal() -> None:
    a = record([("8f", 10)])
    b = record([("2-3", 5), ("8f", 10)])
    assert (compare(a, b).verdict.winner, compare(a, b).verdict.decided_by) == ("a", "moves")


def test_running_games_run_until_the_race_clock() -> None:
    c = compare(record([("8f", 1000)]), record([]), until_ms=4000)
    assert c.a.end_ms == 4000 and c.lead.a_ms == 3000 and c.lead.level_ms == 1000
    assert c.a.layouts[0].time_ms == 4000


def test_different_deal_or_rules_refused() -> None:
    with pytest.raises(CompareError) as exc:
        compare(record([]), record([], deal_number=3))
    assert exc.value.code == "compare/different_deal"
    other = record([]).__class__(get_variant("no-redeal"), 2, b"k" * 32, ())
    with pytest.raises(CompareError):
        compare(record([]), other)


def test_json_form() -> None:
    data = compare(record(ADA, name="ada"), record(BOB, name="bob")).to_json()
    assert set(data) == {"deal_number", "rules", "a", "b", "divergence", "lead", "verdict"}
    assert data["a"]["timeline"][0] == {"index": 1, "move": "8f", "race_clock_ms": 1000,
                                        "foundation_cards": 1, "layout": 1}
    assert data["verdict"] == {"winner": "b", "decided_by": "reach_time"}
    assert data["lead"]["segments"][1] == {"start_ms": 1000, "end_ms": 1500, "leader": "a"}
