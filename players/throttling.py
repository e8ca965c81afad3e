"""Rate limiting: DRF throttles over fixed windows counted atomically in a shared store.

DRF's stock throttles keep a sliding log in Django's cache, read then written back:
per process without Redis, and racy under concurrency even with it.  Here every
request is one atomic increment of a counter shared by every process and node:

* Redis when ``REDIS_URL`` is set: ``INCR`` + ``EXPIREAT`` in one ``MULTI`` (the key
  names its window, so it expires on its own);
* otherwise the ``players.RateCounter`` table: one ``INSERT ... ON CONFLICT DO UPDATE
  ... RETURNING`` (PostgreSQL, SQLite >= 3.35); ``prune_counters`` deletes ended windows.

Windows are aligned on the clock (a 60/min window ends on the minute); every request
counts, a rejected one too (it does not extend the window).  If the store cannot be
reached the request is let through and a warning logged: an outage of the counters
must not become an outage of the API.

``RateLimitHeadersMiddleware`` adds ``RateLimit-*`` headers to every response under
``/api/``: for the most restrictive policy the request was charged to or, where no
throttle ran (health, unknown URLs, 401 before throttling), the client's anonymous or
player bucket, read without charging it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from rest_framework import throttling

from players.models import RateCounter

logger = logging.getLogger(__name__)

#: Prefix of the counters' keys in Redis (kept apart from Django's cache and Celery).
REDIS_PREFIX = "uno:ratelimit:"
#: After a Redis failure, fail open this long without trying again (seconds).
REDIS_RETRY_SECONDS = 5.0
#: Redis operations give up after this long (seconds): a stalled store must not stall requests.
REDIS_TIMEOUT_SECONDS = 1.0
#: Longer keys (their client part may come from X-Forwarded-For) are stored hashed.
MAX_KEY_LENGTH = 100

API_PREFIX = "/api/"


class StoreUnavailable(Exception):
    """The counter store failed recently: not tried again yet."""


class CounterStore(Protocol):
    def increment(self, key: str, resets_at: int) -> tuple[int, int]:
        """Count one request in the window ending at ``resets_at``: (count, window end)."""

    def read(self, key: str, resets_at: int) -> tuple[int, int]:
        """The window's count without charging it: (count, window end)."""


