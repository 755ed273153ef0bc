"""The ``python -m bench`` runner finds and runs the engine benchmark (no timing asserted)."""

from __future__ import annotations

import pytest

from bench.__main__ import available, main


def test_engine_benchmark_is_found() -> None:
    assert "engine" in available()


def test_quick_engine_run_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quick", "engine"]) == 0
    out = capsys.readouterr().out
    for label in ("baseline", "check + apply per move", "legal moves per position",
                  "random playouts belle-lucie", "deals (MS", "target"):
        assert label in out


def test_unknown_benchmark_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["no-such-bench"])
    assert info.value.code == 2
    assert "no benchmark no-such-bench" in capsys.readouterr().err
