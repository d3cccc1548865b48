"""Where a webhook may be sent (docs/webhooks.md, "Safety").

A webhook URL is chosen by an app, and the request is made from inside the service's network:
without care, an app could make the workers call the Redis next to them, a cloud's metadata
address or any internal service (server-side request forgery). So:

- https only (`CARDTABLE_WEBHOOK_ALLOW_HTTP=1` also takes http, for tests and local setups);
- no user name or password in the URL (http.client would not send them, and a list of
  endpoints would show them);
- every address the host resolves to must be a public one: never private, loopback,
  link-local, reserved, multicast or unspecified, IPv4 or IPv6, nor an IPv6 address that
  carries such an IPv4 address inside (mapped, 6to4, Teredo). `CARDTABLE_WEBHOOK_ALLOW_PRIVATE=1`
  lifts this, for tests and local setups.

The URL is checked when an endpoint is registered or changed, and the host is resolved and
checked again at every delivery, which then connects to the address it checked
(workers/webhook_sender.py): a DNS answer that changes in between (rebinding) cannot slip a
private address in.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

from service import errors

MAX_URL = 2000
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """The URL or one of its host's addresses may not be called; the message says why."""


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: the checked addresses to connect to, and what the request names."""

    scheme: str
    host: str  # as in the URL: the Host header and the name TLS verifies
    port: int
    path: str  # path and query
    addresses: list[tuple[int, Any]]  # (family, sockaddr) from getaddrinfo, each checked


def address_refusal(ip: IPAddress) -> str | None:
    """Why a webhook may not be sent to `ip` ("a loopback address", ...), or None when it is a
    public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv6 address can carry an IPv4 one that the network may route to (NAT64, 6to4,
        # Teredo, an IPv4-mapped address): that one must be public too.
        inner = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
        for embedded in (e for e in inner if e is not None):
            why = address_refusal(embedded)
            if why is not None:
                return f"an address that carries {embedded}, {why}"
    for kind in ("unspecified", "loopback", "link_local", "multicast", "reserved", "private"):
        if getattr(ip, f"is_{kind}"):
            return f"a {kind.replace('_', '-')} address"
    if not ip.is_global:
        return "not a public address"
    return None


class UrlPolicy:
    """The rules of this server for webhook URLs (the two flags of docs/webhooks.md)."""

    def __init__(self, allow_http: bool = False, allow_private: bool = False):
        self.allow_http = allow_http
        self.allow_private = allow_private

    def check(self, url: str) -> str:
        """The URL as it will be stored, if an endpoint may have it; 422 `url_not_allowed`
        saying why otherwise. Resolves its host (a name that does not resolve is refused: it
        could not be checked, and no delivery could reach it)."""
        try:
            self.target(url)
        except Refused as e:
            raise errors.UrlNotAllowed(f"webhook URL refused: {e}", {"url": [str(e)]}) from None
        except OSError:
            why = "its host does not resolve"
            raise errors.UrlNotAllowed(f"webhook URL refused: {why}", {"url": [why]}) from None
        return url.strip()

    def target(self, url: str) -> Target:
        """Where a request to `url` goes: the URL's parts and its host's checked addresses.
        Raises `Refused` for a URL or an address these rules refuse, OSError when the host
        does not resolve (a delivery tries again later)."""
        parts = self._parts(url.strip())
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        addresses: list[tuple[int, Any]] = [(family, sockaddr) for family, _, _, _, sockaddr in found]
        if not addresses:
            raise OSError(f"{host} has no address")
        if not self.allow_private:
            for _, sockaddr in addresses:
                # A scoped IPv6 address (fe80::1%eth0) names its zone after a '%'.
                ip = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
                why = address_refusal(ip)
                if why is not None:
                    said = f"{ip} is" if ip == _literal(host) else f"{host} resolves to {ip},"
                    raise Refused(f"{said} {why}")
        path = parts.path or "/"
        return Target(parts.scheme, host, port, path + (f"?{parts.query}" if parts.query else ""), addresses)

    def _parts(self, url: str) -> SplitResult:
        if len(url) > MAX_URL:
            raise Refused(f"longer than {MAX_URL} characters")
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018  (raises ValueError for a port that is not one)
        except ValueError as e:
            raise Refused(f"not a URL ({e})") from None
        scheme = parts.scheme.lower()
        if scheme != "https" and not (scheme == "http" and self.allow_http):
            raise Refused(
                "only https URLs are taken" if scheme in ("http", "https", "") else f"{scheme}: is not https"
            )
        if not parts.hostname:
            raise Refused("no host")
        if parts.username is not None or parts.password is not None:
            raise Refused("no user name or password in the URL: put a secret in its path instead")
        if any(c.isspace() or ord(c) < 32 for c in url):
            raise Refused("spaces or control characters")
        return parts._replace(scheme=scheme)


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None
