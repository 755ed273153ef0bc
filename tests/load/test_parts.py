"""The gevent-free parts of the load test: move choice, room pool, summary."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from infra.load.moves import choose_move
from infra.load.pool import Room, RoomPool
from infra.load.servers import Sample
from infra.load.summary import markdown_table, read_stats, summarize
from server.rules import (
    Move,
    apply,
    get_variant,
    legal_moves,
    new_game,
    position_to_json,
    status,
)


def test_choose_move_plays_a_deal_to_the_end_with_legal_moves() -> None:
    rules = get_variant("belle-lucie").with_overrides(undo=False)
    pos = new_game(rules, 123, bytes(16)).position
    rng = random.Random(1)
    for _ in range(500):
        game = {"position": position_to_json(pos),
                "legal_moves": [str(m) for m in legal_moves(rules, pos)]}
        text = choose_move(game, rng)
        if text is None:
            break
        move = Move.from_text(text)
        assert move in set(legal_moves(rules, pos))
        assert move.kind in ("play", "redeal")
        pos = apply(rules, pos, move, bytes(16))
    else:
        raise AssertionError("no end after 500 moves")
    assert not any(m.kind in ("play", "redeal") for m in legal_moves(rules, pos))
    assert status(rules, pos) in ("won", "stuck")


def test_pool_fills_a_room_then_starts_a_new_one() -> None:
    pool = RoomPool(random.Random(0))
    assert pool.take_seat() is None
    room = Room("r1", "ABCD", {}, capacity=3)
    pool.add(room)
    assert pool.take_seat() is room and pool.take_seat() is room
    assert pool.take_seat() is None  # full
    pool.give_back(room)
    assert pool.take_seat() is room
    pool.close(room)
    assert pool.racing_room() is room
    pool.finished(room)
    assert pool.racing_room() is None and pool.take_seat() is None


def test_summary_row_and_table(tmp_path: Path) -> None:
    csv = tmp_path / "x_stats.csv"
    csv.write_text(
        "Type,Name,Request Count,Failure Count,Requests/s,50%,95%,99%,Max Response Time\n"
        "WS,move (human),100,0,50.0,4,20,40,55.5\n"
        "WS,move (bot),10,1,5.0,3,9,12,13\n"
        ",Aggregated,120,1,60.0,4,20,40,55.5\n")
    samples = [[Sample(0.0, 10.0, 50 << 20, 20), Sample(5.0, 60.0, 60 << 20, 200)]]
    row = summarize("embedded", read_stats(csv), samples, steady_from=1.0,
                    baseline_rss=[50 << 20], racers=10, connections=10)
    assert row["moves"] == 110 and row["moves_per_s"] == 55.0
    assert (row["p50_ms"], row["p95_ms"], row["p99_ms"]) == (4, 20, 40)
    assert row["failures"] == 1 and row["server_cpu_percent"] == [60]
    assert row["kb_per_connection"] == 1024.0
    assert "| embedded (1 proc) | 10 | 55.0 | 4 / 20 / 40 | 1 / 120 | 60% |" \
        in markdown_table([row])


def test_load_runs_refuse_a_redis_off_this_machine() -> None:
    from infra.load.run import _check_loopback_redis

    _check_loopback_redis("redis://127.0.0.1:6379/13")
    with pytest.raises(SystemExit, match=r"127\.0\.0\.1 only"):
        _check_loopback_redis("redis://redis.example.com:6379/0")


def test_hotspots_sum_self_and_inclusive_time(tmp_path: Path) -> None:
    from infra.load.hotspots import hotspots, hotspots_markdown

    folded = tmp_path / "s.folded"
    folded.write_text("main;loop;send 6\nmain;loop;decode 3\nmain;idle 1\n")
    total, own, incl = hotspots(folded)
    assert total == 10 and own["send"] == 6 and incl["loop"] == 9 and incl["main"] == 10
    assert "- 60.0% `send`" in hotspots_markdown(folded)
