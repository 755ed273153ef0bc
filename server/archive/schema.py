"""The archive's tables (SQLAlchemy Core), as migration ``0001`` creates them.

``races`` — one row per finished race, keyed by its race id (today the id of
the room it was raced in):

==================  ===========  ==============================================
column              type         meaning
==================  ===========  ==============================================
``race_id``         text, key    the race id
``room_id``         text         the live room's id (indexed)
``room_code``       text         its short code (indexed with ``ended_at_ms``:
                                 a reused code names the latest race)
``variant``         text         the rule set's variant name
``rules``           JSON         the rule set (``RulesView`` fields)
``deal_number``     text         PySolFC deal number, in decimal (any size)
``redeal_key``      text         hex
``ranked``          boolean      the room counted for leaderboards
``started_at_ms``   bigint       Unix ms of the start (service clock)
``ended_at_ms``     bigint       Unix ms of the end
``time_limit_ms``   bigint
``par``             int, null    most foundation cards possible, when known
``last_seq``        bigint       the room's last event number
``room``            JSON         the room record (token digests blanked)
``standings``       JSON         the final standings (``Standings``)
``archived_at_ms``  bigint       when this row was written
==================  ===========  ==============================================

``archived_racers`` — one row per racer of a race, keyed by ``(race_id,
racer_id)``: ``player_id`` (null: anonymous; players come with issue 20's
later slice, indexed), ``name``, ``join_order``, ``status``, ``final``,
``foundation_cards``, ``redeals_used``, ``merci_used``, ``reach_time_ms`` and
``finished_ms`` (race clock, null: none), ``points`` and ``rank`` (from the
standings), ``moves`` (JSON list of ``[move text, race-clock ms]``), ``ended_at_ms`` (the
race's end, copied for a player's history in order; migration ``0002``).

Players (migration ``0002``; docs/players.md):

- ``players`` — ``player_id`` (key), ``name`` (display), ``folded`` (unique:
  NFKC + case folding), ``key_digest`` (unique: SHA-256 of the secret key),
  ``created_ms``.
- ``player_variants`` — one row per player and variant, keyed by both: the
  rating (``mu``, ``sigma``: openskill Plackett–Luce; ``rating`` = mu − 3 sigma,
  the conservative figure boards rank by; ``rated_races``) and the
  running figures (``races``, ``wins``, ``cards_total``, ``best_ms``: fastest
  win on the race clock, ``streak`` / ``best_streak``: wins in a row,
  ``last_race_ms``), all updated in the transaction that archives a race.
- ``rating_history`` — ``(player_id, variant, race_id)`` keyed: the rating
  after each rated race (``mu``, ``sigma``, ``at_ms``: the race's end).

Fair play (migration ``0003``; docs/fair-play.md):

- ``archived_racers.focus_losses`` — times the racer's page lost focus.
- ``players.fair_play`` / ``fair_play_at_ms`` — the player's standing after
  a moderator's last verdict (null: none; ``assisted``: races unrated from
  then on; ``cleared``) and when.
- ``assessment_queue`` — rated races with players waiting to be assessed:
  ``race_id`` (key), ``claimed_until_ms`` (a lease, 0: free), ``tries``.
- ``assessments`` — ``(race_id, racer_id)`` keyed, one per assessed player's
  racer: ``player_id``, ``variant``, ``ended_at_ms``, ``archived_at_ms``
  (the race's, for the order ratings count in), ``signals`` (JSON:
  ``server.fairplay.signals.RaceSignals.to_json``), the race's ``verdict``,
  ``score``, ``reasons`` (JSON list), ``assessed_at_ms``.
- ``moderation_verdicts`` — every moderator's verdict, kept: ``verdict_id``
  (serial), ``player_id``, ``verdict`` (``cleared``/``assisted``), ``note``,
  ``moderator`` (the token's name), ``at_ms``, ``races`` (JSON: the race ids
  it took out of the ratings), ``score`` (the player's score then).

Challenges and duels (migration ``0004``; docs/protocol.md, "Challenges and
duels"): ``challenges`` (one deal played by several players one at a time;
``kind`` ``link``, ``rated`` — a duel — or ``tiebreak`` — a drawn duel's
tie-break, ``tiebreak_of`` its duel (migration ``0005``); ``state`` ``open``,
``settled``, ``void``, ``closed``), ``challenge_attempts`` (one per player and challenge:
the attempt's room and its racer's token digest, then its result once its race
is archived) and ``notifications`` (what a player is told on their next visit):
:mod:`server.archive.challenges_db`.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = ["archived_racers", "assessment_queue", "assessments", "challenge_attempts",
           "challenges", "metadata", "moderation_verdicts", "notifications",
           "player_variants", "players", "races", "rating_history"]

metadata = MetaData()

races = Table(
    "races", metadata,
    Column("race_id", String(64), primary_key=True),
    Column("room_id", String(64), nullable=False),
    Column("room_code", String(16), nullable=False),
    Column("variant", String(32), nullable=False),
    Column("rules", JSON, nullable=False),
    Column("deal_number", String(64), nullable=False),
    Column("redeal_key", String(128), nullable=False),
    Column("ranked", Boolean, nullable=False),
    Column("started_at_ms", BigInteger, nullable=False),
    Column("ended_at_ms", BigInteger, nullable=False),
    Column("time_limit_ms", BigInteger, nullable=False),
    Column("par", Integer, nullable=True),
    Column("last_seq", BigInteger, nullable=False),
    Column("room", JSON, nullable=False),
    Column("standings", JSON, nullable=False),
    Column("archived_at_ms", BigInteger, nullable=False),
    Index("ix_races_room_code_ended", "room_code", "ended_at_ms"),
    Index("ix_races_room_id", "room_id"),
)

archived_racers = Table(
    "archived_racers", metadata,
    Column("race_id", String(64), ForeignKey("races.race_id", ondelete="CASCADE"),
           primary_key=True),
    Column("racer_id", String(64), primary_key=True),
    Column("player_id", String(64), nullable=True),
    Column("name", String(64), nullable=False),
    Column("join_order", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("final", Boolean, nullable=False),
    Column("foundation_cards", Integer, nullable=False),
    Column("redeals_used", Integer, nullable=False),
    Column("merci_used", Boolean, nullable=False),
    Column("reach_time_ms", BigInteger, nullable=True),
    Column("finished_ms", BigInteger, nullable=True),
    Column("points", Integer, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("moves", JSON, nullable=False),
    Column("ended_at_ms", BigInteger, nullable=True),
    Column("focus_losses", Integer, nullable=False, server_default="0"),
    Index("ix_archived_racers_player_ended", "player_id", "ended_at_ms", "race_id"),
)

players = Table(
    "players", metadata,
    Column("player_id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("folded", String(128), nullable=False, unique=True),
    Column("key_digest", String(64), nullable=False, unique=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("fair_play", String(16), nullable=True),
    Column("fair_play_at_ms", BigInteger, nullable=True),
)

player_variants = Table(
    "player_variants", metadata,
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("variant", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rated_races", Integer, nullable=False),
    Column("races", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("cards_total", BigInteger, nullable=False),
    Column("best_ms", BigInteger, nullable=True),
    Column("streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("last_race_ms", BigInteger, nullable=False),
    Index("ix_player_variants_board", "variant", "rating"),
)

rating_history = Table(
    "rating_history", metadata,
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           primary_key=True),
    Column("variant", String(32), primary_key=True),
    Column("race_id", String(64), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at_ms", BigInteger, nullable=False),
    Index("ix_rating_history_player", "player_id", "variant", "at_ms"),
)

assessment_queue = Table(
    "assessment_queue", metadata,
    Column("race_id", String(64), ForeignKey("races.race_id", ondelete="CASCADE"),
           primary_key=True),
    Column("claimed_until_ms", BigInteger, nullable=False),
    Column("tries", Integer, nullable=False),
)

assessments = Table(
    "assessments", metadata,
    Column("race_id", String(64), ForeignKey("races.race_id", ondelete="CASCADE"),
           primary_key=True),
    Column("racer_id", String(64), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           nullable=False),
    Column("variant", String(32), nullable=False),
    Column("ended_at_ms", BigInteger, nullable=False),
    Column("archived_at_ms", BigInteger, nullable=False),
    Column("signals", JSON, nullable=False),
    Column("verdict", String(16), nullable=False),
    Column("score", Float, nullable=False),
    Column("reasons", JSON, nullable=False),
    Column("assessed_at_ms", BigInteger, nullable=False),
    Index("ix_assessments_player", "player_id", "archived_at_ms", "race_id"),
)

moderation_verdicts = Table(
    "moderation_verdicts", metadata,
    Column("verdict_id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", String(32), ForeignKey("players.player_id", ondelete="CASCADE"),
           nullable=False),
    Column("verdict", String(16), nullable=False),
    Column("note", Text, nullable=False),
    Column("moderator", String(64), nullable=False),
    Column("at_ms", BigInteger, nullable=False),
    Column("races", JSON, nullable=False),
    Column("score", Float, nullable=True),
    Index("ix_moderation_verdicts_player", "player_id", "at_ms"),
)

challenges = Table(
    "challenges", metadata,
    Column("challenge_id", String(32), primary_key=True),
    Column("code", String(16), nullable=False, unique=True),
    Column("kind", String(8), nullable=False),
    Column("variant", String(32), nullable=False),
    Column("deal_number", String(64), nullable=False),
    Column("redeal_key", String(128), nullable=False),
    Column("deal_salt", String(64), nullable=False),
    Column("deal_commitment", String(64), nullable=False),
    Column("time_limit_ms", BigInteger, nullable=False),
    Column("creator_id", String(32), nullable=False),
    Column("creator_name", String(64), nullable=False),
    Column("creator_rating", Float, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Column("state", String(16), nullable=False),
    Column("played", Integer, nullable=False),
    Column("offered_ms", BigInteger, nullable=True),
    Column("taker_id", String(32), nullable=True),
    Column("taker_until_ms", BigInteger, nullable=True),
    Column("settle_due", Boolean, nullable=False),
    Column("closed_ms", BigInteger, nullable=True),
    Column("result", JSON, nullable=True),
    Column("tiebreak_of", String(32), nullable=True),
    Index("ix_challenges_duels", "kind", "variant", "state", "creator_rating"),
    Index("ix_challenges_due", "state", "expires_ms"),
    Index("ix_challenges_creator", "creator_id", "created_ms"),
)

challenge_attempts = Table(
    "challenge_attempts", metadata,
    Column("challenge_id", String(32),
           ForeignKey("challenges.challenge_id", ondelete="CASCADE"), primary_key=True),
    Column("player_id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("room_id", String(64), nullable=False, unique=True),
    Column("racer_id", String(64), nullable=False),
    Column("started_ms", BigInteger, nullable=False),
    Column("deadline_ms", BigInteger, nullable=False),
    Column("race_id", String(64), nullable=True),
    Column("status", String(16), nullable=True),
    Column("foundation_cards", Integer, nullable=True),
    Column("reach_time_ms", BigInteger, nullable=True),
    Column("moves", Integer, nullable=True),
    Column("finished_at_ms", BigInteger, nullable=True),
    Column("token_digest", String(64), nullable=True),
    Index("ix_challenge_attempts_player", "player_id", "started_ms"),
    Index("ix_challenge_attempts_race", "race_id"),
)

notifications = Table(
    "notifications", metadata,
    Column("notification_id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", String(32), nullable=False),
    Column("at_ms", BigInteger, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("challenge_id", String(32), nullable=True),
    Column("message", Text, nullable=False),
    Column("read", Boolean, nullable=False),
    Index("ix_notifications_player", "player_id", "notification_id"),
)
