import json
import os

import pytest
import yaml
from django.core.management import call_command

from config import health
from config.celery import app as celery_app
from tests.helpers import assert_json, assert_problem

pytestmark = pytest.mark.django_db


# --- health -----------------------------------------------------------------


def _heartbeats(age_seconds: float) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Heartbeat

    for name in ("worker", "sweeper"):
        Heartbeat.objects.update_or_create(
            name=name, defaults={"at": timezone.now() - timedelta(seconds=age_seconds)}
        )


def test_health_ok(api):
    _heartbeats(age_seconds=1)

    body = assert_json(api.get("/api/v1/health"), 200)

    assert body == {"status": "ok", "database": "ok", "broker": "ok", "worker": "ok", "sweeper": "ok", "bots": "ok",
                    "bot_backlog": 0}


def test_liveness_needs_only_the_database_and_the_broker(api):
    # no heartbeat at all: /api/v1/health says 503, /health (load balancers) 200
    assert_problem(api.get("/api/v1/health"), 503, "unavailable")

    body = assert_json(api.get("/health"), 200)

    assert body == {"status": "ok", "database": "ok", "broker": "ok"}


def test_health_names_stale_heartbeats(api, settings):
    settings.UNO_SWEEP_SECONDS = 5
    settings.UNO_WORKER_HEARTBEAT_SECONDS = 5
    _heartbeats(age_seconds=19)  # 3 periods + 5 s = 20 s: still fresh
    assert assert_json(api.get("/api/v1/health"), 200)["worker"] == "ok"

    _heartbeats(age_seconds=21)
    body = assert_problem(api.get("/api/v1/health"), 503, "unavailable")

    assert (body["worker"], body["sweeper"], body["database"]) == ("error", "error", "ok")
    assert "worker" in body["detail"] and "sweeper" in body["detail"]


def test_health_ignores_credentials(api):
    response = api.get("/health", HTTP_AUTHORIZATION="Token not-a-token")

    assert assert_json(response, 200)["status"] == "ok"


def test_health_reports_a_failing_check(api, monkeypatch):
    def broken():
        raise ConnectionError("broker down")

    monkeypatch.setitem(health.CHECKS, "broker", broken)

    body = assert_problem(api.get("/api/v1/health"), 503, "unavailable")

    assert body["database"] == "ok"
    assert body["broker"] == "error"
    assert "broker" in body["detail"]


def test_health_reports_an_unreachable_broker(api, monkeypatch, settings):
    # A port nothing listens on: the real probe must fail fast, not hang.
    settings.HEALTH_BROKER_TIMEOUT = 1
    # broker_write_url first: read after broker_url was patched, its "old value"
    # would be the dead URL, restored for the rest of the session
    monkeypatch.setattr(celery_app.conf, "broker_write_url", None)
    monkeypatch.setattr(celery_app.conf, "broker_url", "redis://127.0.0.1:1/0")

    body = assert_problem(api.get("/health"), 503, "unavailable")

    assert (body["database"], body["broker"]) == ("ok", "error")


# --- OpenAPI schema and docs ------------------------------------------------


def test_schema_is_openapi3_yaml(api):
    response = api.get("/api/schema/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi")
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "UNO server API"
    for path in ["/api/v1/auth/register", "/api/v1/auth/token", "/api/v1/players/me"]:
        assert path in schema["paths"]
    assert "Problem" in schema["components"]["schemas"]


def test_schema_as_json(api):
    response = api.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    schema = json.loads(response.content)
    register = schema["paths"]["/api/v1/auth/register"]["post"]
    assert register["requestBody"]["content"]["application/json"]
    assert set(register["responses"]) >= {"201", "400", "429"}
    assert schema["components"]["securitySchemes"]["tokenAuth"]["name"] == "Authorization"


def test_every_operation_documents_problem_errors(api):
    schema = json.loads(api.get("/api/schema/", {"format": "json"}).content)

    undocumented = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            errors = {
                status: response.get("content", {})
                for status, response in operation["responses"].items()
                if status[0] in "45"
            }
            if not errors or any(
                list(content) != ["application/problem+json"] for content in errors.values()
            ):
                undocumented.append(f"{method.upper()} {path}")
    assert undocumented == []


def test_docs_page_renders_swagger_ui_from_local_static(api):
    response = api.get("/api/docs/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "swagger-ui" in page
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "/api/schema/" in page
    assert "cdn.jsdelivr.net" not in page and "unpkg.com" not in page


# --- project wiring ---------------------------------------------------------


def test_migrations_are_up_to_date():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_celery_uses_the_configured_broker():
    assert celery_app.main == "uno"
    assert not celery_app.conf.task_always_eager
    redis_url = os.environ.get("REDIS_URL")
    if redis_url:
        assert celery_app.conf.broker_url == redis_url
    else:
        assert celery_app.conf.broker_url.startswith("filesystem://")
