"""No issued secret in any log record of the test run (a pytest plugin, loaded by
tests/conftest.py).

Every API token and webhook secret saved during the run is remembered, and every
log record that any logger of the test process handles (whatever its handlers, so
that a reconfiguration of logging, as a worker's ``django.setup()`` does, changes
nothing) is kept as the words it contains.  At the end of the run, none of those
secrets may be among them: the session fails otherwise.  Tests may also read a
``LogWords`` of their own (``capture()``) to check one flow at DEBUG level.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: runs of characters that a token or a secret is made of, at least as long as one
_WORD = re.compile(r"[A-Za-z0-9_\-]{20,}")
_FORMATTER = logging.Formatter("%(name)s %(levelname)s %(message)s")
#: (app label, model name, attribute): models whose instances hold a secret when saved
#: (an ApiToken stores only a digest, but carries its issued ``key`` as it is saved;
#: DRF's Token is the store of before)
SECRET_FIELDS = [("players", "ApiToken", "key"), ("players", "Webhook", "secret")]


class LogWords:
    """The words of every log record handled while it listens (``listen()``)."""

    def __init__(self) -> None:
        self.words: set[str] = set()
        self.lock = threading.Lock()
        self.records = 0
        self.levels: set[str] = set()

    def add(self, record: logging.LogRecord) -> None:
        try:
            text = _FORMATTER.format(record)  # the message, its arguments and any traceback
        except Exception:  # noqa: BLE001 (a broken record is not ours to report)
            text = str(record.msg)
        with self.lock:
            self.words.update(_WORD.findall(text))
            self.records += 1
            self.levels.add(record.levelname)

    def leaked(self, secrets: set[str]) -> set[str]:
        """The ``secrets`` that some record contained."""
        with self.lock:
            words = set(self.words)
        longer = [w for w in words if len(w) > 20]
        return {s for s in secrets if s in words or any(s in w for w in longer)}


_listeners: list[LogWords] = []
_original_call_handlers = logging.Logger.callHandlers


def _call_handlers(self: logging.Logger, record: logging.LogRecord) -> None:
    for listener in list(_listeners):
        listener.add(record)
    _original_call_handlers(self, record)


@contextmanager
def capture(level: int | None = None) -> Iterator[LogWords]:
    """Listen to every log record; with ``level``, make the root and every configured
    logger handle records from that level on meanwhile."""
    words = LogWords()
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger) and lg.level)]
    levels = [(lg, lg.level) for lg in loggers]
    if level is not None:
        for lg in loggers:
            lg.setLevel(level)
    _listeners.append(words)
    try:
        yield words
    finally:
        _listeners.remove(words)
        for lg, old in levels:
            lg.setLevel(old)


class Issued:
    """Every secret saved in the database (post_save of SECRET_FIELDS)."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()

    def on_save(self, sender, instance, **kwargs) -> None:
        for app_label, model, field in SECRET_FIELDS:
            if sender._meta.app_label == app_label and sender.__name__ == model:
                value = getattr(instance, field, None)
                if value:
                    self.secrets.add(value)


ISSUED = Issued()


def pytest_configure(config: pytest.Config) -> None:
    logging.Logger.callHandlers = _call_handlers  # type: ignore[method-assign]


def pytest_unconfigure(config: pytest.Config) -> None:
    logging.Logger.callHandlers = _original_call_handlers  # type: ignore[method-assign]


@pytest.fixture(scope="session", autouse=True)
def no_secret_in_the_logs_of_the_run():
    """Fails the run (at its last teardown) if a log record held an issued secret."""
    from django.db.models.signals import post_save

    post_save.connect(ISSUED.on_save, weak=False, dispatch_uid="tests.secret_leaks")
    with capture() as run:
        yield run
    post_save.disconnect(dispatch_uid="tests.secret_leaks")
    if leaked := run.leaked(ISSUED.secrets):  # said without the secrets themselves
        pytest.fail(f"{len(leaked)} issued secrets were logged during the run (of {run.records} records)")
