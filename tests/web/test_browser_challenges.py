"""Challenges and duels in real Chromium against a real server (issue 35, the browser
part; docs/web.md "Challenges"): Ada makes a player, challenges a friend from the page,
plays her attempt (ready, then resign) and copies the link; Bob, another browser
profile, opens the link, sees nothing of Ada's game before his own is over (fair play),
plays, and both see the results. Then a duel: Ada asks, plays; Bob asks, gets Ada's
deal, plays; both see the settled duel and its comparison, "My challenges" lists both
challenges, Ada's news says Bob played her duel; axe finds nothing on the new pages,
desktop (Ada) and phone (Bob)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bench._chromium import console_errors

from ..conftest import ServerFactory
from .page import board_status, room_state, until

# fixtures: axe_source, and browsers — a 1280×800 desktop and a 390×844 phone
from .test_browser_a11y import axe_source, browsers, violations  # noqa: F401
from .test_browser_race import css, js, text_of

pytestmark = pytest.mark.timeout(240)

Driver = Any


def exists(driver: Driver, selector: str) -> bool:
    return bool(js(driver, "return !!document.querySelector(arguments[0])", selector))


def sign_in(driver: Driver, url: str, name: str) -> None:
    driver.get(url + "/challenges")
    until(lambda: exists(driver, "#create-player"), message="the player form")
    css(driver, "#player-name-input").clear()
    css(driver, "#player-name-input").send_keys(name)
    css(driver, "#create-player").click()
    until(lambda: name in text_of(driver, "#player-name"), message="the player")
    key = js(driver, "return JSON.parse(localStorage.getItem('lucie.v1.player')).key")
    assert key.startswith("lpk_")
    assert "lpk_" not in driver.current_url


def play_and_resign(driver: Driver) -> None:
    """On the race page of one's attempt: ready, the race starts, resign."""
    until(lambda: "/r/" in driver.current_url and exists(driver, "#ready"), message="the race page")
    css(driver, "#ready").click()
    until(lambda: board_status(driver) == "playing", 20, message="the race starts")
    until(lambda: exists(driver, "#resign"), message="the resign button")

    def asked() -> bool:
        if not exists(driver, "#resign-yes"):
            js(driver, "document.getElementById('resign').click()")
            time.sleep(0.3)
        return exists(driver, "#resign-yes")
    until(asked, message="the question")
    css(driver, "#resign-yes").click()
    # alone in the room: the race is over at once
    until(lambda: room_state(driver) == "over", message="the race over")


def settled(driver: Driver, url: str) -> bool:
    """The page once more (My challenges is read on each visit): is the duel settled?"""
    driver.get(url + "/challenges")
    until(lambda: exists(driver, "#my-challenges li"), message="my challenges")
    return "A draw." in text_of(driver, "#my-challenges")


def no_violations(driver: Driver, axe: str, page: str) -> None:
    found = violations(driver, axe)
    assert found == [], f"{page}: {found}"


