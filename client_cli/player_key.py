"""The player key of the terminal client: one small file per race server.

``lucie me --create NAME`` asks the server for a player and keeps the secret
key it answers with (shown once) in the user's configuration folder, one
file per server URL — a key belongs to one server's database:

``platformdirs.user_config_dir("belle-lucie-race")`` — on Linux
``$XDG_CONFIG_HOME/belle-lucie-race``, else ``~/.config/belle-lucie-race``;
macOS ``~/Library/Application Support/belle-lucie-race``; Windows
``%LOCALAPPDATA%\\belle-lucie-race\\belle-lucie-race`` — or
``$LUCIE_CONFIG_DIR`` when set.

Inside, ``players/<server>.json`` holds ``{"server", "player": {"id", "name",
"created_at_ms"}, "key"}``. The file is created with mode 0600 (``O_EXCL``:
never another mode, not even for a moment, whatever the umask; never over an
existing file) in folders created with mode 0700. ``lucie play``, ``lucie
join`` send the key of the server they race on; ``lucie forget-me`` removes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

from .errors import ApiError
from .rest import server_url

__all__ = ["APP_NAME", "PlayerKey", "config_dir", "key_path", "load_key", "remove_key",
           "save_key", "server_id"]

APP_NAME = "belle-lucie-race"
"""The application's folder name (the server's ``platformdirs`` name too)."""


def config_dir() -> Path:
    """The user's configuration folder of the client (see the module docstring)."""
    explicit = os.environ.get("LUCIE_CONFIG_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME))


def server_id(url: str | None) -> str:
    """The server a key belongs to, as one canonical URL: scheme, lower-case host
    (``localhost`` is ``127.0.0.1``), explicit port, path."""
    parts = urlsplit(server_url(url))
    host = (parts.hostname or "").lower()
    host = "127.0.0.1" if host == "localhost" else host
    port = parts.port or (443 if parts.scheme == "https" else 80)
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}:{port}{parts.path.rstrip('/')}"


def key_path(url: str | None) -> Path:
    """The key file of the server at ``url`` (whether it exists or not)."""
    canonical = server_id(url)
    readable = re.sub(r"[^A-Za-z0-9.]+", "-", canonical.split("://", 1)[1]).strip("-")
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:8]
    return config_dir() / "players" / f"{readable}-{digest}.json"


@dataclass(frozen=True)
class PlayerKey:
    """A stored player: the server it lives on, its id and name, its secret key."""

    server: str
    player_id: str
    name: str
    key: str
    path: Path


def _bad_file(path: Path, why: str) -> ApiError:
    return ApiError("client/key_file", f"cannot use your player key file {path} ({why}); "
                    "move it away to race anonymously, or fix it")


def load_key(url: str | None) -> PlayerKey | None:
    """The stored player of the server at ``url``; ``None`` when there is none.

    A key file that others may read is made private (0600) again, with a
    warning on stderr.

    :raises ApiError: ``client/key_file`` — the file is there but unreadable
        or not a key file.
    """
    path = key_path(url)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _bad_file(path, exc.strerror or type(exc).__name__) from None
    if os.name == "posix":
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            with contextlib.suppress(OSError):
                path.chmod(0o600)
            print(f"lucie: your player key file {path} could be read by others "
                  f"(mode {mode:04o}); it is private (0600) again", file=sys.stderr)
    try:
        data = json.loads(text)
        player, key = data["player"], data["key"]
        found = PlayerKey(server=str(data["server"]), player_id=str(player["id"]),
                          name=str(player["name"]), key=str(key), path=path)
    except (ValueError, KeyError, TypeError):
        raise _bad_file(path, "not a player key file") from None
    if not found.key or not found.player_id:
        raise _bad_file(path, "no key in it")
    return found


def _private_dir(folder: Path) -> None:
    """Create ``folder`` (and missing parents) with mode 0700."""
    missing = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            break
        missing.append(parent)
    for part in reversed(missing):
        with contextlib.suppress(FileExistsError):
            part.mkdir(mode=0o700)


def save_key(url: str | None, player: dict[str, object], key: str) -> Path:
    """Store a new player's key for the server at ``url``; its path.

    :raises FileExistsError: a key is stored for that server already.
    :raises OSError: the file could not be written (nothing is left behind).
    """
    path = key_path(url)
    _private_dir(path.parent)
    doc = {"server": server_id(url),
           "player": {k: player[k] for k in ("id", "name", "created_at_ms") if k in player},
           "key": key}
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o600)  # born private: the umask can only take bits away
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), 0o600)  # exactly 0600 (a umask of 0o277 gave 0400)
            json.dump(doc, out, indent=2)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    return path


def remove_key(url: str | None) -> bool:
    """Delete the key file of the server at ``url``; whether there was one."""
    try:
        key_path(url).unlink()
    except FileNotFoundError:
        return False
    return True
