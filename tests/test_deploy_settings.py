"""Production settings from the environment (README.md, "Deployment / security"):
`manage.py check --deploy` has nothing to say with them and warns without them,
and plain http still reaches the liveness probe behind an https redirect."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: README.md's production environment (behind a proxy that terminates TLS)
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "uno.example.com",
    "SECURE_PROXY_SSL": "1",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "SESSION_COOKIE_SECURE": "1",
    "CSRF_COOKIE_SECURE": "1",
}
#: what `make run` gets with no configuration
DEVELOPMENT_WARNINGS = ["security.W004", "security.W008", "security.W009", "security.W012", "security.W016"]


def run(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    """``python <argv>`` in the repository, with the tests' environment less every
    variable named here, plus ``env``."""
    ours = {*PRODUCTION, "UNO_WEBHOOK_ALLOW_PRIVATE", "LOG_LEVEL"}
    base = {k: v for k, v in os.environ.items() if k not in ours}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env={**base, "CELERY_SKIP_CHECKS": "1", **env},
                          capture_output=True, text=True, timeout=120)


def check_deploy(**env: str) -> subprocess.CompletedProcess:
    return run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **env)


def test_check_deploy_has_nothing_to_say_with_the_production_environment():
    done = check_deploy(**PRODUCTION)
    assert done.returncode == 0 and "System check identified no issues" in done.stdout, done.stdout + done.stderr


def test_check_deploy_warns_without_it():
    done = check_deploy()
    assert done.returncode != 0
    for warning in DEVELOPMENT_WARNINGS:
        assert warning in done.stderr, done.stderr


def test_hsts_preload_and_subdomains_are_the_operators_choice():
    done = check_deploy(**{**PRODUCTION, "SECURE_HSTS_INCLUDE_SUBDOMAINS": "0", "SECURE_HSTS_PRELOAD": "0"})
    assert done.returncode != 0
    assert "security.W005" in done.stderr and "security.W021" in done.stderr, done.stderr


def test_the_private_webhook_switch_is_loud():
    done = check_deploy(**PRODUCTION, UNO_WEBHOOK_ALLOW_PRIVATE="1")
    assert done.returncode != 0 and "players.W001" in done.stderr, done.stderr
    assert "WARNING" in done.stdout and "UNO_WEBHOOK_ALLOW_PRIVATE is on" in done.stdout  # the startup log line


PROBE = """
import json, django
django.setup()
from django.test import Client
c = Client(HTTP_HOST="uno.example.com", raise_request_exception=False)
plain_api, plain_health = c.get("/api/v1/health"), c.get("/health")
tls_api = c.get("/api/v1/health", HTTP_X_FORWARDED_PROTO="https")
print(json.dumps({
    "plain_api": [plain_api.status_code, plain_api.get("Location")],
    "plain_health": [plain_health.status_code, plain_health.get("Location")],
    "tls_api": [tls_api.status_code, tls_api.get("Strict-Transport-Security")],
}))
"""


def test_plain_http_is_redirected_but_the_liveness_probe_is_not():
    done = run(["-c", PROBE], DJANGO_SETTINGS_MODULE="config.settings", HEALTH_BROKER_TIMEOUT="0.5", **PRODUCTION)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["plain_api"] == [301, "https://uno.example.com/api/v1/health"]
    assert seen["plain_health"][0] in (200, 503) and seen["plain_health"][1] is None  # answered, not redirected
    assert seen["tls_api"][0] != 301
    assert seen["tls_api"][1] == "max-age=31536000; includeSubDomains; preload"


def test_the_wheel_carries_every_app_the_server_runs(tmp_path):
    """The Docker image installs the project's wheel and imports only that copy: every
    app of INSTALLED_APPS that lives in this repository (and config) must be in it, with
    its migrations and the browser client's static files (it once held only three apps)."""
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    from django.conf import settings

    import shutil

    root = Path(__file__).resolve().parent.parent
    # built from a copy, as the image's build stage does (`COPY . /src`), so that the build
    # leaves nothing in the checkout (the virtualenv and run directories left out)
    src = tmp_path / "src"
    shutil.copytree(root, src, ignore=shutil.ignore_patterns(".git", ".venv", ".run", "node_modules", "build",
                                                             "*.egg-info", "__pycache__", "site"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
                    str(tmp_path / "wheels"), str(src)], check=True, timeout=600)
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    local = sorted({app.split(".")[0] for app in settings.INSTALLED_APPS if (root / app.split(".")[0]).is_dir()})
    assert "reach" in local and "games" in local
    for package in ["config", *local]:
        assert f"{package}/__init__.py" in names, f"{package} is missing from the wheel"
        if (root / package / "migrations").is_dir():
            assert f"{package}/migrations/__init__.py" in names, f"{package}'s migrations are missing"
    for static in sorted((root / "games" / "static" / "uno").iterdir()):
        assert f"games/static/uno/{static.name}" in names, f"{static.name} is missing from the wheel"


def test_the_public_url_follows_the_port_make_run_serves_on():
    """Links in emails and push messages lead to the server: `PORT=8123 make run` serves on
    8123, so its links say so unless UNO_PUBLIC_URL says otherwise."""
    import os
    import subprocess
    import sys

    code = "import django; django.setup(); from django.conf import settings; print(settings.UNO_PUBLIC_URL)"
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "UNO_PUBLIC_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"

    def public_url(**extra):
        out = subprocess.run([sys.executable, "-c", code], env={**env, **extra}, capture_output=True, text=True,
                             check=True, timeout=120)
        return out.stdout.strip()

    assert public_url() == "http://localhost:8000"
    assert public_url(PORT="8123") == "http://localhost:8123"
    assert public_url(PORT="8123", UNO_PUBLIC_URL="https://uno.example.org") == "https://uno.example.org"
