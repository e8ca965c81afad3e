"""docker-compose.yml's wiring, read as Docker Compose reads it (Docker does not run here):
the proxy in front of every `web` replica (no host port on web, so `--scale web=3`
works), the app's services through PgBouncer in transaction mode, the migrations once
before them, a health check on every long-running service; and deploy/pgbouncer's
configuration run by Debian's pgbouncer (only the addresses changed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
import yaml
from django.db import connection

from bench._stack import PgBouncer
from tests.server_support import free_port

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
APP = ("web", "worker", "beat")
NGINX = (ROOT / "deploy/nginx/default.conf").read_text()
PGBOUNCER_INI = (ROOT / "deploy/pgbouncer/pgbouncer.ini").read_text()


def ini_value(name: str) -> str:
    [value] = re.findall(rf"^{name}\s*=\s*(.*)$", PGBOUNCER_INI, re.M)
    return value.strip()


def test_web_has_no_host_port_and_the_proxy_publishes_port():
    assert "ports" not in SERVICES["web"]
    assert SERVICES["web"]["expose"] == ["8000"] and SERVICES["web"]["environment"]["PORT"] == "8000"
    assert SERVICES["proxy"]["ports"] == ["${PORT:-8000}:80"]
    published = [s for s, spec in SERVICES.items() if spec.get("ports")]
    assert published == ["proxy"]


def test_the_proxy_reaches_every_web_replica_and_lets_streams_through():
    [mount] = SERVICES["proxy"]["volumes"]
    source, target, _ = mount.split(":")
    assert (ROOT / source).resolve() == ROOT / "deploy/nginx/default.conf"
    assert target == "/etc/nginx/conf.d/default.conf"
    assert "listen 80;" in NGINX
    # Docker's DNS, re-resolved: replicas added later are found; the name is the service's
    assert re.search(r"^resolver 127\.0\.0\.11 valid=\d+s", NGINX, re.M)
    assert "set $web web:8000;" in NGINX and "proxy_pass http://$web;" in NGINX
    assert "proxy_buffering off;" in NGINX
    for timeout in ("proxy_read_timeout", "proxy_send_timeout"):
        [seconds] = re.findall(rf"{timeout} (\d+)s;", NGINX)
        assert int(seconds) >= 600  # long-polls and streams (keepalives every 15 s) outlive it
    assert SERVICES["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"
    assert SERVICES["web"]["environment"]["NUM_PROXIES"] == "1"  # the client's address from X-Forwarded-For


def test_the_app_goes_through_pgbouncer_in_transaction_mode_and_migrates_once_directly():
    for name in APP:
        env = SERVICES[name]["environment"]
        url = urlsplit(env["DATABASE_URL"])
        assert (url.hostname, url.port) == ("pgbouncer", int(ini_value("listen_port"))), name
        assert env["DB_POOLER"] == "transaction", name
        assert env["REDIS_URL"].startswith("redis://redis:"), name  # fan-out: LISTEN cannot pass PgBouncer
        deps = SERVICES[name]["depends_on"]
        assert deps["pgbouncer"]["condition"] == "service_healthy", name
        assert deps["migrate"]["condition"] == "service_completed_successfully", name
    assert ini_value("pool_mode") == "transaction"
    assert re.search(r"^\* = host=postgres port=5432$", PGBOUNCER_INI, re.M)
    migrate = SERVICES["migrate"]
    assert urlsplit(migrate["environment"]["DATABASE_URL"]).hostname == "postgres"
    assert migrate["environment"]["DB_POOLER"] == "" and migrate["restart"] == "no"
    assert "migrate --noinput" in " ".join(migrate["command"])
    assert not any("migrate" in " ".join(SERVICES[s].get("command", [])) for s in APP)
    # the role's lock_timeout (the app cannot send it through the pooler)
    [init] = [v for v in SERVICES["postgres"]["volumes"] if "docker-entrypoint-initdb.d" in v]
    assert "lock_timeout" in (ROOT / init.split(":")[0]).read_text()


def test_every_long_running_service_has_a_health_check_and_beat_is_not_scaled():
    for name, spec in SERVICES.items():
        if name == "migrate":
            continue
        assert spec.get("healthcheck", {}).get("test"), name
    assert "deploy" not in SERVICES["beat"] and "replicas" not in str(SERVICES["beat"])


@pytest.mark.skipif(not PgBouncer.available(), reason="Debian's pgbouncer is not installed (.ci/run installs it)")
@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PgBouncer is for PostgreSQL")
@pytest.mark.django_db
def test_the_pgbouncer_configuration_runs_under_debians_pgbouncer():
    """deploy/pgbouncer/pgbouncer.ini with only the addresses changed (the test database's
    server for ``postgres``, a free port, the user list in a folder of the test's):
    Debian's pgbouncer accepts it, and a password login passes in transaction mode."""
    from tests.pooler_support import direct_port

    base = Path(tempfile.mkdtemp(prefix="uno-compose-pgbouncer-"))
    base.chmod(0o755)
    port = free_port()
    ini = (PGBOUNCER_INI.replace("host=postgres port=5432", f"host=127.0.0.1 port={direct_port()}")
           .replace("listen_port = 6432", f"listen_port = {port}")
           .replace("listen_addr = 0.0.0.0", "listen_addr = 127.0.0.1")
           .replace("auth_file = /tmp/userlist.txt", f"auth_file = {base / 'userlist.txt'}"))
    (base / "userlist.txt").write_text('"postgres" "compose-secret"\n')
    (base / "pgbouncer.ini").write_text(ini + f"logfile = {base / 'pgbouncer.log'}\n")
    as_root = os.geteuid() == 0  # (pgbouncer refuses root)
    if as_root:
        for path in (base, base / "userlist.txt", base / "pgbouncer.ini"):
            shutil.chown(path, "postgres", "postgres")
    proc = subprocess.Popen([PgBouncer.BINARY, str(base / "pgbouncer.ini")], user="postgres" if as_root else None,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        dsn = f"postgres://postgres:compose-secret@127.0.0.1:{port}/{connection.settings_dict['NAME']}"
        for _ in range(100):
            assert proc.poll() is None, (base / "pgbouncer.log").read_text()
            try:
                with psycopg.connect(dsn, prepare_threshold=None, connect_timeout=2) as conn:
                    assert conn.execute("SELECT 1").fetchone() == (1,)
                break
            except psycopg.OperationalError as e:
                last = e
                time.sleep(0.1)
        else:
            raise AssertionError(f"no login through it: {last}")
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(dsn.replace("compose-secret", "wrong"), connect_timeout=2).close()
        with psycopg.connect(f"postgres://postgres:compose-secret@127.0.0.1:{port}/pgbouncer",
                             autocommit=True, prepare_threshold=None) as admin:
            modes = {row[0]: row for row in admin.execute("SHOW CONFIG").fetchall()}
        assert modes["pool_mode"][1] == "transaction"
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)
