"""The Celery application ("uno"), configured from Django settings (CELERY_*)."""

import logging
import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

log = logging.getLogger(__name__)

app = Celery("uno")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Every worker proves, every UNO_WORKER_HEARTBEAT_SECONDS, that its pool runs tasks.
app.steps["worker"].add("games.heartbeats:WorkerHeartbeat")


# Logging: Django's LOGGING (config/logs.py), which the worker and beat apply as they
# start; Celery adds no handler of its own to loggers it finds configured, and sets the
# root logger's level to their --loglevel.  Each says what it runs on as it starts:
@signals.worker_ready.connect
def _worker_ready(sender=None, **kwargs) -> None:
    from django.conf import settings

    from config.logs import services

    worker = getattr(sender, "controller", None)
    pool = type(getattr(worker, "pool", None)).__module__.rsplit(".", 1)[-1]  # prefork, thread, ...
    log.info("worker: ready, concurrency %s (%s) (%s)", getattr(worker, "concurrency", "?"), pool,
             services(settings))


@signals.beat_init.connect
def _beat_ready(sender=None, **kwargs) -> None:
    from django.conf import settings

    from config.logs import services

    entries = getattr(getattr(sender, "scheduler", None), "schedule", {}).values()
    sends = ", ".join(f"{entry.name} ({entry.task}) {_every(entry.schedule)}" for entry in entries)
    log.info("beat: started, sending %s (%s)", sends or "nothing", services(settings))


def _every(schedule) -> str:
    run_every = getattr(schedule, "run_every", None)
    return f"every {run_every.total_seconds():g} s" if run_every is not None else str(schedule)
