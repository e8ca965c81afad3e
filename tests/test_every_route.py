"""Every method on every route, through the real server (gunicorn + uvicorn, as `make
run` serves): never a 5xx (issue 24: a method a route does not serve answers 405, not
500).  The routes are Django's own (its URL resolver), ids of nothing, as a client
probing the server would send them; the API's errors are problems (problem+json)."""

from __future__ import annotations

import http.client
import re
from collections.abc import Iterator

import pytest
from django.urls import URLResolver, get_resolver

from tests.browser_support import static_root  # noqa: F401 (a fixture: the static files collected)
from tests.server_support import Gunicorn, register, served

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]

#: answer 503 when a part of the service is down (no worker beside the tests' server): documented
HEALTH = ("/api/v1/health", "/health")


@pytest.fixture(scope="module")
def server(django_db_setup, static_root, tmp_path_factory) -> Iterator[Gunicorn]:  # noqa: F811
    """The server with its static files collected, as `make run` serves the pages."""
    yield from served(tmp_path_factory, "routes", STATIC_ROOT=static_root)


METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "FOO"]


def routes() -> list[str]:
    """Every route Django serves, its parameters filled with things that do not exist;
    the admin's regular-expression routes (an app's index) left out."""
    found: list[str] = []

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                found.append(prefix + str(pattern.pattern))

    walk(get_resolver().url_patterns, "")
    paths = set()
    for route in found:
        if route.startswith("^") or "(?P" in route:
            continue
        route = re.sub(r"<int:[^>]+>", "999999", route)
        route = re.sub(r"<[^>]+>", "nobody", route)
        paths.add("/" + route)
    return sorted(paths)


def test_the_routes_are_all_there():
    paths = routes()
    assert "/api/v1/games/999999/events" in paths and "/api/v1/players/me/events" in paths
    assert "/api/docs/" in paths and "/admin/" in paths and len(paths) > 60


@pytest.mark.parametrize("signed_in", [True, False], ids=["signed-in", "anonymous"])
def test_every_method_on_every_route_answers_without_a_server_error(server, signed_in):
    failures = []
    for path in routes():
        # a player of its own for each route: a route may end the player's token
        headers = {"Authorization": f"Token {register(server)[1]}"} if signed_in else {}
        for method in METHODS:
            body = b"{}" if method in ("POST", "PUT", "PATCH") else None
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:
                conn.request(method, path, body, {**headers, "Content-Type": "application/json"})
                response = conn.getresponse()
                kind = response.getheader("Content-Type", "")
                if not kind.startswith("text/event-stream"):  # (an open stream: its headers are enough)
                    response.read()
            finally:
                conn.close()
            if response.status >= 500 and not (response.status == 503 and path in HEALTH):
                failures.append((method, path, response.status))
            elif (response.status >= 400 and path.startswith("/api/v1/") and method != "HEAD"
                  and kind != "application/problem+json"):
                failures.append((method, path, response.status, kind))
    assert not failures, failures
