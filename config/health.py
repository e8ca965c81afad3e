"""Health checks of the backing services (database, Celery broker)."""

import logging

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

OK = "ok"
ERROR = "error"


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


CHECKS = {"database": check_database, "broker": check_broker}


def health_report() -> dict[str, str]:
    """{"database": "ok" | "error", "broker": "ok" | "error"}."""
    report = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception:
            logger.warning("health check %s failed", name, exc_info=True)
            report[name] = ERROR
        else:
            report[name] = OK
    return report
