"""System checks of the deployment's settings (``manage.py check``; registered by
games.apps.GamesConfig.ready)."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.db import connections


@checks.register()
def pooler_checks(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Behind a pooler in transaction mode (DB_POOLER=transaction), live events cannot
    come from ``LISTEN`` (a pooled session goes back to the pool, and its notifications
    are dropped): they need the Redis fan-out."""
    if settings.DB_POOLER != "transaction" or connections["default"].vendor != "postgresql":
        return []
    out: list[checks.CheckMessage] = []
    if settings.LIVE_FANOUT == "postgres":
        out.append(checks.Warning(
            "DB_POOLER=transaction, but live events would come from PostgreSQL's LISTEN, which a pooler in "
            "transaction mode cannot carry: no stream, feed or long-poll would hear of any move.",
            hint="Set REDIS_URL (live events then fan out through Redis, LIVE_FANOUT=redis): "
                 "docs/operators/scaling.md#pgbouncer-in-transaction-mode",
            id="uno.W301",
        ))
    return out


@checks.register(checks.Tags.database)
def pooler_lock_timeout(databases=None, **kwargs) -> list[checks.CheckMessage]:
    """Behind a pooler in transaction mode DB_LOCK_TIMEOUT_MS cannot be sent at connect:
    the lock_timeout is the role's or the database's (``manage.py check --database default``
    reads it through the pooler, as a request would get it)."""
    if (settings.DB_POOLER != "transaction" or "default" not in (databases or ())
            or connections["default"].vendor != "postgresql"):
        return []
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT current_setting('lock_timeout')")
        (value,) = cursor.fetchone()
    if value in ("0", "0ms"):
        return [checks.Warning(
            "DB_POOLER=transaction and the database's lock_timeout is 0: a statement waiting for a row lock "
            "would wait for ever (DB_LOCK_TIMEOUT_MS is not sent behind a pooler).",
            hint="ALTER ROLE <the app's role> SET lock_timeout = '10s' (or ALTER DATABASE): "
                 "docs/operators/scaling.md#pgbouncer-in-transaction-mode",
            id="uno.W302",
        )]
    return []
