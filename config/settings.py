"""Django settings for the UNO server.

Twelve-factor: everything that differs between deployments comes from the
environment. The defaults give a working single-machine setup (SQLite and a
filesystem Celery broker under ``.run/``) so ``make run`` needs no services.
"""

import os
import warnings
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# --- Core -------------------------------------------------------------------

DEBUG = env_bool("DEBUG", False)

_DEV_SECRET_KEY = "django-insecure-dev-only-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    SECRET_KEY = _DEV_SECRET_KEY
    warnings.warn(
        "SECRET_KEY is not set: using an insecure development key. "
        "Set SECRET_KEY in the environment for any real deployment.",
        RuntimeWarning,
        stacklevel=1,
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "*")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
if env_bool("SECURE_PROXY_SSL", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Where run-time state of the local setup lives (filesystem broker, beat schedule).
RUN_DIR = Path(env_str("RUN_DIR", str(BASE_DIR / ".run")))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "players.apps.PlayersConfig",
    "games.apps.GamesConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -------------------------------------------------------------------

AUTH_USER_MODEL = "players.Player"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- I18N / time ------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (admin + Swagger UI from drf-spectacular-sidecar) ---------

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- Redis: cache (shared throttle counters) and Celery ---------------------

REDIS_URL = os.environ.get("REDIS_URL", "")

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "uno",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULE_FILENAME = str(RUN_DIR / "celerybeat-schedule")

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
else:
    # No server needed: kombu's filesystem transport. Producers (web) and
    # consumers (worker) share one folder; control_folder enables broadcast
    # (worker remote control), processed messages are not kept.
    _BROKER_DIR = RUN_DIR / "broker"
    _BROKER_FOLDERS = {
        "data_folder_in": _BROKER_DIR / "queue",
        "data_folder_out": _BROKER_DIR / "queue",
        "control_folder": _BROKER_DIR / "control",
        "processed_folder": _BROKER_DIR / "processed",
    }
    _RESULTS_DIR = RUN_DIR / "results"
    for _folder in [*_BROKER_FOLDERS.values(), _RESULTS_DIR]:
        _folder.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://localhost//"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **{key: str(path) for key, path in _BROKER_FOLDERS.items()},
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = f"file://{_RESULTS_DIR}"

# --- Games: bots, timers, deadlines ---------------------------------------------

# Seconds a bot "thinks" before acting (0 in tests).
UNO_BOT_THINK_SECONDS = float(env_str("UNO_BOT_THINK_SECONDS", "1"))
# A bot that has not acted this long after its think time is revived by the sweeper.
UNO_BOT_STALL_SECONDS = float(env_str("UNO_BOT_STALL_SECONDS", "30"))
# The "hard" bot's search budget per decision (milliseconds).
UNO_HARD_BUDGET_MS = float(env_str("UNO_HARD_BUDGET_MS", "60"))
# Who plays a human seat on autopilot.
UNO_AUTOPILOT_LEVEL = env_str("UNO_AUTOPILOT_LEVEL", "normal")
# Consecutive timeouts after which a seat goes on autopilot.
UNO_MAX_TIMEOUTS = env_int("UNO_MAX_TIMEOUTS", 3)
# Deadlines at most this far away also get a countdown task (the fast path);
# every deadline is enforced by the sweeper in any case.
UNO_TIMER_FAST_PATH_SECONDS = float(env_str("UNO_TIMER_FAST_PATH_SECONDS", "300"))
# How often celery beat runs the deadline sweeper (seconds).
UNO_SWEEP_SECONDS = float(env_str("UNO_SWEEP_SECONDS", "5"))

# Idempotency-Key records are kept this long (hours), then pruned hourly by beat.
UNO_IDEMPOTENCY_TTL_HOURS = float(env_str("UNO_IDEMPOTENCY_TTL_HOURS", "24"))

CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": UNO_SWEEP_SECONDS,
        "options": {"expires": UNO_SWEEP_SECONDS},
    },
    "prune-idempotency-records": {
        "task": "games.tasks.prune_idempotency_records",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
}

# Health check: how long the broker probe may take (seconds).
HEALTH_BROKER_TIMEOUT = float(env_str("HEALTH_BROKER_TIMEOUT", "2"))

# --- Django REST framework / OpenAPI ---------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "60/min"),
        "user": env_str("THROTTLE_USER", "1200/min"),
        "auth": env_str("THROTTLE_AUTH", "30/min"),
    },
    # Proxies in front of the app, for the client IP used by anonymous throttling.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0) if os.environ.get("NUM_PROXIES") else None,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "config.problems.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "UNO server API",
    "DESCRIPTION": (
        "A REST server for playing UNO. Authenticate with `Authorization: Token <key>`. "
        "Errors are RFC 9457 problem details (`application/problem+json`) with a machine `code`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Logging: everything to stdout ------------------------------------------

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(process)d: %(message)s"},
    },
    "handlers": {
        "stdout": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "plain",
        },
    },
    "root": {"handlers": ["stdout"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["stdout"], "level": LOG_LEVEL, "propagate": False},
    },
}
