"""``python -m bench bots --deals N`` runs and prints every figure (no timing asserted:
the issue's targets are read from the 200-deal run, docs/protocol.md)."""

from __future__ import annotations

import pytest

from bench.__main__ import main


def test_a_short_bots_bench_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "--deals", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 random belle-lucie deals" in out
    for label in ("mean foundation cards", "gaps novice→club", "differ in final cards or moves",
                  "think time per move median", "p90", "search CPU per move", "rating"):
        assert label in out, label
    for kind in ("novice", "club", "expert", "hint"):
        assert f"{kind}: rating" in out
