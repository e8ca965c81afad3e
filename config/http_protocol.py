"""uvicorn's HTTP/1.1 protocol (httptools) with the front door's connection limits.

uvicorn parses HTTP on an event loop, so a client that trickles its request costs a
socket, never a thread.  What uvicorn leaves to a proxy in front, this subclass adds,
each from the environment (docs: "Limits"):

- a **header timeout** (``WEB_HEADER_TIMEOUT``, seconds): a request whose line and
  headers have not all arrived this long after the connection opened (or after the
  first byte of a later request on a keep-alive connection) is answered 408 and closed;
- **connections per client IP** (``WEB_MAX_CONNECTIONS_PER_IP`` per web worker process,
  0 for no cap): one more is answered 429 and closed at once (a warning per address at
  most once a minute);
- the **size limits** gunicorn had: the request line (``GUNICORN_LIMIT_REQUEST_LINE``
  bytes: 414), the number of header fields (``GUNICORN_LIMIT_REQUEST_FIELDS``: 431) and
  the size of one (``GUNICORN_LIMIT_REQUEST_FIELD_SIZE`` bytes: 431);
- every error uvicorn answers itself (a malformed request: 400) is a problem document
  (``application/problem+json``) like the API's.

The body's timeout and size are the application's (``config.front_door``): it reads
bodies on the loop before any thread sees the request.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

STATUS_PHRASES = {400: "Bad Request", 408: "Request Timeout", 414: "URI Too Long",
                  429: "Too Many Requests", 431: "Request Header Fields Too Large"}
CODES = {400: "bad_request", 408: "request_timeout", 414: "uri_too_long", 429: "too_many_connections",
         431: "header_fields_too_large"}


def _env_number(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


class _Refused(Exception):
    """Raised in a parser callback: answer ``status`` and close."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def problem_answer(status: int, detail: str, headers: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A whole HTTP/1.1 answer carrying a problem document; the connection closes after it."""
    from config.problems import PROBLEM_CONTENT_TYPE, problem_body  # needs Django's settings

    body = json.dumps(problem_body(status=status, code=CODES.get(status, "bad_request"), detail=detail)).encode()
    head = [f"HTTP/1.1 {status} {STATUS_PHRASES.get(status, '')}", "Connection: close",
            f"Content-Type: {PROBLEM_CONTENT_TYPE}", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    header_timeout = _env_number("WEB_HEADER_TIMEOUT", 10)
    max_per_ip = int(_env_number("WEB_MAX_CONNECTIONS_PER_IP", 128))
    limit_request_line = int(_env_number("GUNICORN_LIMIT_REQUEST_LINE", 4094))
    limit_request_fields = int(_env_number("GUNICORN_LIMIT_REQUEST_FIELDS", 100))
    limit_request_field_size = int(_env_number("GUNICORN_LIMIT_REQUEST_FIELD_SIZE", 8190))

    #: open connections per client address, in this worker process (one event loop: no lock)
    per_ip: Counter[str] = Counter()
    #: refusals per address since its last warning, and when that was
    refused: dict[str, tuple[int, float | None]] = {}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._ip: str | None = None
        self._header_timer: asyncio.TimerHandle | None = None
        self._refusal: _Refused | None = None
        self._url_size = 0
        self._fields = 0

    # ---- connections ----------------------------------------------------------------
    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        ip = self.client[0] if self.client else None
        if ip is not None and self.max_per_ip and self.per_ip[ip] >= self.max_per_ip:
            self._tell_refused(ip)
            transport.write(problem_answer(429, "Too many open connections from this address.",
                                           (("Retry-After", "5"),)))
            transport.close()
            return
        if ip is not None:
            self._ip = ip
            self.per_ip[ip] += 1
        self._arm_header_timer()

    def connection_lost(self, exc) -> None:
        self._disarm_header_timer()
        if self._ip is not None:
            self.per_ip[self._ip] -= 1
            if self.per_ip[self._ip] <= 0:
                del self.per_ip[self._ip]
            self._ip = None
        super().connection_lost(exc)

    def _tell_refused(self, ip: str) -> None:
        """A warning per address at most once a minute (with how many were refused since),
        so that a flood of refused connections cannot flood the log."""
        now = self.loop.time()
        count, since = self.refused.get(ip, (0, None))
        if since is None or now - since >= 60:
            self.logger.warning("refused %d connection(s) from %s in the last minute: %d open already "
                                "(WEB_MAX_CONNECTIONS_PER_IP)", count + 1, ip, self.per_ip[ip])
            self.refused[ip] = (0, now)
            if len(self.refused) > 10000:  # forget addresses not refused for a minute
                for old in [a for a, (_, t) in self.refused.items() if t is None or now - t >= 60]:
                    del self.refused[old]
        else:
            self.refused[ip] = (count + 1, since)

    # ---- the header timeout -----------------------------------------------------------
    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        if self.header_timeout > 0:
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.write(problem_answer(408, "The request's headers did not arrive in time."))
            self.transport.close()

    # ---- the parser's callbacks -----------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._url_size = self._fields = 0
        if self._header_timer is None:  # a later request on a keep-alive connection
            self._arm_header_timer()

    def on_url(self, url: bytes) -> None:
        self._url_size += len(url)
        if self._url_size > self.limit_request_line:
            raise _Refused(414, f"The request line is longer than {self.limit_request_line} bytes.")
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > self.limit_request_fields:
            raise _Refused(431, f"More than {self.limit_request_fields} header fields.")
        if len(name) + len(value) + 2 > self.limit_request_field_size:
            raise _Refused(431, f"A header field is longer than {self.limit_request_field_size} bytes.")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm_header_timer()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if self._refusal is None:
            super().data_received(data)

    # ---- errors ---------------------------------------------------------------------
    def send_400_response(self, msg: str) -> None:
        """Every error the parser raises (a callback's refusal included), as a problem."""
        cause = self.parser_error()
        status, detail = (cause.status, cause.detail) if cause else (400, msg)
        self._refusal = cause or _Refused(400, msg)
        self._disarm_header_timer()
        self.transport.write(problem_answer(status, detail))
        self.transport.close()

    def parser_error(self) -> _Refused | None:
        """The refusal a callback raised (httptools wraps it in its own error)."""
        exc = sys.exc_info()[1]
        while exc is not None:
            if isinstance(exc, _Refused):
                return exc
            exc = exc.__cause__ or exc.__context__
        return None
