"""Heartbeats of the background parts, kept in the database (games.models.Heartbeat)
so that every web process and node reads the same truth.

* ``worker``: every worker sends itself the ``worker_heartbeat`` task every
  ``UNO_WORKER_HEARTBEAT_SECONDS`` (the :class:`WorkerHeartbeat` bootstep, on the
  worker's timer); a pool process running it records the time.  A worker whose pool
  runs nothing (or no worker at all) stops refreshing it.
* ``sweeper``: the deadline sweeper, sent by beat every ``UNO_SWEEP_SECONDS``,
  records when it ran to its end.  A dead beat (or no worker) stops refreshing it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import bootsteps
from django.conf import settings
from django.utils import timezone

from games.models import Heartbeat

log = logging.getLogger(__name__)

WORKER = "worker"
SWEEPER = "sweeper"


def beat(name: str) -> None:
    Heartbeat.objects.update_or_create(name=name, defaults={"at": timezone.now()})


def last(name: str) -> datetime | None:
    return Heartbeat.objects.filter(name=name).values_list("at", flat=True).first()


def max_age(name: str) -> timedelta:
    """How old a heartbeat may be before its part counts as down: three periods plus
    a little slack, so one late or lost beat is not an alarm."""
    period = settings.UNO_WORKER_HEARTBEAT_SECONDS if name == WORKER else settings.UNO_SWEEP_SECONDS
    return timedelta(seconds=3 * period + 5)


def fresh(at: datetime | None, name: str) -> bool:
    """Whether ``name``'s heartbeat at ``at`` (``last(name)``) is recent enough."""
    return at is not None and timezone.now() - at <= max_age(name)


class WorkerHeartbeat(bootsteps.StartStopStep):
    """Worker bootstep: on the worker's own timer, send ``worker_heartbeat`` through the
    broker (so it proves the whole path: broker, consumer, pool)."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.tref = None

    def start(self, worker):
        interval = settings.UNO_WORKER_HEARTBEAT_SECONDS
        self.tref = worker.timer.call_repeatedly(interval, self.send, (worker.app, interval), priority=10)
        self.send(worker.app, interval)

    def stop(self, worker):
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

    @staticmethod
    def send(app, interval: float) -> None:
        try:
            app.send_task("games.tasks.worker_heartbeat", expires=3 * interval)
        except Exception:  # the broker is down: the heartbeat goes stale, as it should
            log.warning("could not send the worker heartbeat", exc_info=True)
