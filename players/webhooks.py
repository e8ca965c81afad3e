"""Delivering one notification to a player's webhook: the generic part, shared by the
games' notifications (``games.notifications``: game started, your turn...) and the
players' notices (``notices.tasks``: a challenge received, a rematch offered...).

The JSON body is signed with HMAC-SHA256 (``X-Uno-Signature``), POSTed through
``players.outbound`` (no request forgery against our own network; a redirect is never
followed), and the answer sorted into success, a failure worth retrying
(:class:`TemporaryFailure`: network errors, 5xx, 408, 425, 429) and a final one
(:class:`PermanentFailure`: other 4xx, a redirect, a URL that leads to a non-public
address).  The Celery task that calls :func:`deliver` retries with :func:`retry_delay`
up to :func:`max_retries` times.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random

from django.conf import settings

from players import outbound
from players.models import Webhook

USER_AGENT = "uno-server-webhooks/1"
#: retries of a failed delivery: base * 2**n seconds (capped), with jitter;
#: settings UNO_WEBHOOK_RETRY_BACKOFF_SECONDS / UNO_WEBHOOK_MAX_RETRIES override
RETRY_BACKOFF_SECONDS = 5.0
RETRY_BACKOFF_MAX_SECONDS = 3600.0
MAX_RETRIES = 10
#: answers worth retrying besides 5xx
RETRY_STATUSES = {408, 425, 429}


class PermanentFailure(Exception):
    """The notification cannot be delivered for good (a 4xx answer, a redirect, a URL
    that leads to a non-public address)."""


class TemporaryFailure(Exception):
    """The endpoint answered with a status worth retrying (5xx, 408, 425, 429)."""


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def retry_delay(retries: int) -> float:
    """Seconds before retry number ``retries + 1``: exponential, capped, jittered."""
    base = float(getattr(settings, "UNO_WEBHOOK_RETRY_BACKOFF_SECONDS", RETRY_BACKOFF_SECONDS))
    return min(base * 2**retries, RETRY_BACKOFF_MAX_SECONDS) * random.uniform(0.5, 1.0)


def max_retries() -> int:
    return int(getattr(settings, "UNO_WEBHOOK_MAX_RETRIES", MAX_RETRIES))


def deliver(player_id: int, event: str, payload: dict, delivery_id: str) -> int | None:
    """POST ``payload`` (signed) to ``player_id``'s webhook.  Returns the HTTP status, or
    None when the player has no webhook (any more).  Raises PermanentFailure for an
    answer not worth retrying, any other exception for one that is."""
    hook = Webhook.objects.filter(player_id=player_id).first()
    if hook is None:
        return None
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Uno-Event": event,
        "X-Uno-Delivery": delivery_id,
        "X-Uno-Signature": sign(hook.secret, body),
    }
    try:  # the host is resolved and checked again: it may lead elsewhere by now
        resp = outbound.post(hook.url, body, headers, allow_private=outbound.private_targets_allowed())
    except outbound.Refused as exc:  # never the URL in the message: it may hold a secret
        raise PermanentFailure(f"the URL {exc.reason}") from None
    return outcome(resp.status)


def outcome(status: int) -> int:
    """The status of a delivered notification; TemporaryFailure or PermanentFailure
    for an answer that is not a success (a redirect is never followed)."""
    if 200 <= status < 300:
        return status
    if status >= 500 or status in RETRY_STATUSES:
        raise TemporaryFailure(f"HTTP {status}")
    raise PermanentFailure(f"HTTP {status}")
