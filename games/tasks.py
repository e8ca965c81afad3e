"""Celery tasks: they only call services, and each is safe to run twice or late.

Results are ignored (no result backend traffic); the return values are for logs
and for the ``task_postrun`` signal.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from config.resilience import TRANSIENT_ERRORS
from games import heartbeats, robots

log = logging.getLogger(__name__)

#: A task that meets a transient failure (a locked or unreachable database, a broker
#: hiccup) is retried with exponential backoff and jitter (about 0.5, 1, 2, 4 ... s, at
#: most 30 s apart).  Each retry re-checks the game, so a retry never acts twice, and
#: if every retry fails the deadline in the database still gets the game moving.
RETRIED = {
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 12,
}


def _redelivered(request) -> bool:
    """Whether this run is a message handed back after its pool process died."""
    return bool((request.delivery_info or {}).get("redelivered") or (request.headers or {}).get("redelivered"))


def _moved_on(request, game_id: int) -> None:
    """A redelivered task found its game moved on: the process that died may have
    committed the move and died before it queued the move's follow-ups (they are sent
    after the commit), so queue them again for the game's current version.  Twice is
    harmless (every task re-checks the version); a redelivery is rare, and the
    follow-ups are fresh messages, so this never chains."""
    if _redelivered(request):
        robots.resume(game_id)


@shared_task(bind=True, ignore_result=True, **RETRIED)
def bot_step(self, game_id: int, version: int, lease: list | None = None) -> bool:
    """Let the bots of ``game_id`` act if the game is still at ``version`` (in a slot of
    its owner's share of the workers: ``lease``, the one it was queued with, else one it
    takes: ``games.botqueue``)."""
    if robots.bot_step(game_id, version, lease):
        return True
    _moved_on(self.request, game_id)
    return False


@shared_task(bind=True, ignore_result=True, **RETRIED)
def expire_deadline(self, game_id: int, version: int) -> bool:
    """Countdown of a short deadline (the fast path, sent only when
    ``UNO_TIMER_FAST_PATH_SECONDS`` is set): act for the late seat if nothing moved
    since."""
    if robots.expire_deadline(game_id, version):
        return True
    _moved_on(self.request, game_id)
    # A countdown may fire a little before the deadline (clocks, timer resolution):
    # come back then rather than leave it to the next sweep.
    left = robots.seconds_to_deadline(game_id, version)
    if left is not None and left <= settings.UNO_TIMER_FAST_PATH_SECONDS:
        expire_deadline.apply_async((game_id, version), countdown=left)
    return False


@shared_task(ignore_result=True)
def sweep_deadlines(woken: bool = False) -> int | None:
    """Beat, every ``UNO_SWEEP_SECONDS``: enforce the overdue deadlines found in the
    database, batch after batch, queue again the bot steps that were lost, hand the free
    slots of the owners' shares to the bot steps held back that are due (round robin
    across owners), then record that the sweep ran to its end (the health check reads
    it).  ``woken``: a sweep that a sweep queued for the next deadline between beat's
    (``scheduling.queue_sweep``): the deadlines only.  Not retried: the next sweep comes
    within a period (and the messages expire, so sweeps never pile up behind a busy
    pool)."""
    try:
        done = robots.sweep_deadlines()
        if not woken:
            robots.dispatch_deferred()  # bot steps held back by their owner's share
    except TRANSIENT_ERRORS as exc:  # a database restarting: the next sweep takes over
        log.warning("deadline sweep interrupted: %s", exc)
        return None
    if not woken:
        heartbeats.beat(heartbeats.SWEEPER)
    return done


@shared_task(ignore_result=True)
def worker_heartbeat() -> None:
    """Sent by every worker to itself (games.heartbeats.WorkerHeartbeat): running it
    proves that a pool process takes and runs tasks."""
    heartbeats.beat(heartbeats.WORKER)


@shared_task(ignore_result=True, **RETRIED)
def prune_idempotency_records() -> int:
    """Beat (hourly): forget ``Idempotency-Key`` records older than their time to live."""
    from games import services

    return services.prune_idempotency_records()


@shared_task(bind=True, ignore_result=True, max_retries=None)
def deliver_webhook(self, player_id: int, event: str, payload: dict, delivery_id: str) -> int | None:
    """POST one signed notification; retried with exponential backoff on network
    errors and 5xx/408/429 answers, up to ``UNO_WEBHOOK_MAX_RETRIES`` times."""
    from games import notifications

    try:
        return notifications.deliver(player_id, event, payload, delivery_id)
    except notifications.PermanentFailure as exc:
        log.warning("webhook %s (%s) of player %s refused: %s; not retried", delivery_id, event, player_id, exc)
        return None
    except Exception as exc:
        if self.request.retries >= notifications.max_retries():
            log.warning("webhook %s (%s) of player %s: giving up after %s attempts: %s",
                        delivery_id, event, player_id, self.request.retries + 1, exc)
            return None
        log.info("webhook %s (%s) of player %s failed (%s); retrying", delivery_id, event, player_id, exc)
        raise self.retry(exc=exc, countdown=notifications.retry_delay(self.request.retries)) from None
