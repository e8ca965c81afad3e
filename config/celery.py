"""The Celery application ("uno"), configured from Django settings (CELERY_*)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("uno")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Every worker proves, every UNO_WORKER_HEARTBEAT_SECONDS, that its pool runs tasks.
app.steps["worker"].add("games.heartbeats:WorkerHeartbeat")
