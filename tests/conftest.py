import itertools
import math
import os
import time
from contextlib import ExitStack
from functools import lru_cache

import pytest
import redis
from django.core.cache import cache
from rest_framework.test import APIClient

from players import throttling
from players.models import Player
from players.tokens import token_issue
from tests.pooler_support import pgbouncer_for_test_database
from tests.postgres_speed import commit_without_waiting, delete_to_flush

# No issued token or webhook secret in any log record of the run; and the shared fixtures
# (a real worker: ``worker``, ``redis_broker``; ``clients``; a module's ``gunicorn``; the
# browser tests' ``server``, ``browser`` and ``new_page``) for every test file without an
# import of its own.
pytest_plugins = ["tests.secret_leaks", "tests.server_support", "tests.celery_helpers", "tests.games_support",
                  "tests.browser_support"]

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used a server process (a module's ``server``, ``gunicorn``...)
    shows the end of that server's output beside its traceback: what the server did
    while the test waited, for a failure seen once on a loaded machine."""
    from tests.server_support import ServerProcess  # (a plugin of this file's: imported once registered)

    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == "call":
        for name, value in getattr(item, "funcargs", {}).items():
            if isinstance(value, ServerProcess):
                report.sections.append((f"the output of {name} (its end)", value.output()))


# PostgreSQL: a transactional test's flush by DELETE, commits that do not wait for the disk
# (tests/postgres_speed.py: nothing a test sees changes)
delete_to_flush()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        commit_without_waiting()
    # DB_POOLER=transaction: the whole run through a real PgBouncer (tests/pooler_support.py)
    with ExitStack() as pooled:
        with django_db_blocker.unblock():
            pooled.enter_context(pgbouncer_for_test_database())
        yield  # (its end needs no database access: the connections closed, the settings back)


# DRF reads throttle rates once, at import: tests change them on the class.
GENEROUS_THROTTLE_RATES = {"anon": "100000/min", "user": "100000/min", "auth": "100000/min"}

DEFAULT_PASSWORD = "correct-horse-battery"

# The Redis of the run (a test may point settings.REDIS_URL elsewhere).
REDIS_URL = os.environ.get("REDIS_URL", "")


@lru_cache(maxsize=1)
def _redis() -> redis.Redis:
    return redis.Redis.from_url(REDIS_URL)


def reset_caches() -> None:
    """Start a test afresh: forget Django's cache and every rate-limit count, if they are
    in Redis.  (In the database, the test's rollback, or a transactional test's flush,
    does it; and a test may not have database access yet.)"""
    if REDIS_URL:
        cache.clear()
        keys = list(_redis().scan_iter(f"{throttling.REDIS_PREFIX}*", count=1000))
        if keys:
            _redis().delete(*keys)


@pytest.fixture(autouse=True)
def _test_settings(settings, monkeypatch):
    # Fast hashing; plain static storage so pages render without collectstatic.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    monkeypatch.setattr(
        throttling.FixedWindowThrottle, "THROTTLE_RATES", dict(GENEROUS_THROTTLE_RATES)
    )
    reset_caches()
    yield
    reset_caches()


def _transactional(request) -> bool:
    marker = request.node.get_closest_marker("django_db")
    return bool(marker and marker.kwargs.get("transaction")) or "transactional_db" in request.fixturenames


@pytest.fixture(autouse=True)
def _empty_database_cache(request):
    """Without Redis the cache is a database table, which a transactional test's flush
    leaves alone (it is no model's): empty it around such a test, so that nothing cached
    (the bot slots of games.botqueue, a revival's marker) outlives it and meets a later
    test's player or game of the same id.  (A plain test's rollback undoes its writes.)"""
    clear = not REDIS_URL and _transactional(request)
    if clear:
        cache.clear()
    yield
    if clear:
        cache.clear()


@pytest.fixture
def throttle_rates(monkeypatch):
    """Set throttle rates for one test: ``throttle_rates(anon="2/min")``.

    Windows are fixed on the clock (a 2/min window ends on the minute): this also waits,
    if need be, until ``margin`` seconds are left in the current window of every rate
    given, so that the test's requests are counted in one window."""

    def set_rates(margin: float = 2.0, **rates: str) -> None:
        monkeypatch.setattr(
            throttling.FixedWindowThrottle, "THROTTLE_RATES", {**GENEROUS_THROTTLE_RATES, **rates}
        )
        parser = throttling.ScopedRateThrottle()  # its constructor needs no rate
        windows = [parser.parse_rate(rate)[1] for rate in rates.values()]
        while (left := min((w - time.time() % w for w in windows), default=math.inf)) < margin:
            time.sleep(left + 0.01)

    return set_rates


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def make_player(db):
    """Factory: ``player, token = make_player(username=None, password=..., **fields)``.

    ``token`` is the key string to send as ``Authorization: Token <token>`` (of a token
    named "test", issued as the API issues them).
    """
    numbers = itertools.count(1)

    def make(username: str | None = None, password: str = DEFAULT_PASSWORD, **fields):
        username = username or f"player{next(numbers)}"
        player = Player.objects.create_user(username=username, password=password, **fields)
        return player, token_issue(player=player, name="test").key

    return make


@pytest.fixture
def auth_client(make_player) -> APIClient:
    """An APIClient authenticated as a fresh player (``auth_client.player``)."""
    player, token = make_player()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    client.player = player
    client.token = token
    return client


@pytest.fixture
def fresh_heartbeats(db):
    """Heartbeats of a worker and of beat's sweeper, as of now: ``GET /api/v1/health``
    answers 200 for tests that run no worker or beat (tests/test_reliability.py runs
    real ones)."""
    from django.utils import timezone

    from games.models import Heartbeat

    for name in ("worker", "sweeper"):
        Heartbeat.objects.update_or_create(name=name, defaults={"at": timezone.now()})


@pytest.fixture(params=["redis", "database"])
def store(request, settings) -> str:
    """Run the test on each counter store: Redis (if this run has one), then the database."""
    if request.param == "redis" and not settings.REDIS_URL:
        pytest.skip("no Redis in this run (REDIS_URL unset)")
    if request.param == "database":
        settings.REDIS_URL = ""
    return request.param


@pytest.fixture
def named_clients(make_player):
    """Factory: ``named_clients(name)`` is an ``APIClient`` signed in as a new player of that name
    (made on first use; ``.player`` is the player), the same one for the same name."""
    from rest_framework.test import APIClient

    made = {}

    def client(name):
        if name not in made:
            player, token = make_player(name)
            c = APIClient()
            c.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            c.player = player
            made[name] = c
        return made[name]

    return client
