"""An event loop beside each gunicorn worker's threads, for the requests that wait.

An event stream (``GET /api/v1/games/{id}/events``, ``GET /api/v1/players/me/events``)
stays open for as long as its client watches, and a long-poll (``GET
/api/v1/games/{id}?wait_for_version=N``) for up to a minute: on gunicorn's threads each
would hold one of the worker's few threads (``GUNICORN_THREADS``) that every move
needs.  So the worker (``config.gunicorn_worker``) hands such a request, as gunicorn
parsed it, with its socket, to this loop, which runs it through Django's ASGI handler
(the same URLs and middleware; the live views are ``games.streams``) and answers it
over the socket: HTTP/1.1, the connection closed after the answer.  Every
other request keeps gunicorn's synchronous path untouched, so the move path costs what
it did.  Thousands of open streams cost one thread per worker.

The handler runs without asgiref's per-request thread (``ThreadSensitiveContext``):
the little synchronous work of these requests (authentication, middleware) runs on
asgiref's one shared thread instead of a new thread per open stream.  A synchronous
middleware holds that thread until the view returns: a stream's view returns at once
(its frames are sent afterwards, on the loop), and a long-poll waits before Django
sees it (``games.streams.wait_first``).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import re
import socket
import threading
import time
from http import HTTPStatus
from typing import Any

log = logging.getLogger(__name__)

LIVE_PATH = re.compile(r"/api/v1/(?:games/\d+/events|players/me/events)")
DETAIL_PATH = re.compile(r"/api/v1/games/\d+")
#: what an access log shows of a token in the query string
TOKEN_IN_QUERY = re.compile(r"(?<![^?&])token=[^&]*")


def wants(method: str, path: str, query: str) -> bool:
    """Whether gunicorn should hand this request to the loop."""
    if method != "GET":
        return False
    if LIVE_PATH.fullmatch(path):
        return True
    return bool(DETAIL_PATH.fullmatch(path)) and "wait_for_version=" in query


def redacted(query: str) -> str:
    return TOKEN_IN_QUERY.sub("token=***", query)


def _handler() -> Any:
    from django.core.handlers.asgi import ASGIHandler

    class LiveHandler(ASGIHandler):
        async def __call__(self, scope, receive, send):  # (no ThreadSensitiveContext)
            await self.handle(scope, receive, send)

    return LiveHandler()


class LiveServer:
    """One per worker process: a thread running an event loop, serving handed-over
    requests (at most ``max_connections`` at once; more answer 503)."""

    def __init__(self, access_log: logging.Logger | None, max_connections: int) -> None:
        self.access_log = access_log
        self.max_connections = max_connections
        self.open = 0
        self.loop = asyncio.new_event_loop()
        self._app: Any = None
        threading.Thread(target=self.loop.run_forever, name="live-loop", daemon=True).start()

    def serve(self, sock: socket.socket, method: str, path: str, query: str, headers: list[tuple[str, str]],
              client: Any, server: Any) -> None:
        """Serve one request (from a gunicorn thread, which is done with it at once)."""
        asyncio.run_coroutine_threadsafe(
            self._serve(sock, method, path, query, headers, client, server), self.loop
        )

    async def _serve(self, sock, method, path, query, headers, client, server) -> None:
        started = time.monotonic()
        status = 0
        sent = 0
        self.open += 1
        writer = None
        scope: dict = {}
        try:
            sock.setblocking(False)
            reader, writer = await asyncio.open_connection(sock=sock)
            if self.open > self.max_connections:
                status = 503
                writer.write(_busy())
                await writer.drain()
                return
            if self._app is None:
                self._app = _handler()
            from games.streams import release, wait_first  # (Django is set up by now)

            scope = _scope(method, path, query, headers, client, server)

            await wait_first(scope)  # a long-poll's wait, before any middleware's thread
            asked = False

            async def receive() -> dict:
                nonlocal asked
                if not asked:
                    asked = True
                    return {"type": "http.request", "body": b"", "more_body": False}
                try:  # then only the client's going away (nothing more is read as a request)
                    while await reader.read(65536):
                        pass
                except OSError:
                    pass
                return {"type": "http.disconnect"}

            async def send(message: dict) -> None:
                nonlocal status, sent
                if message["type"] == "http.response.start":
                    status = message["status"]
                    writer.write(_head(status, message.get("headers", [])))
                elif message["type"] == "http.response.body":
                    body = message.get("body", b"")
                    if body:
                        sent += len(body)
                        writer.write(body)
                    await writer.drain()

            await self._app(scope, receive, send)
        except (ConnectionError, OSError):
            pass
        except Exception:
            log.exception("live: serving %s %s failed", method, path)
        finally:
            self.open -= 1
            if scope:
                release(scope)  # whatever the client left behind
            if writer is not None:
                writer.close()
                try:
                    await writer.wait_closed()
                except (ConnectionError, OSError):
                    pass
            else:
                sock.close()
            if self.access_log is not None:
                q = f"?{redacted(query)}" if query else ""
                self.access_log.info('%s - - "%s %s%s HTTP/1.1" %s %s live %.3fs', _host(client), method, path, q,
                                     status or "-", sent, time.monotonic() - started)


def _host(client: Any) -> str:
    return client[0] if isinstance(client, (tuple, list)) and client else str(client or "-")


def _scope(method, path, query, headers, client, server) -> dict:
    from urllib.parse import unquote

    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode("latin-1"),
        "query_string": query.encode("latin-1"),
        "root_path": "",
        "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers],
        "client": tuple(client) if isinstance(client, (tuple, list)) else None,
        "server": tuple(server) if isinstance(server, (tuple, list)) else None,
    }


def _head(status: int, headers: list[tuple[bytes, bytes]]) -> bytes:
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status} {reason}".encode("latin-1")]
    lines += [name + b": " + value for name, value in headers if name.lower() != b"connection"]
    lines += [b"Date: " + email.utils.formatdate(usegmt=True).encode(), b"Connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def _busy() -> bytes:
    import json

    from config.problems import PROBLEM_CONTENT_TYPE, problem_body

    body = json.dumps(problem_body(status=503, code="unavailable",
                                   detail="too many open event streams on this worker; retry")).encode()
    return (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: {PROBLEM_CONTENT_TYPE}\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n").encode() + body
