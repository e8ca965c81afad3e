"""Django settings for the UNO server.

Twelve-factor: everything that differs between deployments comes from the
environment. The defaults give a working single-machine setup (SQLite and a
filesystem Celery broker under ``.run/``) so ``make run`` needs no services.
"""

import os
import warnings
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.logs import django_logging

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
    "knox",  # API tokens (hashed): players.models.ApiToken, see "API tokens" below
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "players.apps.PlayersConfig",
    "games.apps.GamesConfig",
    "notices.apps.NoticesConfig",
    "meeting.apps.MeetingConfig",
    "matchmaking.apps.MatchmakingConfig",
    "chat.apps.ChatConfig",
    "standing.apps.StandingConfig",
    "reach.apps.ReachConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # RateLimit-* headers on every /api/ response (outside the rest: the answers of any
    # layer get them, CORS preflights and errors included).
    "players.throttling.RateLimitHeadersMiddleware",
    # CORS headers on every answer, errors included; answers preflights (CORS_* below).
    "corsheaders.middleware.CorsMiddleware",
    "config.problems.TransientErrorMiddleware",
    # with a read replica: a player's writes noted, so that they read them back (config/db_router.py)
    "config.db_router.StickyWritesMiddleware",
    # 413 for a body over MAX_REQUEST_BYTES, before anything reads it.
    "config.middleware.RequestBodyLimitMiddleware",
    # whitenoise: the static files, and the documentation site at /docs/ (config/docs_site.py)
    "config.docs_site.StaticFilesMiddleware",
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

#: ``transaction``: the database is reached through a pooler in transaction mode
#: (PgBouncer), so that nothing may depend on a session (below); empty: direct connections.
DB_POOLER = env_str("DB_POOLER", "").strip().lower()
if DB_POOLER not in ("", "transaction"):
    raise ValueError(f"DB_POOLER must be empty or 'transaction', not {DB_POOLER!r}")

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default is a real database under concurrency: the web server, the
    # worker and beat all write to it.  WAL lets readers run beside the one writer;
    # every transaction takes the write lock up front (BEGIN IMMEDIATE), so two
    # transactions never deadlock upgrading a read lock (which SQLite answers with an
    # immediate "database is locked", busy timeout or not); a writer waits up to
    # SQLITE_BUSY_TIMEOUT seconds for the lock.  synchronous=NORMAL is durable in WAL
    # mode except for the last transactions before a power loss.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env_int("SQLITE_BUSY_TIMEOUT", 20),
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                "PRAGMA cache_size=-16000;"
            ),
        }
    )
    # Tests on SQLite use a file (next to the database) so that a live server, a
    # worker and the test itself share it, as in production.
    DATABASES["default"].setdefault("TEST", {})["NAME"] = env_str(
        "SQLITE_TEST_NAME", str(Path(DATABASES["default"]["NAME"]).with_suffix(".test.sqlite3"))
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    if DB_POOLER == "transaction":
        # Behind a pooler in transaction mode (PgBouncer's pool_mode = transaction) each
        # transaction, and each statement outside one, may run on another server
        # connection: nothing may rest on a session.  No startup parameter (PgBouncer
        # refuses ``options``; lock_timeout is then the role's or the database's,
        # docs/operators/scaling.md), no prepared statement (psycopg's are per server
        # connection), no server-side cursor (a cursor lives in its session).
        DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = None
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    else:
        # A statement that waits this long for a lock fails (and is retried or answered
        # 503) instead of holding a web thread or a worker forever.
        DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
            "options", f"-c lock_timeout={env_int('DB_LOCK_TIMEOUT_MS', 10000)}"
        )
        # The move path's own statements (games.selectors.sql_cursor) bind their parameters
        # server-side, and psycopg prepares one on a connection once it has run this many
        # times there: PostgreSQL then no longer plans it each time.  0: never.  Django's
        # other statements bind client-side and are never prepared.
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = env_int("DB_PREPARE_THRESHOLD", 5) or None

