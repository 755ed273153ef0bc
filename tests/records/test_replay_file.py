"""Replay files: export, import, and refusal of invalid and forged documents."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from server.records.replay_file import (
    FORMAT,
    ReplayForged,
    ReplayInvalid,
    export_replay,
    import_replay,
)

from .games import KEY, RULES, record

GAME = [("8f", 1000), ("15f", 3000), ("2-3", 4000), ("r", 6000), ("u", 7000)]


def _doc() -> dict[str, Any]:
    return export_replay(record(GAME, name="ada", status="resigned", finished_ms=9000))


def test_export_document() -> None:
    doc = _doc()
    assert doc["format"] == FORMAT and doc["format_version"] == 1
    assert doc["rules"] == RULES.to_json()
    assert (doc["deal_number"], doc["redeal_key"], doc["player"]) == (2, KEY.hex(), "ada")
    assert doc["moves"][0] == {"move": "8f", "race_clock_ms": 1000, "version": 1}
    assert doc["moves"][-1] == {"move": "u", "race_clock_ms": 7000, "version": 5}
    assert doc["result"] == {"status": "resigned", "foundation_cards": 2, "moves": 5,
                             "redeals_used": 0, "merci_used": False, "reach_time_ms": 3000,
                             "finished_ms": 9000}


def test_round_trip() -> None:
    rec = import_replay(_doc())
    assert rec == record(GAME, name="ada", status="resigned", finished_ms=9000)


def test_minimal_document_and_racer_view_result_import() -> None:
    doc = _doc()
    del doc["format"], doc["format_version"], doc["player"]
    doc["rules"] = {"variant": "belle-lucie"}
    for m in doc["moves"]:
        del m["version"]
    doc["result"] |= {"id": "r1", "name": "ada", "join_order": 1, "ready": True, "final": True}
    rec = import_replay(doc)
    assert rec.name == "ada" and len(rec.moves) == 5
    # a computer racer's replay, as the server answers it (issue 38: it was refused)
    doc["result"] |= {"bot": True, "bot_level": "club", "bot_rating": 17.8}
    assert import_replay(doc).name == "ada"


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.update(format_version=2), "format_version"),
    (lambda d: d.update(extra=1), "extra"),
    (lambda d: d.update(redeal_key=None), "redeal_key"),
    (lambda d: d.update(redeal_key="zz"), "redeal_key"),
    (lambda d: d.update(deal_number=0), "deal_number"),
    (lambda d: d.update(deal_number="2"), "deal_number"),
    (lambda d: d["rules"].update(variant="chess"), "rules"),
    (lambda d: d["rules"].update(build="down-any"), "rules.build"),
    (lambda d: d["moves"][1].update(move="9x9"), None),
    (lambda d: d["moves"][1].update(move="a"), None),
    (lambda d: d["moves"][1].update(race_clock_ms=-1), "moves.1.race_clock_ms"),
    (lambda d: d["result"].update(status="champion"), "result.status"),
])
def test_invalid_documents_refused(change: Any, field: str | None) -> None:
    doc = _doc()
    change(doc)
    with pytest.raises(ReplayInvalid) as exc:
        import_replay(doc)
    assert exc.value.code == "replay/invalid"
    if field is not None:
        assert exc.value.details["field"] == field


def test_not_an_object_refused() -> None:
    with pytest.raises(ReplayInvalid):
        import_replay([1, 2])


def test_illegal_move_is_forged() -> None:
    doc = _doc()
    doc["moves"][1]["move"] = "2f"  # 2S cannot go to an empty spade foundation
    with pytest.raises(ReplayForged) as exc:
        import_replay(doc)
    assert exc.value.code == "replay/forged" and exc.value.details == {"move_index": 2}


def test_clock_going_back_is_forged() -> None:
    doc = _doc()
    doc["moves"][2]["race_clock_ms"] = 2000
    with pytest.raises(ReplayForged) as exc:
        import_replay(doc)
    assert exc.value.details == {"move_index": 3}


def test_version_gap_is_forged() -> None:
    doc = _doc()
    doc["moves"][2]["version"] = 7
    with pytest.raises(ReplayForged):
        import_replay(doc)


@pytest.mark.parametrize(("field", "value"), [
    ("foundation_cards", 52), ("moves", 3), ("reach_time_ms", 10), ("redeals_used", 1),
    ("merci_used", True), ("status", "won"), ("status", "stuck"), ("finished_ms", 6500),
])
def test_claimed_result_that_replay_contradicts_is_forged(field: str, value: Any) -> None:
    doc = copy.deepcopy(_doc())
    doc["result"][field] = value
    with pytest.raises(ReplayForged) as exc:
        import_replay(doc)
    assert exc.value.details["field"] == f"result.{field}"


def test_moved_card_with_right_totals_is_still_forged() -> None:
    # a forger swaps a move for another that is not legal but keeps every total
    doc = _doc()
    doc["moves"][2]["move"] = "3-2"
    with pytest.raises(ReplayForged):
        import_replay(doc)
