"""HTTP hygiene: the request body limit (413), the games list's paging parameters, CORS,
and gunicorn's own errors as problem+json, the last against a real gunicorn process
started with the project's config (config/gunicorn.conf.py)."""

from __future__ import annotations

import http.client
import io
import json
import socket
from collections.abc import Iterator

import pytest
from django.test import RequestFactory

from config.middleware import RequestBodyLimitMiddleware
from config.problems import PROBLEM_CONTENT_TYPE
from players.models import Player
from tests.helpers import assert_json, assert_problem
from tests.server_support import (
    CORS_ORIGINS,
    gunicorn,  # noqa: F401 (fixture)
)

REGISTER = "/api/v1/auth/register"
GAMES = "/api/v1/games"
MIB = 1024 * 1024
ORIGIN = CORS_ORIGINS[0]


def credentials(username: str) -> bytes:
    return json.dumps({"username": username, "password": "s3cret-enough"}).encode()


# --- The body limit, in process ---------------------------------------------


@pytest.mark.django_db
def test_a_body_over_the_limit_is_413_and_changes_nothing(api, settings):
    assert settings.MAX_REQUEST_BYTES == MIB  # the documented default
    body = credentials("alice").ljust(MIB + 1)  # JSON with trailing spaces

    problem = assert_problem(api.post(REGISTER, body, content_type="application/json"), 413, "payload_too_large")

    assert problem["max_bytes"] == MIB
    assert str(MIB) in problem["detail"]
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_a_body_at_the_limit_is_served(api):
    body = credentials("alice").ljust(MIB)

    assert_json(api.post(REGISTER, body, content_type="application/json"), 201)


@pytest.mark.django_db
def test_the_limit_comes_from_the_settings(api, settings):
    settings.MAX_REQUEST_BYTES = 64

    problem = assert_problem(
        api.post(REGISTER, credentials("alice").ljust(65), content_type="application/json"),
        413,
        "payload_too_large",
    )
    assert problem["max_bytes"] == 64