# A streaming replica of the primary for the reads that tolerate a little lag (game lists,
# finished games' history and scores, profiles, leaderboards): config/db_router.py.  Only
# PostgreSQL; never migrated; the primary answers those reads while the replica is down,
# tried again after DATABASE_REPLICA_RETRY_SECONDS.
DATABASE_REPLICA_RETRY_SECONDS = float(env_str("DATABASE_REPLICA_RETRY_SECONDS", "5"))
# a player's own writes: those reads of theirs go to the primary this long after each
DATABASE_REPLICA_STICKY_SECONDS = env_int("DATABASE_REPLICA_STICKY_SECONDS", 10)
if os.environ.get("DATABASE_REPLICA_URL") and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["replica"] = dj_database_url.config(
        env="DATABASE_REPLICA_URL", conn_max_age=env_int("CONN_MAX_AGE", 60), conn_health_checks=True,
    )
    DATABASES["replica"].setdefault("OPTIONS", {}).update(
        # a replica that does not answer fails fast (then the primary serves, see above)
        {"connect_timeout": env_int("DATABASE_REPLICA_CONNECT_TIMEOUT", 2),
         "prepare_threshold": DATABASES["default"]["OPTIONS"].get("prepare_threshold")},
    )
    if DB_POOLER == "transaction":  # the replica behind the pooler too
        DATABASES["replica"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    # tests: no test database of its own (the router reads the primary's in tests)
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["config.db_router.ReplicaRouter"]

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

# --- API tokens (players/tokens.py) ----------------------------------------------

# django-rest-knox keeps only each key's SHA-512 digest and its first 15 characters (the
# lookup prefix); our model adds a name, an id and last_used_at.  knox's own AuthToken
# model is swapped out, so its migrations, which would create an unused table, are off.
KNOX_TOKEN_MODEL = "players.ApiToken"
MIGRATION_MODULES = {"knox": None}
# Days a token issued without an explicit `expires_in_days` (register, auth/token, a
# password change, POST auth/tokens without it) stays valid; 0: it never expires.
UNO_TOKEN_TTL_DAYS = env_int("UNO_TOKEN_TTL_DAYS", 0)
# Tokens a player may hold at once: issuing one more revokes the least recently used.
UNO_TOKENS_PER_PLAYER = env_int("UNO_TOKENS_PER_PLAYER", 100)
REST_KNOX = {"AUTH_HEADER_PREFIX": "Token", "TOKEN_TTL": None}

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

# The documentation site (`mkdocs build` of docs/, which `make run` runs), served at /docs/
# (config/docs_site.py), a directory's URL answering its index.html.
DOCS_SITE_DIR = Path(env_str("DOCS_SITE_DIR", str(RUN_DIR / "site")))
WHITENOISE_INDEX_FILE = True

# --- Redis: cache, rate-limit counters (players/throttling.py) and Celery -----

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
    # Shared by every process through the database (`manage.py createcachetable`,
    # which `make run` runs after migrating): no process keeps state of its own.
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "uno_cache"}
    }

CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# What a task prints (the console email backend's emails, when EMAIL_HOST is unset) is logged
# at INFO, not as Celery's default WARNING: printing an email is not a problem.
CELERY_WORKER_REDIRECT_STDOUTS_LEVEL = "INFO"
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULE_FILENAME = str(RUN_DIR / "celerybeat-schedule")
# A task is acknowledged when it has run, and one whose pool process dies (killed,
# out of memory) goes back to the queue: every task is safe to run twice.  Each pool
# process reserves one task at a time, so a dying process takes no others with it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# A task stuck this long is ended (its pool process replaced); deadlines in the
# database get the game going again.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 60)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 90)
CELERY_WORKER_SEND_TASK_EVENTS = False

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    # An unacknowledged task (its worker died) is delivered again after this long; it
    # must exceed the longest countdown the server schedules (UNO_TIMER_FAST_PATH_SECONDS,
    # when set).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 900}
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
    # kombu's filesystem transport, each message written whole (config/broker.py)
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **{key: str(path) for key, path in _BROKER_FOLDERS.items()},
        "store_processed": False,
        "polling_interval": 0.1,
    }
    CELERY_RESULT_BACKEND = f"file://{_RESULTS_DIR}"
    # The filesystem transport has no event loop, so a prefork worker would use
    # billiard's blocking pool, whose processes share one queue lock: a pool process
    # killed while holding it froze the whole worker.  Threads have no such lock.
    CELERY_WORKER_POOL = "threads"

# --- Games: bots, timers, deadlines ---------------------------------------------

