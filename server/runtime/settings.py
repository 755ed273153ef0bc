"""Server settings: one ``pydantic-settings`` model, :class:`Settings`.

Every setting has a default, so the server runs with no configuration on
the embedded memory store. Where a value comes from, highest first:
``lucie-server`` flags, the environment (``LUCIE_<NAME>``; the store URL also
as ``REDIS_URL``), a ``.env`` file (``./.env``, or the file
``LUCIE_ENV_FILE`` names), the default. The table of every variable, its
type, default, unit and range is ``docs/settings.md``, generated from the
field descriptions below by ``python -m server.runtime.settings_doc``
(``tests/api/test_settings.py`` fails when it is stale);
``lucie-server --print-settings`` shows the values in effect.

The keep-alive time is uvicorn's ``timeout_keep_alive`` (its default is 5 s).
A client that sends on an idle connection just as the server closes it gets
a connection error, not an answer, and nothing tells it whether the request
ran; a server that keeps idle connections longer than its clients and proxies
do (60 s is the common proxy idle timeout) leaves the closing to them. Under
the load test (issue 8), a host waiting 5 s for its room to fill lost its
start request that way on a slow machine.

Size: one model holds every setting, each with its description (the source of
docs/settings.md): splitting it would split that one table.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from .origins import OriginRule
from .redact import redact

__all__ = ["ENV_FILE_VARIABLE", "Settings", "SettingsError", "env_name", "moderators"]

ENV_FILE_VARIABLE = "LUCIE_ENV_FILE"
"""Names the ``.env`` file to read instead of ``./.env`` (it must exist)."""

_REDIS_URL_NAMES = ("LUCIE_REDIS_URL", "REDIS_URL")
_SECRETS = frozenset({"moderator_token", "metrics_token"})
"""Settings whose values are never echoed, not even in an error."""
"""The store URL's variables, the first set one wins."""

_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("lucie_settings_environ",
                                                           default=None)
"""The environment :meth:`Settings.from_env` is reading (unset: init values only)."""


class SettingsError(ValueError):
    """Settings that cannot be used; the message names each variable, one line."""


def _range(text: str) -> Any:
    """The ``range`` column of docs/settings.md for a field with no numeric bounds."""
    return {"range": text}