class Stream(io.BytesIO):
    """A wsgi.input that counts the bytes read from it."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.bytes_read += len(data)
        return data


def refuse_view(request):
    raise AssertionError("the view ran")


def body_request(stream: Stream, **meta) -> object:
    request = RequestFactory().post(REGISTER, content_type="application/json")
    request.META.pop("CONTENT_LENGTH")
    request.META.update({"wsgi.input": stream, **meta})
    return request


def test_a_refused_body_is_discarded_unparsed():
    """Decided from Content-Length: the view never runs, and the body is read through to
    its end (so that a keep-alive connection's next request is found), not kept."""
    stream = Stream(b"x" * (3 * MIB) + b"NEXT REQUEST")
    request = body_request(stream, CONTENT_LENGTH=str(3 * MIB))

    response = RequestBodyLimitMiddleware(refuse_view)(request)

    assert response.status_code == 413
    assert stream.bytes_read == 3 * MIB
    assert stream.read() == b"NEXT REQUEST"


def test_a_body_past_the_drain_limit_is_not_read_at_all():
    stream = Stream(b"x" * 1000)
    request = body_request(stream, CONTENT_LENGTH=str(10**12))

    response = RequestBodyLimitMiddleware(refuse_view)(request)

    assert response.status_code == 413
    assert stream.bytes_read == 0


def test_a_chunked_body_over_the_limit_is_413(settings):
    settings.MAX_REQUEST_BYTES = 100
    stream = Stream(b"x" * 1000)
    request = body_request(stream, HTTP_TRANSFER_ENCODING="chunked", **{"wsgi.input_terminated": True})

    response = RequestBodyLimitMiddleware(refuse_view)(request)

    assert response.status_code == 413
    assert stream.bytes_read == 1000  # drained to its end


def test_a_chunked_body_that_fits_reaches_the_view(settings):
    settings.MAX_REQUEST_BYTES = 100
    seen = {}

    def view(request):
        seen["body"] = request.body
        return "ok"

    request = body_request(Stream(b'{"a": 1}'), HTTP_TRANSFER_ENCODING="chunked", **{"wsgi.input_terminated": True})

    assert RequestBodyLimitMiddleware(view)(request) == "ok"
    assert seen["body"] == b'{"a": 1}'
    assert request.META["CONTENT_LENGTH"] == "8"


@pytest.mark.django_db
def test_djangos_own_request_data_too_big_is_the_same_413(api, settings):
    """A form Django parses itself (the admin's log-in) over DATA_UPLOAD_MAX_MEMORY_SIZE."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100

    response = api.post("/admin/login/", {"username": "x" * 200, "password": "y"})

    problem = assert_problem(response, 413, "payload_too_large")
    assert problem["max_bytes"] == 100


@pytest.mark.django_db
def test_every_operation_with_a_body_documents_413(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = [op for item in schema["paths"].values() for op in item.values() if isinstance(op, dict)]

    with_body = [op for op in operations if "requestBody" in op]
    assert {op["operationId"] for op in with_body} >= {"auth_register", "auth_token", "games_create", "games_actions"}
    for op in with_body:
        documented = op["responses"]["413"]["content"][PROBLEM_CONTENT_TYPE]["schema"]
        assert documented == {"$ref": "#/components/schemas/Problem"}, op["operationId"]
    assert all("413" not in op["responses"] for op in operations if "requestBody" not in op)
    assert "max_bytes" in schema["components"]["schemas"]["Problem"]["properties"]


# --- Paging of the games list -----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["abc", "0", "-1", "1.5", "", " 1", "last", "1" * 5000])
def test_page_that_is_not_a_positive_integer_is_invalid(auth_client, value):
    problem = assert_problem(auth_client.get(GAMES, {"page": value}), 400, "invalid")

    assert list(problem["fields"]) == ["page"]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["abc", "0", "-5", "2.0", "", "101", "100000"])
def test_page_size_that_is_not_from_1_to_100_is_invalid(auth_client, value):
    problem = assert_problem(auth_client.get(GAMES, {"page_size": value}), 400, "invalid")

    assert list(problem["fields"]) == ["page_size"]


@pytest.mark.django_db
def test_page_size_100_and_pages_past_the_end(auth_client):
    body = assert_json(auth_client.get(GAMES, {"page_size": 100}), 200)
    assert body["results"] == []
    assert_json(auth_client.get(GAMES, {"page": 1}), 200)

    assert_problem(auth_client.get(GAMES, {"page": 2}), 404, "not_found")
    assert_problem(auth_client.get(GAMES, {"page": 10**30}), 404, "not_found")


@pytest.mark.django_db
def test_paging_parameters_are_documented(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/v1/games"]["get"]
    params = {p["name"]: p["schema"] for p in operation["parameters"]}

    assert params["page"]["minimum"] == 1
    assert (params["page_size"]["minimum"], params["page_size"]["maximum"]) == (1, 100)
    assert "page_size" in operation["responses"]["400"]["description"]


# --- CORS -----------------------------------------------------------------------


@pytest.fixture
def cors(settings):
    """CORS as CORS_ALLOWED_ORIGINS=https://app.example sets it (config/settings.py)."""
    settings.CORS_ALLOWED_ORIGINS = [ORIGIN]
    settings.CORS_URLS_REGEX = r"^/api/"


def cors_headers(response) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower().startswith("access-control-")}


def preflight(api, origin: str):
    return api.options(
        GAMES,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )


def assert_preflight_allowed(headers: dict[str, str]) -> None:
    assert headers["access-control-allow-origin"] == ORIGIN
    allowed = {h.strip() for h in headers["access-control-allow-headers"].split(",")}
    assert allowed >= {"authorization", "content-type", "idempotency-key", "if-none-match", "last-event-id"}
    assert "POST" in headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in headers


@pytest.mark.django_db
def test_cors_preflight_from_an_allowed_origin(api, cors):
    response = preflight(api, ORIGIN)

    assert response.status_code == 200
    assert_preflight_allowed(cors_headers(response))


@pytest.mark.django_db
def test_cors_simple_request_from_an_allowed_origin(auth_client, cors):
    response = auth_client.get(GAMES, HTTP_ORIGIN=ORIGIN)

    assert response.status_code == 200
    headers = cors_headers(response)
    assert headers["access-control-allow-origin"] == ORIGIN
    exposed = {h.strip().lower() for h in headers["access-control-expose-headers"].split(",")}
    assert exposed == {
        "etag", "retry-after", "location", "ratelimit-limit", "ratelimit-remaining",
        "ratelimit-reset", "ratelimit", "ratelimit-policy",
    }


@pytest.mark.django_db
def test_cors_errors_carry_the_headers_too(api, cors):
    """A browser app can read why it was refused (here 401, and 413)."""
    assert cors_headers(api.get(GAMES, HTTP_ORIGIN=ORIGIN))["access-control-allow-origin"] == ORIGIN
    big = api.post(REGISTER, b" " * (MIB + 1), content_type="application/json", HTTP_ORIGIN=ORIGIN)
    assert big.status_code == 413 and cors_headers(big)["access-control-allow-origin"] == ORIGIN


