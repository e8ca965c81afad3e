#!/usr/bin/env bash
# Run the local stack in the foreground under supervisord (scripts/supervisord.conf):
# gunicorn, a Celery worker and Celery beat, each restarted when it dies.  One Ctrl-C
# or SIGTERM stops all three within 10 s.  From another shell,
# `.venv/bin/supervisorctl -s unix://$PWD/.run/supervisor.sock status` shows them.
set -euo pipefail
cd "$(dirname "$0")/.."

export APP_DIR="$PWD"
export BIN="${BIN:-$APP_DIR/.venv/bin}"
export PORT="${PORT:-8000}"
export RUN_DIR="$(realpath -m "${RUN_DIR:-.run}")"
export CELERY_LOG_LEVEL="${CELERY_LOG_LEVEL:-${LOG_LEVEL:-INFO}}"
# LOG_FORMAT=json (docs/operators/logging.md): the worker and beat print no banner
# (Celery's --quiet, which it reads from CELERY_QUIET), only their JSON log lines.
if [ "${LOG_FORMAT:-}" = json ]; then export CELERY_QUIET="${CELERY_QUIET:-1}"; fi
export CELERY_CONCURRENCY="${CELERY_CONCURRENCY:-2}"
export SUPERVISOR_LOG_LEVEL="${SUPERVISOR_LOG_LEVEL:-info}"
mkdir -p "$RUN_DIR"

echo "run.sh: serving on http://0.0.0.0:${PORT} (web, worker and beat under supervisord; Ctrl-C stops them)" >&2
exec "$BIN/supervisord" -c scripts/supervisord.conf
