"""RFC 9457 problem details for every error the API returns.

Every error body is ``application/problem+json`` with ``type``, ``title``,
``status``, ``detail`` and always a machine ``code``; validation errors add
``fields`` ({field: [messages]}). Usage from other apps:

* raise DRF exceptions as usual (``ValidationError``, ``NotFound``,
  ``PermissionDenied(code="not_seated")``...), or Django's ``ValidationError``,
  ``Http404`` and ``PermissionDenied``;
* raise ``ApiError(409, "stale_version", "...", expected_version=3)`` for
  anything else: extra keyword arguments become members of the body;
* document errors with ``@extend_schema(responses={200: X, **problem_responses(400, 404)})``.
"""

from __future__ import annotations

import logging
import math
import sys
from copy import deepcopy
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from config.resilience import RETRY_AFTER_SECONDS, is_transient

log = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://uno.example/problems/"

# One title per code (RFC 9457: the title does not vary between occurrences).
TITLES = {
    "invalid": "Invalid input",
    "malformed_json": "Malformed JSON",
    "not_authenticated": "Authentication required",
    "authentication_failed": "Authentication failed",
    "invalid_credentials": "Invalid credentials",
    "permission_denied": "Permission denied",
    "not_found": "Not found",
    "method_not_allowed": "Method not allowed",
    "not_acceptable": "Not acceptable",
    "unsupported_media_type": "Unsupported media type",
    "throttled": "Too many requests",
    "payload_too_large": "Payload too large",
    "uri_too_long": "URI too long",
    "header_fields_too_large": "Request header fields too large",
    "bad_request": "Bad request",
    "server_error": "Internal server error",
    "unavailable": "Service unavailable",
}

# Members every problem has; extra members may not replace them.
RESERVED_MEMBERS = frozenset({"type", "title", "status", "detail", "code"})

# Codes for DRF exceptions whose default code is not the one we publish.
_CODE_OVERRIDES = {exceptions.ParseError: "malformed_json"}


def problem_type(code: str) -> str:
    return f"{PROBLEM_TYPE_BASE}{code}"


def problem_title(code: str) -> str:
    return TITLES.get(code) or code.replace("_", " ").capitalize()


