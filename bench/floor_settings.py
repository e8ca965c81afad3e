"""Settings for bench/api.py: the product's settings plus the floor endpoint's app
and URLs (bench/floor_app), so one server serves both.  Never used in production."""

import os

from config.settings import *  # noqa: F401,F403
from config.settings import CACHES, INSTALLED_APPS, REDIS_URL

INSTALLED_APPS = [*INSTALLED_APPS, "bench.floor_app.apps.FloorAppConfig"]
ROOT_URLCONF = "bench.floor_app.urls"

# Keep the bench's throttle counters apart from anything else in the same Redis.
if REDIS_URL:
    CACHES = {"default": {**CACHES["default"], "KEY_PREFIX": os.environ.get("BENCH_CACHE_PREFIX", "uno_bench")}}

# Registering the bench's players is setup, not what is measured: a fast hasher
# keeps it short (the move path never hashes a password).
if os.environ.get("BENCH_FAST_PASSWORD_HASHER") == "1":
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
