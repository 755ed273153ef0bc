"""Solver services of the race authority (issue 7): hints, winnable deals, par.

* :meth:`Assist.hint` — a racer asks for a hint (rooms created with
  ``hints``; off by default, meant for practice rooms). The solver sees the
  racer's position only, never the room's redeal key (that stays secret
  until the race is over), and the hint is advisory: nothing is played.
* :func:`draw_winnable_deal` — "winnable deals only" rooms draw deal numbers
  and redeal keys until the solver proves one winnable (bounded time).
* :func:`par_hook` — at the end of a race, the room's par (the most
  foundation cards possible with its redeals) is stored once, so that the
  standings show it and each racer's distance to it.

The searches run in the :class:`~server.solver.SolverPool` of the authority
(``assist.solver``), never on the event loop; without a pool (tests,
tools) they run in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from server.rules import RuleSet
from server.solver import SolverBusyError, SolverPool, UnsupportedRulesError, hint, par
from server.solver import proved_winnable as _proved_winnable
from server.store.base import LiveStore

from . import errors as err
from .access import authorize, check_racing
from .apply import Applier
from .commands import SetPar
from .ids import random_deal_number
from .rooms import Rooms
from .state import RoomRecord
from .views import HintView, RacerView

__all__ = ["Assist", "draw_winnable_deal", "par_hook"]

log = logging.getLogger("server.race")

HINT_SECONDS: Final = 1.0
"""Time budget of one hint."""
WINNABLE_SECONDS: Final = 6.0
"""Time budget of drawing a winnable deal (all tries together)."""
PAR_SECONDS: Final = 2.0
"""Time budget of a room's par at the end of its race."""


class Assist:
    """The hint action of the authority (auth → room → state → option → solve),
    and the room's par at the end of its race."""

    def __init__(self, store: LiveStore, rooms: Rooms, applier: Applier,
                 solver: SolverPool | None = None) -> None:
        self.store = store
        self.rooms = rooms
        self.applier = applier
        self.solver = solver
        """Process pool for solver jobs (hints, winnable deals, par); ``None`` in
        tests and tools (they search in-process)."""

    async def hint(self, ref: str, racer_id: str, token: str | None) -> HintView:
        """A suggested move for the racer's current position (nothing is played).

        :raises AuthMissing, RoomNotFound, RacerNotFound, AuthInvalidToken,
            AuthForbidden, RoomNotRacing, RoomOver, RacerFinished, HintsOff:
        """
        if not token:
            raise err.AuthMissing("a hint needs the racer's token")
        room, _, _ = await self.applier.read(ref)
        authorize(room, racer_id, token)
        check_racing(room)
        if not room.hints:
            raise err.HintsOff("this room does not allow hints")
        racer, _, game = await self.rooms.racer_and_game(room, racer_id)
        if racer.final:
            raise err.RacerFinished(f"the result is already final ({racer.status})")
        rules, position = game.rules, game.position
        try:
            if self.solver is not None:
                move = await self.solver.hint(rules, position, max_seconds=HINT_SECONDS)
            else:
                move = hint(rules, position, max_seconds=HINT_SECONDS)
        except UnsupportedRulesError:
            move = next(iter(game.legal_moves()), None)
        except SolverBusyError:
            raise err.SolverBusy("the solver is busy; try again") from None
        return HintView(racer=racer_id, version=racer.version,
                        move=str(move) if move is not None else None)


async def draw_winnable_deal(
    pool: SolverPool | None, rules: RuleSet, deal_number: int | None
) -> tuple[int, bytes]:
    """A deal number and redeal key the solver proves winnable under ``rules``.

    ``deal_number`` ``None`` draws a random deal per try, else only keys are
    drawn for that deal.

    :raises RequestInvalid: nothing proved within :data:`WINNABLE_SECONDS`,
        or a rule set the solver does not handle.
    """
    deadline = time.monotonic() + WINNABLE_SECONDS
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise err.RequestInvalid("no winnable deal found in time; try again",
                                     {"field": "winnable_only"})
        number = deal_number if deal_number is not None else random_deal_number()
        key = secrets.token_bytes(32)
        budget = min(2.0, left)
        try:
            if pool is not None:
                won = await pool.proved_winnable(rules, number, key, max_seconds=budget)
            else:
                won = _proved_winnable(rules, number, key, max_seconds=budget)
        except UnsupportedRulesError:
            raise err.RequestInvalid(f"the solver cannot vouch for {rules.id} deals",
                                     {"field": "winnable_only"}) from None
        except SolverBusyError:
            continue
        if won:
            return number, key


def par_hook(
    assist: Assist,
) -> Callable[[RoomRecord, Sequence[RacerView]], Awaitable[None]]:
    """A race-over hook storing the room's par (when not known yet) in its
    record; the search runs in a background task, so the race end is never
    held up by it."""
    tasks: set[asyncio.Task[None]] = set()

    async def hook(room: RoomRecord, views: Sequence[RacerView]) -> None:
        if room.par is None:
            task = asyncio.create_task(store_par(room, views))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def store_par(room: RoomRecord, views: Sequence[RacerView]) -> None:
        try:
            await _store_par(assist, room, views)
        except Exception as exc:  # par is a nicety: never let it disturb the server
            log.error("par for room %s failed: %s", room.id, type(exc).__name__, exc_info=exc)

    return hook


async def _store_par(assist: Assist, room: RoomRecord, views: Sequence[RacerView]) -> None:
    rules = RuleSet.from_json(room.rules)
    key = bytes.fromhex(room.redeal_key)
    try:
        if assist.solver is not None:
            value = await assist.solver.par(rules, room.deal_number, key,
                                               max_seconds=PAR_SECONDS)
        else:
            value = par(rules, room.deal_number, key, max_seconds=PAR_SECONDS)
    except (UnsupportedRulesError, SolverBusyError):
        return
    value = max(value, *(v.foundation_cards for v in views), 0)
    with contextlib.suppress(err.RoomNotFound):  # expired meanwhile: nothing to store
        await assist.applier.apply(SetPar(room.id, value, tuple(views)))
