"""Rate limiting (players/throttling.py): exact fixed-window counters shared by every
process, in Redis or in the database, and RateLimit-* headers on every API response.

The tests marked ``concurrency`` also run on SQLite without Redis (``make test``),
where the counters are the database's."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis
import requests
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

from config.celery import app as celery_app
from players import tasks, throttling
from players.models import Player, RateCounter
from tests.helpers import assert_problem
from tests.server_support import database_url, free_port

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
TOKEN_URL = "/api/v1/auth/token"
REGISTER_URL = "/api/v1/auth/register"
RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"]
# Nothing listens there: a Redis that is down.
DEAD_REDIS_URL = "redis://127.0.0.1:1/0"


def rate_limit(response) -> tuple[int, int, int, str]:
    """(limit, remaining, reset, policy) of a response; every header must be there."""
    headers = response.headers
    missing = [name for name in RATE_LIMIT_HEADERS if name not in headers]
    assert not missing, f"{response.status_code} lacks {missing}"
    limit, remaining, reset = (int(headers[name]) for name in RATE_LIMIT_HEADERS[:3])
    return limit, remaining, reset, headers["RateLimit-Policy"]


def post_token(client, **extra):
    """A token request that fails validation: counted, but cheap (no password hashing)."""
    return client.post(TOKEN_URL, {}, format="json", **extra)


# --- Headers ----------------------------------------------------------------------


def test_headers_count_down_for_the_most_restrictive_policy(api, throttle_rates):
    throttle_rates(anon="5/min", auth="3/min")

    seen = [rate_limit(post_token(api)) for _ in range(3)]

    assert [remaining for _, remaining, _, _ in seen] == [2, 1, 0]
    for limit, _, reset, policy in seen:
        assert limit == 3
        assert 1 <= reset <= 60
        assert policy == "3;w=60, 5;w=60"  # the reported one first, then every other


def test_the_anonymous_bucket_is_shared_by_every_view(api, throttle_rates):
    throttle_rates(anon="2/min", auth="10/min")

    assert rate_limit(post_token(api))[:2] == (2, 1)
    assert rate_limit(api.get("/api/schema/"))[:2] == (2, 0)  # anon counts across views


def test_429_after_the_limit_with_retry_after(api, throttle_rates):
    throttle_rates(auth="2/min")

    for _ in range(2):
        assert post_token(api).status_code == 400
    response = post_token(api)

    body = assert_problem(response, 429, "throttled")
    limit, remaining, reset, _ = rate_limit(response)
    assert (limit, remaining) == (2, 0)
    assert int(response["Retry-After"]) == body["retry_after"] == reset
    assert 1 <= reset <= 60


def test_players_have_their_own_buckets(auth_client, make_player, throttle_rates, api):
    throttle_rates(user="3/min")

    assert [rate_limit(auth_client.get("/api/v1/players/me"))[1] for _ in range(3)] == [2, 1, 0]
    assert_problem(auth_client.get("/api/v1/players/me"), 429, "throttled")

    _, other_token = make_player()
    api.credentials(HTTP_AUTHORIZATION=f"Token {other_token}")
    assert rate_limit(api.get("/api/v1/players/me"))[:2] == (3, 2)


def test_responses_no_throttle_counted_report_the_bucket_without_charging_it(api, throttle_rates):
    throttle_rates(anon="5/min")
    assert rate_limit(api.get("/api/schema/"))[:2] == (5, 4)

    for response in [
        api.get("/api/v1/health"),  # no throttles
        api.get("/api/v1/health"),
        api.get("/api/v1/no-such-thing"),  # Django's 404, no view
        api.get("/api/v1/players/me"),  # 401: DRF authenticates before throttling
        api.get("/api/v1/players/me", HTTP_AUTHORIZATION="Token not-a-token"),
    ]:
        assert response.status_code in (200, 401, 404, 503)  # health: 503 without a worker
        assert rate_limit(response)[:2] == (5, 4), response.status_code

    assert rate_limit(api.get("/api/schema/"))[:2] == (5, 3)


def test_error_responses_carry_the_headers(api, auth_client, throttle_rates, settings):
    throttle_rates(anon="50/min", user="40/min")
    settings.MAX_REQUEST_BYTES = 64

    assert_problem(api.get("/api/v1/nope"), 404, "not_found")
    for response in [
        api.get("/api/v1/nope"),
        api.get("/api/v1/players/me"),
        api.post(TOKEN_URL, "{", content_type="application/json"),
        api.post(TOKEN_URL, "a=b", content_type="text/plain"),
        api.post(TOKEN_URL, "{}".ljust(100), content_type="application/json"),  # refused before auth
        api.get(TOKEN_URL),
        auth_client.get("/api/v1/games/999999999"),
    ]:
        assert response.status_code in (400, 401, 404, 405, 413, 415), response.status_code
        rate_limit(response)
    assert rate_limit(auth_client.get("/api/v1/games/999999999"))[:2] == (40, 38)


def test_paths_outside_the_api_get_no_headers(api):
    response = api.get("/health")

    assert response.status_code == 200
    assert not any(name in response for name in RATE_LIMIT_HEADERS)


# --- Client identity ----------------------------------------------------------------


def test_a_forged_x_forwarded_for_does_not_get_a_fresh_bucket(api, throttle_rates):
    throttle_rates(auth="1/min")

    assert post_token(api, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 400
    assert_problem(post_token(api, HTTP_X_FORWARDED_FOR="198.51.100.2"), 429, "throttled")


def test_behind_proxies_the_forwarded_client_is_counted(api, throttle_rates, settings, store):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    throttle_rates(auth="1/min")

    assert post_token(api, HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.1").status_code == 400
    assert_problem(post_token(api, HTTP_X_FORWARDED_FOR="198.51.100.1"), 429, "throttled")
    assert post_token(api, HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 400
    # whatever a misconfigured proxy passes on fits the store
    huge = "x" * 5000
    assert post_token(api, HTTP_X_FORWARDED_FOR=huge).status_code == 400
    assert_problem(post_token(api, HTTP_X_FORWARDED_FOR=huge), 429, "throttled")


# --- Stores -----------------------------------------------------------------------------


def test_the_redis_store_is_used_when_redis_url_is_set(api, settings):
    if not settings.REDIS_URL:
        pytest.skip("no Redis in this run (REDIS_URL unset)")

    limit, remaining, _, _ = rate_limit(post_token(api))

    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = {key.decode() for key in client.scan_iter(f"{throttling.REDIS_PREFIX}auth:127.0.0.1:*")}
    assert len(keys) == 1
    assert int(client.get(keys.pop())) == limit - remaining == 1
    assert not RateCounter.objects.exists()


@pytest.mark.concurrency
def test_the_database_store_is_used_without_redis(api, settings):
    settings.REDIS_URL = ""

    post_token(api)
    post_token(api)

    counters = dict(RateCounter.objects.values_list("key", "count"))
    assert counters == {"anon:127.0.0.1": 2, "auth:127.0.0.1": 2}
    if os.environ.get("REDIS_URL"):
        client = redis.Redis.from_url(os.environ["REDIS_URL"])
        assert not list(client.scan_iter(f"{throttling.REDIS_PREFIX}*"))


@pytest.mark.concurrency
def test_a_window_counts_then_restarts_at_its_end(store):
    window_end = (int(time.time()) // 60 + 2) * 60  # a window to come: its Redis key lives on
    start = window_end - 60

    usages = [throttling.measure("test:me", 2, 60, start + 10.5) for _ in range(3)]

    assert [(u.count, u.allowed, u.remaining, u.reset) for u in usages] == [
        (1, True, 1, 50), (2, True, 0, 50), (3, False, 0, 50),
    ]
    assert throttling.measure("test:me", 2, 60, start + 59, charge=False).count == 3
    assert throttling.measure("test:other", 2, 60, start + 59).count == 1
    after = throttling.measure("test:me", 2, 60, window_end + 0.2)
    assert (after.count, after.allowed, after.reset) == (1, True, 60)


@pytest.mark.concurrency
def test_a_node_whose_clock_is_behind_counts_in_the_current_window(settings):
    settings.REDIS_URL = ""
    window_end = (int(time.time()) // 60 + 2) * 60

    throttling.measure("test:me", 5, 60, window_end + 1)  # the next window has begun
    late = throttling.measure("test:me", 5, 60, window_end - 1)  # a node 2 s behind

    assert (late.count, late.reset) == (2, 61)
    assert RateCounter.objects.get(key="test:me").resets_at == window_end + 60


@pytest.mark.concurrency
def test_ended_windows_are_pruned_hourly(settings):
    settings.REDIS_URL = ""
    now = time.time()
    throttling.measure("test:minute", 5, 60, now - 120)
    throttling.measure("test:hour", 5, 3600, now - 7200)
    throttling.measure("test:day", 5, 86400, now)

    assert tasks.prune_rate_counters.apply().get() == 2  # the beat task, run eagerly

    assert list(RateCounter.objects.values_list("key", flat=True)) == ["test:day"]
    assert throttling.prune_counters(now + 86400) == 1
    entry = settings.CELERY_BEAT_SCHEDULE["prune-rate-counters"]
    assert entry["task"] == tasks.prune_rate_counters.name
    assert entry["task"] in celery_app.tasks
    assert entry["schedule"] == 3600


def test_an_unreachable_redis_fails_open_with_a_warning(api, settings, throttle_rates, caplog):
    settings.REDIS_URL = DEAD_REDIS_URL
    throttle_rates(auth="1/min")
    caplog.set_level(logging.WARNING, logger="players.throttling")

    responses = [post_token(api) for _ in range(3)]

    assert [r.status_code for r in responses] == [400, 400, 400]
    assert rate_limit(responses[0])[:2] == (1, 1)
    warnings = [r for r in caplog.records if r.name == "players.throttling"]
    assert warnings and "let through" in warnings[0].getMessage()
    # after a failure Redis is not tried again for a while: no timeout per request
    assert len(warnings) == 1
    assert api.get("/api/v1/health").status_code in (200, 503)


# --- Concurrency: exact counts across threads and processes ------------------------------


def _at_once(base_url: str, count: int, send) -> list[requests.Response]:
    """``send(session, i)`` from ``count`` threads released together; every response.

    Each thread first opens a keep-alive connection (a GET that charges nothing, retried
    if refused), so that the requests race in the server, not in its listen queue (the
    test server's holds 10 connections)."""
    barrier = threading.Barrier(count)

    def run(i: int) -> requests.Response:
        with requests.Session() as session:
            session.mount(base_url, HTTPAdapter(max_retries=Retry(total=10, backoff_factor=0.05)))
            assert session.get(f"{base_url}/api/v1/no-such-thing", timeout=60).status_code == 404
            barrier.wait(timeout=60)
            return send(session, i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_exactly_the_limit_passes_under_concurrency(live_server, store, throttle_rates):
    throttle_rates(margin=60, auth="30/day")
    url = live_server.url + REGISTER_URL

    responses = _at_once(live_server.url, 60, lambda session, i: session.post(
        url, json={"username": f"racer{i}", "password": "correct-horse-battery"}, timeout=60))

    assert Counter(r.status_code for r in responses) == {201: 30, 429: 30}, \
        [r.text for r in responses if r.status_code not in (201, 429)]
    assert Player.objects.count() == 30
    assert sorted(int(r.headers["RateLimit-Remaining"]) for r in responses if r.status_code == 201) == list(range(30))


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_gunicorn_workers_share_the_counters(settings, throttle_rates, tmp_path):
    limit, extra = 12, 12
    throttle_rates(margin=60, auth=f"{limit}/day")  # here only to wait for a fresh window
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    access_log = tmp_path / "access.log"
    env = {
        **{k: v for k, v in os.environ.items() if k != "GUNICORN_CMD_ARGS"},
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",  # nothing left connected to the test database
        "REDIS_URL": settings.REDIS_URL,
        "THROTTLE_AUTH": f"{limit}/day",
        "THROTTLE_ANON": "100000/min",
        "THROTTLE_USER": "100000/min",
    }
    server_log = tmp_path / "gunicorn.log"
    with server_log.open("w") as log:
        server = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "--workers", "2",
             "--bind", f"127.0.0.1:{port}", "--access-logfile", str(access_log),
             "--access-logformat", "%(p)s %(s)s", "config.wsgi:application"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    def workers() -> set[str]:  # the access log names the worker process (%(p)s) of each answer
        return {line.split()[0] for line in access_log.read_text().splitlines() if line.endswith(("400", "429"))}

    try:
        _wait_until_up(base, server, server_log)
        responses = _at_once(base, limit + extra, lambda session, i: session.post(
            f"{base}{TOKEN_URL}", json={}, timeout=60))
        # Which worker accepts a connection is the kernel's choice: on a busy machine one
        # may take a whole burst.  Then more bursts until the other has answered too; a
        # worker that refuses once the limit is spent elsewhere shares the counters.
        for _ in range(30):
            if len(workers()) == 2:
                break
            responses += _at_once(base, 6, lambda session, i: session.post(f"{base}{TOKEN_URL}", json={}, timeout=60))
    finally:
        server.terminate()
        server.wait(timeout=30)

    counts = Counter(r.status_code for r in responses)
    assert counts == {400: limit, 429: len(responses) - limit}, server_log.read_text()[-3000:]
    assert len(workers()) == 2, "both worker processes answered"


def _wait_until_up(base_url: str, server: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, f"gunicorn exited:\n{log.read_text()[-3000:]}"
        try:
            if requests.get(f"{base_url}/api/v1/no-such-thing", timeout=5).status_code == 404:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise AssertionError(f"gunicorn did not answer in {timeout} s:\n{log.read_text()[-3000:]}")


# --- OpenAPI --------------------------------------------------------------------------------


def test_the_schema_documents_the_headers_on_every_response(api):
    schema = json.loads(api.get("/api/schema/", {"format": "json"}).content)

    headers = schema["components"]["headers"]
    for name in [*RATE_LIMIT_HEADERS, "Retry-After"]:
        assert headers[name]["required"] is True and headers[name]["description"]
    responses = [
        (f"{method.upper()} {path} {status}", response)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        for status, response in operation["responses"].items()
    ]
    assert len(responses) > 50
    # the front door's own answers (config/http_protocol.py: a request too slow, or its line
    # or headers too long) come before Django, and so before any bucket: documented without
    front_door = [where for where, _ in responses if where.endswith((" 408", " 414", " 431"))]
    assert len(front_door) == 3 * sum(len(item) for item in schema["paths"].values())  # on every operation
    for where, response in responses:
        if where in front_door:
            assert "headers" not in response or not set(RATE_LIMIT_HEADERS) & set(response["headers"]), where
            continue
        for name in RATE_LIMIT_HEADERS:
            assert response["headers"][name] == {"$ref": f"#/components/headers/{name}"}, where
        assert ("Retry-After" in response["headers"]) == where.endswith((" 429", " 503")), where
