"""HTTP requests to URLs that players give us (webhooks), guarded against
server-side request forgery.

A player's URL must not turn the server against its own network: the host is
resolved once per call, every address it resolves to must be public (not
loopback, private, link-local, multicast, reserved, unspecified or otherwise
not global, IPv4-mapped and 6to4 forms included), and the connection is made to
that checked address, so a name that resolves elsewhere a moment later (DNS
rebinding) is never called.  The request still names the URL's host: in the
``Host`` header and, over https, for SNI and certificate verification.
Redirects are never followed, proxies from the environment are not used, and
the connect, read and total times and the response body read are bounded.

``UNO_WEBHOOK_ALLOW_PRIVATE`` (development only) lets private addresses through,
with a warning in the log on every such call.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import logging
import re
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

CONNECT_TIMEOUT_SECONDS = 3.0
#: the longest wait for any one read (or write) of the exchange
READ_TIMEOUT_SECONDS = 5.0
#: the whole call, from the first connection attempt to the last byte read
TOTAL_TIMEOUT_SECONDS = 15.0
#: response body bytes read at most (the rest is never read)
MAX_RESPONSE_BYTES = 64 * 1024

SCHEMES = {"http": 80, "https": 443}

ALLOW_PRIVATE_WARNING = (
    "UNO_WEBHOOK_ALLOW_PRIVATE is on: webhooks may call loopback and private addresses. "
    "This is for local development only; never turn it on in production."
)

# Why an address is refused, the first class that matches.
_REFUSED_CLASSES: tuple[tuple[str, str], ...] = (
    ("is_unspecified", "resolves to an unspecified address"),
    ("is_loopback", "resolves to a loopback address"),
    ("is_link_local", "resolves to a link-local address"),
    ("is_multicast", "resolves to a multicast address"),
    ("is_private", "resolves to a private address"),
    ("is_reserved", "resolves to a reserved address"),
)
NOT_GLOBAL = "resolves to a non-public address"
#: what an ASCII host name or IP literal is made of
_HOST_CHARS = re.compile(r"[A-Za-z0-9._%:-]+")
#: what may not appear in a request target
_BAD_TARGET_CHARS = re.compile(r"[\x00-\x20\x7f]")
DOES_NOT_RESOLVE = "does not resolve"


class Refused(ValueError):
    """The URL may not be called; ``reason`` says why, in words fit for its owner
    (never the URL itself, which may carry a secret)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Unresolvable(OSError):
    """The host name did not resolve (for good or for now: a delivery retries)."""

    reason = DOES_NOT_RESOLVE


@dataclass(frozen=True)
class Destination:
    """A URL taken apart, with the addresses its host resolved to (all checked)."""

    scheme: str
    host: str  # ASCII (IDNA) name or IP literal, without brackets
    port: int
    target: str  # path and query: the request line's target
    addresses: tuple[IPAddress, ...]

    @property
    def private(self) -> bool:
        return any(refusal(ip) for ip in self.addresses)


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes  # at most max_bytes
    truncated: bool  # the body had more than max_bytes
    #: the answer's headers, names in lower case (e.g. ``retry-after``)
    headers: dict[str, str] = field(default_factory=dict)


def private_targets_allowed() -> bool:
    """The ``UNO_WEBHOOK_ALLOW_PRIVATE`` setting (read at each call, so tests can set it)."""
    from django.conf import settings

    return bool(getattr(settings, "UNO_WEBHOOK_ALLOW_PRIVATE", False))


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the one place that asks DNS: tests may
    replace it to play a resolver that changes its answers)."""
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def refusal(ip: IPAddress) -> str | None:
    """Why ``ip`` may not be called, or None for a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour  # an IPv4 address in IPv6 clothing
        if embedded is not None and (reason := refusal(embedded)):
            return reason
        if ip.is_site_local:
            return "resolves to a private address"
    for attribute, reason in _REFUSED_CLASSES:
        if getattr(ip, attribute):
            return reason
    return None if ip.is_global else NOT_GLOBAL


def parse(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, target)`` of an http(s) URL; Refused if it has no
    host, a user name or password, or a bad port."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise Refused("has an invalid port or host") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise Refused("must be an http or https URL")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise Refused("must not contain a user name or password")
    if not parts.hostname:
        raise Refused("has no host")
    if port == 0:
        raise Refused("has an invalid port or host")
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        host = ""
    if not _HOST_CHARS.fullmatch(host):
        raise Refused("has an invalid host name")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if _BAD_TARGET_CHARS.search(target):
        raise Refused("has spaces or control characters")
    return scheme, host, port or SCHEMES[scheme], target


