#!/bin/sh
# For the optional replica of docker-compose.yml (mounted into the primary's
# /docker-entrypoint-initdb.d/ when the replica is on; run once, when the data volume is
# created): let other containers connect for streaming replication with a password.
set -e
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
