"""``lucie compare`` / ``lucie leaderboard`` rendering, offline, on the hand-checked game."""

from __future__ import annotations

from client_cli.cli import build_parser
from client_cli.compare_cmd import comparison_rows, fmt_time, lead_changes, timeline_chart
from client_cli.leaderboard_cmd import leaderboard_rows
from server.records.compare import compare
from tests.records.games import record

ADA = [("8f", 1000), ("15f", 3000), ("2-3", 4000), ("r", 6000)]
BOB = [("15f", 1500), ("8f", 2000), ("17-18", 2500)]


def _comparison() -> dict[str, object]:
    return compare(record(ADA, name="ada"), record(BOB, name="bob")).to_json()


def test_fmt_time() -> None:
    assert [fmt_time(v) for v in (None, 0, 1234, 61_000, 599_999)] == [
        "-", "0:00.0", "0:01.2", "1:01.0", "9:59.9"]


def test_table_rows() -> None:
    rows = {label: (a, b) for label, a, b in comparison_rows(_comparison())}
    assert rows["racer"] == ("ada", "bob")
    assert rows["foundation cards"] == ("2", "2")
    assert rows["reach time"] == ("0:03.0", "0:02.0")
    assert rows["redeals used"] == ("1", "0")
    assert rows["per layout (cards, time)"] == ("+2 in 0:06.0 · +0 in 0:00.0", "+2 in 0:02.5")
    assert rows["time in the lead"] == ("0:00.5", "0:01.0")


def test_chart_has_both_racers_and_the_axes() -> None:
    chart = timeline_chart(_comparison(), width=70, height=14)
    assert "ada" in chart and "bob" in chart and "race clock (s)" in chart
    assert "deal 2" in chart and "\x1b[" not in chart
    assert len(chart.splitlines()) == 14


def test_leaderboard_rows() -> None:
    board = {"rows": [{"rank": 1, "name": "ada", "foundation_cards": 52,
                       "reach_time_ms": 61_000, "moves": 90, "deal_number": 7, "room": "ABC"}]}
    assert leaderboard_rows(board) == [("1", "ada", "52", "1:01", "90", "7", "ABC")]


def test_commands_are_registered() -> None:
    parser = build_parser()
    args = parser.parse_args(["compare", "ABC", "ada", "bob"])
    assert (args.code, args.a, args.b) == ("ABC", "ada", "bob")
    args = parser.parse_args(["leaderboard", "--all-time", "--variant", "trefoil"])
    assert args.all_time and args.variant == "trefoil"
    assert parser.parse_args(["daily"]).variant == "belle-lucie"


def test_cards_axis_has_whole_numbers_only() -> None:
    chart = timeline_chart(_comparison(), width=70, height=14)
    labels = [line.split("┤")[0].strip() for line in chart.splitlines() if "┤" in line]
    assert labels and all(label.isdigit() for label in labels), labels


def test_lead_changes_in_words() -> None:
    assert [lead_changes(n) for n in (0, 1, 2, 5)] == [
        "the lead never changed hands", "the lead changed hands once",
        "the lead changed hands twice", "the lead changed hands 5 times"]
