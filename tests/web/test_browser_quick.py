"""The browser client's Quick race button in real headless Chromium (issue 21,
item 1): Ada presses it on the home page and lands in a quick-race lobby,
seated (her token stored), its waiting room saying it starts by itself; Bob
takes a quick-race seat over REST and lands beside her; the lobby starts by
itself and Ada races. Without a name the button asks for one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench._chromium import chromium, console_errors

from ..conftest import ServerFactory
from .page import room_state
from .test_browser_race import css, js, text_of, until

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def ada(tmp_path: Path) -> Iterator[Any]:
    driver = chromium(1280, 900, profile_root=tmp_path)
    driver.set_script_timeout(20)
    yield driver
    driver.quit()


def test_quick_race_in_chromium(server_factory: ServerFactory, ada: Any) -> None:
    url = server_factory(LUCIE_QUICK_WAIT_S="2")
    api = httpx.Client(base_url=url + "/api/v1", timeout=10)
    ada.get(url + "/")
    name = until(lambda: ada.find_elements("css selector", "#name"), message="home")[0]
    name.clear()
    css(ada, "#quick").click()  # no name yet: asked for one, nothing sent
    until(lambda: "Your name first" in text_of(ada, ".msg"), message="the name asked for")
    name.send_keys("Ada")
    js(ada, "document.querySelector('#variant').value = 'shamrocks'")
    css(ada, "#quick").click()
    until(lambda: js(ada, "return location.pathname").startswith("/r/"), message="the lobby")
    code = js(ada, "return location.pathname").split("/")[2]
    until(lambda: room_state(ada) == "waiting", message="seated")
    assert not ada.find_elements("css selector", "#join-name")  # seated already
    assert "Quick race: it starts by itself" in text_of(ada, ".wait")
    stored = js(ada, "return JSON.parse(localStorage.getItem(arguments[0]))",
                f"lucie.v1.racer.{code}")
    room = api.get(f"/rooms/{code}").json()
    assert room["rules"]["variant"] == "shamrocks" and room["quick"] is not None
    assert [(r["id"], r["name"]) for r in room["racers"]] == [(stored["racer"], "Ada")]
    bob = api.post("/quick", json={"variant": "shamrocks", "name": "Bob"})
    assert bob.status_code == 201 and bob.json()["room"]["code"] == code
    until(lambda: room_state(ada) == "racing", timeout=15,
          message="the lobby starts by itself")
    assert console_errors(ada) == []
    api.close()
