"""The documentation site (docs/, mkdocs.yml): built in strict mode as `make run` and
`make test` build it, and served by a real gunicorn at ``/docs/`` (config/docs_site.py)
beside the browser client at ``/`` and the API's own docs at ``/api/docs/``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin

import pytest

from tests.server_support import ROOT, served

pytestmark = pytest.mark.django_db(transaction=True)


def build_site(site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).with_name("mkdocs")), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site") / "site"
    built = build_site(site)
    assert built.returncode == 0, built.stderr
    return site


@pytest.fixture(scope="module")
def server(django_db_setup, site, static_root, tmp_path_factory):
    """A real gunicorn with the site, and the static files collected as `make run` collects
    them (the API's Swagger page needs their manifest: ``static_root``, tests/browser_support.py)."""
    yield from served(tmp_path_factory, "docs-site", DOCS_SITE_DIR=site, STATIC_ROOT=static_root)


def get(server, path: str):
    conn = server.connection()
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_the_site_is_served_at_docs(server, site):
    status, headers, body = get(server, "/docs/")
    assert status == 200, body[:500]
    assert headers["content-type"].startswith("text/html")
    assert body == (site / "index.html").read_bytes()
    assert b"<title>" in body and b"UNO server" in body

    status, headers, body = get(server, "/docs/clients/webhooks/")
    assert status == 200, body[:500]
    assert body == (site / "clients" / "webhooks" / "index.html").read_bytes()

    # a directory's URL without its slash is redirected to it; the theme's assets are served
    status, headers, _ = get(server, "/docs/clients/webhooks")
    assert status in (301, 302)
    assert urljoin("/docs/clients/webhooks", headers["location"]).endswith("/docs/clients/webhooks/")
    css = next((site / "assets" / "stylesheets").glob("main.*.min.css"))
    status, headers, body = get(server, f"/docs/assets/stylesheets/{css.name}")
    assert status == 200 and body == css.read_bytes()
    assert get(server, "/docs/no-such-page/")[0] == 404


def test_the_api_docs_and_the_browser_client_are_still_served(server):
    status, headers, body = get(server, "/api/docs/")
    assert status == 200 and b"swagger" in body.lower()
    status, headers, body = get(server, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert body != get(server, "/docs/")[2]


def test_a_broken_link_fails_the_strict_build(tmp_path):
    """Strict mode turns mkdocs.yml's validation warnings into a failed build: a link to
    a page that does not exist fails it (checked on a copy of docs/ with such a link)."""
    copy = tmp_path / "project"
    subprocess.run(["cp", "-r", str(ROOT / "docs"), str(ROOT / "mkdocs.yml"), str(copy.mkdir() or copy)], check=True)
    page = copy / "docs" / "index.md"
    page.write_text(page.read_text() + "\n[nowhere](players/no-such-page.md)\n")
    built = subprocess.run(
        [str(Path(sys.executable).with_name("mkdocs")), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=copy, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True, timeout=300,
    )
    assert built.returncode != 0
    assert "no-such-page.md" in built.stderr


def test_the_readmes_relative_links_lead_to_files():
    """README.md is not part of the site (mkdocs checks the pages under docs/): its
    relative links and images are checked here."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", readme) if "://" not in t and not t.startswith("#")]
    assert targets, "no relative link found"
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
    assert len(readme.splitlines()) <= 250
