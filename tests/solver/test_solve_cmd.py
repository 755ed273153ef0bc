"""``lucie solve``."""

from __future__ import annotations

import pytest

from client_cli.cli import main
from client_cli.solve_cmd import format_result


def test_solve_prints_verdict_moves_and_stats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "1", "--seconds", "2"]) == 0
    out = capsys.readouterr().out
    assert "verdict: won" in out and "best foundation count: 52/52" in out
    assert "moves (" in out and "searched" in out


def test_solve_with_difficulty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "4", "--seconds", "1", "--difficulty"]) == 0
    assert "difficulty: " in capsys.readouterr().out


def test_solve_one_layout() -> None:
    text = format_result("belle-lucie", 2, "one-layout", None, 2.0)
    assert "verdict: lost" in text and "30/52 (exact)" in text


def test_solve_bad_key_and_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "1", "--key", "zz"]) == 2
    assert main(["solve", "1", "--variant", "house-in-the-wood"]) == 2
    assert "lucie solve:" in capsys.readouterr().out
