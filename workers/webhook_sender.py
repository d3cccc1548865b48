"""One HTTP POST of a webhook delivery, to the address that was checked (docs/webhooks.md).

The host is resolved and every address it has is checked (service/notify/url_guard.py) right
before the request, and the connection is made to a checked address, never by name again: a
DNS answer that changes between the check and the connection (rebinding) cannot send the
request into the service's own network. For https the TLS handshake still verifies the
certificate against the URL's host name. Redirects are never followed (http.client does not),
and the whole attempt, connection and answer included, ends after `timeout` seconds: a
watchdog closes the socket of a receiver that trickles its answer.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from service.notify.url_guard import Refused, Target, UrlPolicy

RESPONSE_BYTES = 1024  # of the receiver's answer kept with the delivery
USER_AGENT = "cardtable-webhooks/1.0"
_TLS = ssl.create_default_context()


@dataclass
class Outcome:
    status: int | None  # the receiver's HTTP status; None when none came
    latency_ms: int
    response: str  # its answer's first RESPONSE_BYTES bytes
    error: str | None  # why no status came (timeout, refused address, connection refused, ...)


def post(policy: UrlPolicy, url: str, headers: dict[str, str], body: bytes, timeout: float) -> Outcome:
    """POST `body` to `url` with `headers`: one attempt, at most `timeout` seconds."""
    started = time.monotonic()

    def failed(why: str) -> Outcome:
        return Outcome(None, int((time.monotonic() - started) * 1000), "", why)

    try:
        target = policy.target(url)
    except Refused as e:
        return failed(f"refused: {e}")
    except OSError as e:
        return failed(f"could not resolve the host: {e.strerror or e}")
    deadline = started + timeout
    holder: dict[str, socket.socket] = {}
    expired = threading.Event()

    def cut() -> None:
        expired.set()
        sock = holder.get("sock")
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(timeout, cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        status, answer = _exchange(target, headers, body, deadline, holder)
    except (OSError, http.client.HTTPException, ValueError) as e:
        return failed("timeout" if expired.is_set() or isinstance(e, TimeoutError) else _reason(e))
    finally:
        watchdog.cancel()
        sock = holder.get("sock")
        if sock is not None:
            sock.close()
    return Outcome(status, int((time.monotonic() - started) * 1000), answer, None)


def _reason(e: Exception) -> str:
    if isinstance(e, ssl.SSLCertVerificationError):
        return f"TLS: {e.verify_message}"
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    return f"{type(e).__name__}: {e}"[:200]


def _exchange(
    target: Target, headers: dict[str, str], body: bytes, deadline: float, holder: dict[str, socket.socket]
) -> tuple[int, str]:
    sock = _connect(target, deadline, holder)
    if target.scheme == "https":
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        holder["sock"] = sock = _TLS.wrap_socket(sock, server_hostname=target.host)
    conn = http.client.HTTPConnection(target.host, target.port)
    conn.sock = sock  # already connected: http.client would resolve the name again
    sock.settimeout(max(0.05, deadline - time.monotonic()))
    conn.request("POST", target.path, body, {**headers, "User-Agent": USER_AGENT, "Connection": "close"})
    response = conn.getresponse()
    sock.settimeout(max(0.05, deadline - time.monotonic()))
    answer = response.read(RESPONSE_BYTES)
    return response.status, answer.decode("utf-8", errors="replace")


def _connect(target: Target, deadline: float, holder: dict[str, socket.socket]) -> socket.socket:
    """A socket connected to the first of the checked addresses that answers."""
    last: OSError = OSError("no address")
    for family, sockaddr in target.addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        holder["sock"] = sock
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as e:
            sock.close()
            last = e
            if time.monotonic() >= deadline:
                break
    raise last
