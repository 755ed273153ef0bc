"""A Redis that does not fit the settings is said so — once, in one line —
never served as if it did (found by a new user's trial, issue 23):

- a Redis Cluster node reached by a single-Redis store (the mode could not be
  detected at start, or ``LUCIE_REDIS_CLUSTER=false``): ``/readyz`` said ready
  while every write failed with ``MOVED``; now the readiness check fails with
  the reason;
- ``LUCIE_REDIS_WAIT_REPLICAS`` above the replicas the Redis has: every write
  was refused with no hint why; now the readiness check says it;
- ``LUCIE_REDIS_CLUSTER=true`` at a plain Redis: 500s and a traceback per
  sweep; now ``lucie-server`` refuses to start, one line, exit status 2;
- an option in the URL that is not Redis's: a traceback at start; now one
  line, exit status 2;
- ``decode_responses`` in the URL (any value: redis-py takes the text
  ``false`` as true): the server started, said ready, and answered every
  request 500 with a traceback (the store reads bytes); now one line, exit
  status 2.
"""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from infra.redis_cluster import LocalRedisCluster
from server.store.base import StoreUnavailable
from server.store.redis import RedisStore
from tests.conftest import REPO, free_port, server_env
from tests.faults.parts import PrivateRedis

pytestmark = [pytest.mark.redis, pytest.mark.timeout(60)]

PLAIN = "redis://127.0.0.1:6379/0?prefix=misfit-test:"


async def test_a_cluster_node_is_not_served_as_a_single_redis(
        redis_cluster: LocalRedisCluster, caplog: pytest.LogCaptureFixture) -> None:
    store = RedisStore.from_url(redis_cluster.url, prefix="misfit-test:", cluster=False)
    try:
        with caplog.at_level(logging.ERROR, logger="server.store"):
            for _ in range(3):
                with pytest.raises(StoreUnavailable, match="cluster node"):
                    await store.ping()
        said = [r for r in caplog.records if "cluster node" in r.getMessage()]
        assert len(said) == 1  # logged once, not per check
    finally:
        await store.close()


async def test_wait_for_more_replicas_than_there_are_fails_readiness() -> None:
    store = RedisStore.from_url(PLAIN, wait_replicas=1)  # the test Redis has none
    try:
        with pytest.raises(StoreUnavailable, match="WAIT_REPLICAS=1 but this Redis has 0"):
            await store.ping()
    finally:
        await store.close()
    fits = RedisStore.from_url(PLAIN)
    try:
        await fits.ping()
        await fits.ping()  # checked once, then a plain PING
    finally:
        await fits.close()


async def test_a_redis_that_refuses_the_login_says_why(
        caplog: pytest.LogCaptureFixture) -> None:
    """A wrong or missing password, a database number the Redis does not have:
    the Redis answers, refusing — the readiness check fails and the log said
    only that the Redis could not be asked whether it is a cluster node; now
    it names Redis's reason, once (never the password)."""
    server = PrivateRedis(aof=False)
    admin = server.client()
    admin.config_set("requirepass", "right-pw")
    admin.close()
    # (redis-py before 6 words a missing password "Authentication required.")
    urls = {f"redis://:wrong-pw@127.0.0.1:{server.port}/0": ("invalid username-password",),
            f"redis://127.0.0.1:{server.port}/0": ("authenticated", "Authentication required"),
            f"redis://:right-pw@127.0.0.1:{server.port}/99": ("DB index is out of range",)}
    try:
        for url, reason in urls.items():  # each ping answered, none hangs (redis-py < 6 did)
            caplog.clear()
            store = RedisStore.from_url(url, prefix="misfit-test:", cluster=False)
            try:
                with caplog.at_level(logging.ERROR, logger="server.store"):
                    for _ in range(3):
                        with pytest.raises(StoreUnavailable):
                            await store.ping()
            finally:
                await store.close()
            said = [r.getMessage() for r in caplog.records]
            assert len(said) == 1 and any(r in said[0] for r in reason), said
            assert "pw" not in said[0]
    finally:
        server.remove()


def test_an_unreachable_redis_at_start_is_named_in_the_log(
        caplog: pytest.LogCaptureFixture) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    with caplog.at_level(logging.WARNING, logger="server.store"):
        store = RedisStore.from_url(url)
    assert not store.cluster
    assert any(f"127.0.0.1:{url.split(':')[2].split('/')[0]}" in r.getMessage()
               for r in caplog.records)


def _start(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from server.app import main; raise SystemExit(main())",
         "--port", str(free_port())],
        cwd=REPO, env=server_env(env), capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(("env", "said"), [
    ({"LUCIE_REDIS_URL": PLAIN, "LUCIE_REDIS_CLUSTER": "true"}, "cluster mode off"),
    ({"LUCIE_REDIS_URL": PLAIN + "&cluster=true"}, "not a Redis option"),
    ({"LUCIE_REDIS_URL": PLAIN + "&foo=1"}, "not a Redis option"),
    ({"LUCIE_REDIS_URL": PLAIN + "&decode_responses=false"}, "decode_responses"),
], ids=["cluster-at-a-plain-redis", "cluster-as-url-option", "unknown-url-option",
        "decoded-replies"])
def test_lucie_server_refuses_to_start_in_one_line(env: dict[str, str], said: str) -> None:
    done = _start(env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("password", ["leak3d/x", "leak3d#x", "leak3d?x"])
def test_a_password_not_percent_encoded_is_not_echoed(password: str) -> None:
    """A password holding ``/``, ``#`` or ``?`` ends the URL's host part early:
    its start was taken for the port and printed (``Port could not be cast to
    integer value as 'leak3d'``)."""
    done = _start({"LUCIE_REDIS_URL": f"redis://:{password}@127.0.0.1:6379/0"})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "percent-encoded" in lines[0], done.stderr
    assert "leak3d" not in done.stderr + done.stdout


def test_a_cluster_database_other_than_0_is_refused_in_one_line(
        redis_cluster: LocalRedisCluster) -> None:
    """``LUCIE_REDIS_CLUSTER=true`` with ``/1`` in the URL: a Redis Cluster has
    only database 0 — the server failed to start with redis-py's traceback
    (exit status 3); now one line, exit status 2."""
    url = redis_cluster.url.removesuffix("/0") + "/1?prefix=misfit-test:"
    done = _start({"LUCIE_REDIS_URL": url, "LUCIE_REDIS_CLUSTER": "true"})
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "database 0" in lines[0], done.stderr
