# Quick start: `make run` (the main job) and `make test` (the whole suite).
# Both create the virtual environment in .venv/ when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-test

.PHONY: run test chaos lint bench load server venv clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $@

venv: $(STAMP)

# The main job: a race against three bots on a random real deal. Starts the
# embedded server (stopped on exit) when none answers at $$LUCIE_SERVER or :8000.
# When the terminal closes, make (the session leader in a tmux pane or an
# `xterm -e make run`) gets the SIGHUP and waits for lucie without passing it
# on: lucie sees its tty hang up by itself, resigns and exits, then make does.
run: $(STAMP)
	$(VENV)/bin/lucie play --bots 3 $(ARGS)

server: $(STAMP)
	$(VENV)/bin/lucie-server

test: $(STAMP)
	@scripts/ensure-redis.sh
	@scripts/ensure-tools.sh
	$(VENV)/bin/ruff check server client_cli tests infra bench
	$(VENV)/bin/mypy server client_cli
	$(PY) -m pytest -q

# The fault suite with its long soak variants (marker chaos; make test runs
# the short cases only).
chaos: $(STAMP)
	@scripts/ensure-redis.sh
	$(PY) -m pytest -q tests/faults --chaos

lint: $(STAMP)
	$(VENV)/bin/ruff check server client_cli tests infra
	$(VENV)/bin/mypy server client_cli

bench: $(STAMP)
	@scripts/ensure-redis.sh
	$(PY) -m bench

load: $(STAMP)
	$(PY) -m pip install --quiet -e '.[load]'
	@scripts/ensure-redis.sh
	$(PY) -m infra.load.run $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
