"""A long-poll that meets a database outage before its wait (issue 30's soak through
PgBouncer: killed -9, every connection refused for 3 s) is left to the view, which
answers it as any request then (503 with Retry-After, config.problems), instead of an
error escaping the front door (a bare 500 from uvicorn)."""

from __future__ import annotations

import asyncio

from django.db import OperationalError

from games import streams


def _scope() -> dict:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": "/api/v1/games/7", "raw_path": b"/api/v1/games/7", "root_path": "",
            "query_string": b"wait_for_version=3&timeout=20", "headers": [(b"authorization", b"Token abc")],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}


def test_a_long_poll_whose_database_is_out_before_the_wait_is_left_to_the_view(monkeypatch):
    def refused(request):
        raise OperationalError('connection failed: connection to server at "127.0.0.1", port 6432 failed: '
                               "Connection refused")

    monkeypatch.setattr(streams, "_view_credentials", refused)
    scope = _scope()
    asyncio.run(streams.wait_first(scope, 7))  # no exception: nothing escapes the front door
    assert scope[streams.WAITED]  # the view does not wait either: it answers at once


def test_a_long_poll_whose_version_read_fails_is_left_to_the_view(monkeypatch):
    class Token:
        pk = 1

    class Hub:
        def add_waiter(self, game_id, version, token_id):
            return object()

        def unsubscribe(self, waiter):
            self.unsubscribed = waiter

    def refused(game_id):
        raise OperationalError("server login has been failing, try again later (server_login_retry)")

    hub = Hub()
    monkeypatch.setattr(streams, "_view_credentials", lambda request: (object(), Token()))
    monkeypatch.setattr(streams.live, "hub", lambda: hub)
    monkeypatch.setattr(streams, "_version_of", refused)
    scope = _scope()
    asyncio.run(streams.wait_first(scope, 7))
    assert scope[streams.WAITED] and hasattr(hub, "unsubscribed")
