"""``python -m bench --quick archive`` runs on both databases and prints every
figure (no timing asserted: targets live in bench/, never in the tests).
About a minute: marker ``bench``, run by ``make bench`` before the benchmarks,
not by ``make test``."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from bench.__main__ import available, main


@pytest.mark.slow
@pytest.mark.bench
def test_quick_archive_bench_prints_every_figure(
        pg_server: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert "archive" in available()
    admin = "test" if pg_server == 5432 else "postgres"
    monkeypatch.setenv("LUCIE_BENCH_CACHE", str(tmp_path))
    monkeypatch.setenv("LUCIE_BENCH_PG", f"postgresql://postgres@127.0.0.1:{pg_server}/{admin}")
    monkeypatch.setenv("LUCIE_BENCH_PG_DB", "lucie_test_bench_" + secrets.token_hex(6))
    monkeypatch.setenv("LUCIE_BENCH_DROP", "1")  # the database and the file go after
    assert main(["--quick", "archive"]) == 0
    out = capsys.readouterr().out
    for db in ("sqlite", "postgresql"):
        for label in ("archive: 20,000 races", "profile: p50", "history first page: p50",
                      "history deep page: p50", "head-to-head: p50", "archive writes:",
                      "moves, paced ~500/s, archiver held (A)",
                      "moves, paced ~500/s, archiver writing (B)",
                      "moves, paced ~500/s, ratio B/A p99"):
            assert f"{db} {label}" in out, (db, label, out)
    assert "(target ≤ 20: " in out and "(target ≤ 50: " in out
    assert "archives dropped" in out
    assert not list(tmp_path.glob("*.sqlite3"))


@pytest.mark.slow
@pytest.mark.bench
def test_quick_duels_bench_prints_every_figure(
        pg_server: int, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert "duels" in available()
    admin = "test" if pg_server == 5432 else "postgres"
    monkeypatch.setenv("LUCIE_BENCH_PG", f"postgresql://postgres@127.0.0.1:{pg_server}/{admin}")
    monkeypatch.setenv("LUCIE_BENCH_PG_DB", "lucie_test_duels_" + secrets.token_hex(6))
    assert main(["--quick", "duels"]) == 0
    out = capsys.readouterr().out
    for label in ("seeded: 2,000 open duels, 200 callers", "POST /duels, 200 requests",
                  "(target p99 ≤ 50: ", "server CPU", "matching query alone", "Index Scan",
                  "mean rating distance of the pairs", "paired within a day of simulated time"):
        assert label in out, (label, out)
