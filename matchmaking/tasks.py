"""Quick play's Celery tasks: they only call services, and each is safe to run twice or late."""

from __future__ import annotations

import logging

from celery import shared_task

from config.resilience import TRANSIENT_ERRORS
from matchmaking import services

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def sweep_quickplay() -> dict | None:
    """Beat, every ``UNO_QUICKPLAY_SWEEP_SECONDS``: expiries, bot fill-ins whose wait is
    over, and now and then a full pass (``services.sweep``).  Not retried: the next sweep
    comes within a period."""
    try:
        return services.sweep()
    except TRANSIENT_ERRORS as exc:
        log.warning("quick play sweep interrupted: %s", exc)
        return None


@shared_task(ignore_result=True, autoretry_for=TRANSIENT_ERRORS, retry_backoff=1, retry_backoff_max=30,
             retry_jitter=True, max_retries=12)
def fill_with_bots(request_id: int) -> int:
    """The fast path of a request's wait for bots (a countdown sent as it was made): bots
    fill its table if it still waits and its wait is over (nothing otherwise; the sweeper
    does the same within a period)."""
    return services.fill_due(request_id)


def schedule_bots(request_id: int, after_seconds: int) -> None:
    """Send :func:`fill_with_bots` to run when the wait of ``request_id`` for bots is over
    (best effort: the sweeper is the timer, this only makes it sooner)."""
    try:
        fill_with_bots.apply_async((request_id,), countdown=after_seconds, queue="deadlines")
    except Exception:  # a broker hiccup: the sweeper fills the table within a period
        log.warning("quick play: could not send the bots' countdown of request %s", request_id, exc_info=True)
