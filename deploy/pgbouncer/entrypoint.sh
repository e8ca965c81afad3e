#!/bin/sh
# The user list from the environment (DB_USER, DB_PASSWORD: PostgreSQL's own role and
# password; PgBouncer logs in to PostgreSQL with them and checks the app's with them),
# then PgBouncer in the foreground, logging to stderr.
set -eu
umask 077
printf '"%s" "%s"\n' "${DB_USER:?set DB_USER}" "${DB_PASSWORD:?set DB_PASSWORD}" > /tmp/userlist.txt
exec pgbouncer /etc/pgbouncer/pgbouncer.ini
