"""The live endpoints, as async Django views (``games.live`` feeds them):

- ``GET /api/v1/games/{id}/events``: the game's moves as they commit (Server-Sent
  Events), each an unnamed event whose ``id`` is the move's ``seq`` and whose data is
  the move as ``/moves`` shows it to this viewer, with the game's ``version`` after it
  and, on the newest move of each delivery, the viewer's ``game`` (as ``GET`` shows it);
  ``event: game`` when the game changed without a move (a seat taken or left);
  ``Last-Event-ID`` or ``?after=`` resumes; ``: keepalive`` comments while idle.
- ``GET /api/v1/players/me/events``: the caller's feed (``your_turn``,
  ``game_started``, ``game_finished``, ``joined``).
- ``GET /api/v1/games/{id}?wait_for_version=N&timeout=S``: the long-poll
  (:func:`wait_for_version`, which ``GameDetailView`` calls).

Served on the web worker's event loop without holding a thread (``config.front_door``);
anywhere else (the test client, ``runserver``) Django runs them as it runs any async
view.  A stream or long-poll ends within ``LIVE_CREDENTIALS_CHECK_SECONDS`` of its token
being revoked or expiring, the password changing or the player being deactivated.  A token may come as
``?token=`` (browsers' ``EventSource`` cannot send headers); access logs show it as
``token=***``.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import AuthenticationFailed

from config.problems import ApiError, problem_response
from config.resilience import TRANSIENT_ERRORS
from games import live
from games.models import Game
from notices.selectors import last_id as last_notice_id

log = logging.getLogger(__name__)

#: the longest long-poll, in seconds (and the default)
MAX_WAIT_SECONDS = 60
DEFAULT_WAIT_SECONDS = 30
STREAM_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # a proxy in front must not buffer the stream
}


def problem(exc: ApiError) -> HttpResponseBase:
    headers = {"WWW-Authenticate": "Token"} if exc.status_code == 401 else {}  # as DRF's views send it
    return problem_response(status=exc.status_code, code=exc.code, detail=str(exc.detail),
                            headers={**headers, **exc.headers}, **exc.extra)


def _key(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    if header:
        parts = header.encode("latin-1", "replace").split()  # as DRF's views split it (any ASCII white space)
        if len(parts) != 2 or parts[0].lower() != b"token":
            raise ApiError(401, "not_authenticated", "Authorization must be 'Token <key>'")
        return parts[1].decode("latin-1")
    return request.GET.get("token") or None


def authenticate(request: HttpRequest):
    """The player whose token the request carries (header, else ``?token=``), and the
    token (its stream ends when the token does: ``games.live``)."""
    from players.authentication import ApiTokenAuthentication

    key = _key(request)
    if key is None:
        raise ApiError(401, "not_authenticated", "Authentication credentials were not provided.")
    try:
        return ApiTokenAuthentication().authenticate_credentials(key.encode("latin-1", "replace"))
    except AuthenticationFailed as exc:
        raise ApiError(401, "authentication_failed", str(exc.detail)) from None


def only_get(request: HttpRequest) -> None:
    if request.method != "GET":
        raise ApiError(405, "method_not_allowed", f'Method "{request.method}" not allowed.',
                       headers={"Allow": "GET"})


def _int(raw: str | None, name: str, low: int, high: int | None = None) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ApiError(400, "invalid", f"{name} must be an integer {bound}", fields={name: [f"an integer {bound}"]})
    return value


def wait_params(query) -> tuple[int, int] | None:
    """``wait_for_version`` and ``timeout`` of a game's GET (None: no waiting)."""
    version = _int(query.get("wait_for_version"), "wait_for_version", 0)
    timeout = _int(query.get("timeout"), "timeout", 0, MAX_WAIT_SECONDS)
    if version is None:
        if timeout is not None:
            raise ApiError(400, "invalid", "timeout goes with wait_for_version",
                           fields={"timeout": ["only with wait_for_version"]})
        return None
    return version, DEFAULT_WAIT_SECONDS if timeout is None else timeout


