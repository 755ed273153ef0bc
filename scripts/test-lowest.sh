#!/usr/bin/env bash
# make test-lowest: the suite's lowest-versions subset on the lowest direct
# versions pyproject.toml allows (every lower bound, docs/dependencies.md).
#
# uv resolves the core, server, client and test requirements with
# --resolution lowest-direct (each direct dependency at its lower bound, the
# packages they pull in at their newest that fit) into
# .venv-lowest/constraints.txt, installs exactly that into .venv-lowest/, then
# the project with --no-deps, and runs LOWEST_TESTS minus the tests marked
# uvicorn_private (they assert fixes that live in our subclasses of uvicorn's
# private classes, which the lowest uvicorn does not run: the fallback does).
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:-.venv/bin/uv}
LOWEST=.venv-lowest
# (the schemathesis fuzz run is left out: minutes of collection on the lowest
# schemathesis, and it tests the API, which the rest covers here)
LOWEST_TESTS=${LOWEST_TESTS:-tests/rules tests/store tests/redis tests/api tests/e2e tests/client_cli tests/test_import_graph.py --ignore=tests/api/test_schemathesis.py}
export UV_NO_PROGRESS=1
resolved=$(mktemp)
trap 'rm -f "$resolved"' EXIT
"$UV" pip compile pyproject.toml --quiet --extra test --resolution lowest-direct \
    --python-version 3.11 --no-emit-package belle-lucie-race --no-header --no-annotate \
    -o "$resolved"
# a new venv only when the resolution changed (a new release of an indirect
# dependency, or a changed pyproject.toml)
if [ ! -x "$LOWEST/bin/python" ] || ! cmp -s "$resolved" "$LOWEST/constraints.txt"; then
  "$UV" venv --quiet --clear \
      --python "$(.venv/bin/python -c 'import sys; print(sys._base_executable)')" "$LOWEST"
  VIRTUAL_ENV=$LOWEST "$UV" pip sync --quiet "$resolved"
  VIRTUAL_ENV=$LOWEST "$UV" pip install --quiet --no-deps -e .
  cp "$resolved" "$LOWEST/constraints.txt"
fi
# the direct dependencies as installed: the versions this run tested
direct=$(.venv/bin/python -c '
import re, tomllib
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
reqs = p["dependencies"] + [r for e in ("server", "client", "test") for r in p["optional-dependencies"][e]]
print(" ".join(sorted({re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in reqs} - {"belle-lucie-race"})))')
echo "test-lowest: $(grep -iE "^($(echo "$direct" | tr ' ' '|'))==" "$LOWEST/constraints.txt" | tr '\n' ' ')"
"$LOWEST/bin/python" -m pytest -q -p no:cacheprovider -m "not uvicorn_private" $LOWEST_TESTS
