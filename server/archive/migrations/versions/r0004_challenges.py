"""Challenges and duels (issue 35): ``challenges``, ``challenge_attempts`` and
``notifications`` (docs/protocol.md, "Challenges and duels").

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("challenge_id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("deal_number", sa.String(64), nullable=False),
        sa.Column("redeal_key", sa.String(128), nullable=False),
        sa.Column("deal_salt", sa.String(64), nullable=False),
        sa.Column("deal_commitment", sa.String(64), nullable=False),
        sa.Column("time_limit_ms", sa.BigInteger, nullable=False),
        sa.Column("creator_id", sa.String(32), nullable=False),
        sa.Column("creator_name", sa.String(64), nullable=False),
        sa.Column("creator_rating", sa.Float, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("offered_ms", sa.BigInteger, nullable=True),
        sa.Column("taker_id", sa.String(32), nullable=True),
        sa.Column("taker_until_ms", sa.BigInteger, nullable=True),
        sa.Column("settle_due", sa.Boolean, nullable=False),
        sa.Column("closed_ms", sa.BigInteger, nullable=True),
        sa.Column("result", sa.JSON, nullable=True),
    )
    op.create_index("ix_challenges_duels", "challenges",
                    ["kind", "variant", "state", "creator_rating"])
    op.create_index("ix_challenges_due", "challenges", ["state", "expires_ms"])
    op.create_index("ix_challenges_creator", "challenges", ["creator_id", "created_ms"])
    op.create_table(
        "challenge_attempts",
        sa.Column("challenge_id", sa.String(32),
                  sa.ForeignKey("challenges.challenge_id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("room_id", sa.String(64), nullable=False, unique=True),
        sa.Column("racer_id", sa.String(64), nullable=False),
        sa.Column("started_ms", sa.BigInteger, nullable=False),
        sa.Column("deadline_ms", sa.BigInteger, nullable=False),
        sa.Column("race_id", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("foundation_cards", sa.Integer, nullable=True),
        sa.Column("reach_time_ms", sa.BigInteger, nullable=True),
        sa.Column("moves", sa.Integer, nullable=True),
        sa.Column("finished_at_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_challenge_attempts_player", "challenge_attempts",
                    ["player_id", "started_ms"])
    op.create_index("ix_challenge_attempts_race", "challenge_attempts", ["race_id"])
    op.create_table(
        "notifications",
        sa.Column("notification_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("challenge_id", sa.String(32), nullable=True),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("read", sa.Boolean, nullable=False),
    )
    op.create_index("ix_notifications_player", "notifications",
                    ["player_id", "notification_id"])


def downgrade() -> None:
    op.drop_index("ix_notifications_player", table_name="notifications")
    op.drop_table("notifications")
    op.drop_index("ix_challenge_attempts_race", table_name="challenge_attempts")
    op.drop_index("ix_challenge_attempts_player", table_name="challenge_attempts")
    op.drop_table("challenge_attempts")
    op.drop_index("ix_challenges_creator", table_name="challenges")
    op.drop_index("ix_challenges_due", table_name="challenges")
    op.drop_index("ix_challenges_duels", table_name="challenges")
    op.drop_table("challenges")
