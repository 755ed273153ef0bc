"""Tie-breaks of drawn duels and an attempt's own reads after its archiving
(issue 35; docs/protocol.md, "Challenges and duels"): ``challenges.tiebreak_of``
— the duel a tie-break challenge decides — and ``challenge_attempts.
token_digest`` — SHA-256 of the attempt's racer token, so that its racer still
reads their own attempt once it is archived, while the challenge is open.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("challenges", sa.Column("tiebreak_of", sa.String(32), nullable=True))
    op.add_column("challenge_attempts", sa.Column("token_digest", sa.String(64),
                                                  nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("challenge_attempts") as batch:  # SQLite: drop by table copy
        batch.drop_column("token_digest")
    with op.batch_alter_table("challenges") as batch:  # SQLite: drop by table copy
        batch.drop_column("tiebreak_of")
