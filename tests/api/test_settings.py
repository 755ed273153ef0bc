"""Settings from the environment, the ``.env`` file and flags (docs/settings.md)."""

from __future__ import annotations

import ast
import asyncio
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from server.runtime.settings import Settings, SettingsError
from server.runtime.settings_doc import DOC, render

REPO = Path(__file__).resolve().parents[2]


def test_defaults_without_configuration() -> None:
    s = Settings.from_env({})
    assert s.redis_url is None and s.port == 8000 and s.host == "127.0.0.1"
    assert s.ws_compression is False and s.redis_prefix == "lucie:"
    assert s == Settings()


def test_environment_then_overrides() -> None:
    s = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/0", "LUCIE_PORT": "9001",
                           "LUCIE_WS_RATE": "5.5", "LUCIE_WS_COMPRESSION": "yes"}, port=9002)
    assert s.redis_url == "redis://127.0.0.1:6379/0" and s.port == 9002
    assert s.ws_rate == 5.5 and s.ws_compression is True


def test_empty_values_are_unset_and_flags_not_given_are_ignored() -> None:
    s = Settings.from_env({"LUCIE_PORT": "", "REDIS_URL": ""}, port=None, host=None)
    assert s.port == 8000 and s.redis_url is None


def test_empty_variables_of_the_process_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LUCIE_ENV_FILE", os.devnull)
    for name in ("LUCIE_PORT", "LUCIE_WS_COMPRESSION", "REDIS_URL", "LUCIE_REDIS_URL"):
        monkeypatch.setenv(name, "")
    s = Settings.from_env()
    assert (s.port, s.ws_compression, s.redis_url) == (8000, False, None)
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/6")
    assert Settings.from_env().redis_url == "redis://127.0.0.1:6379/6"


def test_direct_construction_reads_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Settings(**values)`` is those values: the tests build apps so, and a
    developer's environment must not leak into them."""
    monkeypatch.setenv("LUCIE_PORT", "9999")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("LUCIE_ENV_FILE", os.devnull)
    assert Settings(http_rate=5).port == 8000 and Settings().redis_url is None
    assert Settings.from_env().port == 9999  # from_env reads it


def test_frozen() -> None:
    with pytest.raises(ValidationError):
        Settings().port = 1  # type: ignore[misc]


def test_unknown_override_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="prot"):
        Settings.from_env({}, prot=80)


# the store URL's names


def test_redis_url_alias() -> None:
    url = "redis://127.0.0.1:6379/1"
    assert Settings.from_env({"REDIS_URL": url}).redis_url == url
    assert Settings.from_env({"LUCIE_REDIS_URL": url}).redis_url == url
    both = {"REDIS_URL": "redis://127.0.0.1:6379/2", "LUCIE_REDIS_URL": url}
    assert Settings.from_env(both).redis_url == url  # the specific name wins
    assert Settings(redis_url=url).redis_url == url
    assert Settings.from_env({"REDIS_URL": "redis://h/0"}, redis_url=url).redis_url == url


def test_redis_prefix_is_a_setting() -> None:
    assert Settings.from_env({"LUCIE_REDIS_PREFIX": "test:x:"}).redis_prefix == "test:x:"
    with pytest.raises(SettingsError, match="--redis-prefix="):
        Settings.from_env({}, redis_prefix="")


@pytest.mark.redis
def test_the_redis_prefix_setting_reaches_the_store_and_the_boards() -> None:
    import redis
    from starlette.testclient import TestClient

    from server.app import create_app

    url, prefix = "redis://127.0.0.1:6379/0", f"test:{secrets.token_hex(6)}:"
    settings = Settings.from_env({"REDIS_URL": url, "LUCIE_REDIS_PREFIX": prefix})
    try:
        with TestClient(create_app(settings)) as c:
            assert c.app.state.store.prefix == prefix  # type: ignore[attr-defined]
            assert c.app.state.leaderboards.prefix == prefix  # type: ignore[attr-defined]
            assert c.post("/api/v1/rooms", json={"deal": 7}).status_code == 201
        with redis.Redis.from_url(url) as r:
            assert list(r.scan_iter(match=f"{prefix}*", count=1000)) != []
    finally:
        with redis.Redis.from_url(url) as r:
            keys = list(r.scan_iter(match=f"{prefix}*", count=1000))
            if keys:
                r.delete(*keys)