def check(url: str, *, allow_private: bool = False) -> Destination:
    """Parse ``url`` and resolve its host once; Refused if any address it resolves
    to is not public (unless ``allow_private``), Unresolvable if it resolves to none."""
    scheme, host, port, target = parse(url)
    try:
        found = resolve(host, port)
    except (OSError, UnicodeError):
        found = []
    addresses = tuple(dict.fromkeys(ipaddress.ip_address(a) for a in found))
    if not addresses:
        raise Unresolvable(DOES_NOT_RESOLVE)
    destination = Destination(scheme, host, port, target, addresses)
    if not allow_private:
        for ip in addresses:
            if reason := refusal(ip):
                raise Refused(reason)
    return destination


def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    allow_private: bool = False,
    context: ssl.SSLContext | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
    read_timeout: float = READ_TIMEOUT_SECONDS,
    total_timeout: float = TOTAL_TIMEOUT_SECONDS,
    max_bytes: int = MAX_RESPONSE_BYTES,
) -> Response:
    """POST ``body`` to ``url`` through :func:`check` and answer whatever status comes
    back (a redirect is an answer like any other, never followed).  Raises Refused,
    Unresolvable, OSError (a network failure, a timeout) or http.client.HTTPException
    (a malformed answer)."""
    destination = check(url, allow_private=allow_private)
    if destination.private:
        log.warning("%s Calling %s (%s).", ALLOW_PRIVATE_WARNING, destination.host,
                    ", ".join(map(str, destination.addresses)))
    if destination.scheme == "https" and context is None:
        context = ssl.create_default_context()
    conn = _PinnedConnection(
        destination,
        context=context if destination.scheme == "https" else None,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        deadline=time.monotonic() + total_timeout,
    )
    try:
        conn.request("POST", destination.target, body=body, headers=headers)
        with conn.getresponse() as resp:
            data = resp.read(max_bytes + 1)
            return Response(resp.status, data[:max_bytes], len(data) > max_bytes,
                            {k.lower(): v for k, v in resp.getheaders()})
    finally:
        conn.close()


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to the destination's checked addresses, under its host's
    name (Host header, SNI, certificate), every read bounded by a deadline."""

    def __init__(self, destination: Destination, *, context: ssl.SSLContext | None,
                 connect_timeout: float, read_timeout: float, deadline: float):
        super().__init__(destination.host, destination.port, timeout=connect_timeout)
        self.default_port = SCHEMES[destination.scheme]  # Host header: no port when default
        self._addresses = destination.addresses
        self._context = context
        self._read_timeout = read_timeout
        self._deadline = deadline

    def connect(self) -> None:
        sock = self._connect_any()
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(_left(self._deadline, self._read_timeout))
            if self._context is not None:
                sock = self._context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        self.sock = _DeadlineSocket(sock, self._deadline, self._read_timeout)

    def _connect_any(self) -> socket.socket:
        """A socket connected to the first checked address that accepts."""
        error: OSError | None = None
        for ip in self._addresses:
            try:
                return socket.create_connection(
                    (str(ip), self.port), _left(self._deadline, self.timeout)
                )
            except OSError as exc:
                error = exc
        raise error or OSError("no address to connect to")


def _left(deadline: float, limit: float) -> float:
    """Seconds the next socket operation may take: ``limit``, or what is left
    before ``deadline``; TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the call took too long")
    return min(limit, left)


class _DeadlineSocket:
    """A connected socket whose reads through ``makefile`` (http.client's only way of
    reading) time out after the read timeout or at the deadline, whichever is first,
    so that a server dripping bytes cannot hold the caller.  As with a real socket,
    ``close`` leaves it open for a reader made before (http.client hands the socket
    over to the response that way)."""

    def __init__(self, sock: socket.socket, deadline: float, read_timeout: float):
        self._sock = sock
        self._deadline = deadline
        self._read_timeout = read_timeout
        self._readers = 0
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        self._readers += 1
        return io.BufferedReader(_DeadlineReader(self))

    def recv_into(self, buffer: Any) -> int:
        self._sock.settimeout(_left(self._deadline, self._read_timeout))
        return self._sock.recv_into(buffer)

    def sendall(self, data: Any) -> None:
        self._sock.settimeout(_left(self._deadline, self._read_timeout))
        self._sock.sendall(data)

    def close(self) -> None:
        self._closed = True
        if self._readers == 0:
            self._sock.close()

    def reader_closed(self) -> None:
        self._readers -= 1
        if self._closed and self._readers == 0:
            self._sock.close()


class _DeadlineReader(io.RawIOBase):
    def __init__(self, sock: _DeadlineSocket):
        super().__init__()
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self._sock.reader_closed()
        super().close()
