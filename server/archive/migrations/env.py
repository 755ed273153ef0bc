"""Alembic's environment for the archive: runs on the connection that
:mod:`server.archive.migrate` passes in ``config.attributes["connection"]``
(there is no ``alembic.ini``; the URL never reaches Alembic)."""

from __future__ import annotations

from alembic import context

from server.archive.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
