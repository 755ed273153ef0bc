"""Alembic's environment for the archive: runs on the connection that
:mod:`server.archive.migrate` passes in ``config.attributes["connection"]``
(there is no ``alembic.ini``; the URL never reaches Alembic). Importing it
outside a migration (the error-registry test imports every module) does
nothing."""

from __future__ import annotations

from alembic import context

from server.archive.schema import metadata


def run() -> None:
    """Run the migrations on the given connection, in its transaction."""
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


if getattr(context, "config", None) is not None:  # only when Alembic runs it
    run()
