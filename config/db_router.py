"""A read replica for the reads that tolerate a little lag (issue 30).

With ``DATABASE_REPLICA_URL`` set, ``DATABASES["replica"]`` is a streaming replica of the
primary (``default``).  :class:`ReplicaRouter` sends a read there only inside
:func:`reads_may_lag`, a context the views of lag-tolerant reads set (game lists, a
finished game's moves and scores, profiles, a player's games, rating histories,
leaderboards: :func:`lagging_reads`); everything else (a player's own running game, the
whole move path, authentication, every write, migrations) uses the primary.  The move
path's own SQL (``games.selectors.sql_cursor``) is not routed at all: it always runs on
``default``.

A player who has just changed something (a write request of theirs answered below 400)
reads those from the primary too, for ``DATABASE_REPLICA_STICKY_SECONDS``: a game they
created or joined is in their next list, whatever the replica's lag
(:class:`StickyWritesMiddleware`, a key in the cache per player).

When the replica cannot be reached, :data:`health` marks it down for
``DATABASE_REPLICA_RETRY_SECONDS`` and those reads go to the primary meanwhile; the read
that met the failure is answered from the primary (a GET: run again).  A request pays
the replica's connection failure at most once per retry interval per process, never a
timeout each.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, DatabaseError, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponseBase

log = logging.getLogger(__name__)

REPLICA = "replica"

_lag_ok: contextvars.ContextVar[bool] = contextvars.ContextVar("reads_may_lag", default=False)


def configured() -> bool:
    return REPLICA in settings.DATABASES


class ReplicaHealth:
    """Whether the replica is worth trying: a flag, and when to try again once it failed
    (per process; a thread that meets the failure sets it for all)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._down_until = 0.0

    def usable(self) -> bool:
        return time.monotonic() >= self._down_until

    def mark_down(self) -> None:
        with self._lock:
            self._down_until = time.monotonic() + settings.DATABASE_REPLICA_RETRY_SECONDS


health = ReplicaHealth()


@contextmanager
def reads_may_lag() -> Iterator[None]:
    """The ORM's reads in this block may go to the replica (when there is one and it is up)."""
    token = _lag_ok.set(True)
    try:
        yield
    finally:
        _lag_ok.reset(token)


def replica_in_use() -> bool:
    """Whether a read here would go to the replica."""
    return _lag_ok.get() and configured() and health.usable()


class ReplicaRouter:
    """Reads in :func:`reads_may_lag` to the replica while it is up; all else to the primary."""

    def db_for_read(self, model, **hints):
        return REPLICA if replica_in_use() else DEFAULT_DB_ALIAS

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # the same rows, whichever copy they were read from

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS


def _replica_reachable() -> bool:
    """Whether a new connection to the replica opens (after a failed read: was it the replica?)."""
    replica = connections[REPLICA]
    try:
        replica.close()
    except DatabaseError:
        pass
    try:
        replica.ensure_connection()
        return True
    except DatabaseError:
        return False
    finally:
        try:
            replica.close()
        except DatabaseError:
            pass


def _sticky_key(player_id: int) -> str:
    return f"uno:replica:wrote:{player_id}"


def note_write(player_id: int) -> None:
    """Player ``player_id`` just changed something: their lag-tolerant reads go to the
    primary for DATABASE_REPLICA_STICKY_SECONDS."""
    try:
        cache.set(_sticky_key(player_id), 1, timeout=settings.DATABASE_REPLICA_STICKY_SECONDS)
    except Exception:  # the answer stands; their next reads may lag
        log.warning("could not note a write for the read replica's stickiness", exc_info=True)


def wrote_recently(player_id: int) -> bool:
    try:
        return cache.get(_sticky_key(player_id)) is not None
    except Exception:
        return True  # unknown: the primary


class StickyWritesMiddleware:
    """With a read replica, notes each write request of a signed-in player answered
    below 400 (:func:`note_write`); nothing without one."""

    SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if configured() and request.method not in self.SAFE_METHODS and response.status_code < 400:
            user = getattr(request, "user", None)  # (DRF sets it here too, from the token)
            if user is not None and user.is_authenticated:
                note_write(user.pk)
        return response


def on_replica(read: Callable[[], object], user=None) -> object:
    """``read()`` in :func:`reads_may_lag` (unless ``user`` wrote in the last
    DATABASE_REPLICA_STICKY_SECONDS); if the replica fails it, the replica is marked down
    and ``read()`` runs again on the primary."""
    if not configured() or not health.usable():
        return read()
    if user is not None and user.is_authenticated and wrote_recently(user.pk):
        return read()
    try:
        with reads_may_lag():
            return read()
    except (OperationalError, InterfaceError):
        if _replica_reachable():
            raise  # the primary's failure, or the read's own: as without a replica
        health.mark_down()
        log.warning("the read replica cannot be reached: lag-tolerant reads go to the primary for %s s",
                    settings.DATABASE_REPLICA_RETRY_SECONDS)
        return read()


def lagging_reads(method: Callable) -> Callable:
    """A view method (``self, request, ...``) whose ORM reads may all lag (a GET): run by
    :func:`on_replica` for its request's user."""

    @functools.wraps(method)
    def wrapper(view, request, *args, **kwargs):
        return on_replica(lambda: method(view, request, *args, **kwargs), getattr(request, "user", None))

    return wrapper
