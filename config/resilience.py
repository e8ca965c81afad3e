"""Transient failures: a locked SQLite database, a dropped or refused database
connection, a lock PostgreSQL gave up waiting for, an unreachable broker.

They are not bugs: the same work succeeds a moment later.  A request that meets one
answers 503 ``unavailable`` with ``Retry-After`` and changes nothing (its transaction
is rolled back; config.problems); a Celery task that meets one is retried with
backoff (games.tasks).
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

#: exceptions worth a retry; everything else is a bug or a refusal
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, BrokerError)

#: seconds a client is asked to wait after a 503
RETRY_AFTER_SECONDS = 1


def is_transient(exc: BaseException) -> bool:
    return isinstance(exc, TRANSIENT_ERRORS)
