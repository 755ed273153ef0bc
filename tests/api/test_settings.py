"""Settings from the environment and flags."""

from __future__ import annotations

import pytest

from server.runtime.settings import Settings


def test_defaults_without_configuration() -> None:
    s = Settings.from_env({})
    assert s.redis_url is None and s.port == 8000 and s.host == "127.0.0.1"
    assert s.ws_compression is False


def test_environment_then_overrides() -> None:
    s = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/0", "LUCIE_PORT": "9001",
                           "LUCIE_WS_RATE": "5.5", "LUCIE_WS_COMPRESSION": "yes"}, port=9002)
    assert s.redis_url == "redis://127.0.0.1:6379/0" and s.port == 9002
    assert s.ws_rate == 5.5 and s.ws_compression is True


@pytest.mark.parametrize("env", [{"LUCIE_PORT": "eighty"}, {"LUCIE_PORT": "70000"},
                                 {"LUCIE_SEND_QUEUE": "0"}, {"LUCIE_WS_COMPRESSION": "maybe"}])
def test_bad_values_are_refused_by_name(env: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        Settings.from_env(env)


def test_idle_http_connections_outlive_the_usual_proxy_timeout() -> None:
    """uvicorn closes an idle keep-alive connection after 5 s; a client that
    sends just then gets a connection error (the load test's hosts lost their
    start request so). The server keeps them 75 s unless told otherwise."""
    from server.app import uvicorn_config

    assert uvicorn_config(Settings.from_env({})).timeout_keep_alive == 75
    assert uvicorn_config(Settings.from_env({"LUCIE_KEEP_ALIVE_S": "30"})).timeout_keep_alive == 30
    with pytest.raises(ValueError, match="keep_alive_s"):
        Settings.from_env({"LUCIE_KEEP_ALIVE_S": "0"})
