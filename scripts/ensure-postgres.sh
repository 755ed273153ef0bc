#!/usr/bin/env bash
# Make sure PostgreSQL's programs are here for the archive tests: when no
# server answers on 127.0.0.1:5432, tests/archive/conftest.py starts a
# throw-away cluster with initdb/pg_ctl from /usr/lib/postgresql/15/bin.
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
if [ -x "$BIN/initdb" ] && [ -x "$BIN/pg_ctl" ]; then exit 0; fi
if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "ensure-postgres: installing postgresql from Debian's packages" >&2
  (apt-get update -qq && apt-get install -y -qq postgresql) >/dev/null
  exit 0
fi
echo "ensure-postgres: no PostgreSQL on 127.0.0.1:5432 and no $BIN/initdb;" \
     "install it (apt-get install postgresql)" >&2
exit 1
