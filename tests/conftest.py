import itertools

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from players.models import Player

# DRF reads throttle rates once, at import: tests change them on the class.
GENEROUS_THROTTLE_RATES = {"anon": "100000/min", "user": "100000/min", "auth": "100000/min"}

DEFAULT_PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def _test_settings(settings, monkeypatch):
    # Fast hashing; plain static storage so pages render without collectstatic.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", dict(GENEROUS_THROTTLE_RATES))
    # Throttle counters live in the cache (Redis under `make test`): start afresh.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def throttle_rates(monkeypatch):
    """Set throttle rates for one test: ``throttle_rates(anon="2/min")``."""

    def set_rates(**rates: str) -> None:
        monkeypatch.setattr(
            SimpleRateThrottle, "THROTTLE_RATES", {**GENEROUS_THROTTLE_RATES, **rates}
        )

    return set_rates


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def make_player(db):
    """Factory: ``player, token = make_player(username=None, password=..., **fields)``.

    ``token`` is the key string to send as ``Authorization: Token <token>``.
    """
    numbers = itertools.count(1)

    def make(username: str | None = None, password: str = DEFAULT_PASSWORD, **fields):
        username = username or f"player{next(numbers)}"
        player = Player.objects.create_user(username=username, password=password, **fields)
        token = Token.objects.create(user=player)
        return player, token.key

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
