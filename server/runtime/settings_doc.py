"""``docs/settings.md``, generated from :class:`server.runtime.settings.Settings`.

``python -m server.runtime.settings_doc`` writes it (``--check``: exit 1 when
the file differs, writing nothing); ``tests/api/test_settings.py`` fails when
it is stale. The table's rows come from the fields: the variable, its type,
default and range from the annotation and its constraints, its meaning from
``Field(description=…)``.
"""

from __future__ import annotations

import argparse
import sys
import typing
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from .settings import ENV_FILE_VARIABLE, Settings, env_name

__all__ = ["DOC", "main", "render"]

DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
"""The generated file in a source checkout."""

_HEAD = f"""# Settings

<!-- Generated from server/runtime/settings.py by `python -m server.runtime.settings_doc`;
     edit the field descriptions there, not this file. -->

`lucie-server` runs with no configuration: every setting has a default (the
store is then the memory of the process). Each setting is an environment
variable; where a value comes from, highest first:

1. the `lucie-server` flags `--host`, `--port`, `--redis-url`, `--log-level`;
2. the environment;
3. a `.env` file: `.env` in the working directory, or the file
   `{ENV_FILE_VARIABLE}` names (it must exist; `/dev/null` reads none), one
   `NAME=value` a line (`#` comments, quotes as in a shell);
4. the default below.

An empty value counts as unset. The store URL is `REDIS_URL` or
`LUCIE_REDIS_URL` (the latter wins when both are set). Names are not case
sensitive; variables that are no setting are ignored (`LUCIE_SERVER` is the
client's). A value of the wrong type or out of range stops the server before
it starts, exit code 2, with one line naming each variable:

```
lucie-server: LUCIE_PORT=abc: input should be a valid integer, unable to parse string as an integer
```

`lucie-server --print-settings` prints the settings in effect (after the
environment, the `.env` file and the flags) as `NAME=value` lines, in the
order of the table, and exits 0; passwords in URLs
(`redis://:[redacted]@host`) and tokens are redacted, so its output can go
into a ticket. Without secrets, it reads back as a `.env` file.

"""

_TAIL = """
The keep-alive time is uvicorn's `timeout_keep_alive` (its own default is
5 s). A client that sends on an idle connection just as the server closes it
gets a connection error, not an answer, and nothing tells it whether the
request ran; a server that keeps idle connections longer than its clients
and proxies do (60 s is the common proxy idle timeout) leaves the closing to
them.
"""


def _type(info: FieldInfo) -> str:
    kind = info.annotation
    if typing.get_origin(kind) is typing.Literal:
        return "choice"
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    kind = args[0] if args else kind
    names: dict[Any, str] = {int: "integer", float: "number", bool: "boolean", str: "string",
                             SecretStr: "secret string"}
    return names.get(kind, "?")


def _default(info: FieldInfo) -> str:
    value = info.default
    if value is None or value == "":
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return f"`{value}`"


def _range(info: FieldInfo) -> str:
    kind = info.annotation
    if typing.get_origin(kind) is typing.Literal:
        return ", ".join(f"`{choice}`" for choice in typing.get_args(kind))
    if kind is bool:
        return "`true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`)"
    extra = info.json_schema_extra
    if isinstance(extra, dict) and "range" in extra:
        return str(extra["range"])
    low: str | None = None
    high: str | None = None
    for bound in info.metadata:  # annotated_types' Gt, Ge, Le
        if getattr(bound, "gt", None) is not None:
            low = "≥ 1" if kind is int and bound.gt == 0 else f"> {bound.gt}"
        elif getattr(bound, "ge", None) is not None:
            low = f"≥ {bound.ge}"
        elif getattr(bound, "le", None) is not None:
            high = f"≤ {bound.le}"
    if low and high and low.startswith("≥") and high.startswith("≤"):
        return f"{low[2:]}…{high[2:]}"
    return " and ".join(filter(None, (low, high))) or "any"


def _row(name: str, info: FieldInfo) -> str:
    variable = f"`{env_name(name)}`"
    if name == "redis_url":
        variable += " (`LUCIE_REDIS_URL`)"
    cells: list[Any] = [variable, _type(info), _default(info), _range(info),
                        info.description or ""]
    return "| " + " | ".join(str(c) for c in cells) + " |"


def render() -> str:
    """The text of docs/settings.md for the :class:`Settings` of this code."""
    rows = [_row(name, info) for name, info in Settings.model_fields.items()]
    table = ["| variable | type | default | range | meaning |", "|---|---|---|---|---|",
             *rows]
    return _HEAD + "\n".join(table) + "\n" + _TAIL


def main(argv: list[str] | None = None) -> int:
    """Write docs/settings.md (``--check``: 1 if it is stale, writing nothing)."""
    parser = argparse.ArgumentParser(prog="python -m server.runtime.settings_doc",
                                     description="Write docs/settings.md from the model.")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the file is stale, write nothing")
    parser.add_argument("path", nargs="?", type=Path, default=DOC)
    args = parser.parse_args(argv)
    text = render()
    current = args.path.read_text(encoding="utf-8") if args.path.exists() else None
    if args.check:
        if current != text:
            print(f"{args.path} is stale: python -m server.runtime.settings_doc",
                  file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
