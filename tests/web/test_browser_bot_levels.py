"""The home page's choice of computer racers' level, in real headless Chromium
(issue 38): Ada creates a room with three club bots, another with the mix; the
room lists each bot with its level and rating beside its name; the race with
the three levels runs to its end and the standings show them, a bot with no
move left ``stuck``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors
from server.solver.levels import RATINGS

from ..conftest import ServerFactory
from .page import board_version
from .test_browser_race import css, js, text_of, until

pytestmark = pytest.mark.timeout(150)

LABELS = """return [...document.querySelectorAll(arguments[0])].filter((e) => e.querySelector(
    '.bot-label')).map((e) => [e.firstChild.textContent, e.querySelector('.level')?.textContent])"""


@pytest.fixture
def ada(tmp_path: Path) -> Iterator[Any]:
    driver = chromium(1280, 900, profile_root=tmp_path)
    driver.set_script_timeout(20)
    yield driver
    driver.quit()


def _create(ada: Any, url: str, count: int, level: str) -> str:
    """Create a room from the home page with ``count`` bots of ``level``; its code."""
    from selenium.webdriver.support.ui import Select

    ada.get(url + "/")
    until(lambda: text_of(ada, "#public-rooms"), message="the home page")
    name = css(ada, "#name")
    name.clear()
    name.send_keys("Ada")
    css(ada, "#bots").clear()
    css(ada, "#bots").send_keys(str(count))
    options = [o.get_attribute("value") for o in Select(css(ada, "#bot-level")).options]
    assert options == ["mix", "novice", "club", "expert"]
    Select(css(ada, "#bot-level")).select_by_value(level)
    css(ada, "#create").click()
    until(lambda: "/r/" in ada.current_url, message="the room page")
    return str(ada.current_url.rstrip("/").rsplit("/", 1)[1])


def _label(level: str) -> str:
    return f" · {level} ≈ {RATINGS[level]:.1f}"


def test_the_create_form_chooses_the_bots_level(server_factory: ServerFactory,
                                                ada: Any) -> None:
    url = server_factory(LUCIE_BOT_THINK_MS="20")
    api = httpx.Client(base_url=url + "/api/v1", timeout=10)
    code = _create(ada, url, 3, "club")
    room = api.get(f"/rooms/{code}").json()
    assert [(r["name"], r["bot_level"]) for r in room["racers"] if r["bot"]] == [
        ("bot-Ada", "club"), ("bot-Bix", "club"), ("bot-Cog", "club")]
    until(lambda: len(js(ada, LABELS, ".racers .name")) == 3, message="the bots listed")
    assert js(ada, LABELS, ".racers .name") == [
        ["bot-Ada", _label("club")], ["bot-Bix", _label("club")], ["bot-Cog", _label("club")]]

    code = _create(ada, url, 3, "mix")  # the mix: one of each level
    until(lambda: len(js(ada, LABELS, ".racers .name")) == 3, message="the bots listed")
    assert js(ada, LABELS, ".racers .name") == [
        ["bot-Ada", _label("novice")], ["bot-Bix", _label("club")],
        ["bot-Cog", _label("expert")]]
    css(ada, "#start").click()
    until(lambda: board_version(ada) == 0, 15, message="the board")
    css(ada, "#resign").click()
    css(ada, "#resign-yes").click()
    deadline = time.monotonic() + 90
    while (room := api.get(f"/rooms/{code}").json())["state"] != "over":
        assert time.monotonic() < deadline, f"the bots stopped: {room['racers']}"
        time.sleep(0.3)
    bots = [r for r in room["racers"] if r["bot"]]
    assert all(r["final"] and r["status"] in ("won", "stuck") for r in bots), bots
    until(lambda: "Status" in text_of(ada, ".end .standings thead"), message="the standings")
    rows = js(ada, """return [...document.querySelectorAll('.end .standings tbody tr')].map(
        (tr) => [tr.querySelector('td.nm').textContent, tr.lastChild.textContent])""")
    shown = {name: status for name, status in rows}
    for r, level in zip(bots, ("novice", "club", "expert"), strict=True):
        assert shown[f"{r['name']}bot{_label(level)}"] == r["status"], shown
    if any(r["status"] == "stuck" for r in bots):  # all three winning: a rare deal
        assert "stuck" in shown.values()
    assert console_errors(ada) == []
    api.close()
