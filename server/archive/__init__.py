"""The archive: every finished race kept for good (docs/archive.md).

- :mod:`server.archive.db` — :class:`ArchiveDb`, the database (SQLite file by
  default, PostgreSQL when configured; SQLAlchemy 2 Core, async);
  :mod:`server.archive.writing` — the rows and statements of one race's
  write; :mod:`server.archive.ratings` — figures and ratings;
- :mod:`server.archive.schema` — its tables; :mod:`server.archive.migrate` —
  Alembic migrations shipped in ``server/archive/migrations``;
- :mod:`server.archive.archiver` — the loop that moves finished races from the
  live store to the database, through the race authority's ``FinishedRaces``.

It imports nothing of the live parts (store, race, api): the race authority
reads archived races through its own protocol (``server.race.archived``),
which :class:`ArchiveDb` satisfies, and the app wires the two.
"""

from .archiver import Archiver
from .db import ArchiveDb, StoredRace, database_url, describe

__all__ = ["ArchiveDb", "Archiver", "StoredRace", "database_url", "describe"]
