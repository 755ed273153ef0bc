"""Load test and capacity figures for the race server (issue 8).

- :mod:`infra.load.locustfile` — the Locust scenario: racers at human and
  bot pace racing real deals over the room WebSocket, reconnecting now and
  then, and spectators; every move is timed from send to its ack.
- :mod:`infra.load.run` — ``python -m infra.load.run`` (``make load``):
  starts the server itself on 127.0.0.1 (one embedded process, or two
  processes sharing Redis), runs Locust headless for a bounded time and
  writes the CSV/HTML report and a summary under ``results/``.
- :mod:`infra.load.roomsocket` — a gevent room WebSocket (websocket-client).
- :mod:`infra.load.moves`, :mod:`infra.load.pool`, :mod:`infra.load.servers`,
  :mod:`infra.load.summary` — the parts, importable without gevent.
"""