@pytest.mark.django_db
def test_cors_nothing_for_another_origin(auth_client, api, cors):
    assert cors_headers(preflight(api, "https://evil.example")) == {}
    assert cors_headers(auth_client.get(GAMES, HTTP_ORIGIN="https://evil.example")) == {}


@pytest.mark.django_db
def test_cors_off_by_default(auth_client, api, settings):
    assert settings.CORS_ALLOWED_ORIGINS == []

    response = auth_client.get(GAMES, HTTP_ORIGIN=ORIGIN)
    assert cors_headers(response) == {}
    assert "Origin" not in response.get("Vary", "")
    assert cors_headers(preflight(api, ORIGIN)) == {}


# --- A real gunicorn ------------------------------------------------------------


def exchange(conn: http.client.HTTPConnection, method: str, path: str, body=None, headers=None):
    """One request and its whole answer: (response, body bytes)."""
    conn.request(method, path, body=body, headers=headers or {})  # an iterable body is sent chunked
    response = conn.getresponse()
    return response, response.read()


def assert_problem_answer(response, body: bytes, status: int, code: str) -> dict:
    assert response.status == status, body
    assert response.getheader("Content-Type") == PROBLEM_CONTENT_TYPE
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (status, code)
    assert problem["type"] == f"https://uno.example/problems/{code}"
    assert problem["title"] and problem["detail"]
    return problem


def chunks(data: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start:start + size]


JSON = {"Content-Type": "application/json"}
THREE_MB = b" " * (3 * 1000 * 1000)


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_gunicorn_413_keeps_the_connection(gunicorn, framing):
    """A 3 MB body is refused with 413, and the next request on the same keep-alive
    connection gets its normal answer."""
    conn = gunicorn.connection()
    big = THREE_MB if framing == "content-length" else chunks(THREE_MB)

    response, body = exchange(conn, "POST", REGISTER, big, JSON)
    assert_problem_answer(response, body, 413, "payload_too_large")
    assert response.getheader("Connection") != "close"
    sock = conn.sock

    response, body = exchange(conn, "POST", REGISTER, credentials(f"after-{framing}"), JSON)
    assert response.status == 201, body
    assert json.loads(body)["player"]["username"] == f"after-{framing}"
    assert conn.sock is sock  # the same connection: http.client did not reconnect
    conn.close()
    assert list(Player.objects.values_list("username", flat=True)) == [f"after-{framing}"]


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_gunicorn_serves_a_chunked_body_that_fits(gunicorn):
    conn = gunicorn.connection()

    response, body = exchange(conn, "POST", REGISTER, chunks(credentials("chunky"), 7), JSON)

    assert response.status == 201, body
    assert Player.objects.filter(username="chunky").exists()


def raw_exchange(port: int, request: bytes) -> tuple[http.client.HTTPResponse, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response, response.read()


@pytest.mark.concurrency
@pytest.mark.parametrize(
    "request_bytes, status, code",
    [
        (f"GET /api/v1/games?q={'x' * 5000} HTTP/1.1\r\nHost: t\r\n\r\n".encode(), 414, "uri_too_long"),
        (b"GET /api/v1/games HTTP/1.1\r\nHost: t\r\n" + b"X-A: b\r\n" * 101 + b"\r\n", 431, "header_fields_too_large"),
        (f"GET /api/v1/games HTTP/1.1\r\nHost: t\r\nX-Big: {'x' * 9000}\r\n\r\n".encode(), 431, "header_fields_too_large"),
        (b"NOT A REQUEST\r\n\r\n", 400, "bad_request"),
        (b"GET /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n", 400, "bad_request"),
    ],
    ids=["long-url", "too-many-headers", "header-too-large", "malformed-line", "bad-content-length"],
)
def test_gunicorn_errors_are_problems(gunicorn, request_bytes, status, code):
    response, body = raw_exchange(gunicorn.port, request_bytes)

    assert_problem_answer(response, body, status, code)
    assert response.getheader("Connection") == "close"


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_gunicorn_cors_from_the_environment(gunicorn):
    conn = gunicorn.connection()
    preflight_headers = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
    }
    response, _ = exchange(conn, "OPTIONS", GAMES, headers=preflight_headers)
    assert response.status == 200
    assert_preflight_allowed({k.lower(): v for k, v in response.getheaders()})

    response, _ = exchange(conn, "GET", GAMES, headers={"Origin": "https://evil.example"})
    assert response.status == 401
    assert not [k for k, _ in response.getheaders() if k.lower().startswith("access-control-")]