async def wait_for_version(game_id: int, version: int, timeout: float, token_id: int | None = None) -> None:
    """Return once game ``game_id``'s version exceeds ``version``, or after ``timeout``
    seconds, or at once if the game does not exist (the view then answers 404), or
    once token ``token_id`` ends (the view then answers 401)."""
    hub = live.hub()
    waiter = hub.add_waiter(game_id, version, token_id)  # before reading: a commit in between wakes it
    try:
        current = await sync_to_async(_version_of)(game_id)
        if current is None or current > version:
            return
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), timeout)
        except asyncio.TimeoutError:
            pass
    finally:
        hub.unsubscribe(waiter)


def _version_of(game_id: int) -> int | None:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first()


def _resume_point(request: HttpRequest) -> int | None:
    after = _int(request.GET.get("after"), "after", 0)
    if after is None:
        after = _int(request.headers.get("Last-Event-ID") or None, "Last-Event-ID", 0)
    return after


#: what a client told "too many streams" waits before trying again (seconds)
STREAM_RETRY_AFTER = 10


def _stream_limit() -> int:
    return settings.LIVE_MAX_STREAMS_PER_PLAYER


async def _subscribe(subscribe, player_id: int, *args, **kwargs):
    """``subscribe(..., limit, ..., lease=)`` of the hub for ``player_id``: with redis
    fan-out, the stream first takes a lease among the player's streams across every web
    process (``live.Leases``; :class:`live.TooManyStreams` when they hold the most),
    given back when it ends; without, the hub counts it in this process."""
    limit = _stream_limit()
    lease = await sync_to_async(live.leases().acquire, thread_sensitive=False)(player_id, limit)
    try:
        floor = await sync_to_async(last_notice_id)()  # (the database, as the view's other reads)
        sub = subscribe(*args, limit=limit, lease=lease, **kwargs)
        live.hub().notices_from(floor)  # (before the client hears "connected")
        return sub
    except BaseException:
        if lease is not None:
            live.leases().release(player_id, lease)
        raise


def too_many_streams(exc: live.TooManyStreams) -> ApiError:
    return ApiError(
        429, "too_many_streams",
        f"You already hold {exc.limit} event streams on this server; close one (or wait) and retry.",
        headers={"Retry-After": str(STREAM_RETRY_AFTER)}, retry_after=STREAM_RETRY_AFTER, limit=exc.limit,
    )


#: a request's scope key: the subscriptions its view made (:func:`release`)
SUBSCRIPTIONS = "uno.subscriptions"


def release(scope: dict) -> None:
    """End the subscriptions made for the request of ``scope``, which is over (its
    connection is closed).  A stream that ran ended its own; this gives back the ones
    whose client left while the response was on its way out, which nothing else ends
    before the garbage collector finds the dropped response (``config.front_door``
    calls it once it is done with a connection)."""
    hub = live.hub()
    for sub in scope.pop(SUBSCRIPTIONS, ()):
        hub.unsubscribe(sub)


class EventStreamResponse(StreamingHttpResponse):
    """The frames of ``sub`` (``text/event-stream``, ``STREAM_HEADERS``); its subscription
    ends when the stream ends or, if the client left before the first frame (the frames
    never started), when Django closes the response, when the server is done with the
    connection (:func:`release`) or, failing all that, when the response is dropped."""

    def __init__(self, request: HttpRequest, sub: live.GameStream | live.Feed) -> None:
        hub = live.hub()
        scope = getattr(request, "scope", None)
        if isinstance(scope, dict):
            scope.setdefault(SUBSCRIPTIONS, []).append(sub)

        async def frames():
            try:
                yield "retry: 3000\n: connected\n\n".encode()
                async for frame in sub.frames():
                    yield frame
            finally:
                hub.unsubscribe(sub)

        super().__init__(frames(), content_type="text/event-stream", headers=STREAM_HEADERS)
        # dropped unsent: the client left while the response was on its way out (a
        # middleware's await), so neither the frames' ``finally`` nor ``close`` runs
        weakref.finalize(self, hub.abandon, sub)
        self._resource_closers.append(lambda: hub.unsubscribe(sub))