def test_a_prefix_in_the_url_wins_over_the_setting() -> None:
    from server.app import leaderboards_of
    from server.store import open_store

    async def check() -> None:
        for url, expected in (("redis://127.0.0.1:6379/0?prefix=from-url:", "from-url:"),
                              ("redis://127.0.0.1:6379/0", "from-setting:")):
            store = open_store(url, default_prefix="from-setting:")
            boards = leaderboards_of(store)
            assert store.prefix == expected  # type: ignore[attr-defined]
            assert boards.prefix == expected  # type: ignore[attr-defined]
            await boards.close()
            await store.close()

    asyncio.run(check())


# the .env file


def _env_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lucie.env"
    path.write_text(text)
    return path


def test_env_file_named_by_lucie_env_file(tmp_path: Path) -> None:
    path = _env_file(tmp_path, "# a comment\nLUCIE_PORT=8123\nREDIS_URL='redis://127.0.0.1:6379/3'\n"
                               "LUCIE_WS_COMPRESSION=true\nLUCIE_SERVER=http://elsewhere\n")
    s = Settings.from_env({"LUCIE_ENV_FILE": str(path)})
    assert (s.port, s.redis_url, s.ws_compression) == (8123, "redis://127.0.0.1:6379/3", True)


def test_environment_beats_the_file_and_flags_beat_both(tmp_path: Path) -> None:
    path = _env_file(tmp_path, "LUCIE_PORT=8123\nLUCIE_HOST=0.0.0.0\nLUCIE_TICK_MS=100\n"
                               "LUCIE_REDIS_URL=redis://127.0.0.1:6379/4\n")
    env = {"LUCIE_ENV_FILE": str(path), "LUCIE_PORT": "8124", "LUCIE_TICK_MS": "",
           "REDIS_URL": "redis://127.0.0.1:6379/5"}
    s = Settings.from_env(env, host="127.0.0.2")
    assert s.port == 8124  # environment over file
    assert s.host == "127.0.0.2"  # flag over file
    assert s.tick_ms == 100  # an empty variable is unset: the file's value
    assert s.redis_url == "redis://127.0.0.1:6379/5"  # any environment name over the file


def test_missing_env_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"^LUCIE_ENV_FILE=.*nope\.env: no such file$"):
        Settings.from_env({"LUCIE_ENV_FILE": str(tmp_path / "nope.env")})


def test_a_given_mapping_reads_no_dot_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("LUCIE_PORT=8123\n")
    monkeypatch.chdir(tmp_path)
    assert Settings.from_env({}).port == 8000  # the mapping is the whole environment
    monkeypatch.delenv("LUCIE_PORT", raising=False)
    monkeypatch.delenv("LUCIE_ENV_FILE", raising=False)
    assert Settings.from_env().port == 8123  # os.environ: ./.env


def test_bad_value_in_the_file_names_variable_and_file(tmp_path: Path) -> None:
    path = _env_file(tmp_path, "LUCIE_SEND_QUEUE=none\n")
    with pytest.raises(SettingsError, match=rf"^LUCIE_SEND_QUEUE=none \(in {path}\): "):
        Settings.from_env({"LUCIE_ENV_FILE": str(path)})


# invalid values and ranges


