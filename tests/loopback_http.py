"""A real HTTP(S) server on 127.0.0.1, in a thread, for the tests of outbound calls
(webhooks): it records every POST it receives, so a test can count the hits."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Respond = Callable[[BaseHTTPRequestHandler, dict], None]


def no_content(handler: BaseHTTPRequestHandler, request: dict) -> None:
    handler.send_response(204)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


class LoopbackServer:
    """Records each POST (``path``, ``headers``, ``body``) before ``respond`` answers
    it (204 by default).  With an SSL ``context`` it speaks https."""

    def __init__(self, respond: Respond = no_content, *, context: ssl.SSLContext | None = None):
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self._respond = respond
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                request = {"path": self.path, "headers": dict(self.headers), "body": body}
                with outer.lock:
                    outer.record(request)
                outer.respond(self, request)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if context is not None:
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.url = f"{'https' if context else 'http'}://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def record(self, request: dict) -> None:
        """Keep ``request`` (called under ``lock``)."""
        self.requests.append(request)

    def respond(self, handler: BaseHTTPRequestHandler, request: dict) -> None:
        self._respond(handler, request)

    @property
    def hits(self) -> int:
        with self.lock:
            return len(self.requests)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "LoopbackServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
