#!/usr/bin/env bash
# Schemathesis from outside against a running server: every check, every phase
# (examples, coverage, fuzzing, stateful through the schema's links), as a signed-in
# player.  Usage: scripts/fuzz_outside.sh [BASE_URL] [extra `st run` options]
# (default http://127.0.0.1:8000; start the server with throttles raised, e.g.
# THROTTLE_ANON=100000/min THROTTLE_USER=100000/min THROTTLE_AUTH=100000/min make run,
# or the run measures the rate limiter).  Two runs: every operation but the game's GET,
# whose event streams are read for 10 s each (--request-timeout); then the game's GET
# alone, whose long-poll may rightly wait its whole `timeout` (at most 60 s) before it
# answers.  Exit status: 0 when neither found a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE="${1:-http://127.0.0.1:8000}"
shift || true
# a player of its own for each run: the first may revoke its own token (DELETE auth/tokens/{id})
token() {
    curl -sf -X POST "$BASE/api/v1/auth/register" -H 'Content-Type: application/json' \
        -d "{\"username\": \"fuzz-$(date +%s)-$RANDOM\", \"password\": \"fuzz-secret-$RANDOM-x\"}" \
        | .venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}
status=0
.venv/bin/st run "$BASE/api/schema/" --checks all -H "Authorization: Token $(token)" \
    --exclude-operation-id games_retrieve --request-timeout 10 "$@" || status=$?
# (no stateful phase: the schema's links lead away from this one operation; a long-poll
# rightly answers after its `timeout`, up to 60 s: past the 10 s that --checks all's
# max_response_time allows by default)
.venv/bin/st run "$BASE/api/schema/" --checks all -H "Authorization: Token $(token)" \
    --include-operation-id games_retrieve --request-timeout 70 --max-response-time 65 \
    --phases examples,coverage,fuzzing "$@" || status=$?
exit $status