@pytest.mark.parametrize(("env", "message"), [
    ({"LUCIE_PORT": "eighty"}, "LUCIE_PORT=eighty: input should be a valid integer"),
    ({"LUCIE_PORT": "70000"}, "LUCIE_PORT=70000: input should be less than or equal to 65535"),
    ({"LUCIE_PORT": "-1"}, "LUCIE_PORT=-1: input should be greater than or equal to 0"),
    ({"LUCIE_SEND_QUEUE": "0"}, "LUCIE_SEND_QUEUE=0: input should be greater than 0"),
    ({"LUCIE_WS_RATE": "fast"}, "LUCIE_WS_RATE=fast: input should be a valid number"),
    ({"LUCIE_WS_COMPRESSION": "maybe"}, "LUCIE_WS_COMPRESSION=maybe: input should be a valid "
                                        "boolean"),
    ({"LUCIE_WS_IMPL": "tornado"}, "LUCIE_WS_IMPL=tornado: input should be 'auto', "),
    ({"LUCIE_LOG_LEVEL": "loud"}, "LUCIE_LOG_LEVEL=loud: input should be 'critical', "),
    ({"LUCIE_MAX_HEADER": "100"}, "LUCIE_MAX_HEADER=100: input should be greater than or "
                                  "equal to 1024"),
    ({"LUCIE_HEADER_TIMEOUT_S": "600"}, "LUCIE_HEADER_TIMEOUT_S=600: input should be less "
                                        "than or equal to 300"),
    ({"LUCIE_METRICS_PORT": "8000"}, "LUCIE_METRICS_PORT=8000: the game port (LUCIE_PORT)"),
    ({"LUCIE_METRICS_PORT": "0"}, "LUCIE_METRICS_PORT=0: input should be greater than or "
                                  "equal to 1"),
    ({"LUCIE_METRICS_TOKEN": "hunter2"}, "LUCIE_METRICS_TOKEN=***: shorter than 16 "
                                         "characters"),
    ({"LUCIE_TRUSTED_PROXIES": "10.0.0.0/8, lb"}, "LUCIE_TRUSTED_PROXIES=10.0.0.0/8, lb: 'lb' "
                                                  "is not an address or a network"),
    ({"LUCIE_ALLOWED_ORIGINS": "self, race.example"},
     "LUCIE_ALLOWED_ORIGINS=self, race.example: 'race.example' is not an origin"),
    ({"LUCIE_ALLOWED_ORIGINS": "https://race.example/play"},
     "LUCIE_ALLOWED_ORIGINS=https://race.example/play: 'https://race.example/play' is not an "
     "origin"),
    ({"LUCIE_AUTH_GRACE_S": "0"}, "LUCIE_AUTH_GRACE_S=0: input should be greater than 0"),
    ({"LUCIE_GC_GEN0": "-1"}, "LUCIE_GC_GEN0=-1: input should be greater than or equal to 0"),
    ({"LUCIE_KEEP_ALIVE_S": "0"}, "LUCIE_KEEP_ALIVE_S=0: input should be greater than 0"),
    ({"REDIS_URL": "ftp://x"}, "REDIS_URL=ftp://x: unknown scheme 'ftp'"),
    ({"LUCIE_REDIS_URL": "ftp://x"}, "LUCIE_REDIS_URL=ftp://x: unknown scheme 'ftp'"),
])
def test_bad_values_are_refused_by_name(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_every_bad_value_in_one_line_passwords_redacted() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({"LUCIE_PORT": "abc", "LUCIE_TICK_MS": "0",
                           "REDIS_URL": "ftp://app:hunter22@db/0"})
    text = str(caught.value)
    assert "\n" not in text and "hunter22" not in text
    assert text.count("; ") == 2 and "REDIS_URL=ftp://app:[redacted]@db/0: " in text
    assert "LUCIE_PORT=abc: " in text and "LUCIE_TICK_MS=0: " in text


def test_a_bad_flag_is_named_as_the_flag() -> None:
    with pytest.raises(SettingsError, match=r"^--port=70000: "):
        Settings.from_env({}, port=70000)


POSITIVE = ("max_body", "max_message", "send_queue", "ws_burst", "http_burst", "tick_ms",
            "create_burst", "join_burst", "upload_burst", "sockets_per_address",
            "spectators_per_room", "max_sockets", "waiting_rooms_per_address", "max_rooms",
            "keep_alive_s", "ws_rate", "http_rate", "create_per_min", "join_per_min",
            "upload_per_min", "ping_interval", "ping_timeout", "ended_ttl_s", "waiting_ttl_s",
            "header_timeout_s", "http_connections_per_address")
"""The settings that must be above 0 (the old ``check()`` rules, and the
timeouts and lifetimes that 0 or less would break)."""


@pytest.mark.parametrize("name", POSITIVE)
def test_positive_settings(name: str) -> None:
    variable = f"LUCIE_{name.upper()}"
    assert getattr(Settings.from_env({variable: "1"}), name) == 1
    for bad in ("0", "-3"):
        with pytest.raises(SettingsError, match=f"^{variable}={bad}: input should be greater "
                                                "than 0$"):
            Settings.from_env({variable: bad})


def test_range_edges_are_accepted() -> None:
    assert Settings.from_env({"LUCIE_PORT": "65535"}).port == 65535
    assert Settings.from_env({"LUCIE_PORT": "0"}).port == 0  # the system picks one
    s = Settings.from_env({"LUCIE_GC_FREEZE_S": "0", "LUCIE_GC_FULL_S": "0", "LUCIE_GC_GEN0": "0",
                           "LUCIE_LOG_LEVEL": "WARNING", "LUCIE_WS_IMPL": "wsproto",
                           "LUCIE_TRUSTED_PROXIES": "10.0.0.0/8, ::1,192.168.1.7"})
    assert (s.gc_freeze_s, s.gc_full_s, s.gc_gen0) == (0, 0, 0)
    assert s.log_level == "warning" and s.ws_impl == "wsproto"


def test_idle_http_connections_outlive_the_usual_proxy_timeout() -> None:
    """uvicorn closes an idle keep-alive connection after 5 s; a client that
    sends just then gets a connection error (the load test's hosts lost their
    start request so). The server keeps them 75 s unless told otherwise."""
    from server.app import uvicorn_config

    assert uvicorn_config(Settings.from_env({})).timeout_keep_alive == 75
    assert uvicorn_config(Settings.from_env({"LUCIE_KEEP_ALIVE_S": "30"})).timeout_keep_alive == 30


# lucie-server: --print-settings and the exit code of bad settings


def _lucie_server(args: list[str], env: dict[str, str],
                  cwd: Path) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items()
                 if not k.upper().startswith("LUCIE_") and k.upper() != "REDIS_URL"}
    script = Path(sys.executable).with_name("lucie-server")
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from server.app import main; raise SystemExit(main())"]
    return subprocess.run([*command, *args], env={**inherited, **env}, cwd=cwd, text=True,
                          capture_output=True, timeout=60, check=False)