class Settings(BaseSettings):
    """Validated server settings (module docstring). ``Settings(**values)``
    takes exactly ``values`` (and the defaults); :meth:`from_env` reads the
    environment and the ``.env`` file. Frozen.

    :raises pydantic.ValidationError: a value of the wrong type or range.
    """

    model_config = SettingsConfigDict(
        env_prefix="LUCIE_", env_file=None, env_ignore_empty=True, extra="ignore",
        frozen=True, populate_by_name=True)

    redis_url: str | None = Field(
        None, validation_alias=AliasChoices(*_REDIS_URL_NAMES),
        description="`redis://[:password@]host:port/db?…` for shared state (the URL "
                    "options: architecture.md, \"Scaling out on Redis\"); unset: the memory "
                    "store of this process",
        json_schema_extra=_range("`redis://`, `rediss://`, `unix://` or `memory://` URL"))
    redis_prefix: str = Field(
        "lucie:", min_length=1,
        description="first characters of every Redis key, so deployments and test runs "
                    "can share one Redis; a `?prefix=` in the store URL wins",
        json_schema_extra=_range("non-empty"))
    redis_cluster: bool | None = Field(
        None, description="the store URL names a node of a Redis Cluster; unset: asked of "
                          "the server (`INFO cluster`) at start (docs/architecture.md, "
                          "\"Redis Cluster\"); `true` at a plain Redis: the start is "
                          "refused",
        json_schema_extra=_range("`true`, `false` or unset"))
    redis_wait_replicas: int = Field(
        0, ge=0, le=16, description="replicas that must have a race write (`WAIT`) before it "
                                    "is acknowledged; fewer in time: `store/unavailable` "
                                    "(docs/reliability.md); 0: no wait; more than a single Redis "
                                    "has: `/readyz` fails, saying so")
    redis_wait_timeout_ms: int = Field(
        100, gt=0, le=10_000, description="how long a write waits for those replicas, ms")
    host: str = Field("127.0.0.1", description="bind address",
                      json_schema_extra=_range("an address or a host name"))
    port: int = Field(8000, ge=0, le=65535, description="port (0: one the system picks)")
    max_body: int = Field(16_384, gt=0,
                          description="largest HTTP request body, bytes (413 above)")
    max_message: int = Field(16_384, gt=0,
                             description="largest WebSocket message, bytes (close 1009)")
    max_header: int = Field(16_384, ge=1024, le=1 << 20,
                            description="largest HTTP request head (request line and header "
                                        "fields), bytes; above: 431 "
                                        "`request/headers_too_large` and the connection "
                                        "closed (HAProxy's own limit is about 15 KiB: "
                                        "`tune.bufsize` 16384 less `tune.maxrewrite`)")
    header_timeout_s: float = Field(10.0, gt=0, le=300,
                                    description="seconds a connection has to send a complete "
                                                "request head, from its opening (or from the "
                                                "first byte of its next request); else it is "
                                                "closed (slow or silent clients)")
    http_connections_per_address: int = Field(
        256, gt=0, description="HTTP connections open at once per client address (room "
                               "sockets not counted: `LUCIE_SOCKETS_PER_ADDRESS`); above: a "
                               "new one is answered 429 `rate/limited` and closed. "
                               "Connections from `LUCIE_TRUSTED_PROXIES` are not counted")
    send_queue: int = Field(256, gt=0, description="messages queued per socket before it "
                                                   "is closed as too slow (4000)")
    ws_rate: float = Field(200.0, gt=0,
                           description="WebSocket messages per second per connection (every "
                                       "frame: each message fragment, ping and pong)")
    ws_burst: int = Field(400, gt=0, description="… and burst, messages; above: close 1008")
    http_rate: float = Field(2000.0, gt=0,
                             description="HTTP requests per second per client address")
    http_burst: int = Field(4000, gt=0,
                            description="… and burst, requests; above: 429 `rate/limited`")
    create_per_min: float = Field(20.0, gt=0, description="rooms and ghost rooms created "
                                                          "per minute per client address")
    create_burst: int = Field(10, gt=0, description="… and burst, rooms; above: 429 "
                                                    "`rate/limited` with Retry-After")
    join_per_min: float = Field(120.0, gt=0, description="joins per minute per client "
                                                         "address")
    join_burst: int = Field(60, gt=0, description="… and burst, joins (a class behind one "
                                                  "school address still joins one room "
                                                  "at once)")
    upload_per_min: float = Field(60.0, gt=0, description="replay checks and comparisons "
                                                          "per minute per client address")
    upload_burst: int = Field(20, gt=0, description="… and burst, uploads")
    waiting_rooms_per_address: int = Field(
        50, gt=0, description="rooms one client address may have waiting (not started) here")
    max_rooms: int = Field(20_000, gt=0, description="rooms created here in the last "
                                                     "`LUCIE_WAITING_TTL_S`; above: 503 "
                                                     "`server/full` (running races go on)")
    sockets_per_address: int = Field(256, gt=0, description="room WebSockets open at once "
                                                            "per client address")
    spectators_per_room: int = Field(500, gt=0, description="spectator sockets per room in "
                                                            "this process (the room by its id, "
                                                            "however the URL spells it); racers "
                                                            "are never refused by it")
    max_sockets: int = Field(20_000, gt=0, description="room WebSockets in this process; "
                                                       "above: 503 `server/full` (running "
                                                       "races go on)")
    auth_grace_s: float = Field(
        5.0, gt=0, le=60, description="seconds a room socket opened without a token past the "
                                     "spectator cap has to send `auth` (a racer's older page "
                                     "or client); else it is closed 1008 `rate/limited`")
    allowed_origins: str = Field(
        "", description="pages (`Origin`) that may open room sockets: origins "
                        "(`https://host[:port]`), `self` (the server's own: the `Host` asked "
                        "for, with the connection's scheme) or `*`; unset: `self`. An upgrade "
                        "without `Origin` (not a browser) is always let in; another origin is "
                        "refused 403 `request/origin_not_allowed`",
        json_schema_extra=_range("origins, `self` or `*`, comma-separated"))
    trusted_proxies: str = Field(
        "", description="load balancers whose `X-Forwarded-For` names the client (the key "
                        "of the per-client limits); unset: the TCP peer is the client",
        json_schema_extra=_range("addresses or networks, comma-separated"))
    keep_alive_s: int = Field(75, gt=0, description="seconds an idle HTTP keep-alive "
                                                    "connection stays open (longer than the "
                                                    "usual proxy's 60 s: see below)")
    ping_interval: float = Field(20.0, gt=0, description="seconds between WebSocket pings "
                                                   "(dead peers)")
    ping_timeout: float = Field(20.0, gt=0, description="seconds to wait for a pong before "
                                                  "closing")
    ws_compression: bool = Field(False, description="offer permessage-deflate (costs CPU "
                                                    "per message)")
    ws_impl: Literal["auto", "websockets", "websockets-sansio", "wsproto"] = Field(
        "auto", description="uvicorn WebSocket implementation "
                            "(`server.runtime.ws_protocol`)")
    tick_ms: int = Field(250, gt=0, description="room timer sweep period, ms")
    ended_ttl_s: int = Field(3600, gt=0, description="seconds rooms stay after their race ends")
    waiting_ttl_s: int = Field(1800, gt=0, description="seconds before rooms that never start "
                                                 "vanish")
    bot_think_ms: int = Field(1600, ge=0, description="computer racers' think-time unit, ms: "
                                                      "a club bot's median pause before a move; "
                                                      "every level's pauses scale with it "
                                                      "(docs/protocol.md, \"Computer racers\"); "
                                                      "0: no pause")
    max_bots: int = Field(1000, ge=0, description="computer racers this process runs at once; "
                                                  "above: 503 `server/full` for a room with "
                                                  "`bots` (docs/protocol.md)")
    quick_capacity: int = Field(6, ge=2, le=64, description="racers of a quick-race lobby; "
                                                          "full, it starts at once "
                                                          "(docs/protocol.md, \"Quick race\")")
    quick_wait_s: float = Field(20.0, gt=0, le=600, description="seconds a quick-race lobby "
                                                               "waits after its second racer "
                                                               "joined, then starts")
    quick_fill_s: float = Field(30.0, gt=0, le=3600, description="seconds a racer alone in a "
                                                                "quick-race lobby waits before "
                                                                "computer racers join")
    quick_bots: int = Field(3, ge=0, le=63, description="computer racers a lone quick racer "
                                                       "gets (run by the process that seats "
                                                       "them); 0: they wait for people")
    quick_time_limit_s: int = Field(600, ge=10, le=14400, description="time limit of quick "
                                                                     "races, seconds")
    quick_band_width: float = Field(5.0, gt=0, description="rating points per quick-race "
                                                          "band (mu − 3 sigma; anonymous "
                                                          "racers: 0)")
    quick_widen_s: float = Field(10.0, gt=0, description="a quick-race lobby also takes "
                                                        "racers one band further away per "
                                                        "this many seconds it has waited")
    duel_band_width: float = Field(5.0, gt=0, description="rating points a duel's creator "
                                                         "may be from the player it is "
                                                         "handed to (POST /duels), at age 0")
    duel_widen_s: float = Field(3600.0, gt=0, description="a duel's band widens by "
                                                          "`LUCIE_DUEL_BAND_WIDTH` per this "
                                                          "many seconds of its age")
    challenge_period_s: float = Field(1.0, gt=0, le=3600, description="seconds between each "
                                                                       "process's looks for "
                                                                       "duels to settle and "
                                                                       "challenges to expire")
    clock_offset_file: str | None = Field(
        None, description="tests and rehearsals only: a file holding a number of ms added to "
                          "the clock of challenges and duels (their ages, expiry and "
                          "deadlines), read again on every use; unset: none")
    log_level: Literal["critical", "error", "warning", "info", "debug", "trace"] = Field(
        "info", description="log level of the server's and uvicorn's lines (any case)")
    log_format: Literal["json", "text", "auto"] = Field(
        "auto", description="`json` (one JSON object per line), `text`, or `auto`: text on "
                            "a terminal, else JSON (`server.runtime.logs`, "
                            "docs/operations.md)")
    gc_freeze_s: float = Field(1.0, ge=0, description="seconds between `gc.freeze()` of "
                                                      "survivors (`server/runtime/"
                                                      "gcpolicy.py`); 0: CPython's default GC")
    gc_full_s: float = Field(600.0, ge=0, description="seconds between full collections "
                                                      "(cycles) under that policy")
    gc_gen0: int = Field(10_000, ge=0, description="the youngest generation's collection "
                                                   "threshold under that policy (0: "
                                                   "CPython's, 700)")
    data_dir: str = Field(
        "", description="folder of the embedded archive (`archive.sqlite3`, docs/archive.md); "
                        "unset: `platformdirs.user_data_dir(\"belle-lucie-race\")`",
        json_schema_extra=_range("a folder path"))
    database_url: str = Field(
        "", description="the archive database every process shares (docs/archive.md); "
                        "unset: the SQLite file in the data directory",
        json_schema_extra=_range("`postgresql://…` or `sqlite:///…` URL"))
    archive_period_s: float = Field(1.0, gt=0, description="seconds between the archiver's "
                                                          "looks for finished races; while "
                                                          "it is paced, the longest pause "
                                                          "between two races")
    archive_busy_share: float = Field(
        0.02, gt=0, le=1, description="while this process serves moves, the largest share "
                                      "of the time its archiver spends writing (it pauses "
                                      "after each race: docs/archive.md, \"Catching up beside "
                                      "moves\"); 1: no pauses")
    archive_lease_s: float = Field(15.0, gt=0, description="seconds a process holds a "
                                                          "finished race it archives; after: "
                                                          "another process may take it (one "
                                                          "killed mid-write)")

    metrics_port: int | None = Field(
        None, ge=1, le=65535,
        description="a second port, on the same host, serving `GET /metrics` only "
                    "(docs/operations.md, \"Metrics\"); unset: no metrics listener",
        json_schema_extra=_range("1–65535, not the game port, or unset"))
    metrics_token: SecretStr | None = Field(
        None, description="a Bearer token `/metrics` asks for wherever it is served; set, "
                          "`/metrics` is also served on the game port (with the token); "
                          "neither this nor `LUCIE_METRICS_PORT`: no metrics anywhere",
        json_schema_extra=_range("16+ characters"))

    moderator_token: SecretStr | None = Field(
        None, description="the moderators' tokens (docs/fair-play.md, \"Moderation\"): "
                          "`name:token` pairs, comma-separated (a bare token is named "
                          "`moderator`); unset: the moderation routes answer 404",
        json_schema_extra=_range("`name:token,…`, tokens of 16+ characters"))
    fair_play_min_races: int = Field(5, ge=1, le=20,
                                    description="assessed rated races a player's fair-play "
                                                "verdict needs (docs/fair-play.md)")
    fair_play_contact: str = Field(
        "", description="where a player appeals a fair-play verdict (an address or a URL), "
                        "shown on their profile with it; unset: \"the operator of this "
                        "server\"", json_schema_extra=_range("text, up to 200 characters"),
        max_length=200)

    @field_validator("moderator_token")
    @classmethod
    def _moderators(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            moderators(value.get_secret_value())
        return value

    @field_validator("metrics_port")
    @classmethod
    def _other_port(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and value == info.data.get("port"):
            raise ValueError("the game port (LUCIE_PORT): use another one")
        return value

    @field_validator("metrics_token")
    @classmethod
    def _long_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value().strip()) < 16:
            raise ValueError("shorter than 16 characters")
        return value

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @field_validator("redis_url")
    @classmethod
    def _store_scheme(cls, value: str | None) -> str | None:
        scheme = urlsplit(value).scheme if value else "memory"
        if scheme not in ("redis", "rediss", "unix", "memory"):
            raise ValueError(f"unknown scheme {scheme!r}: redis://, rediss://, unix:// "
                             "or memory://")
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        OriginRule.parse(value)
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        for part in filter(None, (p.strip() for p in value.split(","))):
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"{part!r} is not an address or a network") from None
        return value

    @property
    def ws_frame_limit(self) -> int:
        """The largest frame the WebSocket layer reads (uvicorn ``ws_max_size``):
        well above ``max_message``, so the room socket sees an oversize message
        and closes with its documented ``request/too_large`` reason."""
        return max(4 * self.max_message, 1 << 20)

    @classmethod
    def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Init values, then (inside :meth:`from_env` only) the environment, then
        the ``.env`` file: the first that has a value wins."""
        environ = _ENVIRON.get()
        if environ is None:
            return (init_settings,)
        if environ is not os.environ:
            env_settings = _MappingEnvSource(settings_cls, environ)
        return tuple(_ByFieldName(s) for s in (init_settings, env_settings, dotenv_settings))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``env`` (default ``os.environ``) and its ``.env`` file, then
        ``overrides`` (``None`` values ignored: a flag not given).

        The ``.env`` file is ``LUCIE_ENV_FILE`` of ``env`` if set, else
        ``./.env`` when reading ``os.environ``; a given ``env`` mapping stands
        for the whole environment, so then no ``./.env`` is read (tests).

        :raises SettingsError: a value of the wrong type or range, one line
            naming each variable (``LUCIE_PORT=abc: …``); ``LUCIE_ENV_FILE``
            naming no file.
        :raises TypeError: an override that is not a setting.
        """
        environ = os.environ if env is None else env
        given = {k: v for k, v in overrides.items() if v is not None}
        unknown = sorted(set(given) - set(cls.model_fields))
        if unknown:
            raise TypeError(f"not settings: {', '.join(unknown)}")
        named = environ.get(ENV_FILE_VARIABLE)
        env_file = Path(named) if named else (Path(".env") if env is None else None)
        if named and not Path(named).exists():
            raise SettingsError(f"{ENV_FILE_VARIABLE}={named}: no such file")
        token = _ENVIRON.set(environ)
        try:
            return cls(_env_file=env_file, **given)  # type: ignore[arg-type]
        except ValidationError as exc:
            raise SettingsError(_describe(exc, environ, given, env_file)) from None
        finally:
            _ENVIRON.reset(token)

    def env_lines(self) -> list[str]:
        """``NAME=value`` per setting, in field order, as a ``.env`` file reads
        them back (unset: empty; booleans ``true``/``false``); passwords and
        tokens in URLs redacted (:func:`server.runtime.redact.redact`). A
        ``REDIS_URL`` naming its own ``?prefix=`` adds a ``#`` comment line
        after ``LUCIE_REDIS_PREFIX``: that prefix is the one in effect."""
        from .redis_url import own_options  # the store's URL options (imports redis)

        lines = []
        for name in type(self).model_fields:
            lines.append(f"{env_name(name)}={_env_value(name, getattr(self, name))}")
            if name == "redis_prefix" and self.redis_url:
                own = own_options(self.redis_url)[1].get("prefix")
                if own:
                    lines.append(f"# in effect: REDIS_URL's ?prefix={redact(own)} "
                                 "(it wins over LUCIE_REDIS_PREFIX)")
        return lines


