#!/usr/bin/env bash
# Install the tools the tests run for real when they are missing: haproxy
# (tests/redis/test_infra.py checks infra/haproxy.cfg with it and
# tests/redis/test_haproxy.py runs it in front of two servers), docker-compose
# (it checks docker-compose.yml with `config`; no daemon needed), and Debian's
# headless Chromium with its WebDriver (tests/web drive the browser client in it:
# /usr/bin/chromium, /usr/bin/chromedriver).
set -euo pipefail
missing=()
# Debian puts haproxy in /usr/sbin, which a non-root PATH may lack (the tests look there too)
PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
if ! command -v docker-compose >/dev/null 2>&1 \
    && ! (command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1); then
  missing+=(docker-compose)
fi
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "ensure-tools: installing ${missing[*]} from Debian's packages" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") \
    >/dev/null
else
  echo "ensure-tools: ${missing[*]} missing and cannot be installed here (not root or no" \
       "apt-get); their tests will fail or skip" >&2
fi