class RedisCounters:
    """Counters in Redis, one key per window: ``uno:ratelimit:<key>:<window end>``."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(
            url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS, socket_timeout=REDIS_TIMEOUT_SECONDS
        )
        self._down_until = 0.0

    @staticmethod
    def name(key: str, resets_at: int) -> str:
        return f"{REDIS_PREFIX}{key}:{resets_at}"

    def increment(self, key: str, resets_at: int) -> tuple[int, int]:
        name = self.name(key, resets_at)

        def incr() -> int:
            pipe = self.client.pipeline(transaction=True)
            pipe.incr(name)
            pipe.expireat(name, resets_at + 1)
            return pipe.execute()[0]

        return self._guarded(incr), resets_at

    def read(self, key: str, resets_at: int) -> tuple[int, int]:
        value = self._guarded(lambda: self.client.get(self.name(key, resets_at)))
        return int(value or 0), resets_at

    def _guarded(self, operation: Callable[[], Any]) -> Any:
        """Run ``operation``; after a failure, refuse at once for a while (no timeout per request)."""
        if time.monotonic() < self._down_until:
            raise StoreUnavailable("Redis failed less than %s s ago" % REDIS_RETRY_SECONDS)
        try:
            return operation()
        except redis.RedisError:
            self._down_until = time.monotonic() + REDIS_RETRY_SECONDS
            raise


class DatabaseCounters:
    """Counters in the ``players.RateCounter`` table, one row per key.

    A window that ends later than the stored one starts a new count; an earlier one
    (a node whose clock is behind) counts in the stored window, so clock skew between
    nodes never resets a count."""

    def __init__(self) -> None:
        quote = connection.ops.quote_name
        table, key, resets_at, count = (
            quote(name) for name in (RateCounter._meta.db_table, "key", "resets_at", "count")
        )
        self.upsert_sql = (
            f"INSERT INTO {table} ({key}, {resets_at}, {count}) VALUES (%s, %s, 1) "
            f"ON CONFLICT ({key}) DO UPDATE SET "
            f"{count} = CASE WHEN excluded.{resets_at} > {table}.{resets_at} THEN 1 "
            f"ELSE {table}.{count} + 1 END, "
            f"{resets_at} = CASE WHEN excluded.{resets_at} > {table}.{resets_at} "
            f"THEN excluded.{resets_at} ELSE {table}.{resets_at} END "
            f"RETURNING {count}, {resets_at}"
        )

    def increment(self, key: str, resets_at: int) -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute(self.upsert_sql, [key, resets_at])
            count, stored_end = cursor.fetchone()
        return count, stored_end

    def read(self, key: str, resets_at: int) -> tuple[int, int]:
        row = RateCounter.objects.filter(key=key, resets_at__gte=resets_at).values_list("count", "resets_at")
        return next(iter(row), (0, resets_at))


@lru_cache(maxsize=4)
def _redis_counters(url: str) -> RedisCounters:
    return RedisCounters(url)


@lru_cache(maxsize=1)
def _database_counters() -> DatabaseCounters:
    return DatabaseCounters()


def counter_store() -> CounterStore:
    """Redis when ``REDIS_URL`` is set, else the database (read per call: tests switch it)."""
    return _redis_counters(settings.REDIS_URL) if settings.REDIS_URL else _database_counters()


def prune_counters(now: float | None = None) -> int:
    """Delete the database counters whose window has ended; how many.  (Redis keys expire
    on their own.)  Run hourly by beat (``players.tasks.prune_rate_counters``)."""
    now = time.time() if now is None else now
    deleted, _ = RateCounter.objects.filter(resets_at__lte=int(now)).delete()
    return deleted


# --- Policies and usage -------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Where one client stands in one policy's current window."""

    limit: int
    window: int  # seconds
    count: int  # requests counted in this window (this one included, if charged)
    reset: int  # seconds until the window ends

    @property
    def allowed(self) -> bool:
        return self.count <= self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def policy(self) -> str:
        return f"{self.limit};w={self.window}"


def measure(key: str, limit: int, window: int, now: float, *, charge: bool = True) -> Usage:
    """Count a request against ``key`` (or only read its count) in the fixed window of
    ``window`` seconds around ``now``.  A store failure is logged and fails open."""
    now_s = int(now)
    resets_at = now_s - now_s % window + window
    store = counter_store()
    try:
        count, resets_at = store.increment(key, resets_at) if charge else store.read(key, resets_at)
    except StoreUnavailable:
        count = 0
    except (redis.RedisError, DatabaseError):
        logger.warning("rate-limit counters unavailable (%s): request let through",
                       type(store).__name__, exc_info=True)
        count = 0
    return Usage(limit=limit, window=window, count=count, reset=max(1, math.ceil(resets_at - now)))


def _record(request: Any, usage: Usage) -> None:
    """Remember ``usage`` on the Django request, for the headers middleware."""
    django_request = getattr(request, "_request", request)  # DRF wraps the HttpRequest
    if not hasattr(django_request, "rate_limits"):
        django_request.rate_limits = []
    django_request.rate_limits.append(usage)


# --- DRF throttles --------------------------------------------------------------


class FixedWindowThrottle(throttling.SimpleRateThrottle):
    """A DRF throttle counting in the shared store (rates: ``DEFAULT_THROTTLE_RATES``,
    read from ``THROTTLE_RATES`` as DRF does; the client from DRF's ``get_ident``,
    which honours ``NUM_PROXIES``)."""

    cache_format = "%(scope)s:%(ident)s"
    usage: Usage | None = None

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.usage = measure(counter_key(key), self.num_requests, self.duration, self.timer())
        _record(request, self.usage)
        return self.usage.allowed

    def peek(self, ident: object) -> Usage | None:
        """Where client ``ident`` stands in this policy, not charged (None: no rate)."""
        if self.rate is None:
            return None
        key = self.cache_format % {"scope": self.scope, "ident": ident}
        return measure(counter_key(key), self.num_requests, self.duration, self.timer(), charge=False)

    def wait(self) -> float | None:
        """Seconds to the end of the window (DRF's Retry-After)."""
        return self.usage.reset if self.usage else None