@csrf_exempt  # token authentication, no cookies: other methods get their 405, not a CSRF page
async def game_events(request: HttpRequest, game_id: int) -> HttpResponseBase:
    try:
        only_get(request)
        player, token = await sync_to_async(authenticate)(request)
        after = _resume_point(request)
        if await sync_to_async(_version_of)(game_id) is None:
            raise ApiError(404, "not_found", "Not found.")
        sub = await _subscribe(live.hub().subscribe_game, player.pk, game_id, player.pk, after, token_id=token.pk)
    except live.TooManyStreams as exc:
        return problem(too_many_streams(exc))
    except ApiError as exc:
        return problem(exc)
    return EventStreamResponse(request, sub)


@csrf_exempt
async def player_events(request: HttpRequest) -> HttpResponseBase:
    try:
        only_get(request)
        player, token = await sync_to_async(authenticate)(request)
        sub = await _subscribe(live.hub().subscribe_player, player.pk, player.pk, token_id=token.pk)
    except live.TooManyStreams as exc:
        return problem(too_many_streams(exc))
    except ApiError as exc:
        return problem(exc)
    return EventStreamResponse(request, sub)


#: set in an ASGI request's scope once the front door has dealt with its wait (:func:`wait_first`)
WAITED = "uno.waited"


def waited(request: HttpRequest) -> bool:
    """Whether ``request``'s long-poll was dealt with before Django saw it: waited for,
    or found not to be waited for (the view then never waits in a thread)."""
    return bool(getattr(request, "scope", {}).get(WAITED))


def _view_credentials(request: HttpRequest):
    """``(player, token)`` as the game's view authenticates ``request`` (DRF's
    authenticators of the settings, on the header alone), or None."""
    from rest_framework.exceptions import APIException
    from rest_framework.request import Request
    from rest_framework.settings import api_settings

    drf_request = Request(request)
    for authenticator in api_settings.DEFAULT_AUTHENTICATION_CLASSES:
        try:
            credentials = authenticator().authenticate(drf_request)
        except APIException:
            return None
        if credentials is not None:
            return credentials
    return None


async def wait_first(scope: dict, game_id: int) -> None:
    """The wait of a long-poll (``GET`` or ``HEAD /games/{id}?wait_for_version=N``, as
    Django resolved it) before Django's handler sees the request (``config.front_door``),
    whose synchronous middleware would hold a thread for all of it.  The request is read
    as Django reads it (its ASGI request: headers joined, query parsed) and authenticated
    as the view authenticates it, so that any request the view would wait for is waited
    for here.  An unauthenticated or malformed request is not waited for: the view
    answers it with its problem; nor is one whose database reads fail (transient: the
    database or its pooler is out), which the view answers as any other request then,
    503 with Retry-After while it is still out (an error raised here, outside Django,
    would be a bare 500).  Either way the scope is marked, and the view does not wait in
    a thread (asgiref's one shared thread, under the front door)."""
    import io

    from django.core.handlers.asgi import ASGIRequest

    scope[WAITED] = True
    try:
        request = ASGIRequest(scope, io.BytesIO())
        wait = wait_params(request.GET)
    except (UnicodeDecodeError, ApiError):  # Django's handler answers 400, the view its problem
        return
    if wait is None:
        return
    try:
        credentials = await sync_to_async(_view_credentials)(request)
        if credentials is None:
            return
        await wait_for_version(game_id, *wait, token_id=credentials[1].pk)
    except TRANSIENT_ERRORS as exc:
        log.warning("long-poll of game %s not waited for: %s: %s", game_id, type(exc).__name__, exc)
