"""How every process of the server logs: the web server (gunicorn, uvicorn, Django), the
Celery worker and beat.  docs/operators/logging.md says what each level shows.

- ``LOG_LEVEL`` (``INFO``): the level of the web processes' and of ``manage.py``'s logs
  (the worker's and beat's: their ``--loglevel``, which ``make run`` sets from it);
- ``LOG_LEVELS``: more levels by logger, ``name=LEVEL`` separated by commas, e.g.
  ``games=DEBUG,celery.app.trace=DEBUG`` (a logger's level counts in every process);
- ``LOG_FORMAT``: ``text`` (the default, one line a record) or ``json`` (one JSON object a
  line, with ``time``, ``level``, ``logger``, ``process`` and ``message``, and a
  record's extra fields: python-json-logger's formatter).

What every task run and every message beat sends would log at INFO (Celery's "Task ...
received", "Task ... succeeded", "Scheduler: Sending due task") is DEBUG here
(:class:`Routine`): the deadline sweeper alone runs twice a second.  Failures, retries and
refusals keep their levels.

Nothing here imports the project's other modules: the settings read it, and so does
gunicorn's configuration in its master process, before Django is set up.
"""

from __future__ import annotations

import logging
import logging.config
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: the text format of Django's, Celery's and the project's records (gunicorn keeps its own)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(process)d: %(message)s"
#: the fields of a JSON line, renamed as ``JSON_NAMES`` says; ``time`` is added (ISO 8601, UTC)
JSON_FIELDS = "%(levelname)s %(name)s %(process)d %(message)s"
JSON_NAMES = {"levelname": "level", "name": "logger"}
#: record attributes never written as JSON fields (besides the record's own bookkeeping):
#: Django's ``request`` (its text holds the query string, which may carry a ``token``) and
#: uvicorn's ``color_message`` (the message again, with terminal colours)
JSON_LEFT_OUT = ("request", "color_message")
FORMATS = ("text", "json")
#: beat's line for every message it sends (celery.beat logs it as a literal)
BEAT_SENDING = "Scheduler: Sending due task %s (%s)"


def log_format() -> str:
    """``LOG_FORMAT``: ``text`` or ``json``."""
    value = (os.environ.get("LOG_FORMAT") or "text").strip().lower()
    if value not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {value!r}")
    return value


def log_levels() -> dict[str, str]:
    """``LOG_LEVELS``: ``{logger name: level}``."""
    levels = {}
    for item in (os.environ.get("LOG_LEVELS") or "").split(","):
        if item.strip():
            name, sep, level = item.partition("=")
            if not sep or not name.strip() or level.strip().upper() not in logging.getLevelNamesMapping():
                raise ValueError(f"LOG_LEVELS: {item.strip()!r} is not name=LEVEL")
            levels[name.strip()] = level.strip().upper()
    return levels


def formatter(fmt: str, text: str = TEXT_FORMAT, datefmt: str | None = None) -> dict[str, Any]:
    """A ``logging.config`` formatter: ``text`` (this format) or one JSON object a line."""
    if fmt == "json":
        from pythonjsonlogger.core import RESERVED_ATTRS

        return {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": JSON_FIELDS, "rename_fields": JSON_NAMES,
                "timestamp": "time", "reserved_attrs": [*RESERVED_ATTRS, *JSON_LEFT_OUT]}
    return {"format": text, **({"datefmt": datefmt} if datefmt else {})}