# Seconds a bot "thinks" before acting (0 in tests).
UNO_BOT_THINK_SECONDS = float(env_str("UNO_BOT_THINK_SECONDS", "1"))
# A robot's decision under the turn's deadline: its deadline, this long after its think
# time (what players see; the health check's bot backlog counts from it).
UNO_BOT_STALL_SECONDS = float(env_str("UNO_BOT_STALL_SECONDS", "10"))
# A bot step not run this long after it was due (its task lost with the broker's queue: a
# flushed Redis, a purged queue) is queued again by the deadline sweeper (Game.bot_due),
# then at most every 10 s while the robot still owes the decision.  A step held back by its
# owner's share of the workers is not lost, and waits for its slot.
UNO_BOT_REVIVE_SECONDS = float(env_str("UNO_BOT_REVIVE_SECONDS", "1.5"))
# The "hard" bot's search budget per decision (milliseconds).
UNO_HARD_BUDGET_MS = float(env_str("UNO_HARD_BUDGET_MS", "60"))
# Who plays a human seat on autopilot.
UNO_AUTOPILOT_LEVEL = env_str("UNO_AUTOPILOT_LEVEL", "normal")
# Consecutive timeouts after which a seat goes on autopilot.
UNO_MAX_TIMEOUTS = env_int("UNO_MAX_TIMEOUTS", 3)
# A game whose turn_seconds is at least this is a correspondence game (a day per decision,
# as quick play's correspondence tables and the meeting layer's longer challenges): an away
# player's clocks stop in it (games.away), and its seats show their time left in words.
UNO_CORRESPONDENCE_SECONDS = env_int("UNO_CORRESPONDENCE_SECONDS", 86400)
# Days a player may be away (PUT /players/me/away) per calendar month (UTC); a period that
# crosses months counts its days in each.  0: nobody may be away.
UNO_AWAY_DAYS_PER_MONTH = env_int("UNO_AWAY_DAYS_PER_MONTH", 14)
# How often celery beat sends the deadline sweeper (seconds): the timer itself.  Each
# sweep enforces the overdue deadlines many games per transaction, batch after batch
# while full batches come back, for at most this long; a deadline due before the next
# sweep gets a sweep of its own (UNO_TIMER_RESOLUTION_SECONDS, below).
UNO_SWEEP_SECONDS = float(env_str("UNO_SWEEP_SECONDS", "0.5"))
# Between beat's sweeps, a sweep that sees the next deadline (or lost bot step) fall due
# before the next one queues a sweep of its own for that moment (a message due then on the
# `deadlines` queue, one per this many seconds at most, across every worker and beat):
# deadlines are then enforced about this late plus their batch's time, whatever the beat period.
# 0: beat's sweeps only.
UNO_TIMER_RESOLUTION_SECONDS = float(env_str("UNO_TIMER_RESOLUTION_SECONDS", "0.1"))
# Overdue games one transaction of the sweeper takes (0: the default, 50).
UNO_SWEEP_BATCH_SIZE = env_int("UNO_SWEEP_BATCH_SIZE", 0)
# Deadlines at most this far away also get a countdown task of their own (a fast path
# beside the sweeper; 0: none).  Off by default: a task per move costs more than the
# sweeper's batches, and is no sooner than the sweeps the sweeper queues for the next deadline.
UNO_TIMER_FAST_PATH_SECONDS = float(env_str("UNO_TIMER_FAST_PATH_SECONDS", "0"))
# How often each worker proves that its pool runs tasks (seconds; read by the health check).
UNO_WORKER_HEARTBEAT_SECONDS = float(env_str("UNO_WORKER_HEARTBEAT_SECONDS", "5"))

# Idempotency-Key records are kept this long (hours), then pruned hourly by beat.
UNO_IDEMPOTENCY_TTL_HOURS = float(env_str("UNO_IDEMPOTENCY_TTL_HOURS", "24"))

