"""Players, their ratings and figures per variant, rating history (issue 20).

Also ``archived_racers.ended_at_ms`` (filled from ``races``) and the index a
player's history is read by, newest first.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("archived_racers", sa.Column("ended_at_ms", sa.BigInteger, nullable=True))
    op.execute("UPDATE archived_racers SET ended_at_ms = (SELECT races.ended_at_ms FROM races "
               "WHERE races.race_id = archived_racers.race_id)")
    op.drop_index("ix_archived_racers_player", table_name="archived_racers")
    op.create_index("ix_archived_racers_player_ended", "archived_racers",
                    ["player_id", "ended_at_ms", "race_id"])
    op.create_table(
        "players",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("folded", sa.String(128), nullable=False, unique=True),
        sa.Column("key_digest", sa.String(64), nullable=False, unique=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "player_variants",
        sa.Column("player_id", sa.String(32),
                  sa.ForeignKey("players.player_id", ondelete="CASCADE"), primary_key=True),
        sa.Column("variant", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rated_races", sa.Integer, nullable=False),
        sa.Column("races", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("cards_total", sa.BigInteger, nullable=False),
        sa.Column("best_ms", sa.BigInteger, nullable=True),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("last_race_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_player_variants_board", "player_variants", ["variant", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("player_id", sa.String(32),
                  sa.ForeignKey("players.player_id", ondelete="CASCADE"), primary_key=True),
        sa.Column("variant", sa.String(32), primary_key=True),
        sa.Column("race_id", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_rating_history_player", "rating_history",
                    ["player_id", "variant", "at_ms"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_player", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_player_variants_board", table_name="player_variants")
    op.drop_table("player_variants")
    op.drop_table("players")
    op.drop_index("ix_archived_racers_player_ended", table_name="archived_racers")
    op.create_index("ix_archived_racers_player", "archived_racers", ["player_id"])
    with op.batch_alter_table("archived_racers") as batch:  # SQLite: drop by table copy
        batch.drop_column("ended_at_ms")
