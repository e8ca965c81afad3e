"""The web tier's application: one ASGI app in front of Django, served by uvicorn.

Every request arrives on the worker's event loop (``config.web_worker``: gunicorn
manages the processes, uvicorn speaks HTTP; ``config.http_protocol`` adds the header
timeout and the per-IP cap).  Here, still on the loop, nothing holding a thread:

1. the **body** is read whole, within ``WEB_BODY_TIMEOUT`` seconds (else 408), up to
   ``MAX_REQUEST_BYTES`` (a larger one is discarded as it arrives, up to
   ``MAX_REQUEST_DRAIN_BYTES``, and Django's ``RequestBodyLimitMiddleware`` answers
   413); a body cut short (the client closed before its ``Content-Length`` arrived) is
   dropped: nothing runs;
2. the request is **routed by what Django resolves** (the decoded path, the parsed
   query), never by the raw text:

   - an async view (the event streams, ``games.streams``) runs on the loop through
     Django's ASGI handler;
   - a long-poll (``GET`` or ``HEAD /games/{id}`` with ``wait_for_version``) waits on the loop
     (``games.streams.wait_first``), then is answered the same way;
   - everything else, the move path included, runs through Django's WSGI handler on
     a fixed pool of ``GUNICORN_THREADS`` threads per process (a2wsgi), each keeping
     its database connection (``CONN_MAX_AGE``) as gunicorn's threads did;
3. one access-log line per request, the query's ``token`` shown as ``***`` however it
   was spelled.

So a client that trickles its headers or body, or waits on a long-poll or a stream,
holds no thread; only requests that Django is working on do.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from typing import Any
from urllib.parse import parse_qsl, quote

from a2wsgi import WSGIMiddleware
from asgiref.sync import iscoroutinefunction

log = logging.getLogger(__name__)
access_log = logging.getLogger("uno.access")

#: event streams and long-polls open at once in one process; more answer 503
LIVE = "live"
WAIT = "wait"
SYNC = "sync"
#: scope key: the connection closes after the answer (a refused body left unread)
CLOSE = "uno.close"


def _env_float(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


def redacted_query(query_string: bytes) -> str:
    """The query as Django reads it, with every ``token`` value (however it was
    percent-encoded) shown as ``***``."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True, encoding="utf-8", errors="replace")
    return "&".join(f"{quote(k, safe='')}={'***' if k == 'token' else quote(v, safe='')}" for k, v in pairs)


class _Cut(Exception):
    """The client went away before its body arrived whole."""


class _Slow(Exception):
    """The body did not arrive within ``WEB_BODY_TIMEOUT``."""


