"""Celery tasks of the notices app: a player's notice POSTed to their webhook."""

from __future__ import annotations

import logging
import uuid

from celery import shared_task

from notices.models import Audience, Notice
from players import webhooks

log = logging.getLogger(__name__)
DELIVERY_NAMESPACE = uuid.UUID("5b0c4f0e-3f57-4a43-8d2e-2f6e1d7c9a31")


def payload(notice: Notice) -> dict:
    """A notice's webhook body: its feed data, with ``event`` (its kind), ``notice`` (its
    id) and ``sent_at`` (when it was written)."""
    return {**notice.data, "event": notice.kind, "notice": notice.pk, "sent_at": notice.created_at.isoformat()}


def delivery_id(notice: Notice) -> str:
    """One notice always has the same ``X-Uno-Delivery`` (receivers may deduplicate)."""
    return str(uuid.uuid5(DELIVERY_NAMESPACE, f"notice:{notice.pk}"))


@shared_task(bind=True, ignore_result=True, max_retries=None)
def deliver_notice(self, notice_id: int) -> int | None:
    """POST player notice ``notice_id`` to its player's webhook (signed as the games'
    notifications are: ``players.webhooks``); retried with exponential backoff on
    network errors and 5xx/408/425/429 answers, up to ``UNO_WEBHOOK_MAX_RETRIES`` times.
    Safe twice (the same delivery id) and late (a player without a webhook by then: nothing)."""
    notice = Notice.objects.filter(pk=notice_id, audience=Audience.PLAYER).first()
    if notice is None:
        return None
    try:
        return webhooks.deliver(notice.player_id, notice.kind, payload(notice), delivery_id(notice))
    except webhooks.PermanentFailure as exc:
        log.warning("webhook of notice %s (%s) of player %s refused: %s; not retried",
                    notice_id, notice.kind, notice.player_id, exc)
        return None
    except Exception as exc:
        if self.request.retries >= webhooks.max_retries():
            log.warning("webhook of notice %s (%s) of player %s: giving up after %s attempts: %s",
                        notice_id, notice.kind, notice.player_id, self.request.retries + 1, exc)
            return None
        log.info("webhook of notice %s (%s) of player %s failed (%s); retrying", notice_id, notice.kind,
                 notice.player_id, exc)
        raise self.retry(exc=exc, countdown=webhooks.retry_delay(self.request.retries)) from None
