"""gunicorn's threaded worker, answering its own errors as problem+json.

gunicorn answers a request it cannot hand to Django (request line or headers over the
limits, a malformed request, ...) with an HTML page of its own.  This worker lets
gunicorn decide the status and log as usual, then sends an RFC 9457 problem document
with that status instead, so that every error a client sees has the API's shape.
"""

from __future__ import annotations

import json
import os
import socket
from typing import Any

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

from config import live_server

# Machine codes for gunicorn's statuses; others get the status phrase as code.
CODES = {
    400: "bad_request",
    403: "permission_denied",
    414: "uri_too_long",
    431: "header_fields_too_large",
    500: "server_error",
}


class _StatusLine:
    """Stands in for the client socket while gunicorn writes its HTML error page, to
    learn the status line gunicorn chose (nothing is sent)."""

    def __init__(self) -> None:
        self.written = b""

    def gettimeout(self) -> float:
        return 0.0  # non-blocking already: util.write_nonblock leaves it alone

    def sendall(self, data: bytes) -> None:
        self.written += data

    def status(self) -> tuple[int, str]:
        line = self.written.split(b"\r\n", 1)[0].decode("latin-1")
        try:
            _, code, reason = line.split(" ", 2)
            return int(code), reason
        except ValueError:  # gunicorn wrote nothing (it could not build its answer)
            return 500, "Internal Server Error"


class ProblemThreadWorker(ThreadWorker):
    """gthread worker whose error answers are ``application/problem+json``, and which
    hands the requests that wait (event streams, long-polls) to its event loop
    (``config.live_server``) instead of holding one of its threads with each."""

    live: live_server.LiveServer | None = None

    def init_process(self) -> None:
        self.live = live_server.LiveServer(self.log.access_log if self.cfg.accesslog else None,
                                           int(os.environ.get("LIVE_MAX_CONNECTIONS") or 10000))
        super().init_process()

    def handle_request(self, req: Any, conn: Any) -> bool:
        if self.live is not None and live_server.wants(req.method, req.path or "", req.query or ""):
            sock, conn.sock = conn.sock, socket.socket()  # gthread closes the stand-in
            self.live.serve(sock, req.method, req.path, req.query or "", list(req.headers), conn.client,
                            conn.server)
            return False
        return super().handle_request(req, conn)

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        captured = _StatusLine()
        super().handle_error(req, captured, addr, exc)  # logs, access-logs, picks the status
        status, reason = captured.status()
        detail = str(exc) if status < 500 and str(exc) else reason
        try:
            util.write_nonblock(client, problem_answer(status, reason, detail))
        except OSError:  # the client is gone
            self.log.debug("Failed to send error message.")


def problem_answer(status: int, reason: str, detail: str) -> bytes:
    """A whole HTTP/1.1 answer carrying a problem document; the connection closes after
    it (after such an error gunicorn cannot tell where the next request would start)."""
    from config.problems import (  # needs Django's settings
        PROBLEM_CONTENT_TYPE,
        problem_body,
    )

    code = CODES.get(status) or reason.lower().replace(" ", "_")
    body = json.dumps(problem_body(status=status, code=code, detail=detail)).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        f"Content-Type: {PROBLEM_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body