def counter_key(key: str) -> str:
    """``key`` as stored: hashed if long (identifiers may come from request headers)."""
    if len(key) <= MAX_KEY_LENGTH:
        return key
    scope = key.split(":", 1)[0]
    return f"{scope}:sha256:{hashlib.sha256(key.encode()).hexdigest()}"


class AnonRateThrottle(throttling.AnonRateThrottle, FixedWindowThrottle):
    """Scope "anon": per client IP, anonymous requests only."""


class UserRateThrottle(throttling.UserRateThrottle, FixedWindowThrottle):
    """Scope "user": per player (per client IP for anonymous requests)."""


class ScopedRateThrottle(throttling.ScopedRateThrottle, FixedWindowThrottle):
    """The view's ``throttle_scope`` (e.g. "auth"): per player, or per client IP."""


# --- Headers ----------------------------------------------------------------------


def rate_limit_headers(usages: list[Usage]) -> dict[str, str]:
    """Headers for the most restrictive policy (fewest requests left, then the longest
    wait); ``RateLimit-Policy`` lists every policy that applied, that one first."""
    tightest = min(usages, key=lambda usage: (usage.remaining, -usage.reset))
    policies = dict.fromkeys(usage.policy for usage in [tightest, *usages])
    return {
        "RateLimit-Limit": str(tightest.limit),
        "RateLimit-Remaining": str(tightest.remaining),
        "RateLimit-Reset": str(tightest.reset),
        "RateLimit-Policy": ", ".join(policies),
    }


def _unthrottled_usage(request: HttpRequest) -> Usage | None:
    """The bucket of a request no throttle counted: its player's, else its IP's.  (A
    middleware may have answered before authentication: then there is no ``user``.)"""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return UserRateThrottle().peek(user.pk)
    anon = AnonRateThrottle()
    return anon.peek(anon.get_ident(request))


class RateLimitHeadersMiddleware:
    """Adds ``RateLimit-Limit/-Remaining/-Reset/-Policy`` to every response under /api/."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(API_PREFIX) and "RateLimit-Limit" not in response:
            usages = getattr(request, "rate_limits", None)
            if not usages:
                usage = _unthrottled_usage(request)
                usages = [usage] if usage else []
            if usages:
                for name, value in rate_limit_headers(usages).items():
                    response[name] = value
        return response


# --- OpenAPI ------------------------------------------------------------------------

_INTEGER = {"type": "integer", "minimum": 0}

#: The headers every response carries, as OpenAPI header objects.
HEADER_DOCS: dict[str, dict[str, Any]] = {
    "RateLimit-Limit": {
        "description": "Requests allowed per window by the most restrictive rate-limit policy that applied.",
        "schema": _INTEGER,
    },
    "RateLimit-Remaining": {
        "description": "Requests left in that policy's current window.",
        "schema": _INTEGER,
    },
    "RateLimit-Reset": {
        "description": "Seconds until that policy's current window ends (and its count restarts).",
        "schema": _INTEGER,
    },
    "RateLimit-Policy": {
        "description": (
            "Every policy that applied, as `<limit>;w=<window seconds>`, the reported one first, "
            "e.g. `30;w=60, 60;w=60`."
        ),
        "schema": {"type": "string"},
    },
}


def _header_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def rate_limit_schema_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook: document the RateLimit-* headers on every
    response (``Retry-After`` on 429s: config.problems.problem_headers_hook)."""
    components = result.setdefault("components", {}).setdefault("headers", {})
    for name, doc in HEADER_DOCS.items():
        components[name] = {**doc, "required": True}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for response in operation["responses"].values():
                if "$ref" in response:
                    continue
                headers = response.setdefault("headers", {})
                for name in HEADER_DOCS:
                    headers.setdefault(name, _header_ref(name))
    return result
