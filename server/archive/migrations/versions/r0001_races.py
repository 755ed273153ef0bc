"""Races and their racers (issue 20, first slice).

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "races",
        sa.Column("race_id", sa.String(64), primary_key=True),
        sa.Column("room_id", sa.String(64), nullable=False),
        sa.Column("room_code", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("deal_number", sa.String(64), nullable=False),
        sa.Column("redeal_key", sa.String(128), nullable=False),
        sa.Column("ranked", sa.Boolean, nullable=False),
        sa.Column("started_at_ms", sa.BigInteger, nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
        sa.Column("time_limit_ms", sa.BigInteger, nullable=False),
        sa.Column("par", sa.Integer, nullable=True),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("room", sa.JSON, nullable=False),
        sa.Column("standings", sa.JSON, nullable=False),
        sa.Column("archived_at_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_races_room_code_ended", "races", ["room_code", "ended_at_ms"])
    op.create_index("ix_races_room_id", "races", ["room_id"])
    op.create_table(
        "archived_racers",
        sa.Column("race_id", sa.String(64),
                  sa.ForeignKey("races.race_id", ondelete="CASCADE"), primary_key=True),
        sa.Column("racer_id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("join_order", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("final", sa.Boolean, nullable=False),
        sa.Column("foundation_cards", sa.Integer, nullable=False),
        sa.Column("redeals_used", sa.Integer, nullable=False),
        sa.Column("merci_used", sa.Boolean, nullable=False),
        sa.Column("reach_time_ms", sa.BigInteger, nullable=True),
        sa.Column("finished_ms", sa.BigInteger, nullable=True),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("moves", sa.JSON, nullable=False),
    )
    op.create_index("ix_archived_racers_player", "archived_racers", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_archived_racers_player", table_name="archived_racers")
    op.drop_table("archived_racers")
    op.drop_index("ix_races_room_id", table_name="races")
    op.drop_index("ix_races_room_code_ended", table_name="races")
    op.drop_table("races")
