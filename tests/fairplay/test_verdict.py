"""Verdicts: the threshold table, a race's verdict, a player's over their races."""

from __future__ import annotations

import re

from server.fairplay.signals import LayoutFacts, RaceSignals
from server.fairplay.verdict import THRESHOLDS, judge_player, judge_race, race_score
from tests.conftest import REPO


def _race(*, critical: int = 10, found: int = 1, hard: int = 1, solved: int = 0,
          loss: int = 20, cv: float = 0.6, fast: float = 0.02, focus: int = 0,
          moves: int = 60) -> RaceSignals:
    layouts = tuple(LayoutFacts(0, 20, True, 10, 20 if i < solved else 12, "redeal")
                    for i in range(hard))
    return RaceSignals(moves, 50, 48, loss, critical, found, 0, layouts, 1_600.0, cv, fast,
                       (4_000,), focus)


HONEST = _race()
ASSISTED = _race(found=10, solved=1, loss=0)


def test_the_documented_table_is_the_servers_table() -> None:
    doc = (REPO / "docs" / "fair-play.md").read_text()
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| ([0-9.]+) \|", doc, re.M))
    assert {k: float(v) for k, v in rows.items()} == {k: t.value for k, t in THRESHOLDS.items()}


def test_a_race_scores_found_moves_and_solved_layouts_against_misses_and_loss() -> None:
    v = {k: t.value for k, t in THRESHOLDS.items()}
    score, reasons = race_score(HONEST)
    assert score == 1 * v["found"] - 9 * v["missed"] - v["hard_missed"] - 20 * v["loss_card"]
    assert reasons == ["found the move that gives nothing up at 1 of 10 critical positions",
                       "solved 0 of 1 hard layouts"]
    assert judge_race(HONEST).verdict == "clean"
    assert race_score(ASSISTED)[0] == 10 * v["found"] + v["hard_solved"]


def test_timing_and_focus_are_supporting_evidence_once_per_race() -> None:
    v = {k: t.value for k, t in THRESHOLDS.items()}
    strong = {"found": 6, "loss": 0}  # a race the solver signals already point at
    base = race_score(_race(**strong))[0]
    assert base > 0
    assert race_score(_race(**strong, fast=0.6))[0] == base + v["fast_points"]
    assert race_score(_race(**strong, cv=0.1))[0] == base + v["metronome_points"]
    assert race_score(_race(**strong, cv=0.1, moves=15))[0] == base  # too few gaps to tell
    assert race_score(_race(**strong, focus=6))[0] == base + v["focus_points"]
    assert race_score(_race(**strong, focus=6, moves=200))[0] == base  # once in 33 moves
    assert "metronome timing (gap variation 0.10)" in race_score(_race(**strong, cv=0.1))[1]


def test_nobody_is_listed_for_timing_or_focus_alone() -> None:
    scripted = _race(fast=0.9, cv=0.05, focus=30, critical=0, found=0, hard=0, loss=0)
    score, reasons = race_score(scripted)
    assert score == 0 and len(reasons) == 3  # said, not counted
    assert judge_player([scripted] * 20).verdict == "clean"
    assert race_score(_race(fast=0.9, cv=0.05, focus=30))[0] == race_score(HONEST)[0]


def test_one_race_decides_nothing() -> None:
    assert judge_player([ASSISTED] * 4).verdict == "clean"
    assert not judge_player([ASSISTED] * 4).ready and judge_player([ASSISTED] * 5).ready
    assert "fewer than 5 races" in judge_player([ASSISTED] * 4).reasons[-1]
    assert judge_player([ASSISTED] * 5).verdict == "likely_assisted"
    assert judge_player([ASSISTED] * 4, min_races=3).verdict == "likely_assisted"


def test_one_perfect_game_of_an_honest_player_stays_clean() -> None:
    assert judge_player([HONEST] * 9 + [ASSISTED]).verdict == "clean"


def test_a_player_is_judged_on_their_last_window_of_races() -> None:
    window = int(THRESHOLDS["window"].value)
    old_cheat = [ASSISTED] * 10 + [HONEST] * window
    assert judge_player(old_cheat).verdict == "clean"
    assert judge_player(old_cheat).races == window
    half = [ASSISTED, HONEST] * 5
    assert judge_player(half).verdict in ("review", "likely_assisted")
