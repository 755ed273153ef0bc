"""What outlives a race: game records, replay files, comparison and head to head,
ghost schedules, leaderboards and their storage.

Pure over :mod:`server.rules` (plus the leaderboard stores' own I/O); it never
imports the live authority or its store. Live data comes in through small
protocols the authority satisfies: :class:`~.head_to_head.LiveGames` (a racer's
log) and :class:`~.leaderboard.FinishedRace` (a race's end). Modules:
``record`` (:class:`GameRecord`, timelines), ``replay_file``, ``compare``,
``head_to_head``, ``ghost``, ``leaderboard``, ``leaderboard_store`` with its
memory and Redis twins (the app builds the Redis one on the room store's
client: ``server.app.leaderboards_of``).
"""

from __future__ import annotations

from .record import GameRecord, TimedMove

__all__ = ["GameRecord", "TimedMove"]