# Live events (games.live): a comment line on an idle event stream every this many
# seconds (keeps proxies and clients from timing it out); on SQLite, how often the
# file's data_version is read while anything is subscribed (PostgreSQL: LISTEN, no polling).
LIVE_HEARTBEAT_SECONDS = float(env_str("LIVE_HEARTBEAT_SECONDS", "15"))
LIVE_SQLITE_CHECK_SECONDS = float(env_str("LIVE_SQLITE_CHECK_SECONDS", "0.1"))
# The most event streams (game streams and feeds together) one player holds open: across
# every web process when LIVE_FANOUT is redis (a lease per stream in Redis, renewed by its
# process, so that a process that dies gives its streams back within
# LIVE_STREAM_LEASE_SECONDS), else in each web process; one more answers 429 `too_many_streams`.
LIVE_MAX_STREAMS_PER_PLAYER = int(env_str("LIVE_MAX_STREAMS_PER_PLAYER", "20"))
LIVE_STREAM_LEASE_SECONDS = float(env_str("LIVE_STREAM_LEASE_SECONDS", "30"))
# How a web process's live hub learns that games changed (games.live, config.fanout):
# `redis` (the default when REDIS_URL is set): writers publish after their commit on a channel
# per game and per player, and each hub subscribes to what its streams, feeds and long-polls
# watch; `postgres`: LISTEN uno_live (a trigger on the games table; one direct connection per
# web process); `sqlite`: the file's data_version (the embedded default).
_LIVE_DEFAULT = "redis" if REDIS_URL else (
    "sqlite" if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" else "postgres")
LIVE_FANOUT = env_str("LIVE_FANOUT", "").strip().lower() or _LIVE_DEFAULT
if LIVE_FANOUT not in ("redis", "postgres", "sqlite"):
    raise ImproperlyConfigured(f"LIVE_FANOUT must be redis, postgres or sqlite, not {LIVE_FANOUT!r}")
if LIVE_FANOUT == "redis" and not REDIS_URL:
    raise ImproperlyConfigured("LIVE_FANOUT=redis needs REDIS_URL")
if LIVE_FANOUT == "postgres" and DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("LIVE_FANOUT=postgres needs PostgreSQL")
if LIVE_FANOUT == "sqlite" and DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    raise ImproperlyConfigured("LIVE_FANOUT=sqlite needs SQLite")
# With redis fan-out, how often (seconds) each hub also compares the versions of what its
# subscribers watch with the database, whatever it heard: a publish lost with Redis (a
# writer that could not reach it) is caught up within this long.
LIVE_CATCHUP_SECONDS = float(env_str("LIVE_CATCHUP_SECONDS", "5"))
# Streams, feeds and long-polls end when the token they were opened with does (revoked,
# expired, the password changed, the player deactivated): checked before every delivery
# and at least this often (seconds) while they are idle, one query per web process.
LIVE_CREDENTIALS_CHECK_SECONDS = float(env_str("LIVE_CREDENTIALS_CHECK_SECONDS", "1"))

# Quick play (matchmaking/): the turn time of each speed class (seconds per decision), how
# long a request waits at most before it expires (a request that accepts correspondence
# tables: the longer), and how often beat sends the matchmaker's sweep (bot fill-ins after
# their wait, expiries, and a full pass over the waiting requests every
# UNO_QUICKPLAY_RESCAN_SECONDS: a table that could not be created, a block lifted).
UNO_QUICKPLAY_REALTIME_TURN_SECONDS = env_int("UNO_QUICKPLAY_REALTIME_TURN_SECONDS", 30)
UNO_QUICKPLAY_CORRESPONDENCE_TURN_SECONDS = env_int("UNO_QUICKPLAY_CORRESPONDENCE_TURN_SECONDS", 86400)
UNO_QUICKPLAY_MAX_WAIT_SECONDS = env_int("UNO_QUICKPLAY_MAX_WAIT_SECONDS", 1800)
UNO_QUICKPLAY_CORRESPONDENCE_MAX_WAIT_SECONDS = env_int("UNO_QUICKPLAY_CORRESPONDENCE_MAX_WAIT_SECONDS", 7 * 86400)
UNO_QUICKPLAY_SWEEP_SECONDS = float(env_str("UNO_QUICKPLAY_SWEEP_SECONDS", "1"))
UNO_QUICKPLAY_RESCAN_SECONDS = float(env_str("UNO_QUICKPLAY_RESCAN_SECONDS", "60"))
# Rated quick play pairs players whose ratings (means, in the table's preset) are at most
# this far apart, the range widening by UNO_QUICKPLAY_RATING_WIDEN a minute of the longer
# wait of the two (the full pass every UNO_QUICKPLAY_RESCAN_SECONDS tries the widened ranges).
UNO_QUICKPLAY_RATING_RANGE = float(env_str("UNO_QUICKPLAY_RATING_RANGE", "5"))
UNO_QUICKPLAY_RATING_WIDEN = float(env_str("UNO_QUICKPLAY_RATING_WIDEN", "5"))

CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": UNO_SWEEP_SECONDS,
        # a sweep still queued this long after it was sent is dropped (sweeps never pile
        # up behind a busy pool: at most four at the default period); not less than 2 s,
        # so that a worker whose clock runs a little ahead of beat's still runs them
        "options": {"expires": max(UNO_SWEEP_SECONDS, 2.0)},
    },
    "expire-challenges-and-rematches": {
        "task": "meeting.tasks.expire_overdue",
        "schedule": float(env_str("UNO_MEETING_SWEEP_SECONDS", "10")),
        "options": {"expires": 10.0},
    },
    "prune-idempotency-records": {
        "task": "games.tasks.prune_idempotency_records",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "prune-rate-counters": {
        "task": "players.tasks.prune_rate_counters",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "prune-expired-tokens": {
        "task": "players.tasks.prune_expired_tokens",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "sweep-quickplay": {
        "task": "matchmaking.tasks.sweep_quickplay",
        "schedule": UNO_QUICKPLAY_SWEEP_SECONDS,
        # on the deadlines' queue (a backlog of bot steps never holds it up); dropped when
        # still queued after two periods, so that sweeps never pile up
        "options": {"queue": "deadlines", "expires": max(2 * UNO_QUICKPLAY_SWEEP_SECONDS, 2.0)},
    },
    # rated games whose last move could not rate them (standing.services.rate_missed)
    "rate-missed-games": {
        "task": "standing.tasks.rate_missed",
        "schedule": float(env_str("UNO_RATING_SWEEP_SECONDS", "60")),
        "options": {"expires": 60.0},
    },
}

# Deadlines have a queue of their own ("deadlines"), which every worker consumes beside
# the default one ("celery": bot steps, webhooks, pruning): a backlog of bot steps never
# holds up a timer, the sweeper (whose message expires after one period) or the heartbeat.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = {"celery": {}, "deadlines": {}}
CELERY_TASK_ROUTES = {
    name: {"queue": "deadlines"}
    for name in ("games.tasks.expire_deadline", "games.tasks.sweep_deadlines", "games.tasks.worker_heartbeat")
}

# Health check: how long the broker probe may take (seconds).
HEALTH_BROKER_TIMEOUT = float(env_str("HEALTH_BROKER_TIMEOUT", "2"))

# --- Hardening (issue 24): one player's share of games and bots ------------------
# (games/services.py checks them in the transaction that creates or joins, the player's
# row locked; 0 turns a limit off.  README "Limits".)

# Waiting games a player has created (and still holds as creator): one more is refused,
# 409 too_many_waiting_games.
UNO_MAX_WAITING_GAMES = env_int("UNO_MAX_WAITING_GAMES", 20)
# Games a player is seated in that are not finished (waiting or running, left ones
# included: the autopilot plays them on): one more created or joined is refused, 409
# too_many_games.
UNO_MAX_GAMES = env_int("UNO_MAX_GAMES", 50)
# Bot seats in the unfinished games a player has created: a game whose bots would pass it
# is refused, 409 too_many_bots.
UNO_MAX_BOT_SEATS = env_int("UNO_MAX_BOT_SEATS", 30)
# Bot steps of one owner's games (the games' creator's) queued (think time included) or
# running at once (games/botqueue.py): a step past it is held back, in the database, until
# one of the owner's steps ends (due first; the sweeper also hands free slots on, round
# robin across owners), so that one owner's many tables cannot fill the workers' queue
# ahead of everyone else's.  0: no limit.
UNO_BOT_STEPS_PER_OWNER = env_int("UNO_BOT_STEPS_PER_OWNER", 2)
# Health check (GET /api/v1/health, part "bots"): "degraded", with the count in
# bot_backlog, once at least HEALTH_BOT_BACKLOG_GAMES running games have a bot decision
# overdue by more than HEALTH_BOT_BACKLOG_SECONDS (a robot's deadline passed that long
# ago, or a step held back by its owner's share that long after it was due).
HEALTH_BOT_BACKLOG_SECONDS = float(env_str("HEALTH_BOT_BACKLOG_SECONDS", "30"))
HEALTH_BOT_BACKLOG_GAMES = env_int("HEALTH_BOT_BACKLOG_GAMES", 5)

# --- Issue 26: presence and table talk (players/presence.py, chat/) --------------------

# A player is "online" (seats of a game's view, /players/me, quick play) while seen in
# the last this many seconds: a request of theirs, or an open stream or feed (the live hub
# marks those every minute).
UNO_PRESENCE_SECONDS = env_int("UNO_PRESENCE_SECONDS", 120)
# How often each web process's live hub marks the players of its open streams and feeds
# seen (one UPDATE for all of them): less than UNO_PRESENCE_SECONDS.
LIVE_PRESENCE_TOUCH_SECONDS = float(env_str("LIVE_PRESENCE_TOUCH_SECONDS", "60"))
# Table talk (POST /games/{id}/chat): a message's text after cleaning, in characters
# (code points), at most; a body's text before cleaning at most UNO_CHAT_RAW_LENGTH.
UNO_CHAT_MAX_LENGTH = env_int("UNO_CHAT_MAX_LENGTH", 280)
UNO_CHAT_RAW_LENGTH = env_int("UNO_CHAT_RAW_LENGTH", 2000)
# Messages per player, comma-separated tiers "<count>/<number><s|m|h|d>" each a fixed
# window (as UNO_LOGIN_LOCKOUT): past one, 429 with Retry-After. Empty: no limit.
UNO_CHAT_RATE = env_str("UNO_CHAT_RATE", "5/10s,30/1m")

# --- Issue 27: standing (standing/: ratings, profiles, leaderboards) ---------------

# A rating is provisional (shown, not ranked on the leaderboard) until this many rated
# games in its preset.
UNO_RATING_PROVISIONAL_GAMES = env_int("UNO_RATING_PROVISIONAL_GAMES", 10)

# --- Issue 29: reaching players who are away (reach/: outbox, email, delivery) ----------
# docs/players/notifications.md says what is sent when; docs/operators/configuration.md.
# The server's address as players reach it: the links in emails and push messages.
# (by default the address `make run` serves on: PORT, 8000 unless set)
UNO_PUBLIC_URL = env_str("UNO_PUBLIC_URL", f"http://localhost:{env_str('PORT', '8000')}")
# The browser client's notification settings (a path of UNO_PUBLIC_URL, in every email).
UNO_REACH_SETTINGS_PATH = env_str("UNO_REACH_SETTINGS_PATH", "/#/settings")
# "Your turn" and reminders: only for turns at least this long (seconds), or without a limit.
UNO_REACH_MIN_TURN_SECONDS = env_int("UNO_REACH_MIN_TURN_SECONDS", 3600)
# "Your turn" waits this long (seconds) after the turn began, and is skipped if the player
# was seen since (a request, or an open stream: players.presence).
UNO_REACH_YOUR_TURN_DELAY_SECONDS = env_int("UNO_REACH_YOUR_TURN_DELAY_SECONDS", 300)
# Reminders before a deadline: when this fraction of the turn is left (0: none), and this
# many seconds before it (0: none).
UNO_REACH_REMIND_FRACTION = float(env_str("UNO_REACH_REMIND_FRACTION", "0.25"))
UNO_REACH_REMIND_SECONDS = env_int("UNO_REACH_REMIND_SECONDS", 3600)
# How often beat sends the outbox sweeper (seconds), and how long one sweep may deliver.
UNO_REACH_SWEEP_SECONDS = float(env_str("UNO_REACH_SWEEP_SECONDS", "10"))
UNO_REACH_SWEEP_BUDGET_SECONDS = float(env_str("UNO_REACH_SWEEP_BUDGET_SECONDS", "30"))
# Messages due at once (0), or within this many seconds, get a delivery task right after
# the commit that wrote them; the others get theirs from the sweeper that runs before they
# come due (so that a move's request queues nothing for a message due later). Keep it
# below the Redis broker's visibility timeout.
UNO_REACH_FAST_PATH_SECONDS = float(env_str("UNO_REACH_FAST_PATH_SECONDS", "0"))
# Temporary failures (the mail server down, a push service busy): retried after this many
# seconds, doubling up to the maximum, at most UNO_REACH_MAX_ATTEMPTS times in all.
UNO_REACH_RETRY_SECONDS = float(env_str("UNO_REACH_RETRY_SECONDS", "30"))
UNO_REACH_RETRY_MAX_SECONDS = float(env_str("UNO_REACH_RETRY_MAX_SECONDS", "3600"))
UNO_REACH_MAX_ATTEMPTS = env_int("UNO_REACH_MAX_ATTEMPTS", 8)
# A worker delivering a player's messages holds them this long at most (seconds): one
# killed meanwhile leaves them to the next sweep after that.
UNO_REACH_LEASE_SECONDS = float(env_str("UNO_REACH_LEASE_SECONDS", "120"))
# How long an email verification link works (hours).
UNO_REACH_VERIFY_HOURS = float(env_str("UNO_REACH_VERIFY_HOURS", "48"))
# Email: Django's mail framework. With EMAIL_HOST set, SMTP (EMAIL_PORT, EMAIL_HOST_USER,
# EMAIL_HOST_PASSWORD, EMAIL_USE_TLS / EMAIL_USE_SSL); without it, the console backend
# (emails are written to the worker's log). EMAIL_BACKEND picks any other backend.
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST
                        else "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "UNO <uno@localhost>")
CELERY_BEAT_SCHEDULE["deliver-notifications"] = {
    "task": "reach.tasks.sweep",
    "schedule": UNO_REACH_SWEEP_SECONDS,
    "options": {"expires": max(UNO_REACH_SWEEP_SECONDS, 2.0)},
}
# Delivered and skipped notifications are deleted this many days after they were due
# (beat, hourly); failed ones are kept.
UNO_REACH_KEEP_DAYS = float(env_str("UNO_REACH_KEEP_DAYS", "30"))
CELERY_BEAT_SCHEDULE["prune-notifications"] = {
    "task": "reach.tasks.prune",
    "schedule": 3600.0,
    "options": {"expires": 3600.0},
}

# --- Issue 29: push notifications (reach/push.py), each off until configured ------------
# Web Push: the VAPID key pair (`manage.py vapid_keys` makes one) and the contact the push
# services may write to (mailto: or https:). The public key may be left empty: it is derived.
UNO_VAPID_PRIVATE_KEY = env_str("UNO_VAPID_PRIVATE_KEY", "")
UNO_VAPID_PUBLIC_KEY = env_str("UNO_VAPID_PUBLIC_KEY", "")
UNO_VAPID_SUBJECT = env_str("UNO_VAPID_SUBJECT", "")
# FCM (HTTP v1): a service account's JSON key file; the project id (default: the file's).
UNO_FCM_CREDENTIALS_FILE = env_str("UNO_FCM_CREDENTIALS_FILE", "")
UNO_FCM_PROJECT_ID = env_str("UNO_FCM_PROJECT_ID", "")
UNO_FCM_ENDPOINT = env_str("UNO_FCM_ENDPOINT", "https://fcm.googleapis.com")
# APNs (token-based, HTTP/2): the .p8 key file, its key id, the team id, the app's bundle id.
UNO_APNS_KEY_FILE = env_str("UNO_APNS_KEY_FILE", "")
UNO_APNS_KEY_ID = env_str("UNO_APNS_KEY_ID", "")
UNO_APNS_TEAM_ID = env_str("UNO_APNS_TEAM_ID", "")
UNO_APNS_TOPIC = env_str("UNO_APNS_TOPIC", "")
UNO_APNS_SANDBOX = env_bool("UNO_APNS_SANDBOX", False)
UNO_APNS_ENDPOINT = env_str("UNO_APNS_ENDPOINT", "")  # default: Apple's (production or sandbox)
# Tests and development only: the one CA file push services' certificates are checked
# against (instead of the system's), and Web Push endpoints on loopback/private addresses.
UNO_PUSH_CA_BUNDLE = env_str("UNO_PUSH_CA_BUNDLE", "")
UNO_PUSH_ALLOW_PRIVATE = env_bool("UNO_PUSH_ALLOW_PRIVATE", False)

# --- HTTP: request body limit, CORS -------------------------------------------

# The largest request body accepted (bytes): a larger one answers 413 payload_too_large
# (config/middleware.py), chunked bodies included; Django's own check agrees.
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
# A refused body up to this size is read and discarded, so that the client reads the 413
# and its keep-alive connection stays usable; past it the connection is closed.
MAX_REQUEST_DRAIN_BYTES = env_int("MAX_REQUEST_DRAIN_BYTES", 8 * 1024 * 1024)

# Browser apps on these origins (comma-separated, e.g. https://app.example.com) may
# call the API; empty: no CORS headers at all.  Tokens, not cookies: no credentials.
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", "")
CORS_URLS_REGEX = r"^/api/" if CORS_ALLOWED_ORIGINS else r"(?!)"
CORS_ALLOW_HEADERS = [
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "if-none-match",
    "last-event-id",
]
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Retry-After",
    "Location",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit",
    "RateLimit-Policy",
]

# --- Security / production ----------------------------------------------------

# Behind a proxy that terminates TLS (SECURE_PROXY_SSL=1 above), README.md's
# "Deployment / security" lists the values that pass `manage.py check --deploy`.
# The defaults keep plain http://localhost (`make run`) working with no configuration.
# Answer plain-http requests with a redirect to https; /health stays reachable over
# plain http for a load balancer's or container's liveness probe.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^health$"]
# Strict-Transport-Security on https answers: seconds browsers remember to use https only.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Session and CSRF cookies (the admin's; the API uses tokens) only over https.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
# Development only: webhooks may call loopback and private addresses (players/outbound.py;
# said loudly in the log at startup and on every such call, and by `check --deploy`).
UNO_WEBHOOK_ALLOW_PRIVATE = env_bool("UNO_WEBHOOK_ALLOW_PRIVATE", False)

# --- Django REST framework / OpenAPI ---------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.authentication.ApiTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
    ],
    # Fixed windows counted atomically in Redis, or in the database without it
    # (players/throttling.py): exact across processes and nodes.
    "DEFAULT_THROTTLE_CLASSES": [
        "players.throttling.AnonRateThrottle",
        "players.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "60/min"),
        "user": env_str("THROTTLE_USER", "1200/min"),
        "auth": env_str("THROTTLE_AUTH", "30/min"),
    },
    # Proxies in front of the app, for the client IP used by anonymous throttling:
    # the client is the NUM_PROXIES-th address from the right of X-Forwarded-For.
    # 0 (default): the peer address; X-Forwarded-For, which clients can forge, is ignored.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
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
    # The health check's parts share one enum; so do the fields that take one of these choice sets.
    "ENUM_NAME_OVERRIDES": {
        "HealthPartEnum": ["ok", "error"],
        "PushPlatformEnum": "reach.models.PLATFORMS",
        "GameStatusEnum": "games.models.GameStatus.values",
        "ColorEnum": "games.engine.COLORS",
        "LevelEnum": "games.services.BOT_LEVELS",
        "DecisionEnum": "games.serializers.DECISION_TYPES",
        "RulesetEnum": "games.engine.PRESETS",
        "DeclineReasonEnum": "meeting.models.DeclineReason.values",
        "ReportReasonEnum": "chat.services.REPORT_REASONS",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # OpenAPI links from a created game to the operations on it.
        "games.schema.game_links_hook",
        # Action: one typed variant per action type, from the engine's registry.
        "games.schema.typed_actions_hook",
        # Options and Event: typed from the engine's option specs and event registry.
        "games.schema.typed_options_hook",
        "games.schema.typed_events_hook",
        # The event streams (plain async views) and their data.
        "games.schema.live_events_hook",
        # 413 on every operation that takes a body.
        "config.middleware.document_payload_too_large",
        # 503 on every operation; Retry-After on 429s and 503s, WWW-Authenticate on 401s.
        "config.problems.problem_headers_hook",
        # RateLimit-* headers on every response (it also covers the responses that the
        # hooks above add).
        "players.throttling.rate_limit_schema_hook",
        # 408, 414, 431 on every operation: the front door's own answers, before Django
        # (no RateLimit headers).
        "config.middleware.document_front_door_errors",
    ],
}