class FrontDoor:
    """The ASGI application (``config.asgi.application``); ``wsgi_app`` is Django's
    WSGI handler, ``threads`` the size of its pool."""

    def __init__(self, wsgi_app: Any, threads: int = 4) -> None:
        from django.conf import settings

        self.sync = WSGIMiddleware(wsgi_app, workers=threads)
        self.live_app: Any = None
        self.settings = settings
        self.body_timeout = _env_float("WEB_BODY_TIMEOUT", 20)
        self.max_live = int(_env_float("LIVE_MAX_CONNECTIONS", 10000))
        self.live_open = 0

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] == "lifespan":
            return await self._lifespan(receive, send)
        if scope["type"] != "http":
            return
        started = time.monotonic()
        answer = {"status": 0, "sent": 0}

        async def counted(message: dict) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                if scope.get(CLOSE):  # a body left unread: nothing more can be read on it
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            elif message["type"] == "http.response.body":
                answer["sent"] += len(message.get("body", b""))
            await send(message)

        try:
            await self._serve(scope, receive, counted)
        finally:
            self._log(scope, answer["status"], answer["sent"], time.monotonic() - started)

    async def _serve(self, scope: dict, receive, send) -> None:
        try:
            replay = await self._read_body(scope, receive)
        except _Cut:
            log.info("%s %s: the client closed before its body arrived; nothing done", scope["method"],
                     scope["path"])
            return
        except _Slow:
            return await _problem(send, 408, "request_timeout",
                                  f"The request's body did not arrive within {self.body_timeout:g} s.", close=True)
        kind, match = _route(scope)
        if kind == SYNC:
            return await self.sync(scope, replay, send)
        if self.live_open >= self.max_live:
            return await _problem(send, 503, "unavailable", "too many open event streams on this worker; retry",
                                  headers=[(b"retry-after", b"5")])
        self.live_open += 1
        try:
            from games.streams import release, wait_first

            if kind == WAIT:
                await wait_first(scope, int(match.kwargs["game_id"]))
            try:
                await self._live()(scope, replay, send)
            finally:
                release(scope)
        finally:
            self.live_open -= 1

    def _live(self) -> Any:
        if self.live_app is None:
            from django.core.handlers.asgi import ASGIHandler

            class LiveHandler(ASGIHandler):
                """Django's ASGI handler without asgiref's per-request thread
                (``ThreadSensitiveContext``): the little synchronous work of a stream or
                a waited long-poll (authentication, middleware) runs on asgiref's one
                shared thread instead of a new thread per open stream."""

                async def __call__(self, scope, receive, send):
                    await self.handle(scope, receive, send)

            self.live_app = LiveHandler()
        return self.live_app

    async def _read_body(self, scope: dict, receive):
        """The whole body (on the loop), and a ``receive`` that hands it on, then
        reports the client's leaving.  A body over MAX_REQUEST_BYTES is discarded as it
        arrives (up to MAX_REQUEST_DRAIN_BYTES) and handed on empty, its headers saying
        how large it was, for Django's ``RequestBodyLimitMiddleware`` to answer 413."""
        limit: int = self.settings.MAX_REQUEST_BYTES
        drain: int = self.settings.MAX_REQUEST_DRAIN_BYTES
        headers = scope["headers"]
        declared = next((v for k, v in headers if k == b"content-length"), None)
        chunked = any(k == b"transfer-encoding" and b"chunked" in v.lower() for k, v in headers)
        size = int(declared) if declared is not None and declared.isdigit() else None
        parts: list[bytes] = []
        received = 0
        over = size is not None and size > limit
        if not over and (size or chunked):
            deadline = time.monotonic() + self.body_timeout
            more = True
            while more:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Slow
                try:
                    message = await asyncio.wait_for(receive(), remaining)
                except asyncio.TimeoutError:
                    raise _Slow from None
                if message["type"] == "http.disconnect":
                    raise _Cut
                chunk = message.get("body", b"")
                received += len(chunk)
                more = message.get("more_body", False)
                if received <= limit:
                    parts.append(chunk)
                elif not over:
                    over, parts = True, []
                if over and received > drain:
                    break  # left unread: the answer closes the connection
            if chunked:  # Django reads a body by its Content-Length: say how long this one was
                scope["headers"] = [(k, v) for k, v in headers if k not in (b"transfer-encoding", b"content-length")]
                scope["headers"].append((b"content-length", str(received).encode()))
        body = b"" if over else b"".join(parts)
        if over and max(received, size or 0) > drain:
            scope[CLOSE] = True
        given = False

        async def replay() -> dict:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            while True:  # then only the client's leaving (what is left of a body unread is not handed on)
                message = await receive()
                if message["type"] != "http.request":
                    return message

        return replay

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.sync.executor.shutdown(wait=False)
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _log(self, scope: dict, status: int, sent: int, seconds: float) -> None:
        if not access_log.isEnabledFor(logging.INFO):
            return
        client = scope.get("client") or ("-",)
        query = scope.get("query_string") or b""
        target = quote(scope["path"], safe="/:@!$&'()*+,;=-._~") + (f"?{redacted_query(query)}" if query else "")
        # the same as fields of their own in JSON logs (LOG_FORMAT=json, config/logs.py)
        fields = {"client": client[0], "method": scope["method"], "path": target, "status": status or None,
                  "bytes": sent, "duration": round(seconds, 6)}
        access_log.info('%s - - [%s] "%s %s HTTP/%s" %s %s %.3fs', client[0], time.strftime("%d/%b/%Y:%H:%M:%S %z"),
                        scope["method"], target, scope.get("http_version", "1.1"), status or "-", sent, seconds,
                        extra=fields)


def _route(scope: dict) -> tuple[str, Any]:
    """What kind of request this is, decided as Django decides it: the URL resolver on
    the decoded path, the query parsed like ``request.GET``."""
    from django.http import QueryDict
    from django.urls import Resolver404, resolve

    try:
        match = resolve(scope["path"])
    except Resolver404:
        return SYNC, None
    view = match.func
    if iscoroutinefunction(view) or getattr(view, "view_is_async", False):
        return LIVE, match
    # (Django serves HEAD with the view's GET, and reads any method upper-cased)
    if (scope["method"].upper() in ("GET", "HEAD") and match.url_name == "game-detail"
            and "wait_for_version" in QueryDict(scope.get("query_string", b"").decode("latin-1"))):
        return WAIT, match
    return SYNC, match


async def _problem(send, status: int, code: str, detail: str, *, close: bool = False,
                   headers: list[tuple[bytes, bytes]] | None = None) -> None:
    from config.problems import PROBLEM_CONTENT_TYPE, problem_body

    body = json.dumps(problem_body(status=status, code=code, detail=detail)).encode()
    head = [(b"content-type", PROBLEM_CONTENT_TYPE.encode()), (b"content-length", str(len(body)).encode()),
            *(headers or [])]
    if close:
        head.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