def moderators(text: str) -> dict[str, str]:
    """The moderator tokens of ``LUCIE_MODERATOR_TOKEN``: ``{token: name}``.

    :raises ValueError: an empty entry, a name that is not 1–64 letters,
        digits, ``-`` or ``_``, a token shorter than 16 characters, a token
        given twice.
    """
    out: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        name, sep, token = part.rpartition(":") if ":" in part else ("", "", part)
        name = name.strip() if sep else "moderator"
        token = token.strip()
        if not (1 <= len(name) <= 64 and name.replace("-", "").replace("_", "").isalnum()):
            raise ValueError("each entry is name:token (name: letters, digits, - or _)")
        if len(token) < 16:
            raise ValueError(f"the token of {name!r} is shorter than 16 characters")
        if token in out:
            raise ValueError("a token is given twice")
        out[token] = name
    return out


def env_name(field: str) -> str:
    """The documented variable of setting ``field`` (``REDIS_URL`` for ``redis_url``)."""
    return "REDIS_URL" if field == "redis_url" else f"LUCIE_{field.upper()}"


def _env_value(field: str, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, SecretStr):  # the moderators' names, never a token
        if field != "moderator_token":
            return "***"
        return ",".join(f"{name}:***" for name in moderators(value.get_secret_value()).values())
    if isinstance(value, bool):
        return "true" if value else "false"
    return redact(str(value))


