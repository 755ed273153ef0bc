"""Alembic migrations of the archive database (run by :mod:`server.archive.migrate`)."""
