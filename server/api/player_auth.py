"""A player key presented with a request: which player it is (docs/players.md).

The players live in the archive database, reached through the
``server.records.players.PlayerArchive`` protocol the app sets as
``app.state.players``; the transport never imports the archive itself.
"""

from __future__ import annotations

from typing import Any, cast

from starlette.requests import Request

from server.errors import PlayerInvalidKey, PlayerNotFound, RequestInvalid
from server.records.players import PlayerArchive, fold_name, key_digest

__all__ = ["as_player", "players", "racer_name", "resolve_player"]


def players(request: Request) -> PlayerArchive:
    """The app's player archive."""
    return cast(PlayerArchive, request.app.state.players)


async def as_player(request: Request, key: str | None) -> dict[str, Any] | None:
    """The player (``{"id", "name", "created_at_ms"}``) whose secret ``key``
    this is; ``None`` when no key was sent.

    :raises PlayerInvalidKey: a key that is nobody's (a forgotten player's included).
    :raises ArchiveUnavailable: the database does not answer.
    """
    if not key:
        return None
    found = await players(request).player_by_key(key_digest(key))
    if found is None:
        raise PlayerInvalidKey("that player key is nobody's (the player may have been "
                               "forgotten): create a player again")
    return found


async def racer_name(request: Request, key: str | None,
                     name: str | None) -> tuple[str, str | None]:
    """``(racer name, player id)`` of a join: the player's name and id when a
    player key came, else ``name`` and ``None``.

    :raises PlayerInvalidKey, ArchiveUnavailable: as :func:`as_player`.
    :raises RequestInvalid: neither a key nor a name.
    """
    player = await as_player(request, key)
    if player is not None:
        return player["name"], player["id"]
    if name is None:
        raise RequestInvalid("name: a name is needed (or race as a player: "
                             "Authorization: Bearer <player key>)", {"field": "name"})
    return name, None


async def resolve_player(request: Request, ref: str) -> dict[str, Any]:
    """The player a path parameter names: an id, else a name (compared after
    NFKC and case folding) → ``{"id", "name", "created_at_ms"}``.

    :raises PlayerNotFound, ArchiveUnavailable:
    """
    found = None
    if 0 < len(ref) <= 64:
        found = await players(request).find_player(ref, fold_name(ref))
    if found is None:
        raise PlayerNotFound(f"no player {ref[:64]!r}", {"player": ref[:64]})
    return found
