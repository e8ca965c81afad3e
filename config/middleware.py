"""HTTP hygiene: a limit on request bodies, enforced before anything reads them.

A body over ``MAX_REQUEST_BYTES`` answers 413 ``payload_too_large``.  With a
Content-Length the decision is taken from the header alone.  A chunked body (no
Content-Length) is read up to the limit, and handed on to Django when it fits; this
needs a server that ends ``wsgi.input`` at the end of the body (``wsgi.input_terminated``,
as gunicorn does); under any other server Django reads no body without a Content-Length.

A refused body is then discarded, never kept, up to ``MAX_REQUEST_DRAIN_BYTES``: the
client's next request on the same keep-alive connection starts right after it, and the
client reads the 413 instead of a connection reset.  A body past the drain limit is left
unread, and the server closes the connection after the 413.

Served by the web workers, the front door (``config.front_door``) has already read the
body on its event loop: one that fits comes with its ``Content-Length`` (a chunked one
too), a larger one was discarded there (up to the drain limit) and comes empty, its
``Content-Length`` saying how large it was, so that this middleware answers the 413 and
the answer carries the CORS and RateLimit headers as any other.  The reading and
draining here serve the other servers (the test client, ``runserver``).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from copy import deepcopy
from typing import Any, BinaryIO

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest, HttpResponseBase

from config.problems import (
    PROBLEM_CONTENT_TYPE,
    PROBLEM_DESCRIPTIONS,
    payload_too_large,
)

CHUNK_BYTES = 64 * 1024
# A client that trickles a refused body may hold a web thread this long, no longer.
DRAIN_SECONDS = 10.0


class RequestBodyLimitMiddleware:
    """413 ``payload_too_large`` for a body over ``settings.MAX_REQUEST_BYTES``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        limit: int = settings.MAX_REQUEST_BYTES
        stream: BinaryIO | None = request.META.get("wsgi.input")
        if stream is None:  # Django's ASGI handler (the front door's streams and long-polls): read already
            return self.get_response(request)
        declared = _content_length(request.META)
        if declared is not None:
            if declared > limit:
                if declared <= settings.MAX_REQUEST_DRAIN_BYTES:
                    _discard(stream, declared)
                return payload_too_large(limit)
        elif _is_chunked(request.META):
            body = _read(stream, limit + 1)
            if len(body) > limit:
                _discard(stream, settings.MAX_REQUEST_DRAIN_BYTES - len(body))
                return payload_too_large(limit)
            _hand_on(request, body)
        return self.get_response(request)


def _content_length(meta: dict[str, Any]) -> int | None:
    try:
        return int(meta.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


def _is_chunked(meta: dict[str, Any]) -> bool:
    return bool(meta.get("wsgi.input_terminated")) and "chunked" in meta.get(
        "HTTP_TRANSFER_ENCODING", ""
    ).lower()


def _read(stream: BinaryIO, size: int) -> bytes:
    """Up to ``size`` bytes (fewer at the end of the body)."""
    parts: list[bytes] = []
    while size > 0:
        part = stream.read(min(size, CHUNK_BYTES))
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _discard(stream: BinaryIO, size: int) -> None:
    """Read and drop up to ``size`` bytes of the body, for at most DRAIN_SECONDS."""
    deadline = time.monotonic() + DRAIN_SECONDS
    while size > 0 and time.monotonic() < deadline:
        part = stream.read(min(size, CHUNK_BYTES))
        if not part:
            return
        size -= len(part)


def _hand_on(request: HttpRequest, body: bytes) -> None:
    """Let Django read a chunked body that fits as if it had come with a Content-Length.
    Django sizes the body from CONTENT_LENGTH alone (absent: no body), and reads it from
    the stream WSGIRequest made at construction, which has no public setter."""
    request.META["CONTENT_LENGTH"] = str(len(body))
    request._stream = LimitedStream(io.BytesIO(body), len(body))  # type: ignore[attr-defined]


# --- OpenAPI ----------------------------------------------------------------

_PAYLOAD_TOO_LARGE = {
    "description": PROBLEM_DESCRIPTIONS[413],
    "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def document_payload_too_large(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook: every operation that takes a body may answer
    413 (the middleware above applies to all of them)."""
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation.setdefault("responses", {}).setdefault("413", deepcopy(_PAYLOAD_TOO_LARGE))
    return result


#: what the front door itself answers (config/http_protocol.py, config/front_door.py), on any
#: operation, before Django sees the request: no RateLimit or CORS headers on these
_FRONT_DOOR = {
    "408": "`request_timeout`: the request's headers (`WEB_HEADER_TIMEOUT`) or body (`WEB_BODY_TIMEOUT`) did "
           "not arrive in time; nothing was done. The connection is closed.",
    "414": "`uri_too_long`: the request line is over `GUNICORN_LIMIT_REQUEST_LINE` (4094) bytes. The connection "
           "is closed.",
    "431": "`header_fields_too_large`: more than `GUNICORN_LIMIT_REQUEST_FIELDS` (100) header fields, or one over "
           "`GUNICORN_LIMIT_REQUEST_FIELD_SIZE` (8190) bytes. The connection is closed.",
}


def document_front_door_errors(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook (after the RateLimit one: these answers come
    before Django and carry none): the front door's own answers, on every operation."""
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, description in _FRONT_DOOR.items():
                operation["responses"].setdefault(status, {
                    "description": description,
                    "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
                })
    return result
