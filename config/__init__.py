# LOG_FORMAT=json: JSON from the first record on, warnings included (config/logs.py).
from .logs import configure_early

configure_early()

# Load the Celery app whenever Django starts so @shared_task binds to it.
from .celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
