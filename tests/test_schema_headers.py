"""The headers of the API are declared in its OpenAPI schema, and real answers carry
what it declares: ``ETag`` (and the 304 of ``If-None-Match``) on a game,
``Idempotency-Key`` on actions, ``Location`` on a new game, ``Retry-After`` on every
429 and 503, ``WWW-Authenticate`` on every 401 and the ``RateLimit-*`` headers on every
answer.  The answers come from a real gunicorn and are compared with the schema it
serves: every header declared required for that operation and status is there, with a
value of the declared type, and every header beyond plain HTTP's is declared.  Every
operation is described, too."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
import requests

from tests.conftest import DEFAULT_PASSWORD
from tests.server_support import served
from tests.test_reliability import game_locked

pytestmark = pytest.mark.django_db(transaction=True)

#: headers of plain HTTP and of Django's security middleware, not the API's own
PLAIN_HTTP = {
    "content-type", "content-length", "date", "server", "connection", "keep-alive", "transfer-encoding", "vary",
    "allow", "x-frame-options", "x-content-type-options", "referrer-policy", "cross-origin-opener-policy",
}
#: a limit low enough to reach: 429 on the fourth log-in within a minute
AUTH_RATE = 3


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    """A real gunicorn whose waits for a lock give up after 300 ms (a held game row: 503)."""
    for gunicorn in served(tmp_path_factory, "headers", workers=1, DB_LOCK_TIMEOUT_MS=300,
                           SQLITE_BUSY_TIMEOUT=1, THROTTLE_AUTH=f"{AUTH_RATE}/min"):
        yield gunicorn.url


@pytest.fixture(scope="module")
def schema(server) -> dict:
    response = requests.get(f"{server}/api/schema/", params={"format": "json"}, timeout=30)
    assert response.status_code == 200
    return response.json()


def header(schema: dict, node: dict) -> dict:
    """A header object, its ``$ref`` followed."""
    while "$ref" in node:
        node = schema["components"]["headers"][node["$ref"].rsplit("/", 1)[1]]
    return node


def assert_declared_headers(schema: dict, method: str, template: str, response: requests.Response) -> None:
    """``response`` (to ``method`` ``template``) carries every header the schema declares
    required for its status, each with a value of the declared type, and no header of
    its own that the schema does not declare."""
    where = f"{method} {template} {response.status_code}"
    documented = schema["paths"][template][method.lower()]["responses"].get(str(response.status_code))
    assert documented is not None, f"{where}: status not documented"
    declared = {name: header(schema, node) for name, node in documented.get("headers", {}).items()}
    for name, doc in declared.items():
        if doc.get("required"):
            assert name in response.headers, f"{where}: no {name}"  # (case-insensitive)
        if name in response.headers:
            value: Any = response.headers[name]
            if doc["schema"].get("type") == "integer":
                assert value.isdigit(), f"{where}: {name}: {value!r} is no integer"
                value = int(value)
            jsonschema.validate(value, doc["schema"])
    known = PLAIN_HTTP | {name.lower() for name in declared}
    undeclared = {name for name in response.headers if name.lower() not in known}
    assert not undeclared, f"{where}: undeclared {undeclared}"


class Api:
    """Requests to the server, each answer checked against the schema (``seen``: the
    ``(method, template, status)`` of every answer)."""

    def __init__(self, url: str, schema: dict) -> None:
        self.url, self.schema = url, schema
        self.seen: set[tuple[str, str, int]] = set()

    def __call__(self, method: str, template: str, *, token: str | None = None, status: int,
                 headers: dict[str, str] | None = None, **kwargs: Any) -> requests.Response:
        path = template.format(**kwargs.pop("path", {}))
        headers = {**(headers or {}), **({"Authorization": f"Token {token}"} if token else {})}
        response = requests.request(method, self.url + path, headers=headers, timeout=30, **kwargs)
        assert response.status_code == status, f"{method} {path}: {response.status_code} {response.text}"
        assert_declared_headers(self.schema, method, template, response)
        self.seen.add((method, template, status))
        return response


# --- the schema -------------------------------------------------------------------


def operations(schema: dict) -> dict[str, dict]:
    return {op["operationId"]: op for item in schema["paths"].values() for op in item.values()
            if isinstance(op, dict) and "operationId" in op}


def test_the_schema_declares_the_headers(schema):
    ops = operations(schema)
    retrieve = ops["games_retrieve"]
    assert {(p["in"], p["name"]) for p in retrieve["parameters"]} >= {("header", "If-None-Match")}
    for status in ("200", "304"):
        etag = retrieve["responses"][status]["headers"]["ETag"]
        assert etag["required"] is True and "If-None-Match" in etag["description"]
    assert "content" not in retrieve["responses"]["304"]
    key = next(p for p in ops["games_actions"]["parameters"] if p["name"] == "Idempotency-Key")
    assert key["in"] == "header" and not key.get("required")
    assert (key["schema"]["minLength"], key["schema"]["maxLength"]) == (1, 255)
    for words in ("idempotency_key_reused", "idempotency_in_progress", "UNO_IDEMPOTENCY_TTL_HOURS"):
        assert words in key["description"]
    assert ops["games_create"]["responses"]["201"]["headers"]["Location"]["required"] is True

    components = schema["components"]["headers"]
    assert components["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}
    assert components["WWW-Authenticate"]["schema"]["enum"] == ["Token"]
    for op_id, op in ops.items():
        assert "503" in op["responses"], op_id  # any operation meets the database
        for status, response in op["responses"].items():
            expected = {"401": "WWW-Authenticate", "429": "Retry-After", "503": "Retry-After"}.get(status)
            if expected:
                assert response["headers"][expected] == {"$ref": f"#/components/headers/{expected}"}, (op_id, status)


def test_every_operation_is_described(schema):
    undescribed = [
        f"{method.upper()} {path}"
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and not (op.get("description", "").strip() or op.get("summary", "").strip())
    ]
    assert len(operations(schema)) >= 20
    assert undescribed == []


# --- real answers ---------------------------------------------------------------------


def test_real_answers_carry_the_declared_headers(server, schema, make_player):
    api = Api(server, schema)
    (alice, alice_token), (bob, bob_token) = make_player(), make_player()
    game, detail, actions = "/api/v1/games", "/api/v1/games/{game_id}", "/api/v1/games/{game_id}/actions"

    api("GET", game, status=401)
    api("GET", game, token="not-a-key", status=401)
    api("GET", "/api/v1/health", status=503)  # no worker nor sweeper heartbeat
    gid = api("POST", game, token=alice_token, json={"ruleset": "standard", "max_players": 2}, status=201).json()["id"]
    api("POST", "/api/v1/games/{game_id}/join", token=bob_token, path={"game_id": gid}, status=200)
    api("POST", "/api/v1/games/{game_id}/start", token=alice_token, path={"game_id": gid}, status=200)
    api("GET", game, token=alice_token, params={"page_size": 1}, status=200)

    # ETag, and 304 for If-None-Match while nothing changed
    tokens = {alice.username: alice_token, bob.username: bob_token}
    seen = api("GET", detail, token=alice_token, path={"game_id": gid}, status=200)
    token = tokens[next(p["username"] for p in seen.json()["players"] if p["seat"] == seen.json()["current_seat"])]
    first = api("GET", detail, token=token, path={"game_id": gid}, status=200)
    etag = first.headers["ETag"]
    not_modified = api("GET", detail, token=token, path={"game_id": gid}, headers={"If-None-Match": etag}, status=304)
    assert not_modified.headers["ETag"] == etag and not_modified.content == b""

    # Idempotency-Key: the first answer again for a retry; another body: 422; a bad key: 400
    view = first.json()
    action = {**view["legal_actions"][0], "expected_version": view["version"]}
    other = {**action, "expected_version": view["version"] + 1}
    with game_locked(gid):  # a dependency briefly unavailable: 503, nothing changed
        api("POST", actions, token=token, path={"game_id": gid}, json=action, status=503)
    key = {"Idempotency-Key": "headers-test-1"}
    done = api("POST", actions, token=token, path={"game_id": gid}, headers=key, json=action, status=200)
    again = api("POST", actions, token=token, path={"game_id": gid}, headers=key, json=action, status=200)
    assert again.json() == done.json() and done.json()["game"]["version"] == view["version"] + 1
    api("POST", actions, token=token, path={"game_id": gid}, headers=key, json=other, status=422)
    bad = api("POST", actions, token=token, path={"game_id": gid}, headers={"Idempotency-Key": "k" * 256}, json=other,
              status=400)
    assert list(bad.json()["fields"]) == ["Idempotency-Key"]
    assert api("GET", detail, token=token, path={"game_id": gid}, headers={"If-None-Match": etag},
               status=200).headers["ETag"] != etag

    # 429 with Retry-After: log-ins over the auth limit (a window may end meanwhile: once)
    for _ in range(2 * AUTH_RATE + 2):
        response = requests.post(f"{server}/api/v1/auth/token", json={"username": alice.username,
                                                                        "password": DEFAULT_PASSWORD}, timeout=30)
        if response.status_code == 429:
            break
        assert response.status_code == 200, response.text
        assert_declared_headers(schema, "POST", "/api/v1/auth/token", response)
    assert response.status_code == 429
    assert_declared_headers(schema, "POST", "/api/v1/auth/token", response)
    assert int(response.headers["Retry-After"]) == response.json()["retry_after"]

    assert {status for _, _, status in api.seen} == {200, 201, 304, 400, 401, 422, 503}
