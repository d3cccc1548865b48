"""The embedded Redis of `cardtable serve` is for its own processes only: it asks for a password
drawn for the run, which only the user running `serve` can read (docs/deployment.md)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import time

import pytest
import redis

from tests.serve_helpers import cardtable_serve
from tests.test_serve import call


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def session_cmdlines(pid: int) -> list[str]:
    """The command lines of every process of `serve`'s session (Redis, worker, gunicorn)."""
    pids = subprocess.run(["pgrep", "-s", str(pid)], capture_output=True, text=True).stdout.split()
    lines = []
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                lines.append(f.read().replace(b"\0", b" ").decode())
        except FileNotFoundError:
            pass
    return lines


def test_the_embedded_redis_refuses_clients_without_its_password(tmp_path):
    with cardtable_serve(str(tmp_path)) as (proc, base):
        url_file = tmp_path / "redis.url"
        assert mode(url_file) == 0o600  # readable by the user running serve only
        url = url_file.read_text().strip()
        parsed = redis.connection.parse_url(url)
        password, port = parsed["password"], parsed["port"]
        assert len(password) == 64 and parsed["host"] == "127.0.0.1"

        # Any local user can reach the port; without the password Redis answers nothing but NOAUTH.
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"PING\r\nKEYS *\r\n")
            replies = b""
            while replies.count(b"\r\n") < 2:  # one reply a command
                replies += s.recv(4096)
        assert replies.split(b"\r\n")[:2] == [b"-NOAUTH Authentication required."] * 2
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(host="127.0.0.1", port=port).ping()
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(host="127.0.0.1", port=port, password="not-the-password").ping()
        assert redis.Redis.from_url(url).ping()

        # Where else the password lives is private too, and no process shows it on its command line.
        assert mode(tmp_path / "redis" / "redis.conf") == 0o600
        assert mode(tmp_path / "redis") == 0o700  # the append-only file and the log
        cmdlines = session_cmdlines(proc.pid)
        assert any("redis-server" in c for c in cmdlines) and any("worker" in c for c in cmdlines)
        assert not [c for c in cmdlines if password in c]

        # The worker and the API reach it with the password: bots play a match through.
        seats = [{"kind": "bot", "level": "easy"}] * 4
        body = {"game": "spades", "seats": seats, "options": {"target_score": 50}}
        status, created = call(base, "POST", "/v1/matches", body)
        assert status == 201
        deadline = time.monotonic() + 60
        while call(base, "GET", f"/v1/matches/{created['id']}")[1]["status"] != "finished":
            assert time.monotonic() < deadline, "the bots stopped playing"
            time.sleep(0.3)
    assert proc.returncode == 0
    # Stopped: the file no longer names a Redis that is gone.
    assert not url_file.exists()
