"""The capacity benchmark's harness (``bench/capacity.py``) in its quickest form:
1 and 2 real ``lucie-server`` processes on a private ``redis-server`` behind a
real ``haproxy``, a few racers at human pace, then at full speed. Behaviour,
not timing: every row has its figures, moves were acked, no move was refused,
the full-speed sockets went to every process, Redis and the servers used CPU,
and the table has one line per row. Marker ``bench``: ``make bench`` runs it
before the benchmarks, ``make test`` does not."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from bench.capacity import QUICK, measure, table

from .balancer import haproxy_binary

pytestmark = [
    pytest.mark.slow, pytest.mark.timeout(90),
    pytest.mark.skipif(haproxy_binary() is None or shutil.which("redis-server") is None,
                       reason="haproxy and redis-server are needed"),
]


@pytest.mark.bench
def test_capacity_rows_at_one_and_two_processes() -> None:
    cfg = replace(QUICK, processes=(1, 2), racers=16, warmup_s=0.5, seconds=2.0,
                  full_racers=16, full_seconds=1.0, workers=2)
    rows = measure("redis", cfg)

    assert [(r.backend, r.processes) for r in rows] == [("redis", 1), ("redis", 2)]
    for row in rows:
        assert row.pace.racers == 16 and row.pace.moves > 0 and row.pace.errors == 0
        assert row.pace.p50_ms <= row.pace.p99_ms
        assert row.steps == []  # the quick form does not search
        assert row.moves > 0 and row.rate > 0
        assert len(row.sockets) == row.processes and min(row.sockets) > 0
        assert 0 < row.redis_max_us <= row.redis_us and row.server_us > 0  # one node
    assert rows[0].efficiency(rows[0]) == pytest.approx(1.0)
    assert rows[0].cpu_efficiency(rows[0]) == pytest.approx(1.0)
    assert (rows[1].cpu_efficiency(rows[0]) or 0) > 0
    lines = table(rows)
    assert len(lines) == 2 + len(rows)
    assert lines[2].startswith("| one Redis | 1 | 16: ")
    assert lines[3].startswith("| one Redis | 2 | 16: ")


def test_capacity_is_a_benchmark_of_the_runner() -> None:
    from bench.__main__ import available

    assert "capacity" in available()
    assert not [name for name in available() if name.startswith("_capacity")]
