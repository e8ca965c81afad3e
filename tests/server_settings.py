"""Settings of the test gunicorn (tests/server_support.py): the project's own, with the
fast password hasher the in-process tests use too (conftest), so that registering many
players takes milliseconds, not half a second each."""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
