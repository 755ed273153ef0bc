"""The decisions that make a room: :class:`~.commands.Create` (``POST /rooms``)
and :class:`~.commands.OpenRoom` (a rematch's or a series' next room), and the
checks of a new room's options that run before anything is drawn for it.

Pure, as every decision (:mod:`server.race.decide`).
"""

from __future__ import annotations

from server.rules import RulesError, RuleSet, new_game
from server.rules.commitment import deal_commitment
from server.rules.daily import daily_deal, utc_date

from . import errors as err
from . import present
from .commands import Create, OpenRoom
from .events import CreatedEvent
from .options import RoomOptions, bot_levels
from .outcome import After, Expire, ListInLobby, Loaded, Outcome, RoomCreated
from .state import RoomRecord, SeriesState
from .timers import RaceConfig

__all__ = ["check_create", "deal_of", "decide_create", "decide_open_room"]

DEFAULT_SPECTATOR_DELAY_S = 60
MIN_SPECTATOR_DELAY_S = 10
"""A shorter delay would make a racer who watches anonymously a near-live copier."""
MAX_SPECTATOR_DELAY_S = 600


def _spectator_delay_s(options: RoomOptions) -> int:
    """The room's spectator delay (s): 60 by default, 0 in open-boards rooms.

    :raises RequestInvalid: out of 10…600, 0 without ``open_boards``, or a
        delay with ``open_boards`` (boards are live there).
    """
    delay = options.spectator_delay_s
    if options.open_boards:
        if delay not in (None, 0):
            raise err.RequestInvalid("open_boards rooms show boards live: leave out "
                                     "spectator_delay_s (or give 0)",
                                     {"field": "spectator_delay_s"})
        return 0
    if delay is None:
        return DEFAULT_SPECTATOR_DELAY_S
    if delay == 0:
        raise err.RequestInvalid("spectator_delay_s 0 (live boards) needs \"open_boards\": true",
                                 {"field": "spectator_delay_s"})
    if not MIN_SPECTATOR_DELAY_S <= delay <= MAX_SPECTATOR_DELAY_S:
        raise err.RequestInvalid(f"spectator_delay_s is {MIN_SPECTATOR_DELAY_S}…"
                                 f"{MAX_SPECTATOR_DELAY_S} (0 with open_boards)",
                                 {"field": "spectator_delay_s"})
    return delay


def check_create(options: RoomOptions) -> tuple[RuleSet, int]:
    """The rule set and spectator delay (s) of ``options``, range-checked.

    :raises RequestInvalid: unknown variant, bad overrides or ranges, an unknown
        bot level (``field``).
    """
    try:
        rules = RuleSet.from_json({"variant": options.variant}).with_overrides(
            redeals=options.redeals, merci=options.merci, undo=options.undo)
    except RulesError as exc:
        raise err.RequestInvalid(str(exc), {"field": "variant"}) from None
    if not 1 <= options.capacity <= 64:
        raise err.RequestInvalid("capacity is 1…64", {"field": "capacity"})
    if not 10 <= options.time_limit_s <= 4 * 3600:
        raise err.RequestInvalid("time_limit_s is 10…14400", {"field": "time_limit_s"})
    if not 0 <= options.countdown_s <= 60:
        raise err.RequestInvalid("countdown_s is 0…60", {"field": "countdown_s"})
    if not len(bot_levels(options.bots)) < options.capacity:
        raise err.RequestInvalid("bots is 0…capacity − 1 (a seat stays for a racer)",
                                 {"field": "bots"})
    delay_s = _spectator_delay_s(options)
    if options.series_races is not None and not (
            2 <= options.series_races <= 9 and 0 <= options.series_break_s <= 300):
        raise err.RequestInvalid("a series has 2…9 races, 0…300 s apart", {"field": "series"})
    return rules, delay_s


def deal_of(options: RoomOptions, rules: RuleSet, now: int, random_number: int) -> int:
    """The deal number ``options`` ask for at ``now`` (ms): ``random_number`` for
    ``"random"``, the day's (UTC) for ``"daily"``, else the one given.

    :raises RequestInvalid: a deal number the variant has not (``field: deal``).
    """
    if options.deal == "random":
        number = random_number
    elif options.deal == "daily":
        number = daily_deal(options.variant, utc_date(now))
    else:
        number = options.deal
    try:
        new_game(rules, number, b"")
    except RulesError as exc:
        raise err.RequestInvalid(str(exc), {"field": "deal"}) from None
    return number


def decide_create(loaded: Loaded, cmd: Create, config: RaceConfig) -> Outcome[RoomRecord]:
    """A new room in state ``waiting`` (listed in the lobby when public), its
    deal commitment published (:mod:`server.rules.commitment`).

    :raises RequestInvalid: unknown variant, bad overrides or ranges.
    """
    options, now = cmd.options, loaded.now
    rules, delay_s = check_create(options)
    room_id = cmd.room_id
    room = RoomRecord(
        id=room_id, code=cmd.code, rules=rules.to_json(), deal_number=cmd.deal_number,
        redeal_key=cmd.redeal_key.hex(), deal_salt=cmd.deal_salt.hex(),
        deal_commitment=deal_commitment(rules.id, cmd.deal_number, cmd.redeal_key,
                                        cmd.deal_salt),
        ranked=options.ranked and not options.hints,
        hints=options.hints, winnable_only=options.winnable_only,
        par=rules.cards if options.winnable_only else None,
        capacity=options.capacity, quick=options.quick,
        time_limit_ms=options.time_limit_s * 1000, visibility=options.visibility,
        countdown_ms=options.countdown_s * 1000, host_digest=cmd.host_digest,
        created_ms=now, spectator_delay_ms=delay_s * 1000, open_boards=options.open_boards,
        deal_public=options.deal_public or options.deal == "daily",
        challenge=options.challenge,
        series=None if options.series_races is None else SeriesState(
            id=room_id, race=1, races=options.series_races,
            break_ms=options.series_break_s * 1000),
    )
    created = CreatedEvent(race_clock_ms=present.race_clock(room, now), code=cmd.code)
    after: tuple[After, ...] = (RoomCreated(), Expire(config.waiting_ttl_ms))
    if room.visibility == "public":
        after = (*after, ListInLobby(now + config.waiting_ttl_ms))
    return Outcome(room, room=room, events=[created.logged()], after=after)


def decide_open_room(loaded: Loaded, cmd: OpenRoom, config: RaceConfig) -> Outcome[RoomRecord]:
    """A next room made whole by the service, saved as it is (:class:`OpenRoom`)."""
    return Outcome(cmd.room, room=cmd.room, events=list(cmd.events),
                   after=(Expire(cmd.expire_ms),))
