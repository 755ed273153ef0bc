"""The REST half of the client library: :class:`LucieClient` (httpx, async).

One method per route of docs/protocol.md ("REST"); each returns a typed view
(:mod:`client_cli.views`) or raises :class:`~client_cli.errors.ApiError`
with the server's error code. Racer calls take the racer's token, host calls
the host token; both travel as ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import os
import uuid
from typing import Any
from urllib.parse import quote

import httpx

from .errors import ApiError, ServerUnreachable, error_for
from .views import (
    AckView,
    CreatedRoom,
    GameView,
    JoinedRoom,
    QuickJoined,
    RacerView,
    RematchView,
    ReplayView,
    RoomView,
    SeriesView,
    StandingsView,
    parse,
)

__all__ = ["DEFAULT_SERVER", "LucieClient", "new_move_id", "server_url"]

DEFAULT_SERVER = "http://127.0.0.1:8000"
"""Where the embedded server listens by default (``lucie-server``)."""

_PREFIX = "/api/v1"


def server_url(explicit: str | None = None) -> str:
    """The server URL: ``explicit``, else ``$LUCIE_SERVER``, else :data:`DEFAULT_SERVER`."""
    url = explicit or os.environ.get("LUCIE_SERVER") or DEFAULT_SERVER
    if "://" not in url:
        url = "http://" + url
    return url.rstrip("/")


def new_move_id() -> str:
    """A fresh client move id (32 hex characters)."""
    return uuid.uuid4().hex


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class LucieClient:
    """Async client for the race service's REST routes.

    Use as ``async with LucieClient(url) as client: ...``. ``timeout`` is in
    seconds per request. ``room`` arguments take the room id or its code.

    :raises ServerUnreachable: (from every method) nothing answers at ``url``.
    :raises ApiError: the server refused the request (``code`` tells why).
    """

    def __init__(self, url: str | None = None, *, timeout: float = 10.0,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.url = server_url(url)
        self._http = httpx.AsyncClient(base_url=self.url + _PREFIX, timeout=timeout,
                                       transport=transport)

    async def __aenter__(self) -> LucieClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _call(self, method: str, path: str, *, token: str | None = None,
                    json: Any = None, params: dict[str, Any] | None = None) -> Any:
        try:
            resp = await self._http.request(method, path, headers=_auth(token), json=json,
                                            params=params)
        except httpx.TimeoutException:
            raise ApiError("client/timeout", f"{self.url} did not answer in time") from None
        except (httpx.TransportError, OSError) as exc:
            raise ServerUnreachable(self.url, type(exc).__name__) from None
        if (resp.status_code == 204 or not resp.content) and resp.is_success:
            return None
        try:
            body: Any = resp.json()
        except ValueError:
            body = resp.text
        if not resp.is_success:
            raise error_for(resp.status_code, body)
        return body

    # rooms -------------------------------------------------------------
    async def create_room(
        self,
        *,
        variant: str = "belle-lucie",
        deal: int | str = "random",
        capacity: int = 8,
        time_limit_s: int = 900,
        visibility: str = "public",
        countdown_s: int = 3,
        redeals: int | None = None,
        merci: bool | None = None,
        undo: bool | None = None,
        series: int | None = None,
        series_break_s: int | None = None,
        bots: int | list[str] | dict[str, Any] = 0,
        hints: bool = False,
        winnable_only: bool = False,
    ) -> CreatedRoom:
        """Create a room; ``deal`` is a deal number, ``"random"`` or ``"daily"``;
        ``series``: the first room of a series of that many races (2–9), the next
        one starting ``series_break_s`` after each race (docs/protocol.md, "Series").

        ``bots``: computer racers the server seats and runs (they race on whoever
        leaves, every race of a series; docs/protocol.md, "Computer racers"; fewer
        than ``capacity``): a count (a mix), levels, or ``{"level", "count"}``;
        ``hints``: racers may ask for hints (an unranked practice room);
        ``winnable_only``: a deal the solver proves winnable with the room's redeals."""
        body: dict[str, Any] = {"variant": variant, "deal": deal, "capacity": capacity,
                                "time_limit_s": time_limit_s, "visibility": visibility,
                                "countdown_s": countdown_s}
        for key, value in (("redeals", redeals), ("merci", merci), ("undo", undo)):
            if value is not None:
                body[key] = value
        for key, flag in (("bots", bots), ("hints", hints), ("winnable_only", winnable_only)):
            if flag:  # sent only when asked: an older server refuses fields it does not know
                body[key] = flag
        if series is not None:
            body["series"] = {"races": series} if series_break_s is None else {
                "races": series, "break_s": series_break_s}
        return parse(CreatedRoom, await self._call("POST", "/rooms", json=body))

    async def list_rooms(self) -> list[RoomView]:
        """Public rooms waiting for racers."""
        data = await self._call("GET", "/rooms")
        rooms = data.get("rooms") if isinstance(data, dict) else None
        if not isinstance(rooms, list):
            raise error_for(200, data)
        return [parse(RoomView, r) for r in rooms]

    async def get_room(self, room: str, token: str | None = None) -> RoomView:
        """One room by id or code; with its host token, the deal number before the
        start too (docs/protocol.md, "Fair play")."""
        return parse(RoomView, await self._call("GET", f"/rooms/{room}", token=token))

    async def start(self, room: str, host_token: str) -> RoomView:
        """Start the countdown (host only)."""
        return parse(RoomView, await self._call("POST", f"/rooms/{room}/start", token=host_token))

    async def close(self, room: str, host_token: str) -> RoomView:
        """Close the room (host only)."""
        return parse(RoomView, await self._call("POST", f"/rooms/{room}/close", token=host_token))

    # racers ------------------------------------------------------------
    async def join(self, room: str, name: str | None = None, *,
                   player_key: str | None = None) -> JoinedRoom:
        """Join ``room`` as ``name`` → the racer and its secret token.

        With ``player_key`` the racer races as that player (rated, in their
        history) under the player's name; ``name`` is not needed then.

        :raises ApiError: ``player/invalid_key`` — the key is nobody's.
        """
        body = {} if name is None else {"name": name}
        data = await self._call("POST", f"/rooms/{room}/racers", token=player_key, json=body)
        return parse(JoinedRoom, data)

    async def quick(self, variant: str = "belle-lucie", name: str | None = None, *,
                    player_key: str | None = None) -> QuickJoined:
        """Quick race: a seat in the lobby of ``variant`` that starts soonest → the
        lobby, the racer, its token; as the player of ``player_key`` (their rating
        band), else ``name`` is needed. :raises ApiError: ``request/invalid``,
        ``racer/name_taken`` (the player waits there already), ``player/invalid_key``."""
        body = {"variant": variant, **({} if name is None else {"name": name})}
        return parse(QuickJoined, await self._call("POST", "/quick", token=player_key, json=body))

    async def leave(self, room: str, racer: str, token: str) -> None:
        """Leave the room (a racer) or remove a racer (the host's token)."""
        await self._call("DELETE", f"/rooms/{room}/racers/{racer}", token=token)

    async def ready(self, room: str, racer: str, token: str, ready: bool = True) -> RacerView:
        """Say whether the racer is ready."""
        data = await self._call("POST", f"/rooms/{room}/racers/{racer}/ready", token=token,
                                json={"ready": ready})
        return parse(RacerView, data)

    async def series(self, series: str) -> SeriesView:
        """A series (its id, or a room's id or code): rooms and table (protocol.md)."""
        return parse(SeriesView, await self._call("GET", f"/series/{series}"))

    async def rematch(self, room: str, token: str) -> RematchView:
        """Offer a rematch of ``room``'s finished race with your racer ``token`` → your
        seat in the next room (the first offer makes it and hosts it: ``host_token``).

        :raises ApiError: ``room/not_over`` before the race ends, ``auth/invalid_token``
            for a token that is not a racer's of the room, ``room/not_waiting`` when
            the rematch started without you.
        """
        return parse(RematchView, await self._call("POST", f"/rooms/{room}/rematch",
                                                   token=token))

    # games -------------------------------------------------------------
    async def game(self, room: str, racer: str, token: str | None = None) -> GameView:
        """A racer's full game state and version."""
        data = await self._call("GET", f"/rooms/{room}/racers/{racer}/game", token=token)
        return parse(GameView, data)

    async def move(self, room: str, racer: str, token: str, move: str | dict[str, Any],
                   expected_version: int, client_move_id: str | None = None) -> AckView:
        """Submit a move (text notation or JSON object) expected at ``expected_version``.

        :raises MoveRefused: ``move/illegal`` (with the reason), ``move/invalid``,
            ``move/stale_version`` (``game`` holds the current game).
        """
        body = {"move": move, "expected_version": expected_version,
                "client_move_id": client_move_id or new_move_id()}
        data = await self._call("POST", f"/rooms/{room}/racers/{racer}/moves", token=token,
                                json=body)
        return parse(AckView, data)

    async def resign(self, room: str, racer: str, token: str) -> RacerView:
        """Resign: the racer's result becomes final."""
        return parse(RacerView, await self._call("POST", f"/rooms/{room}/racers/{racer}/resign",
                                                 token=token))

    # results -----------------------------------------------------------
    async def standings(self, room: str, token: str | None = None) -> StandingsView:
        """Ranked standings (``final`` once the race is over; an attempt's: its token)."""
        got = await self._call("GET", f"/rooms/{room}/standings", token=token)
        return parse(StandingsView, got)

    async def replay(self, room: str, racer: str) -> ReplayView:
        """A racer's move log with race-clock times."""
        return parse(ReplayView, await self.get_json(f"/rooms/{room}/racers/{racer}/replay"))

    async def get_json(self, path: str, token: str | None = None) -> Any:
        """``GET`` any route under ``/api/v1`` (``path`` starts with ``/``), as parsed JSON
        (``token``: sent as ``Authorization: Bearer``). For routes this class has no
        method for (moderation, docs/fair-play.md), and to export answers as they are."""
        return await self._call("GET", path, token=token)

    async def post_json(self, path: str, body: Any, token: str | None = None) -> Any:
        """``POST`` ``body`` (JSON) to any route under ``/api/v1``, as :meth:`get_json`."""
        return await self._call("POST", path, token=token, json=body)

    # head to head (issue 6) -----------------------------------------------
    async def compare(self, room: str, a: str, b: str) -> dict[str, Any]:
        """Comparison of two racers (ids or names) of one room (docs/protocol.md)."""
        data: dict[str, Any] = await self._call("GET", f"/rooms/{room}/compare/{a}/{b}")
        return data

    async def compare_games(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        """Comparison of two games, each ``{"room", "racer"}`` or ``{"replay": doc}``."""
        data: dict[str, Any] = await self._call("POST", "/compare", json={"a": a, "b": b})
        return data

    async def check_replay(self, replay: dict[str, Any]) -> dict[str, Any]:
        """Have the server check a replay document by replaying it."""
        data: dict[str, Any] = await self._call("POST", "/replays/check",
                                                json={"replay": replay})
        return data

    async def create_ghost_room(self, source: dict[str, Any], **options: Any) -> dict[str, Any]:
        """A room racing a recorded game (``{"room", "racer"}`` or ``{"replay": doc}``)
        → ``{"room", "host_token", "ghost"}``."""
        data: dict[str, Any] = await self._call("POST", "/ghost-rooms",
                                                json={**source, **options})
        return data

    async def daily(self, variant: str = "belle-lucie", date: str | None = None
                    ) -> dict[str, Any]:
        """The daily deal of ``variant`` (today, UTC, or ``date`` YYYY-MM-DD)."""
        path = f"/daily/{variant}" + (f"/{date}" if date else "")
        data: dict[str, Any] = await self._call("GET", path)
        return data

    async def leaderboard(self, variant: str = "belle-lucie", board: str = "daily",
                          date: str | None = None, limit: int = 20) -> dict[str, Any]:
        """A leaderboard: ``board`` ``"daily"`` (today or ``date``), ``"all-time"``
        or ``"rating"`` (players by rating)."""
        path = f"/leaderboards/{variant}/{board}" + (f"/{date}" if date and board == "daily"
                                                      else "")
        data: dict[str, Any] = await self._call("GET", path, params={"limit": limit})
        return data

    # players (issue 20) ------------------------------------------------------
    async def create_player(self, name: str) -> dict[str, Any]:
        """Create a player → ``{"player": {"id", "name", "created_at_ms"}, "key"}``; the
        key is answered this once: keep it (``join(..., player_key=key)``).

        :raises ApiError: ``player/name_taken``, ``request/invalid`` (the name)."""
        data: dict[str, Any] = await self._call("POST", "/players", json={"name": name})
        return data

    async def player(self, player: str, key: str | None = None) -> dict[str, Any]:
        """A player's profile (id or name): ratings and figures per variant; with
        the player's own ``key``, also a fair-play verdict on them (``fair_play``)."""
        data: dict[str, Any] = await self._call("GET", f"/players/{_seg(player)}", token=key)
        return data

    async def player_races(self, player: str, limit: int = 20,
                           cursor: str | None = None) -> dict[str, Any]:
        """A page of a player's archived races, newest first → ``{"races", "next"}``
        (``next``: the cursor of the older page, ``None`` on the last)."""
        data: dict[str, Any] = await self._call(
            "GET", f"/players/{_seg(player)}/races", params=_page(limit, cursor))
        return data

    async def versus(self, player: str, other: str, limit: int = 20,
                     cursor: str | None = None) -> dict[str, Any]:
        """Head to head over time: every archived race both raced (a page of them)."""
        data: dict[str, Any] = await self._call(
            "GET", f"/players/{_seg(player)}/vs/{_seg(other)}", params=_page(limit, cursor))
        return data

    async def rating_history(self, player: str, variant: str) -> dict[str, Any]:
        """A player's rating after each rated race of ``variant``, oldest first."""
        data: dict[str, Any] = await self._call(
            "GET", f"/players/{_seg(player)}/ratings/{_seg(variant)}")
        return data

    async def forget_player(self, player: str, key: str) -> None:
        """Delete a player (their key proves it is theirs); their archived races
        stay, anonymised.

        :raises ApiError: ``player/invalid_key``, ``player/not_found``.
        """
        await self._call("DELETE", f"/players/{_seg(player)}", token=key)


def _seg(text: str) -> str:
    """``text`` as one URL path segment (player names may hold spaces and ``'``)."""
    return quote(text, safe="")


def _page(limit: int, cursor: str | None) -> dict[str, Any]:
    return {"limit": limit, **({"cursor": cursor} if cursor else {})}