class _MappingEnvSource(EnvSettingsSource):
    """The environment source reading ``environ`` instead of ``os.environ``."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # as the library reads os.environ here: names without case, empty values unset
        return {k.lower(): v for k, v in self._environ.items() if v != ""}


class _ByFieldName(PydanticBaseSettingsSource):
    """``source``'s values keyed by field name, not by the alias it found
    (``REDIS_URL``): the sources merge by key, so only then does a higher
    source's value replace a lower one's under another alias (pydantic-settings
    2.2 kept both, and pydantic took the alias listed first)."""

    def __init__(self, source: PydanticBaseSettingsSource) -> None:
        super().__init__(source.settings_cls)
        self._source = source

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._source.get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        return {"redis_url" if key.upper() in _REDIS_URL_NAMES else key: value
                for key, value in self._source().items()}


def _describe(exc: ValidationError, environ: Mapping[str, str], given: Mapping[str, object],
              env_file: Path | None) -> str:
    """One line: ``VARIABLE=value: what is wrong`` per error, ``; ``-separated."""
    lower = {k.lower() for k, v in environ.items() if v}
    parts = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        if field.upper() in _REDIS_URL_NAMES:  # pydantic names an alias
            field = "redis_url"
        where = ""
        if field in given:  # a lucie-server flag
            name = "--" + field.replace("_", "-")
        else:
            names = _REDIS_URL_NAMES if field == "redis_url" else (env_name(field),)
            name = next((n for n in names if n.lower() in lower), env_name(field))
            if env_file and env_file.is_file() and name.lower() not in lower:
                where = f" (in {env_file})"
        message = str(error["msg"]).removeprefix("Value error, ")
        value = "***" if field in _SECRETS else redact(str(error.get("input", "")))
        parts.append(f"{name}={value}{where}: {message[:1].lower()}{message[1:]}")
    return "; ".join(parts)
