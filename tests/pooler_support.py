"""PgBouncer in transaction mode in front of the test database (issue 30).

:func:`pgbouncer_for_test_database` starts Debian's ``pgbouncer`` (1.18: transaction
mode, stock settings otherwise, so no prepared statement outlives a transaction and no
unknown startup parameter passes: ``bench._stack.PgBouncer``) in front of the server of
the test database, and sets that database's ``lock_timeout`` as an operator behind a
pooler sets it (``ALTER DATABASE ... SET``: docs/operators/scaling.md).

With ``DB_POOLER=transaction`` in the environment of a PostgreSQL run, tests/conftest.py
puts the whole run behind one: once pytest-django has created the test database, the
test process, every server and worker a test starts (``tests.server_support.database_url``)
and the test's own checks all reach it through PgBouncer, e.g.::

    DB_POOLER=transaction DATABASE_URL=postgres://postgres@127.0.0.1:5432/uno \\
        REDIS_URL=redis://127.0.0.1:6379/15 .venv/bin/pytest -m concurrency tests/test_games_concurrency.py

``TEST_PGBOUNCER_PORT`` chooses its port (default: a free one).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection, connections

from bench._stack import PgBouncer

#: the run's PgBouncer, while :func:`pgbouncer_for_test_database` has one
RUN_BOUNCER: PgBouncer | None = None

#: the lock_timeout behind a pooler, as the product's DB_LOCK_TIMEOUT_MS default
LOCK_TIMEOUT_MS = 10000


def pooled_run() -> bool:
    """Whether this run goes through PgBouncer (DB_POOLER=transaction on PostgreSQL)."""
    return settings.DB_POOLER == "transaction" and connection.vendor == "postgresql"


@contextmanager
def pgbouncer_before(pg_port: int, port: int | None = None, **config: object) -> Iterator[PgBouncer]:
    """A started PgBouncer (transaction mode) in front of the PostgreSQL on
    127.0.0.1:``pg_port``; stopped, its folder removed, after the block."""
    from tests.server_support import free_port  # (imported late: conftest imports this module first)

    base = Path(tempfile.mkdtemp(prefix="uno-pgbouncer-"))
    base.chmod(0o755)  # it runs as postgres, and writes its log there
    bouncer = PgBouncer(base, port or int(os.environ.get("TEST_PGBOUNCER_PORT") or free_port()), pg_port, **config)
    try:
        bouncer.start()
        yield bouncer
    finally:
        bouncer.stop()
        shutil.rmtree(base, ignore_errors=True)


def direct_port() -> int:
    """The port of the test database's PostgreSQL itself (not of the run's PgBouncer)."""
    if RUN_BOUNCER is not None:
        return RUN_BOUNCER.pg_port
    return int(connection.settings_dict["PORT"] or 5432)


def set_lock_timeout(ms: int = LOCK_TIMEOUT_MS) -> None:
    """The test database's lock_timeout for every new session (what DB_LOCK_TIMEOUT_MS
    sends at connect without a pooler)."""
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER DATABASE {connection.ops.quote_name(connection.settings_dict['NAME'])} "
                       f"SET lock_timeout = {int(ms)}")


@contextmanager
def pgbouncer_for_test_database() -> Iterator[PgBouncer | None]:
    """Nothing (None) unless :func:`pooled_run`; then a PgBouncer in front of the test
    database's server, the run's connection settings pointed at it for the block (and
    back at the server after it, so that pytest-django drops the database directly)."""
    global RUN_BOUNCER
    if not pooled_run():
        yield None
        return
    set_lock_timeout()
    db = connection.settings_dict
    direct = (db["HOST"], db["PORT"])
    with pgbouncer_before(int(db["PORT"] or 5432)) as bouncer:
        connections.close_all()
        for d in {id(db): db, id(settings.DATABASES["default"]): settings.DATABASES["default"]}.values():
            d["HOST"], d["PORT"] = "127.0.0.1", str(bouncer.port)
        RUN_BOUNCER = bouncer
        try:
            yield bouncer
        finally:
            RUN_BOUNCER = None
            connections.close_all()
            for d in {id(db): db, id(settings.DATABASES["default"]): settings.DATABASES["default"]}.values():
                d["HOST"], d["PORT"] = direct
