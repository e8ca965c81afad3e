#!/usr/bin/env bash
# Run the web server (gunicorn), a Celery worker and Celery beat in the
# foreground. Ctrl-C or SIGTERM stops all three; so does any one exiting.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.venv/bin
PORT="${PORT:-8000}"
RUN_DIR="${RUN_DIR:-.run}"
mkdir -p "$RUN_DIR"

pids=()
stopping=0

stop() {
    [[ $stopping == 1 ]] && return
    stopping=1
    echo "run.sh: stopping (pids ${pids[*]})" >&2
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

"$BIN/gunicorn" config.wsgi:application \
    --bind "0.0.0.0:${PORT}" \
    --workers "${WEB_CONCURRENCY:-2}" \
    --threads "${GUNICORN_THREADS:-4}" \
    --access-logfile - &
pids+=($!)

"$BIN/celery" -A config worker --loglevel "${CELERY_LOG_LEVEL:-INFO}" \
    --concurrency "${CELERY_CONCURRENCY:-2}" &
pids+=($!)

"$BIN/celery" -A config beat --loglevel "${CELERY_LOG_LEVEL:-INFO}" \
    --schedule "$RUN_DIR/celerybeat-schedule" &
pids+=($!)

echo "run.sh: serving on http://0.0.0.0:${PORT} (gunicorn ${pids[0]}, worker ${pids[1]}, beat ${pids[2]})" >&2

# Whichever process exits first (or a signal) brings the others down.
status=0
wait -n "${pids[@]}" || status=$?
echo "run.sh: a process exited with status $status" >&2
stop
exit "$status"
