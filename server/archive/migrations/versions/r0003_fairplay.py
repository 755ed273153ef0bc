"""Fair play (issue 32): assessments of rated races, their queue, moderators'
verdicts, a player's fair-play standing, and each racer's focus losses.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("archived_racers", sa.Column("focus_losses", sa.Integer, nullable=False,
                                               server_default="0"))
    op.add_column("players", sa.Column("fair_play", sa.String(16), nullable=True))
    op.add_column("players", sa.Column("fair_play_at_ms", sa.BigInteger, nullable=True))
    op.create_table(
        "assessment_queue",
        sa.Column("race_id", sa.String(64), sa.ForeignKey("races.race_id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("claimed_until_ms", sa.BigInteger, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
    )
    op.create_table(
        "assessments",
        sa.Column("race_id", sa.String(64), sa.ForeignKey("races.race_id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("racer_id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32),
                  sa.ForeignKey("players.player_id", ondelete="CASCADE"), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
        sa.Column("archived_at_ms", sa.BigInteger, nullable=False),
        sa.Column("signals", sa.JSON, nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("reasons", sa.JSON, nullable=False),
        sa.Column("assessed_at_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_assessments_player", "assessments",
                    ["player_id", "archived_at_ms", "race_id"])
    op.create_table(
        "moderation_verdicts",
        sa.Column("verdict_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(32),
                  sa.ForeignKey("players.player_id", ondelete="CASCADE"), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("moderator", sa.String(64), nullable=False),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
        sa.Column("races", sa.JSON, nullable=False),
        sa.Column("score", sa.Float, nullable=True),
    )
    op.create_index("ix_moderation_verdicts_player", "moderation_verdicts",
                    ["player_id", "at_ms"])


def downgrade() -> None:
    op.drop_index("ix_moderation_verdicts_player", table_name="moderation_verdicts")
    op.drop_table("moderation_verdicts")
    op.drop_index("ix_assessments_player", table_name="assessments")
    op.drop_table("assessments")
    op.drop_table("assessment_queue")
    with op.batch_alter_table("players") as batch:  # SQLite: drop by table copy
        batch.drop_column("fair_play_at_ms")
        batch.drop_column("fair_play")
    with op.batch_alter_table("archived_racers") as batch:
        batch.drop_column("focus_losses")
