"""``lucie bot`` picks names the room does not have yet (a room made by
``lucie play --bots N`` already holds ``bot-Ada``…; before, the first new bot
was refused with ``racer/name_taken``)."""

from __future__ import annotations

from client_cli.bot import bot_name
from client_cli.bot_cmd import free_bot_names


def test_taken_bot_names_are_skipped_case_insensitively() -> None:
    taken = {"bot-Ada", "BOT-BIX", "ann"}
    names = free_bot_names(taken, 2)
    assert len(names) == 2 and not {n.casefold() for n in names} & {t.casefold() for t in taken}
    assert names == [bot_name(2), bot_name(3)]


def test_a_prefix_and_a_single_name() -> None:
    assert free_bot_names(set(), 1, "zed") == ["zed"]
    assert free_bot_names({"zed-Ada"}, 2, "zed") == ["zed-" + bot_name(1)[4:],
                                                      "zed-" + bot_name(2)[4:]]
    assert free_bot_names(set(), 3) == [bot_name(i) for i in range(3)]
