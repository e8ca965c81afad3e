"""Health checks: the backing services (database, Celery broker) and the background
parts (a worker whose pool runs tasks, beat's deadline sweeper), from heartbeats that
live in the database (games.heartbeats); and the bot backlog, from the games
themselves: a part that works but is falling behind is ``degraded``."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import connection

from games import heartbeats, selectors

logger = logging.getLogger(__name__)

OK = "ok"
ERROR = "error"
#: a part that works but has fallen behind (the bots): the service answers, slowly
DEGRADED = "degraded"


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_broker() -> None:
    from config.celery import app

    timeout = settings.HEALTH_BROKER_TIMEOUT
    with app.connection_for_write(
        connect_timeout=timeout,
        transport_options={"socket_connect_timeout": timeout, "socket_timeout": timeout},
    ) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)


def _check_heartbeat(name: str) -> None:
    at = heartbeats.last(name)
    if not heartbeats.fresh(at, name):
        raise RuntimeError(f"{name}: last heartbeat {at.isoformat() if at else 'never'}")


def check_worker() -> None:
    """A worker's pool ran its heartbeat task recently."""
    _check_heartbeat(heartbeats.WORKER)


def check_sweeper() -> None:
    """Beat sent the deadline sweeper and a worker ran it, within three periods."""
    _check_heartbeat(heartbeats.SWEEPER)


#: what the web process itself needs (GET /health: liveness for a load balancer)
WEB_CHECKS = {"database": check_database, "broker": check_broker}
#: everything (GET /api/v1/health)
CHECKS = {**WEB_CHECKS, "worker": check_worker, "sweeper": check_sweeper}


def health_report(checks: dict | None = None) -> dict[str, str]:
    """{part: "ok" | "error"} for ``checks`` (default: every part)."""
    report = {}
    for name, check in (CHECKS if checks is None else checks).items():
        try:
            check()
        except Exception as exc:
            logger.warning("health check %s failed: %s", name, exc)
            report[name] = ERROR
        else:
            report[name] = OK
    return report


def bot_backlog_report() -> dict:
    """``{"bots": "ok" | "degraded" | "error", "bot_backlog": n}``: how many running
    games have a bot decision overdue by more than ``HEALTH_BOT_BACKLOG_SECONDS``
    (``selectors.bot_backlog``, from the database: every web process tells the same),
    ``degraded`` from ``HEALTH_BOT_BACKLOG_GAMES`` of them on (the workers fall behind:
    bots move late although every part answers); ``error`` (and a null count) when it
    cannot be read."""
    try:
        backlog = selectors.bot_backlog(timedelta(seconds=settings.HEALTH_BOT_BACKLOG_SECONDS))
    except Exception as exc:
        logger.warning("health check bots failed: %s", exc)
        return {"bots": ERROR, "bot_backlog": None}
    if backlog >= max(1, settings.HEALTH_BOT_BACKLOG_GAMES):
        logger.warning("health: %s running games have a bot decision overdue by more than %s s", backlog,
                       settings.HEALTH_BOT_BACKLOG_SECONDS)
        return {"bots": DEGRADED, "bot_backlog": backlog}
    return {"bots": OK, "bot_backlog": backlog}