def test_print_settings_redacts_the_password(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LUCIE_TICK_MS=125\nLUCIE_PORT=8001\n")
    url = "redis://app:Secret-Pass-42@127.0.0.1:6379/0?prefix=x:"
    done = _lucie_server(["--print-settings", "--port", "8123"],
                         {"REDIS_URL": url, "LUCIE_WS_COMPRESSION": "1"}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Secret-Pass-42" not in done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("#")]
    assert lines[0] == "REDIS_URL=redis://app:[redacted]@127.0.0.1:6379/0?prefix=x:"
    # the URL's prefix wins over LUCIE_REDIS_PREFIX: a comment says which is in effect
    comments = [line for line in done.stdout.splitlines() if line.startswith("#")]
    assert comments == ["# in effect: REDIS_URL's ?prefix=x: (it wins over LUCIE_REDIS_PREFIX)"]
    assert done.stdout.splitlines().index(comments[0]) == done.stdout.splitlines().index(
        "LUCIE_REDIS_PREFIX=lucie:") + 1
    values = dict(line.split("=", 1) for line in lines)
    assert len(values) == len(lines) == len(Settings.model_fields)
    # flag over environment over ./.env over default
    assert values["LUCIE_PORT"] == "8123" and values["LUCIE_TICK_MS"] == "125"
    assert values["LUCIE_WS_COMPRESSION"] == "true" and values["LUCIE_HOST"] == "127.0.0.1"
    # the output reads back as a .env file to the same settings (but the password)
    path = _env_file(tmp_path, done.stdout.replace("[redacted]", "Secret-Pass-42"))
    assert Settings.from_env({"LUCIE_ENV_FILE": str(path)}) == Settings.from_env(
        {"REDIS_URL": url, "LUCIE_WS_COMPRESSION": "1", "LUCIE_TICK_MS": "125"}, port=8123)


def test_print_settings_never_shows_the_metrics_token(tmp_path: Path) -> None:
    token = "metrics-" + "s3cr3t" * 4
    done = _lucie_server(["--print-settings"], {"LUCIE_METRICS_TOKEN": token,
                                                "LUCIE_METRICS_PORT": "9100"}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert token not in done.stdout + done.stderr
    assert "LUCIE_METRICS_TOKEN=***" in done.stdout.splitlines()
    assert "LUCIE_METRICS_PORT=9100" in done.stdout.splitlines()


def test_the_metrics_port_and_the_game_port_differ() -> None:
    assert Settings.from_env({"LUCIE_METRICS_PORT": "9100"}).metrics_port == 9100
    with pytest.raises(SettingsError, match=r"^LUCIE_METRICS_PORT=9100: the game port"):
        Settings.from_env({"LUCIE_METRICS_PORT": "9100"}, port=9100)


def test_print_settings_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """The trial: ``lucie-server --print-settings | head -3`` ended in a
    BrokenPipeError traceback; now it stops quietly, as after SIGPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line (as `| head` soon is)
    script = Path(sys.executable).with_name("lucie-server")
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from server.app import main; raise SystemExit(main())"]
    try:
        done = subprocess.run([*command, "--print-settings"], stdout=write_end,
                              stderr=subprocess.PIPE, cwd=tmp_path, text=True, timeout=60,
                              check=False)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.stderr == "" and done.returncode == 141


def test_bad_settings_exit_2_with_one_line(tmp_path: Path) -> None:
    done = _lucie_server([], {"LUCIE_PORT": "abc", "REDIS_URL": "redis://:pw-1234@127.0.0.1:1/0"},
                         tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("lucie-server: LUCIE_PORT=abc: input should be a valid integer")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    done = _lucie_server(["--print-settings"], {"LUCIE_ENV_FILE": str(tmp_path / "x.env")},
                         tmp_path)
    assert (done.returncode, done.stderr) == (
        2, f"lucie-server: LUCIE_ENV_FILE={tmp_path / 'x.env'}: no such file\n")


# docs/settings.md


def test_docs_settings_md_is_generated_from_the_model() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), \
        "docs/settings.md is stale: python -m server.runtime.settings_doc"
    for name in Settings.model_fields:
        variable = "REDIS_URL" if name == "redis_url" else f"LUCIE_{name.upper()}"
        assert f"| `{variable}`" in render()


def test_every_setting_has_a_description() -> None:
    assert [n for n, f in Settings.model_fields.items() if not f.description] == []


# no module of the service reads its settings from the environment behind the model


_ENVIRON_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv"})


def _reads_of_settings(source: str) -> list[int]:
    """Lines of ``source`` that read ``LUCIE_*`` or ``REDIS_URL`` (or a computed
    name) from ``os.environ`` / ``os.getenv``."""
    def environish(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr in _ENVIRON_NAMES) or (
            isinstance(node, ast.Name) and node.id in _ENVIRON_NAMES)

    def settings_name(key: ast.AST) -> bool:
        if isinstance(key, ast.Constant):
            return isinstance(key.value, str) and (
                key.value.upper().startswith("LUCIE_") or key.value.upper() == "REDIS_URL")
        return True  # a computed name: it could be one

    lines = []
    for node in ast.walk(ast.parse(source)):
        key: ast.AST | None = None
        if isinstance(node, ast.Subscript) and environish(node.value):
            key = node.slice
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            if environish(func) or (isinstance(func, ast.Attribute) and environish(func.value)
                                    and func.attr in ("get", "pop", "setdefault")):
                key = node.args[0]
        elif isinstance(node, ast.Compare) and any(environish(c) for c in node.comparators):
            key = node.left  # "LUCIE_X" in os.environ
        if key is not None and settings_name(key):
            lines.append(getattr(node, "lineno", 0))
    return lines


def test_the_environment_check_sees_reads() -> None:
    assert _reads_of_settings('import os\nos.environ.get("LUCIE_REDIS_PREFIX", "x")') == [2]
    assert _reads_of_settings('from os import getenv\ngetenv("REDIS_URL")') == [2]
    assert _reads_of_settings('import os\nos.environ["LUCIE_PORT"]') == [2]
    assert _reads_of_settings('import os\nn = "LUCIE_X"\nos.environ.get(n)') == [3]
    assert _reads_of_settings('import os\nif "LUCIE_X" in os.environ: pass') == [2]
    assert _reads_of_settings('import os\nos.environ.get("HOME")\ndict(os.environ)') == []


def test_only_the_settings_model_reads_lucie_variables() -> None:
    found = {}
    for path in sorted((REPO / "server").rglob("*.py")):
        if path.relative_to(REPO).as_posix() == "server/runtime/settings.py":
            continue
        lines = _reads_of_settings(path.read_text(encoding="utf-8"))
        if lines:
            found[path.relative_to(REPO).as_posix()] = lines
    assert found == {}, "settings come from server.runtime.settings.Settings, threaded in"
