"""Celery tasks of reach: they only call the delivery and the services."""

from __future__ import annotations

import logging

from celery import shared_task

from reach import delivery

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def deliver(player_id: int) -> int:
    """Deliver the player's due messages (queued after the commit that wrote them, at
    their due time: the fast path; safe twice and late)."""
    return delivery.deliver_player(player_id)


@shared_task(ignore_result=True)
def sweep() -> int:
    """Every due message of every player (beat, every UNO_REACH_SWEEP_SECONDS)."""
    return delivery.sweep()


@shared_task(ignore_result=True)
def prune() -> int:
    """Delete delivered and skipped rows older than UNO_REACH_KEEP_DAYS (beat, hourly)."""
    return delivery.prune()


@shared_task(bind=True, ignore_result=True, max_retries=None)
def send_verification(self, player_id: int, address: str) -> bool:
    """The verification email of ``address`` (if it is still the player's, unverified),
    retried with backoff while the mail server is down."""
    from reach.models import Preferences
    from reach.services import verification_mail

    prefs = Preferences.objects.filter(pk=player_id, email=address, email_verified=False).first()
    if prefs is None:
        return False
    try:
        delivery._send_email([verification_mail(player_id, address)])
    except delivery.Temporary as exc:
        if self.request.retries >= 8:
            log.warning("verification email of player %s: giving up (%s)", player_id, exc)
            return False
        raise self.retry(countdown=delivery.backoff(self.request.retries + 1)) from None
    return True
