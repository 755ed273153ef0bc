"""The room socket's ``Origin`` rule (``server.runtime.origins``; issue 33):
origins compared as browsers serialize them, ``self`` the ``Host`` asked for
with the connection's scheme, no ``Origin`` always let in."""

from __future__ import annotations

import pytest

from server.runtime.origins import OriginRule, normalize


@pytest.mark.parametrize(("text", "origin"), [
    ("https://race.example", "https://race.example"),
    ("HTTPS://Race.Example:443", "https://race.example"),
    ("http://race.example:80", "http://race.example"),
    ("http://race.example:8080", "http://race.example:8080"),
    ("http://[::1]:8000", "http://[::1]:8000"),
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("null", None), ("file://", None), ("ws://race.example", None),
    ("https://race.example/", None), ("https://race.example/x", None),
    ("https://u:p@race.example", None), ("https://race.example:99999", None),
    ("https://race.example?x", None), ("", None), ("https://", None),
])
def test_normalize(text: str, origin: str | None) -> None:
    assert normalize(text) == origin


def test_the_default_is_the_servers_own_origin() -> None:
    rule = OriginRule.parse("")
    assert rule.allows(None, "ws", "127.0.0.1:8000")  # not a browser
    assert rule.allows("http://127.0.0.1:8000", "ws", "127.0.0.1:8000")
    assert rule.allows("https://race.example", "wss", "Race.Example:443")
    assert not rule.allows("http://race.example", "wss", "race.example")  # scheme
    assert not rule.allows("https://race.example", "ws", "race.example")
    assert not rule.allows("http://127.0.0.1:8001", "ws", "127.0.0.1:8000")  # port
    assert not rule.allows("http://localhost:8000", "ws", "127.0.0.1:8000")  # host
    assert not rule.allows("null", "ws", "127.0.0.1:8000")
    assert not rule.allows("http://127.0.0.1:8000", "ws", None)  # no Host: no own origin
    assert not rule.allows("http://a.example", "ws", "a.example/evil")  # a bad Host


def test_a_list_replaces_the_default_unless_it_says_self() -> None:
    listed = OriginRule.parse("https://race.example, http://partner.example:8080/")
    assert listed.allows("https://race.example:443", "ws", "127.0.0.1:8000")
    assert listed.allows("http://partner.example:8080", "ws", "127.0.0.1:8000")
    assert not listed.allows("http://127.0.0.1:8000", "ws", "127.0.0.1:8000")
    assert listed.allows(None, "ws", "127.0.0.1:8000")
    both = OriginRule.parse("self,https://race.example")
    assert both.allows("http://127.0.0.1:8000", "ws", "127.0.0.1:8000")
    assert both.allows("https://race.example", "ws", "127.0.0.1:8000")
    assert not both.allows("https://evil.example", "ws", "127.0.0.1:8000")
    anyone = OriginRule.parse("*")
    assert anyone.allows("https://evil.example", "ws", "127.0.0.1:8000")
    assert anyone.allows("null", "ws", "127.0.0.1:8000")


@pytest.mark.parametrize("text", ["race.example", "https://race.example/play", "ftp://x", "null"])
def test_a_bad_entry_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        OriginRule.parse(text)