class Routine(logging.Filter):
    """Logs Celery's routine records (a task received, a task succeeded, beat sending a
    task) at DEBUG instead of INFO: shown only where their logger is enabled for DEBUG
    (``LOG_LEVEL=DEBUG``, a worker's ``--loglevel DEBUG``, or ``LOG_LEVELS``)."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        from celery.app import trace

        self.routine = {trace.LOG_RECEIVED, trace.LOG_SUCCESS, BEAT_SENDING}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or record.msg not in self.routine:
            return True
        record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


#: the loggers whose routine records :class:`Routine` lowers
ROUTINE_LOGGERS = ("celery.app.trace", "celery.worker.strategy", "celery.beat")


def django_logging(level: str) -> dict[str, Any]:
    """Django's ``LOGGING``: every record to stdout at ``level`` and up, in ``LOG_FORMAT``,
    with ``LOG_LEVELS`` and the routine records lowered (:class:`Routine`)."""
    loggers: dict[str, dict[str, Any]] = {
        "django": {"handlers": ["stdout"], "level": level, "propagate": False},
        **{name: {"filters": ["routine"]} for name in ROUTINE_LOGGERS},
        # Celery's task loggers: configured here, so that Celery adds no handler of its own
        "celery.task": {"handlers": ["stdout"], "propagate": False},
    }
    for name, named_level in log_levels().items():
        loggers.setdefault(name, {})["level"] = named_level
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter(log_format())},
        "filters": {"routine": {"()": "config.logs.Routine"}},
        "handlers": {
            "stdout": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": "main"},
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": loggers,
    }


def configure_early() -> None:
    """With ``LOG_FORMAT=json``, before anything is logged: warnings go through logging
    (the settings warn as they are read), and the root logger writes JSON to stdout
    until Django's ``LOGGING`` (the same) takes over.  Nothing in text format."""
    if log_format() != "json":
        return
    logging.captureWarnings(True)
    root = logging.getLogger()
    if not root.handlers:
        logging.config.dictConfig({
            "version": 1,
            "disable_existing_loggers": False,
            "formatters": {"main": formatter("json")},
            "handlers": {"stdout": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout",
                                    "formatter": "main"}},
            "root": {"handlers": ["stdout"], "level": (os.environ.get("LOG_LEVEL") or "INFO").upper()},
        })


def gunicorn_logging() -> dict[str, Any]:
    """gunicorn's ``logconfig_dict``: with ``LOG_FORMAT=json``, its error log (and
    uvicorn's, which the worker class points at it) as JSON on stderr, the access log (the
    front door's, config/front_door.py) as JSON on stdout; empty in text format
    (gunicorn's own formats)."""
    if log_format() != "json":
        return {}
    stream = {"class": "logging.StreamHandler", "formatter": "json"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": formatter("json")},
        "handlers": {"stdout": {**stream, "stream": "ext://sys.stdout"},
                     "stderr": {**stream, "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stdout"], "level": (os.environ.get("LOG_LEVEL") or "INFO").upper()},
        "loggers": {
            "gunicorn.error": {"handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"handlers": ["stdout"], "propagate": False},
        },
    }


# --- What a process says it runs on (its INFO line at start) --------------------------


def describe_database(db: Mapping[str, Any]) -> str:
    """``sqlite /path/db.sqlite3`` or ``postgresql host:port/name`` (no user, no password)."""
    engine = str(db.get("ENGINE", "")).rsplit(".", 1)[-1]
    if engine.startswith("sqlite"):
        return f"sqlite {db.get('NAME')}"
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"{engine} {host}{port}/{db.get('NAME')}"


def describe_broker(url: str, options: Mapping[str, Any] | None = None) -> str:
    """``redis://host:port/db`` (a password shown as ``**``) or ``filesystem /its/folder``."""
    from kombu.utils.url import maybe_sanitize_url

    if url.startswith("filesystem:"):
        folder = (options or {}).get("data_folder_in")
        return f"filesystem {Path(folder).parent}" if folder else "filesystem"
    return maybe_sanitize_url(url)


def services(settings: Any) -> str:
    """``database: ..., broker: ...`` of these Django settings."""
    broker = describe_broker(getattr(settings, "CELERY_BROKER_URL", "") or "",
                             getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None))
    return f"database: {describe_database(settings.DATABASES['default'])}, broker: {broker}"
