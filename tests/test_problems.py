import pytest
from rest_framework import exceptions
from rest_framework.test import APIClient

from config.problems import ApiError, flatten_errors, problem_exception_handler
from tests.helpers import assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.problem_urls")]


# --- Django-level errors (no DRF view) --------------------------------------


@pytest.mark.parametrize("url", ["/api/v1/no-such-thing", "/nope", "/api/v1/players/me/extra"])
def test_unknown_url_is_a_404_problem(api, url):
    body = assert_problem(api.get(url), 404, "not_found")

    assert body["title"] == "Not found"
    assert url in body["detail"]


def test_unknown_url_is_404_for_any_method(api):
    assert_problem(api.post("/api/v1/no-such-thing", {}, format="json"), 404, "not_found")


def test_bug_outside_drf_is_a_500_problem():
    client = APIClient(raise_request_exception=False)

    body = assert_problem(client.get("/test/plain-bug"), 500, "server_error")

    assert "boom" not in body["detail"]  # no internals leak


# --- DRF views --------------------------------------------------------------


def test_method_not_allowed(api):
    response = api.get("/api/v1/auth/register")

    body = assert_problem(response, 405, "method_not_allowed")
    assert '"GET"' in body["detail"]
    assert "POST" in response["Allow"]


def test_not_acceptable(api):
    response = api.get("/api/v1/health", HTTP_ACCEPT="application/xml")

    assert_problem(response, 406, "not_acceptable")


def test_api_error_renders_code_and_extra_members(api):
    body = assert_problem(api.get("/test/fail/api-error"), 409, "stale_version")

    assert body == {
        "type": "https://uno.example/problems/stale_version",
        "title": "Stale version",
        "status": 409,
        "detail": "The game has moved on.",
        "code": "stale_version",
        "version": 7,
    }


def test_api_error_default_detail_is_its_title(api):
    body = assert_problem(api.get("/test/fail/api-error-default-detail"), 409, "stale_version")

    assert body["detail"] == "Stale version"


def test_api_error_cannot_override_standard_members():
    with pytest.raises(TypeError):
        ApiError(409, "stale_version", "x", status="oops")


def test_http404_in_a_view(api):
    body = assert_problem(api.get("/test/fail/http404"), 404, "not_found")

    assert body["detail"] == "Not found."


def test_django_permission_denied_in_a_view(api):
    assert_problem(api.get("/test/fail/django-permission-denied"), 403, "permission_denied")


def test_drf_exception_keeps_its_custom_code(api):
    body = assert_problem(api.get("/test/fail/drf-permission-coded"), 403, "not_seated")

    assert body["detail"] == "Not seated."
    assert body["title"] == "Not seated"


def test_django_validation_error_becomes_invalid_with_fields(api):
    body = assert_problem(api.get("/test/fail/django-validation-error"), 400, "invalid")

    assert body["fields"] == {"card": ["Not in your hand."]}
    assert body["detail"] == "card: Not in your hand."


def test_django_validation_message_is_a_non_field_error(api):
    body = assert_problem(api.get("/test/fail/django-validation-message"), 400, "invalid")

    assert body["fields"] == {"non_field_errors": ["Not your turn."]}
    assert body["detail"] == "Not your turn."


def test_nested_validation_errors_are_flattened(api):
    body = assert_problem(api.get("/test/fail/nested-validation"), 400, "invalid")

    assert body["fields"] == {
        "bots.1.level": ["Not a valid choice."],
        "options.target": ["Too big."],
    }


def test_bug_in_a_drf_view_is_a_500_problem():
    client = APIClient(raise_request_exception=False)

    body = assert_problem(client.get("/test/fail/bug"), 500, "server_error")

    assert "boom" not in body["detail"]


def test_handler_leaves_unexpected_exceptions_to_django():
    assert problem_exception_handler(RuntimeError("boom"), {}) is None


def test_handler_covers_every_drf_exception():
    for exc_class in [
        exceptions.ParseError,
        exceptions.AuthenticationFailed,
        exceptions.NotAuthenticated,
        exceptions.PermissionDenied,
        exceptions.NotFound,
        exceptions.UnsupportedMediaType,
        exceptions.ValidationError,
    ]:
        exc = exc_class("text/csv") if exc_class is exceptions.UnsupportedMediaType else exc_class()
        response = problem_exception_handler(exc, {})
        assert response.status_code == exc_class.status_code
        assert response["Content-Type"] == "application/problem+json"


def test_flatten_errors_shapes():
    assert flatten_errors(["a", "b"]) == {"non_field_errors": ["a", "b"]}
    assert flatten_errors("a") == {"non_field_errors": ["a"]}
    assert flatten_errors({"x": ["a"], "y": {"z": ["b"]}}) == {"x": ["a"], "y.z": ["b"]}
    assert flatten_errors({"x": [{"y": ["a"]}, {}]}) == {"x.0.y": ["a"]}


# --- throttling -------------------------------------------------------------


def test_anonymous_requests_are_throttled(api, throttle_rates):
    throttle_rates(anon="2/min")
    credentials = {"username": "nobody", "password": "whatever-it-is"}

    for _ in range(2):
        assert_problem(api.post("/api/v1/auth/token", credentials, format="json"), 400,
                       "invalid_credentials")
    response = api.post("/api/v1/auth/token", credentials, format="json")

    body = assert_problem(response, 429, "throttled")
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= 60
    assert body["retry_after"] == retry_after
    assert body["title"] == "Too many requests"


def test_auth_scope_is_throttled_separately(api, throttle_rates):
    throttle_rates(auth="1/min")
    credentials = {"username": "nobody", "password": "whatever-it-is"}

    api.post("/api/v1/auth/token", credentials, format="json")
    response = api.post("/api/v1/auth/register", credentials, format="json")

    assert_problem(response, 429, "throttled")


def test_authenticated_requests_are_throttled_per_player(auth_client, make_player,
                                                         throttle_rates):
    throttle_rates(user="2/min")

    for _ in range(2):
        assert auth_client.get("/api/v1/players/me").status_code == 200
    assert_problem(auth_client.get("/api/v1/players/me"), 429, "throttled")

    _, other_token = make_player()
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {other_token}")
    assert other.get("/api/v1/players/me").status_code == 200


def test_health_is_not_throttled(api, throttle_rates, fresh_heartbeats):
    throttle_rates(anon="1/min")

    for _ in range(3):
        assert api.get("/api/v1/health").status_code == 200
