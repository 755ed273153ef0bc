"""Board helpers: targets from legal moves, ranking, clock and bar text, progress events."""

from __future__ import annotations

from client_cli.api import RacerView
from client_cli.board.model import (
    apply_progress,
    fit_parts,
    fmt_clock,
    merci_targets,
    points,
    progress_bar,
    rank_racers,
    targets_for,
)


def test_targets_for_reads_the_servers_legal_moves() -> None:
    legal = ["3f", "3-7", "13-3", "3-12", "r", "m 5H f", "m 5H 4"]
    assert targets_for(legal, 3) == {"f", "7", "12"}
    assert targets_for(legal, 13) == {"3"}
    assert targets_for(legal, 1) == set()
    assert merci_targets(legal, "5h") == {"f", "4"}


def test_rank_racers_follows_the_rule_book() -> None:
    def r(i: str, cards: int, reach: int | None, moves: int, order: int) -> RacerView:
        return RacerView(id=i, name=i, foundation_cards=cards, reach_time_ms=reach, moves=moves,
                         join_order=order)
    racers = [r("a", 5, 900, 10, 0), r("b", 7, 2000, 30, 1), r("c", 5, 800, 40, 2),
              r("d", 5, 800, 40, 3), r("e", 0, None, 0, 4), r("f", 0, None, 0, 5)]
    assert [x.id for x in rank_racers(racers)] == ["b", "c", "d", "a", "e", "f"]


def test_apply_progress_updates_only_known_racers() -> None:
    racers = {"a": RacerView(id="a", name="ann")}
    apply_progress(racers, {"racer": "a", "foundation_cards": 4, "moves": 9, "status": "playing",
                            "unknown": 1})
    apply_progress(racers, {"racer": "zz", "moves": 1})
    assert (racers["a"].foundation_cards, racers["a"].moves) == (4, 9)
    assert list(racers) == ["a"]


def test_text_helpers() -> None:
    assert fmt_clock(None) == "--:--" and fmt_clock(61_999) == "1:01" and fmt_clock(-5) == "0:00"
    assert progress_bar(26, 52, 10) == "█████░░░░░"
    assert progress_bar(99, 52, 4) == "████"


def test_points_follow_seed_003() -> None:
    assert points(RacerView(id="a", name="a", foundation_cards=7)) == 35
    won = RacerView(id="b", name="b", foundation_cards=52, status="won", reach_time_ms=300_500)
    assert points(won) == 260 + 500 + 900


def test_one_wording_of_a_status_on_every_screen() -> None:
    """The trial: "timed out" on the board, ``timed_out`` in the results box and
    the exit table; bots "ready" on the board, "waiting" in ``lucie results``."""
    from client_cli.api import StandingView
    from client_cli.board.model import standing_rows, status_text
    assert status_text("timed_out") == "timed out" and status_text("won") == "won"
    assert status_text("waiting", ready=True) == "ready" and status_text("waiting") == "waiting"
    rows = [StandingView(rank=1, racer="a", name="a", status="timed_out", final=True),
            StandingView(rank=2, racer="b", name="b", status="waiting"),
            StandingView(rank=3, racer="c", name="c", status="waiting")]
    assert [r[5] for r in standing_rows(rows, ready={"c"})] == ["timed out", "waiting", "ready"]


def test_fit_parts_drops_the_lightest_parts_first_and_keeps_the_order() -> None:
    parts = [(9, "room ABCDEF"), (2, "La Belle Lucie"), (9, "0:12 / 15:00"), (6, "moves 3"),
             (1, "live")]
    assert fit_parts(parts, 200) == "room ABCDEF · La Belle Lucie · 0:12 / 15:00 · moves 3 · live"
    assert fit_parts(parts, 40) == "room ABCDEF · 0:12 / 15:00 · moves 3"
    assert fit_parts(parts, 10) == "room ABCDEF · 0:12 / 15:00"  # weight 9 stays
