#!/usr/bin/env bash
# Node.js and the npm packages of package.json for the browser client's tests
# (docs/web.md, "Tests"): node runs the pure modules' tests (tests/web/js, through
# tests/web/test_js_units.py) and axe-core is put into the pages by
# tests/web/test_browser_a11y.py. Installs Debian's nodejs and npm when node or npm is
# missing (as root, with apt-get), then `npm ci` from package-lock.json — the Makefile
# runs this when node_modules is missing or older than package.json or the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "ensure-node: installing ${missing[*]} from Debian's packages" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") \
      >/dev/null
  else
    echo "ensure-node: ${missing[*]} missing and cannot be installed here (not root or no" \
         "apt-get); the browser client's Node and axe tests will fail" >&2
    exit 1
  fi
fi
npm ci --no-audit --no-fund --loglevel=error
