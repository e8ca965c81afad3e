"""Celery tasks of the meeting app: they only call services."""

from __future__ import annotations

from celery import shared_task

from config.resilience import TRANSIENT_ERRORS
from meeting import services


@shared_task(ignore_result=True, autoretry_for=TRANSIENT_ERRORS, retry_backoff=1, retry_backoff_max=30,
             max_retries=3)
def expire_overdue() -> int:
    """Beat (every ``UNO_MEETING_SWEEP_SECONDS``): pending challenges and rematch offers
    past their time are expired, their parties told.  Safe twice and late."""
    return services.expire_overdue()
