"""The PostgreSQL test database made quick where no test looks (issue 25: the suite under
15 minutes).  Nothing here changes what a test can see of the database:

- A transactional test (a real server, a worker: ``django_db(transaction=True)``) ends
  with Django's flush, which on PostgreSQL is one ``TRUNCATE`` of every table: new files
  for each table and index, synced to disk, about a second each time on CI's machine
  (35 tables; some 260 such tests).  :func:`delete_to_flush` makes it ``DELETE FROM``
  each table in one transaction (the foreign keys checked at its commit, as Django
  declares them deferrable): the same empty tables in a few milliseconds.  (A flush that
  resets the sequences, which no test asks for, still truncates.)
- :func:`commit_without_waiting` sets ``synchronous_commit = off`` on the test database,
  so that every connection of the run (the test's, its servers' and workers') commits
  without waiting for the disk: another transaction sees a commit exactly as before;
  only a crash of the machine could lose the last commits, and no test crashes it.
"""

from __future__ import annotations

from django.db import connection
from django.db.backends.postgresql.operations import DatabaseOperations

_truncate = DatabaseOperations.sql_flush


#: what the flush's ``post_migrate`` writes back at once, exactly as it was (every model's
#: content type and permissions: no test makes others): left as they are
KEPT = frozenset({"django_content_type", "auth_permission"})


def _delete_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    if not tables or reset_sequences:
        return _truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
    return ["SET CONSTRAINTS ALL DEFERRED",
            *(f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))}"
              for table in tables if table not in KEPT)]


def delete_to_flush() -> None:
    """Django's flush of a PostgreSQL database by ``DELETE`` (in the test process)."""
    DatabaseOperations.sql_flush = _delete_flush


def commit_without_waiting() -> None:
    """``synchronous_commit = off`` for every connection to the test database (once it
    is created), this one included."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER DATABASE {connection.ops.quote_name(connection.settings_dict['NAME'])} "
                       "SET synchronous_commit = off")
        cursor.execute("SET synchronous_commit = off")
