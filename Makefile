# Quick start: `make run` (the main job) and `make test` (the whole suite).
# Both create the virtual environment in .venv/ when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-test
# Every package at the version and hash the lock names (server, client, test
# and load extras; uv among them), then the project itself without resolving
# anything (docs/dependencies.md).
LOCK := requirements/dev.lock

.PHONY: run test test-lowest test-cluster lock upgrade chaos fuzz lint bench load server venv clean

$(STAMP): pyproject.toml $(LOCK)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

venv: $(STAMP)

# The browser client's test tools (package.json: axe-core), installed from the lock
# when node_modules is missing or older than package.json or the lock (Node.js too
# when it is missing: scripts/ensure-node.sh).
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	@scripts/ensure-node.sh
	@touch $@

# The main job: a race against three bots on a random real deal, one of each
# level (novice, club, expert: --bots 3 is a mix; docs/protocol.md). Starts the
# embedded server (stopped on exit) when none answers at $$LUCIE_SERVER or :8000.
# When the terminal closes, make (the session leader in a tmux pane or an
# `xterm -e make run`) gets the SIGHUP and waits for lucie without passing it
# on: lucie sees its tty hang up by itself, resigns and exits, then make does.
# three computer racers unless ARGS names --bots (make run ARGS="--bots 1";
# ARGS="--bots 3 --level expert": three of one level)
run: $(STAMP)
	$(VENV)/bin/lucie play $(if $(findstring --bots,$(ARGS)),,--bots 3) $(ARGS)

server: $(STAMP)
	$(VENV)/bin/lucie-server

test: $(STAMP) $(NODE_STAMP)
	@scripts/ensure-redis.sh
	@scripts/ensure-postgres.sh
	@scripts/ensure-tools.sh
	$(VENV)/bin/ruff check server client_cli tests infra bench scripts
	$(VENV)/bin/mypy server client_cli
	$(PY) -m pytest -q

# The lowest versions pyproject.toml allows (uv's lowest-direct resolution)
# in .venv-lowest/, and a subset of the suite on them: rules, stores on the
# real Redis, the API, the end-to-end races, the client (scripts/test-lowest.sh).
test-lowest: $(STAMP)
	@scripts/ensure-redis.sh
	scripts/test-lowest.sh

# The locks (requirements/*.lock) after a change of pyproject.toml's
# dependencies, keeping every pin that still fits; `make upgrade`: newest
# allowed versions of everything. Then `make test` (and `make test-lowest`).
lock: $(STAMP)
	$(PY) scripts/lock.py

upgrade: $(STAMP)
	$(PY) scripts/lock.py --upgrade

# The Redis Cluster suite with its long runs (marker cluster_long: a master
# killed mid-race, with and without WAIT; the `python -m infra.redis_cluster`
# command): real local clusters of redis-server processes on free ports
# (infra/redis_cluster.py; ensure-redis.sh installs redis-server and redis-cli
# when missing). make test runs the rest: the store contract on a cluster and
# two server processes racing on one.
test-cluster: $(STAMP)
	@scripts/ensure-redis.sh
	$(PY) -m pytest -q -s tests/store/test_redis_cluster.py tests/redis/test_redis_cluster_race.py \
	    tests/redis/test_redis_cluster_reshard.py \
	    tests/redis/test_redis_cluster_failover.py tests/redis/test_redis_cluster_cli.py \
	    --cluster-long

# The fault suite with its long soak variants (marker chaos; make test runs
# the short cases only).
chaos: $(STAMP)
	@scripts/ensure-redis.sh
	$(PY) -m pytest -q tests/faults --chaos

# A long schemathesis run against real servers (schemathesis.toml): 500
# examples per operation (tests/api/test_schemathesis.py, over 10,000
# requests), then the stateful phase along the OpenAPI links with st's own
# engine (scripts/fuzz_stateful.py); `make fuzz FUZZ_EXAMPLES=2000` for longer.
FUZZ_EXAMPLES ?= 500
fuzz: $(STAMP)
	LUCIE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q -s tests/api/test_schemathesis.py
	$(PY) scripts/fuzz_stateful.py $(FUZZ_EXAMPLES)

lint: $(STAMP)
	$(VENV)/bin/ruff check server client_cli tests infra bench scripts
	$(VENV)/bin/mypy server client_cli

# The benchmarks' quick runs through their harnesses first (marker bench:
# capacity at 1 and 2 processes behind HAProxy, the archive on SQLite and
# PostgreSQL; left out of make test), then every benchmark (python -m bench).
bench: $(STAMP)
	@scripts/ensure-redis.sh
	@scripts/ensure-postgres.sh
	@scripts/ensure-tools.sh
	$(PY) -m pytest -q -m bench --bench
	$(PY) -m bench

load: $(STAMP)
	@scripts/ensure-redis.sh
	$(PY) -m infra.load.run $(ARGS)

clean:
	rm -rf $(VENV) .venv-lowest .pytest_cache .mypy_cache .ruff_cache .hypothesis
