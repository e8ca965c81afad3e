"""No token, webhook secret or password in a log line, nor in a response other than
the one that issues it, over a whole flow logged at DEBUG level: registration,
tokens, webhooks, deliveries that fail, are retried or are refused, and a game
against a bot, played by the real worker.  (tests/secret_leaks.py checks the logs
of the whole test run the same way, at the run's log level.)  And the output of a real
web server at DEBUG in JSON (LOG_FORMAT=json), whose lines carry a record's fields."""

from __future__ import annotations

import json
import logging
import secrets
import time

import pytest

from games import tasks

from .celery_helpers import requires_redis, wait_for, worker  # noqa: F401 (fixture)
from .loopback_http import LoopbackServer
from .secret_leaks import capture
from .server_support import Gunicorn, call, register

PASSWORD = "leak-test-" + secrets.token_hex(8)


def test_the_log_check_finds_a_secret_in_a_debug_record():
    planted = secrets.token_hex(20)  # never issued: the run's own check ignores it
    with capture(logging.DEBUG) as logs:
        logging.getLogger("games.tasks").debug("Authorization: Token %s", planted)
        logging.getLogger("django").debug("body=%s", json.dumps({"secret": planted + "x"}))
    assert logs.leaked({planted, secrets.token_hex(20)}) == {planted}


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_no_secret_in_the_logs_or_responses_of_a_whole_flow(worker, settings, api):
    settings.UNO_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    settings.UNO_WEBHOOK_RETRY_BACKOFF_SECONDS = 0.05
    statuses = [500, 410]  # the first delivery fails and is retried, the retry is refused

    def respond(handler, request):
        handler.send_response(statuses.pop(0) if statuses else 204)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    worker.start()  # first: its django.setup() resets the log levels that capture() sets
    issued: set[str] = {PASSWORD}
    answers: list[bytes] = []  # every answer but the one that issues a secret

    def call(method: str, path: str, data=None, issues: str | None = None):
        r = getattr(api, method)(path, data, format="json")
        if issues:
            issued.add(r.json()[issues])
        else:
            answers.append(r.content + json.dumps(dict(r.items())).encode())
        return r

    with LoopbackServer(respond) as hooks, capture(logging.DEBUG) as logs:
        assert call("post", "/api/v1/auth/register", {"username": "alice", "password": "123"}).status_code == 400
        r = call("post", "/api/v1/auth/register", {"username": "alice", "password": PASSWORD}, issues="token")
        player_id = r.json()["player"]["id"]
        assert call("post", "/api/v1/auth/token", {"username": "alice", "password": PASSWORD + "!"}).status_code == 400
        call("post", "/api/v1/auth/token", {"username": "alice", "password": PASSWORD}, issues="token")
        api.credentials(HTTP_AUTHORIZATION=f"Token {secrets.token_hex(20)}")  # never issued
        assert call("get", "/api/v1/players/me").status_code == 401
        api.credentials(HTTP_AUTHORIZATION=f"Token {r.json()['token']}")
        assert call("get", "/api/v1/players/me").status_code == 200

        # The player's URL may hold a secret of theirs: we never log it either.
        url_secret = secrets.token_urlsafe(24)
        issued.add(url_secret)
        call("put", "/api/v1/players/me/webhook", {"url": f"{hooks.url}/old"}, issues="secret")
        call("put", "/api/v1/players/me/webhook", {"url": f"{hooks.url}/hook?key={url_secret}"}, issues="secret")
        hook = api.get("/api/v1/players/me/webhook").json()
        assert hook["url"].endswith(url_secret) and "secret" not in hook  # the owner's own URL

        game = call("post", "/api/v1/games", {"ruleset": "standard", "bots": [{"level": "normal"}],
                                              "options": {"rounds": 1}}).json()
        g = call("post", f"/api/v1/games/{game['id']}/start").json()
        for _ in range(6):  # play a few turns against the bot
            g = wait_for(lambda: (lambda g: g if g["current_seat"] == 0 or g["status"] != "active" else None)(
                call("get", f"/api/v1/games/{game['id']}").json()), timeout=10, message="alice's turn")
            if g["status"] != "active":
                break
            kinds = {a["type"]: a for a in g["legal_actions"]}
            action = next((a for a in g["legal_actions"] if a["type"] == "play"), None) or kinds.get("draw") \
                or kinds.get("pass") or g["legal_actions"][0]
            assert call("post", f"/api/v1/games/{game['id']}/actions", action).status_code == 200
        wait_for(lambda: hooks.hits >= 3, timeout=10, message="a failed, a refused and a delivered notification")

        # A delivery refused because the URL now leads to a private address.
        settings.UNO_WEBHOOK_ALLOW_PRIVATE = False
        tasks.deliver_webhook.delay(player_id, "game_started", {"event": "game_started"}, "refused-delivery-0001")
        wait_for(lambda: "refused-delivery-0001" in logs.words, timeout=10, message="the refusal logged")
        time.sleep(0.2)

    assert "DEBUG" in logs.levels
    assert logs.leaked({hooks.requests[0]["headers"]["X-Uno-Delivery"]})  # it sees the worker's lines
    # Counted, not shown: a failure must not print the secrets either.
    logged = len(logs.leaked(issued))
    answered = sum(s.encode() in a for s in issued for a in answers)
    assert logged == 0, "secrets were logged"
    assert answered == 0, "secrets were in later answers"


@pytest.mark.django_db(transaction=True)
def test_no_secret_in_the_json_lines_of_the_web_server_at_debug(tmp_path):
    """A registration, a log-in (and a wrong password), a webhook whose URL holds a
    secret, requests with a token in the header and in the query string (answered 200,
    401 and 404, which Django logs with the request): every line the web process wrote
    is JSON, and none holds a password, a token or a secret."""
    log = tmp_path / "web.log"
    server = Gunicorn(log, 1, LOG_FORMAT="json", LOG_LEVEL="DEBUG", UNO_WEBHOOK_ALLOW_PRIVATE=1)
    try:
        server.wait_ready()
        name, token = register(server)
        password = "a-long-password-1"  # (register's)
        status, body, _ = call(server, "POST", "/api/v1/auth/token", {"username": name, "password": password})
        assert status == 200, body
        second = body["token"]
        assert call(server, "POST", "/api/v1/auth/token", {"username": name, "password": password + "!"})[0] == 400
        url_secret = secrets.token_urlsafe(24)
        status, hook, _ = call(server, "PUT", "/api/v1/players/me/webhook",
                               {"url": f"http://127.0.0.1:9/hook?key={url_secret}"}, second)
        assert status == 200, hook
        assert call(server, "GET", "/api/v1/players/me", None, token)[0] == 200
        assert call(server, "GET", f"/api/v1/players/me?token={second}")[0] == 401
        assert call(server, "GET", f"/api/v1/games/999999/events?token={second}")[0] == 404
    finally:
        server.stop()
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines()]  # every line (one that is not JSON fails)
    # (Django logs the answers 401 and 404 with the request, whose query holds the token)
    assert {"Unauthorized: /api/v1/players/me", "Not Found: /api/v1/games/999999/events"} <= {
        line["message"] for line in lines}
    assert "/api/v1/games/999999/events?token=***" in {line.get("path") for line in lines}
    leaked = [name for name, s in [("password", password), ("token", token), ("second token", second),
                                    ("webhook secret", hook["secret"]), ("URL secret", url_secret)] if s in text]
    assert not leaked, f"in the JSON log: {leaked}"
