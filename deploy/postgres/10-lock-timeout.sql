-- Behind PgBouncer in transaction mode the app cannot send lock_timeout at connect
-- (DB_LOCK_TIMEOUT_MS): the role carries it instead (run once, when the data volume is
-- created; docs/operators/scaling.md#pgbouncer).
ALTER ROLE postgres SET lock_timeout = '10s';