def test_challenge_a_friend_then_a_duel(
        server_factory: ServerFactory, browsers: tuple[Driver, Driver],  # noqa: F811
        axe_source: str) -> None:  # noqa: F811
    url = server_factory(LUCIE_ARCHIVE_PERIOD_S="0.2", LUCIE_CHALLENGE_PERIOD_S="0.2")
    ada, bob = browsers
    # the nav links the challenges page
    ada.get(url + "/")
    until(lambda: exists(ada, 'nav a[href="/challenges"]'), message="the nav link")
    sign_in(ada, url, "Ada")
    no_violations(ada, axe_source, "challenges, desktop")

    # --- Challenge a friend: the link page with its share link, then Ada plays
    css(ada, "#challenge-friend").click()
    until(lambda: "/c/" in ada.current_url and exists(ada, "#share-link"), message="the link page")
    link = css(ada, "#share-link").get_attribute("value")
    assert link.startswith(url + "/c/")
    css(ada, "#copy-link").click()
    until(lambda: text_of(ada, ".share [role=status]"), message="copied (or how to)")
    no_violations(ada, axe_source, "challenge link, desktop")
    css(ada, "#play-attempt").click()
    play_and_resign(ada)
    # the end of the race leads back to the challenge
    until(lambda: exists(ada, "#to-challenge"), message="the way back")
    css(ada, "#to-challenge").click()
    until(lambda: exists(ada, "#challenge-waiting"), 20, message="Ada waits for rivals")
    assert ada.current_url == link
    assert text_of(ada, "#challenge-played") == "1 player has played it."

    # --- Bob opens the link: what it is, and nothing of Ada's game before his own
    sign_in(bob, url, "Bob")
    bob.get(link)
    until(lambda: exists(bob, "#play-challenge"), message="Bob's play button")
    assert "made by Ada" in text_of(bob, "#challenge-what")
    assert exists(bob, "#fair-play") and not exists(bob, "#challenge-results")
    no_violations(bob, axe_source, "challenge link, phone")
    # Ada's attempt's room, opened before Bob played: refused, said in words (no error dump)
    ada_room = js(ada, "return Object.keys(localStorage).find((k) => "
                       "k.startsWith('lucie.v1.racer.')).split('.').pop()")
    bob.get(f"{url}/r/{ada_room}")
    until(lambda: "nothing of it shows" in text_of(bob, "main .msg.error"), message="the seal")
    assert "{" not in text_of(bob, "main") and not exists(bob, ".board")
    bob.get(link)
    until(lambda: exists(bob, "#play-challenge"), message="Bob's play button, again")
    css(bob, "#play-challenge").click()
    play_and_resign(bob)
    bob.get(link)
    until(lambda: exists(bob, "#challenge-results"), 20, message="Bob sees the results")
    names = js(bob, "return [...document.querySelectorAll("
                    "'#challenge-results tbody td:nth-child(2)')].map((e) => e.textContent)")
    assert sorted(names) == ["Ada", "Bob"]
    ada.refresh()
    rows = "return document.querySelectorAll('#challenge-results tbody tr').length"
    until(lambda: js(ada, rows) == 2, 20, message="Ada sees both")

    # --- a duel: Ada asks and plays, then Bob gets her deal
    ada.get(url + "/challenges")
    until(lambda: exists(ada, "#duel"), message="the duel button")
    css(ada, "#duel").click()
    play_and_resign(ada)
    ada.get(url + "/challenges")
    until(lambda: "waiting" in text_of(ada, "#my-challenges"), 20, message="Ada's duel waits")
    bob.get(url + "/challenges")
    until(lambda: exists(bob, "#duel"), message="Bob's duel button")

    def bob_matched() -> bool:
        css(bob, "#duel").click()
        until(lambda: "/r/" in bob.current_url or text_of(bob, ".msg"), message="an answer")
        return "/r/" in bob.current_url
    assert bob_matched()
    play_and_resign(bob)
    attempts = js(bob, "return Object.keys(localStorage)"
                       ".filter((k) => k.startsWith('lucie.v1.attempt.'))")
    assert len(attempts) == 2  # the link challenge and the duel
    for who in (ada, bob):
        until(lambda w=who: settled(w, url), 30, message="the settled duel")
        # the link challenge, the duel and the drawn duel's tie-break
        assert len(js(who, "return [...document.querySelectorAll('#my-challenges li')]")) == 3
    # Ada's news on her next visit: Bob played her duel
    until(lambda: "Bob played your duel" in text_of(ada, "#news"), message="Ada's news")
    # the settled duel's page: the outcome and the comparison (both timelines)
    duel_link = js(bob, "return [...document.querySelectorAll('#my-challenges li')]"
                        ".find((li) => li.dataset.state === 'settled').querySelector('a').href")
    for who, label in ((ada, "desktop"), (bob, "phone")):
        who.get(duel_link)
        until(lambda w=who: exists(w, ".challenge-compare svg"), 20, message="the comparison")
        assert text_of(who, "#challenge-outcome") == "A draw."
        no_violations(who, axe_source, f"settled duel, {label}")
    for who in (ada, bob):
        who.get(url + "/challenges")
        until(lambda w=who: exists(w, "#my-challenges li a"), message="my challenges")
    no_violations(ada, axe_source, "my challenges, desktop")
    no_violations(bob, axe_source, "my challenges, phone")
    assert console_errors(ada) == []
    # the browser logs the refused read of Ada's sealed room (403), and nothing else
    assert [e for e in console_errors(bob) if f"/rooms/{ada_room} " not in e] == []
