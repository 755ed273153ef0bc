#!/usr/bin/env bash
# Make sure a Redis answers on 127.0.0.1:6379; start a throw-away one if not.
set -euo pipefail
ping() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
if ! command -v redis-cli >/dev/null 2>&1 || ! command -v redis-server >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "ensure-redis: installing redis-server from Debian's packages" >&2
    (apt-get update -qq && apt-get install -y -qq redis-server) >/dev/null
  fi
fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "ensure-redis: redis-server is not installed; install it (apt-get install redis-server)" >&2
  exit 1
fi
if ping; then exit 0; fi
echo "ensure-redis: no Redis on 127.0.0.1:6379, starting one (nothing kept on disk)" >&2
redis-server --daemonize yes --port 6379 --bind 127.0.0.1 --save "" --appendonly no >/dev/null
for _ in $(seq 1 50); do
  if ping; then exit 0; fi
  sleep 0.1
done
echo "ensure-redis: Redis did not answer on 127.0.0.1:6379 after start" >&2
exit 1