def problem_body(
    *, status: int, code: str, detail: str, title: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The problem document for one error occurrence."""
    body: dict[str, Any] = {
        "type": problem_type(code),
        "title": title or problem_title(code),
        "status": status,
        "detail": str(detail),
        "code": code,
    }
    body.update(extra)
    return body


def problem_response(
    *,
    status: int,
    code: str,
    detail: str,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JsonResponse:
    """A plain Django response carrying a problem document.

    A plain ``JsonResponse`` rather than a DRF ``Response`` so that errors are
    rendered the same whatever renderers the failing view uses (HTML docs
    page, YAML schema, JSON API).
    """
    body = problem_body(status=status, code=code, detail=detail, title=title, **extra)
    return JsonResponse(body, status=status, headers=headers, content_type=PROBLEM_CONTENT_TYPE)


class ApiError(exceptions.APIException):
    """An error with an explicit HTTP status and machine code.

    ``ApiError(409, "stale_version", "The game has moved on.", version=7)``
    renders as a problem with ``code`` "stale_version" and an extra ``version``
    member. ``title`` and ``headers`` are reserved keyword arguments.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str | None = None,
        *,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        reserved = RESERVED_MEMBERS.intersection(extra)
        if reserved:
            raise TypeError(f"ApiError extra members may not override {sorted(reserved)}")
        self.status_code = status
        self.code = code
        self.title = title
        self.headers = headers or {}
        self.extra = extra
        super().__init__(detail=detail or problem_title(code), code=code)


def unavailable(exc: BaseException) -> ApiError:
    """The 503 for a transient failure (config.resilience), logged without request data."""
    log.warning("transient failure answered 503: %s: %s", type(exc).__name__, exc)
    return ApiError(
        503,
        "unavailable",
        "A dependency is briefly unavailable; nothing was changed. Retry after Retry-After seconds.",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        retry_after=RETRY_AFTER_SECONDS,
    )


class TransientErrorMiddleware:
    """503 problem+json for a transient failure outside DRF's views (inside them the
    exception handler below does the same)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_transient(exception):
            return None
        return _problem_for(unavailable(exception))


# --- The DRF exception handler ---------------------------------------------


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> JsonResponse | None:
    """DRF ``EXCEPTION_HANDLER``: every API error becomes a problem document.

    Returns None for unexpected exceptions so that Django logs them and
    answers with ``server_error`` (500) below.
    """
    exc = _as_api_exception(exc)
    if exc is None:
        return None
    set_rollback()
    return _problem_for(exc)


def _as_api_exception(exc: Exception) -> exceptions.APIException | None:
    if is_transient(exc):
        return unavailable(exc)
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(detail=serializers.as_serializer_error(exc))
    if isinstance(exc, Http404):
        return exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    if isinstance(exc, exceptions.APIException):
        return exc
    return None


def _problem_for(exc: exceptions.APIException) -> JsonResponse:
    status = exc.status_code
    headers: dict[str, str] = {}
    extra: dict[str, Any] = {}
    title = None

    if isinstance(exc, ApiError):
        code, detail, title = exc.code, str(exc.detail), exc.title
        headers.update(exc.headers)
        extra.update(exc.extra)
    elif isinstance(exc, exceptions.ValidationError):
        code = "invalid"
        fields = flatten_errors(exc.detail)
        extra["fields"] = fields
        detail = _summarize(fields)
    else:
        code = _code_for(exc)
        detail = str(exc.detail)

    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        retry_after = max(1, math.ceil(exc.wait))
        headers["Retry-After"] = str(retry_after)
        extra["retry_after"] = retry_after

    return problem_response(
        status=status, code=code, detail=detail, title=title, headers=headers, **extra
    )


def _code_for(exc: exceptions.APIException) -> str:
    for exc_class, code in _CODE_OVERRIDES.items():
        if isinstance(exc, exc_class):
            return code
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF error detail (nested dicts/lists) -> {"field" | "a.0.b": [messages]}."""
    non_field_key = api_settings.NON_FIELD_ERRORS_KEY
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            for field, messages in flatten_errors(value, path).items():
                out.setdefault(field, []).extend(messages)
    elif isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        for index, item in enumerate(detail):
            path = f"{prefix}.{index}" if prefix else str(index)
            for field, messages in flatten_errors(item, path).items():
                out.setdefault(field, []).extend(messages)
    elif isinstance(detail, list):
        if detail:
            out.setdefault(prefix or non_field_key, []).extend(str(item) for item in detail)
    else:
        out.setdefault(prefix or non_field_key, []).append(str(detail))
    return out


def _summarize(fields: dict[str, list[str]]) -> str:
    non_field_key = api_settings.NON_FIELD_ERRORS_KEY
    parts = [
        message if field == non_field_key else f"{field}: {message}"
        for field, messages in fields.items()
        for message in messages
    ]
    return " ".join(parts) if parts else "Invalid input."


# --- Django-level handlers (URLs outside DRF views) -------------------------


def payload_too_large(limit: int) -> JsonResponse:
    """413 for a request body over ``limit`` bytes (config.middleware, or Django's own
    DATA_UPLOAD_MAX_MEMORY_SIZE check)."""
    return problem_response(
        status=413,
        code="payload_too_large",
        detail=f"The request body is larger than the limit of {limit} bytes.",
        max_bytes=limit,
    )


def bad_request(request, exception=None):
    # Django answers every SuspiciousOperation with 400; a body over its limit is a 413.
    if isinstance(exception, RequestDataTooBig):
        return payload_too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    return problem_response(status=400, code="bad_request", detail="The request is malformed.")


def permission_denied(request, exception=None):
    return problem_response(
        status=403, code="permission_denied", detail="You may not access this resource."
    )


def page_not_found(request, exception=None):
    return problem_response(
        status=404, code="not_found", detail=f"No resource at {request.path}."
    )


def server_error(request):
    exc = sys.exc_info()[1]
    if exc is not None and is_transient(exc):  # raised outside a view (e.g. in middleware)
        return _problem_for(unavailable(exc))
    return problem_response(
        status=500, code="server_error", detail="An unexpected error occurred (a bug)."
    )


# --- OpenAPI documentation --------------------------------------------------


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details, as returned with every error."""

    type = serializers.CharField(help_text="URI identifying the problem type (one per `code`).")
    title = serializers.CharField(help_text="Short, human-readable summary of the problem type.")
    status = serializers.IntegerField(help_text="The HTTP status code.")
    detail = serializers.CharField(help_text="Human-readable explanation of this occurrence.")
    code = serializers.CharField(
        help_text="Machine-readable error code, e.g. `invalid`, `not_found`, `throttled`."
    )
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Validation errors only: messages per field (`non_field_errors` for the body).",
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="429 and 503 only: seconds to wait, as in the Retry-After header."
    )
    max_bytes = serializers.IntegerField(
        required=False, help_text="413 only: the largest request body accepted, in bytes."
    )

    class Meta:
        ref_name = "Problem"


PROBLEM_DESCRIPTIONS = {
    400: "Malformed request: `malformed_json`, or `invalid` with `fields`.",
    401: "No or bad credentials: `not_authenticated` or `authentication_failed`.",
    403: "Authenticated but not allowed: `permission_denied`.",
    404: "Unknown resource: `not_found`.",
    405: "Method not allowed: `method_not_allowed`.",
    409: "Conflict with the current state of the resource.",
    413: "Body too large: `payload_too_large`, with `max_bytes` (the server's `MAX_REQUEST_BYTES`).",
    415: "Unsupported media type: `unsupported_media_type` (send application/json).",
    422: "Unprocessable request.",
    429: "Throttled: `throttled`; retry after `Retry-After` seconds.",
    503: "`unavailable`: a dependency (database, broker) is briefly unavailable and nothing was changed; "
    "retry after `Retry-After` seconds.",
}


def problem_responses(*statuses: int | tuple[int, str]) -> dict:
    """``extend_schema`` responses documenting errors as problem+json.

    Each argument is a status code, or ``(status, description)`` to describe
    the codes that operation may answer with::

        @extend_schema(responses={200: GameSerializer,
                                  **problem_responses(401, 404, (409, "`stale_version`"))})
    """
    responses = {}
    for item in statuses:
        status, description = item if isinstance(item, tuple) else (item, None)
        if description is None:
            description = PROBLEM_DESCRIPTIONS.get(status) or HTTPStatus(status).phrase
        responses[(status, PROBLEM_CONTENT_TYPE)] = OpenApiResponse(
            response=ProblemSerializer, description=description
        )
    return responses


# --- OpenAPI: what every operation may answer, and the headers of errors ----

#: ``components.headers`` of the error responses, set by the handlers above
PROBLEM_HEADERS: dict[str, dict[str, Any]] = {
    "Retry-After": {
        "description": "Seconds to wait before retrying: on a 429 the end of the exhausted rate-limit window "
        "(as `retry_after` and `RateLimit-Reset`), on a 503 a moment for the dependency to come back.",
        "schema": {"type": "integer", "minimum": 1},
        "required": True,
    },
    "WWW-Authenticate": {
        "description": "The authentication scheme to use: `Token` (`Authorization: Token <key>`).",
        "schema": {"type": "string", "enum": ["Token"]},
        "required": True,
    },
}
#: response status -> the headers every such answer carries
HEADERS_BY_STATUS = {"401": ("WWW-Authenticate",), "429": ("Retry-After",), "503": ("Retry-After",)}

_UNAVAILABLE = {
    "description": PROBLEM_DESCRIPTIONS[503],
    "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def problem_headers_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook: every operation may answer 503 ``unavailable``
    (each one reaches the database; an operation's own 503, e.g. the health check's, is
    kept), and the headers of errors are declared where they are sent: ``Retry-After`` on
    every 429 and 503, ``WWW-Authenticate`` on every 401."""
    components = result.setdefault("components", {}).setdefault("headers", {})
    components.update(deepcopy(PROBLEM_HEADERS))
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation["responses"].setdefault("503", deepcopy(_UNAVAILABLE))
            for status, response in operation["responses"].items():
                for name in HEADERS_BY_STATUS.get(str(status), ()):
                    response.setdefault("headers", {}).setdefault(name, {"$ref": f"#/components/headers/{name}"})
    return result
