"""The limits as `cardtable serve` enforces them over real HTTP (gunicorn in front of Flask)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys

import pytest

from service.infra.embedded import free_port
from tests.conftest import worker_env
from tests.serve_helpers import ROOT, wait_ready


@pytest.fixture(scope="module")
def server(redis_url):
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service.cli",
            "serve",
            "--port",
            str(port),
            "--workers",
            "1",
            "--threads",
            "2",
        ],
        env=worker_env(redis_url, CARDTABLE_RATE_LIMIT="0"),
        cwd=ROOT,
        start_new_session=True,
    )
    wait_ready(proc, f"http://127.0.0.1:{port}", 60)
    yield port
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(20)


def request(port, method, path, body: bytes | None = None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type") or "", resp.read()
    finally:
        conn.close()


def json_error(answer, status, error):
    code, content_type, data = answer
    assert code == status, data[:300]
    assert content_type.startswith("application/json"), (content_type, data[:300])
    assert json.loads(data)["error"] == error


def test_body_limit_is_a_json_413_also_for_chunked_bodies(server):
    big = b'{"game": "spades", "pad": "' + b"x" * 70_000 + b'"}'
    json_error(
        request(server, "POST", "/v1/matches", big, {"Content-Type": "application/json"}),
        413,
        "payload_too_large",
    )
    # Without Content-Length (http.client sends an iterable chunked), the body is cut at the
    # limit all the same.
    chunked = iter([big[:40_000], big[40_000:]])
    answer = request(server, "POST", "/v1/matches", chunked, {"Content-Type": "application/json"})
    json_error(answer, 413, "payload_too_large")


def test_unicode_digit_headers_are_json_errors_over_http(server):
    seats = [{"kind": "human"}] * 4
    body = json.dumps({"game": "spades", "seats": seats, "options": {"first_dealer": 3}}).encode()
    code, _, data = request(server, "POST", "/v1/matches", body, {"Content-Type": "application/json"})
    created = json.loads(data)
    match_id, token = created["id"], created["seats"][0]["token"]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "If-Match": "²"}
    bid = json.dumps({"type": "bid", "tricks": 2}).encode()
    json_error(
        request(server, "POST", f"/v1/matches/{match_id}/actions", bid, headers), 412, "version_conflict"
    )
    answer = request(server, "GET", f"/v1/matches/{match_id}/stream", headers={"Last-Event-ID": "²"})
    json_error(answer, 422, "validation_error")
    json_error(request(server, "GET", f"/v1/matches/{match_id}/stream?after=1e20"), 422, "validation_error")


def test_gunicorn_answers_over_long_request_lines_and_headers_itself(server):
    """docs/api.md: these two answers come from gunicorn, in plain text, before the app."""
    code, content_type, _ = request(server, "GET", "/v1/games?" + "a" * 5000)
    assert code == 414 and not content_type.startswith("application/json")
    with socket.create_connection(("127.0.0.1", server), timeout=20) as s:
        s.sendall(b"GET /v1/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n")
        head = s.recv(200)
    assert head.startswith(b"HTTP/1.1 431") and b"application/json" not in head, head
    many = {f"X-H{i}": "1" for i in range(60)}
    assert request(server, "GET", "/v1/games", headers=many)[0] == 431
    # Within the limits, the same call is fine.
    assert request(server, "GET", "/v1/games?" + "a" * 3000)[0] == 200