# --- Hardening (issue 24): password guesses per account, JSON depth -------------

# Attempts at one account's password (POST auth/token, and auth/password's old password),
# counted in the rate limiter's store (players/lockout.py): comma-separated tiers
# "<count>/<number><s|m|h|d>", each a fixed window; past one, 429 before the password is
# checked, until that window ends.  Empty: no per-account limit.
UNO_LOGIN_LOCKOUT = env_str("UNO_LOGIN_LOCKOUT", "5/1m,10/15m,20/1h,50/1d")
# A successful log-in's device cookie (uno_device_...) lets that client past the account's
# lock-out, counted on its own, for this many days (renewed at each log-in); 0: no cookie.
UNO_LOGIN_DEVICE_DAYS = env_int("UNO_LOGIN_DEVICE_DAYS", 90)
# JSON bodies nested deeper than this (arrays and objects) answer 400 malformed_json
# before they are parsed (config/parsers.py); 0: no limit (Python's recursion limit).
MAX_JSON_DEPTH = env_int("MAX_JSON_DEPTH", 32)
REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] = ["config.parsers.JSONParser"]
# The device cookie (Set-Cookie) on auth_token's 200, before the RateLimit hook (last).
SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"].insert(
    SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"].index("players.throttling.rate_limit_schema_hook"),
    "players.lockout.device_cookie_schema_hook",
)

# --- Logging: everything to stdout ------------------------------------------

# LOG_LEVEL, LOG_LEVELS (name=LEVEL,...) and LOG_FORMAT (text or json): config/logs.py,
# docs/operators/logging.md.
LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()

LOGGING = django_logging(LOG_LEVEL)
