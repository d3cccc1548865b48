"""A real webhook receiver (http.server in a thread on a free port) and real `cardtable worker
--webhooks` processes, for the webhook tests."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import redis
from rq import Worker

from tests.conftest import ROOT, worker_env

# What the receiver does with its n-th request (0-based): answer a status (with a body), or hold
# the request until the test releases it (then answer 200), or never answer at all.
HOLD = "hold"
SILENT = "silent"


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    path: str

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    """The requests received, in order, and the script of answers: `answers[i]` for the i-th
    request, the last one for every request after (200 by default)."""

    url: str
    answers: list = field(default_factory=lambda: [200])
    received: list[Received] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer_for(self, index: int):
        return self.answers[min(index, len(self.answers) - 1)]

    def wait_for(self, count: int, timeout: float = 60.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            assert time.monotonic() < deadline, f"the receiver got {len(self.received)} of {count} requests"
            time.sleep(0.05)
        return self.received


@contextmanager
def receiver(*answers, path: str = "/hook", tls: tuple[str, str] | None = None) -> Iterator[Receiver]:
    """A receiver on 127.0.0.1 at a free port; `answers` as in `Receiver`. With `tls` (a
    certificate and its key), it speaks https, and its URL names it `localhost`."""
    state = Receiver(url="", answers=list(answers) or [200])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with state.lock:
                index = len(state.received)
                state.received.append(
                    Received({k.lower(): v for k, v in self.headers.items()}, body, self.path)
                )
            answer = state.answer_for(index)
            if answer == SILENT:
                state.stopping.wait(60)  # never answers; the sender gives up first
                return
            if answer == HOLD:
                state.released.wait(60)
                answer = 200
            status, text = answer if isinstance(answer, tuple) else (answer, '{"ok": true}')
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    if tls is not None:
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        state.url = f"https://localhost:{server.server_address[1]}{path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()
        state.released.set()
        server.shutdown()
        server.server_close()


def start_worker(redis_url: str, *options: str, **env: str) -> subprocess.Popen:
    """One `cardtable worker` process (`--webhooks` for the webhook queues) with `env` added."""
    client = redis.Redis.from_url(redis_url)
    before = Worker.count(connection=client)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING", *options],
        env=worker_env(redis_url, **env),
        cwd=ROOT,
    )
    deadline = time.monotonic() + 30
    while Worker.count(connection=client) <= before:
        assert proc.poll() is None, "the worker exited"
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.1)
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@contextmanager
def webhook_worker(redis_url: str, **env: str) -> Iterator[subprocess.Popen]:
    """A `cardtable worker --webhooks` for the length of a `with`."""
    proc = start_worker(redis_url, "--webhooks", **env)
    try:
        yield proc
    finally:
        stop(proc)


# The env of a worker that may deliver to the test's receiver on 127.0.0.1 over http, with
# retries a thousand times sooner than in production.
LOCAL = {"CARDTABLE_WEBHOOK_ALLOW_HTTP": "1", "CARDTABLE_WEBHOOK_ALLOW_PRIVATE": "1"}


def until(predicate: Callable[[], object], timeout: float = 60.0, what: str = "the condition"):
    """Poll until `predicate()` is truthy; return its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def tls_files(folder) -> tuple[str, str, str]:
    """A private CA and a certificate it signed for the name `localhost` only (no IP address):
    (CA certificate, server certificate, server key), made with the openssl command."""
    import os

    ca_key, ca, key, csr, cert = (
        os.path.join(folder, n) for n in ("ca.key", "ca.pem", "s.key", "s.csr", "s.pem")
    )
    ext = os.path.join(folder, "san.ext")
    with open(ext, "w", encoding="utf-8") as f:
        f.write("subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n")
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)  # noqa: E731
    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        ca_key,
        "-out",
        ca,
        "-days",
        "2",
        "-subj",
        "/CN=test CA",
    )
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
    run(
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        ca,
        "-CAkey",
        ca_key,
        "-CAcreateserial",
        "-out",
        cert,
        "-days",
        "2",
        "-extfile",
        ext,
    )
    return ca, cert, key
