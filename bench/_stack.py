"""A private, disposable UNO stack for the reliability benchmarks (soak.py, timers.py).

Everything runs on services this module starts and removes itself, never on the
machine's shared PostgreSQL (5432) or Redis (6379), because the benchmarks kill
and restart things:

* ``PrivatePostgres``: a throw-away cluster (``initdb`` as the ``postgres`` user,
  trust auth) on its own port, sockets in its own folder;
* ``PrivateRedis``: ``redis-server`` on its own port, no persistence;
* a supervisor that keeps the product's processes up the way a process manager
  would: ``supervisord`` from ``.venv`` when it is installed (a generated config,
  ``autorestart``), otherwise a restart loop in this process;
* ``Stack``: both services, ``manage.py migrate``, then gunicorn web processes,
  Celery workers and beat under the supervisor, with the environment a deployment
  would set (``DATABASE_URL``, ``REDIS_URL``, ``SECRET_KEY``, ...).

``Stack`` is a context manager: on exit (also Ctrl-C, SIGTERM or an error) it
stops the processes, the database and Redis and deletes their folders.  Every
process it starts carries ``UNO_BENCH_STACK=<id>`` in its environment, so that
leftovers (e.g. the orphaned children of a process killed with -9) are found and
ended by pid at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import xmlrpc.client
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
# the tree's own venv; else (a git worktree without one) the venv of the running python
VENV_BIN = ROOT / ".venv" / "bin" if (ROOT / ".venv" / "bin").is_dir() else Path(sys.executable).parent
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
PG_BIN = Path("/usr/lib/postgresql/15/bin")
SHARED_PORTS = {5432, 6379}  # the machine's shared services: never ours
GUNICORN_CONF = Path("config") / "gunicorn.conf.py"  # relative to the code's folder

T0 = time.time()


# --------------------------------------------------------------------------------------
# Small helpers: logging, figures, processes
# --------------------------------------------------------------------------------------
def log(msg: str) -> None:
    """A line prefixed with the seconds since the script started (flushed: runs are long)."""
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (nan for no values)."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))]


def fmt_s(x: float) -> str:
    return "n/a" if x != x else f"{x:.3f} s"


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def check_private_port(port: int, what: str) -> None:
    """Refuse the shared services' ports and ports already in use."""
    if port in SHARED_PORTS:
        raise SystemExit(f"{what}: port {port} is a shared service's; pick another (the bench kills things)")
    if not port_free(port):
        raise SystemExit(f"{what}: port {port} is in use; pick another with the flags")


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # the command may contain spaces or parentheses: fields follow the last ')'
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(entry))
    return sorted(out)


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def rss_mb(pid: int) -> float:
    """Resident set size of one process in MiB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def kill9(pid: int) -> bool:
    try:
        os.kill(pid, signal.SIGKILL)
        return True
    except ProcessLookupError:
        return False


def marked_pids(marker: str) -> list[int]:
    """Processes whose environment carries ``UNO_BENCH_STACK=<marker>`` (ours)."""
    needle = f"UNO_BENCH_STACK={marker}".encode()
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if needle in f.read().split(b"\0"):
                        out.append(int(entry))
            except OSError:
                continue
    return out


def terminate(proc: subprocess.Popen | None, grace: float) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def add_stack_arguments(ap: argparse.ArgumentParser) -> None:
    """The flags every script on a private stack has."""
    ap.add_argument("--pg-port", type=int, default=55432, help="private PostgreSQL port, default 55432")
    ap.add_argument("--redis-port", type=int, default=56379, help="private Redis port, default 56379")
    ap.add_argument("--supervisord", default=None, metavar="PATH", help="supervisord to use (default: "
                    ".venv/bin/supervisord if installed, else the bench's restart loop; 'none': the loop)")
    ap.add_argument("--keep-logs", default=None, metavar="DIR", help="copy the processes' logs to DIR at the end")
    ap.add_argument("--live-tree", action="store_true", help="run the working tree itself, not a copy taken at "
                    "the start (a process restarted mid-run then runs whatever the tree holds by then)")


def run_on_stack(cfg: "StackConfig", banner: str, body: Callable[["Stack"], None]) -> None:
    """Print ``banner`` (with the machine's load), run ``body`` on a started Stack,
    and remove the stack whatever happens (Ctrl-C and SIGTERM included)."""
    install_signal_handlers()
    print(f"{banner}; {os.cpu_count()} CPUs, load average {load_average()}", flush=True)
    try:
        with Stack(cfg) as stack:
            body(stack)
    except KeyboardInterrupt:
        print("\ninterrupted: stack stopped and removed", flush=True)


def install_signal_handlers() -> None:
    """SIGTERM raises KeyboardInterrupt like Ctrl-C, so every ``finally`` cleans up."""

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)


# --------------------------------------------------------------------------------------
# Private PostgreSQL and Redis
# --------------------------------------------------------------------------------------
class PrivatePostgres:
    """A PostgreSQL 15 cluster of our own (run as the ``postgres`` user: initdb and
    pg_ctl refuse root), listening on 127.0.0.1:``port`` with sockets in its folder."""

    def __init__(self, base: Path, port: int):
        check_private_port(port, "PostgreSQL")
        self.port = port
        self.dir = base / "pg"
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.logfile = self.dir / "postgres.log"
        self.started = False
        self.restarts: list[tuple[float, float]] = []  # (began, ready) of each restart, time.time()

    def _as_postgres(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        # a new session: Ctrl-C in the terminal must not reach the postmaster (SIGINT
        # is its "fast shutdown"); we stop it ourselves
        return subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=check, start_new_session=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def start(self) -> None:
        for d in (self.dir, self.data, self.sock):
            d.mkdir(parents=True, exist_ok=True)
            shutil.chown(d, "postgres", "postgres")
        self._as_postgres(str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                          "-E", "UTF8", "--no-sync")
        with open(self.data / "postgresql.conf", "a") as f:
            f.write(f"\n# uno bench: private cluster\nport = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                    f"unix_socket_directories = '{self.sock}'\nmax_connections = 200\n")
        self.logfile.touch()
        shutil.chown(self.logfile, "postgres", "postgres")
        self._pg_ctl("start")
        self.started = True
        self.admin("CREATE DATABASE uno")

    def _pg_ctl(self, *what: str) -> None:
        res = self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.logfile), "-w",
                                "-t", "60", *what, check=False)
        if res.returncode:
            raise RuntimeError(f"pg_ctl {' '.join(what)} failed: {res.stdout}\n{self.tail()}")

    def restart(self) -> float:
        """``pg_ctl restart -m fast`` (every connection is cut); returns its seconds."""
        began = time.time()
        self._pg_ctl("-m", "fast", "restart")
        self.restarts.append((began, time.time()))
        return time.time() - began

    def url(self, db: str = "uno") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(sql)

    def pids(self) -> list[int]:
        try:
            postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return []
        return [postmaster, *descendants(postmaster)]

    def tail(self, n: int = 20) -> str:
        try:
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.started:
            self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop",
                              check=False)
            self.started = False


class PrivateReplica(PrivatePostgres):
    """A streaming replica of ``primary`` (a started :class:`PrivatePostgres`), made as an
    operator makes one: ``pg_basebackup -R`` (the standby's settings written for it),
    then started on its own ``port``; read-only, it replays what the primary commits."""

    def __init__(self, base: Path, port: int, primary: PrivatePostgres):
        super().__init__(base, port)
        self.primary = primary
        self.dir = base / "replica"
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.logfile = self.dir / "postgres.log"

    def start(self) -> None:
        for d in (self.dir, self.sock):
            d.mkdir(parents=True, exist_ok=True)
            shutil.chown(d, "postgres", "postgres")
        res = self._as_postgres(str(PG_BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.primary.port),
                                "-U", "postgres", "-D", str(self.data), "-R", "-X", "stream", "--no-sync",
                                "-c", "fast",  # (a spread checkpoint first made it wait ~2 minutes)
                                check=False)
        if res.returncode:
            raise RuntimeError(f"pg_basebackup failed: {res.stdout}")
        with open(self.data / "postgresql.conf", "a") as f:  # the primary's copy, then ours
            f.write(f"\n# uno: the replica\nport = {self.port}\nunix_socket_directories = '{self.sock}'\n"
                    "hot_standby = on\n")
        self.logfile.touch()
        shutil.chown(self.logfile, "postgres", "postgres")
        self._pg_ctl("start")
        self.started = True

    def start_again(self) -> None:
        """Start the stopped replica (it catches up from the primary)."""
        self._pg_ctl("start")
        self.started = True

    def stop_fast(self) -> float:
        """``pg_ctl stop -m fast`` (its sessions are cut; a clean shutdown keeps its
        statistics); returns its seconds."""
        began = time.time()
        self._pg_ctl("-m", "fast", "stop")
        self.started = False
        return time.time() - began


class PgBouncer:
    """Debian's ``pgbouncer`` (1.18) of our own on 127.0.0.1:``port``, in front of the
    PostgreSQL on ``127.0.0.1:pg_port`` (every database, as ``*``), in transaction mode
    and otherwise with its stock settings: no prepared statements survive a transaction
    (1.18 has no ``max_prepared_statements``), no startup parameter it does not know is
    let through.  ``settings`` adds or replaces lines of its ``[pgbouncer]`` section.
    Started by root, it runs as the ``postgres`` user (it refuses root)."""

    BINARY = "/usr/sbin/pgbouncer"

    def __init__(self, base: Path, port: int, pg_port: int, **settings: object):
        check_private_port(port, "PgBouncer")
        self.port = port
        self.pg_port = pg_port
        self.dir = base / "pgbouncer"
        self.logfile = self.dir / "pgbouncer.log"
        self.settings = settings
        self.proc: subprocess.Popen | None = None

    @classmethod
    def available(cls) -> bool:
        return os.access(cls.BINARY, os.X_OK)

    def config(self) -> str:
        section = {
            "listen_addr": "127.0.0.1", "listen_port": self.port, "unix_socket_dir": "",
            "auth_type": "trust", "auth_file": self.dir / "users.txt", "admin_users": "postgres",
            "pool_mode": "transaction", "logfile": self.logfile, "pidfile": self.dir / "pgbouncer.pid",
            **self.settings,
        }
        lines = ["[databases]", f"* = host=127.0.0.1 port={self.pg_port}", "", "[pgbouncer]"]
        lines += [f"{name} = {value}" for name, value in section.items()]
        return "\n".join(lines) + "\n"

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("pgbouncer is already running")
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "pgbouncer.pid").unlink(missing_ok=True)  # a killed one's
        (self.dir / "users.txt").write_text('"postgres" ""\n')
        (self.dir / "pgbouncer.ini").write_text(self.config())
        as_root = os.geteuid() == 0  # (pgbouncer refuses to run as root: then as postgres)
        if as_root:
            for path in (self.dir, self.dir / "users.txt", self.dir / "pgbouncer.ini"):
                shutil.chown(path, "postgres", "postgres")
        self.proc = subprocess.Popen([self.BINARY, str(self.dir / "pgbouncer.ini")],
                                     user="postgres" if as_root else None,
                                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"pgbouncer exited ({self.proc.returncode}): {self.tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"pgbouncer did not listen on {self.port}: {self.tail()}")

    def url(self, db: str = "uno") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}"

    def _console(self, command: str, **connect: Any) -> tuple[list[str], list[tuple]]:
        """A command of PgBouncer's admin console: (column names, rows)."""
        import psycopg

        with psycopg.connect(self.url("pgbouncer"), autocommit=True, prepare_threshold=None, **connect) as conn:
            cur = conn.execute(command)
            if cur.description is None:
                return [], []
            return [c.name for c in cur.description], cur.fetchall()

    def admin(self, command: str) -> list[tuple]:
        """A command of PgBouncer's admin console (``SHOW POOLS``, ``KILL db``...)."""
        return self._console(command)[1]

    def show(self, what: str) -> list[dict[str, Any]]:
        """``SHOW <what>`` (POOLS, STATS, ...) of the admin console, a dict per row."""
        names, rows = self._console(f"SHOW {what}", connect_timeout=3)
        return [dict(zip(names, row)) for row in rows]

    def tail(self, n: int = 20) -> str:
        try:
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc and self.proc.poll() is None else []

    def kill9(self) -> int | None:
        """kill -9 the running pgbouncer (its clients' connections are cut); its pid."""
        if self.proc is None or self.proc.poll() is not None:
            return None
        pid = self.proc.pid
        kill9(pid)
        self.proc.wait(10)
        return pid

    def stop(self) -> None:
        terminate(self.proc, 10)


class PrivateRedis:
    """redis-server of our own on 127.0.0.1:``port`` (no RDB, no AOF)."""

    def __init__(self, base: Path, port: int):
        check_private_port(port, "Redis")
        self.port = port
        self.dir = base / "redis"
        self.proc: subprocess.Popen | None = None
        self.flushes: list[float] = []

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir), "--logfile", str(self.dir / "redis.log")],
            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                if self.client().ping():
                    return
            except Exception:
                time.sleep(0.1)
        raise RuntimeError("redis-server did not answer")

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def flushall(self) -> None:
        self.client().flushall()
        self.flushes.append(time.time())

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc and self.proc.poll() is None else []

    def stop(self) -> None:
        terminate(self.proc, 10)


# --------------------------------------------------------------------------------------
# Supervision of the product's processes
# --------------------------------------------------------------------------------------
@dataclass
class Program:
    name: str
    cmd: list[str]
    env: dict[str, str]
    log: Path
    cwd: Path
    #: a web process's port (ready when /api/v1/health answers 200 there)
    port: int | None = None


@dataclass
class ExitRecord:
    name: str
    at: float  # time.time() the death was noticed
    how: str
    restarted_at: float | None = None


class LoopSupervisor:
    """Restart each program when it exits, in a loop (the fallback when supervisord
    is not installed).  Each program runs in its own session; when its main process
    dies, what is left of its process group (gunicorn workers, Celery pool children)
    is killed before the restart, as a process manager's cgroup would."""

    kind = "restart loop in the bench (no supervisord)"

    def __init__(self, programs: list[Program], backoff: float = 1.0):
        self.programs = {p.name: p for p in programs}
        self.procs: dict[str, subprocess.Popen] = {}
        self.exits: list[ExitRecord] = []
        self.backoff = backoff
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._watch, name="supervisor", daemon=True)

    def _spawn(self, p: Program) -> None:
        with open(p.log, "ab") as out:
            self.procs[p.name] = subprocess.Popen(p.cmd, cwd=p.cwd, env=p.env, stdout=out, stderr=subprocess.STDOUT,
                                                  start_new_session=True)

    def start(self) -> None:
        for p in self.programs.values():
            self._spawn(p)
        self.thread.start()

    def _watch(self) -> None:
        while not self.stopping.wait(0.2):
            for name, proc in list(self.procs.items()):
                code = proc.poll()
                if code is None:
                    continue
                how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exited {code}"
                rec = ExitRecord(name, time.time(), how)
                with self.lock:
                    self.exits.append(rec)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the rest of its group, if any
                except (ProcessLookupError, PermissionError):
                    pass
                if self.stopping.wait(self.backoff):
                    return
                self._spawn(self.programs[name])
                rec.restarted_at = time.time()
                log(f"supervisor: {name} {how}; restarted as pid {self.procs[name].pid}")

    def pid(self, name: str) -> int | None:
        proc = self.procs.get(name)
        return proc.pid if proc and proc.poll() is None else None

    def stop(self) -> None:
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(5)
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 20
        for proc in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _ini_escape(value: str) -> str:
    """A value for supervisord's config: '%' is its expansion character."""
    return value.replace("%", "%%")


class SupervisordSupervisor:
    """The same programs under ``supervisord`` (a generated config: ``autorestart``,
    ``stopasgroup``/``killasgroup``), queried with ``supervisorctl``."""

    kind = "supervisord (generated config, autorestart=true)"

    def __init__(self, programs: list[Program], base: Path, supervisord: str):
        self.programs = {p.name: p for p in programs}
        self.exe = supervisord
        self.conf = base / "supervisord.conf"
        self.sock = base / "supervisor.sock"
        self.proc: subprocess.Popen | None = None
        self.exits: list[ExitRecord] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.known: dict[str, int | None] = {}
        self.thread = threading.Thread(target=self._watch, name="supervisor-watch", daemon=True)

    def _config(self) -> str:
        lines = [
            "[unix_http_server]", f"file={self.sock}", "",
            "[supervisord]", f"logfile={self.conf.parent / 'supervisord.log'}",
            f"pidfile={self.conf.parent / 'supervisord.pid'}", "nodaemon=true", "",
            "[rpcinterface:supervisor]",
            "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface", "",
            "[supervisorctl]", f"serverurl=unix://{self.sock}", "",
        ]
        for p in self.programs.values():
            env = ",".join(f'{k}="{_ini_escape(v)}"' for k, v in p.env.items() if '"' not in v and "\n" not in v)
            lines += [
                f"[program:{p.name}]",
                "command=" + " ".join(_ini_escape(c) for c in p.cmd),
                f"directory={p.cwd}", f"environment={env}", "autostart=true", "autorestart=true",
                "startsecs=1", "startretries=1000", "stopasgroup=true", "killasgroup=true", "stopwaitsecs=15",
                f"stdout_logfile={p.log}", "stdout_logfile_maxbytes=0", "redirect_stderr=true", "",
            ]
        return "\n".join(lines)

    def start(self) -> None:
        self.conf.write_text(self._config())
        first = next(iter(self.programs.values()))  # its env carries the UNO_BENCH_STACK marker
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], cwd=first.cwd, env=first.env, start_new_session=True,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline and not all(self._status().get(n) for n in self.programs):
            time.sleep(0.3)
        self.known = self._status()
        self.thread.start()

    def _status(self) -> dict[str, int | None]:
        """{program: pid while RUNNING, else None}, over supervisord's XML-RPC socket
        (cheap enough to poll; a supervisorctl process per poll would not be)."""
        from supervisor.xmlrpc import SupervisorTransport  # installed with supervisord

        # a new connection per call: the transport is neither thread-safe nor reusable
        # after a failed request
        rpc = xmlrpc.client.ServerProxy("http://127.0.0.1",
                                        transport=SupervisorTransport(None, None, f"unix://{self.sock}"))
        try:
            infos = rpc.supervisor.getAllProcessInfo()
        except Exception:
            return {}
        return {i["name"]: (i["pid"] or None) if i["statename"] == "RUNNING" else None for i in infos}

    def _watch(self) -> None:
        """Notice restarts (a program's pid changes) to record them like the loop
        supervisor does."""
        down: dict[str, ExitRecord] = {}
        while not self.stopping.wait(0.5):
            for name, pid in self._status().items():
                old = self.known.get(name)
                if old is None or pid == old:
                    if pid:
                        self.known[name] = pid
                    continue
                rec = down.get(name)
                if rec is None:
                    rec = down[name] = ExitRecord(name, time.time(), f"pid {old} gone")
                    with self.lock:
                        self.exits.append(rec)
                if pid:
                    rec.restarted_at = time.time()
                    self.known[name] = pid
                    del down[name]
                    log(f"supervisord: {name} pid {old} gone; restarted as pid {pid}")

    def pid(self, name: str) -> int | None:
        return self._status().get(name)

    def stop(self) -> None:
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(5)
        terminate(self.proc, 40)  # supervisord stops its programs (as groups), then exits


# --------------------------------------------------------------------------------------
# The stack
# --------------------------------------------------------------------------------------
@dataclass
class StackConfig:
    pg_port: int = 55432
    redis_port: int = 56379
    webs: int = 2
    workers: int = 2
    concurrency: int = 2
    beat: bool = True
    gunicorn_workers: int = 2
    gunicorn_threads: int = 4
    #: first web port (the others follow); 0: free ports
    web_port: int = 0
    #: extra environment (UNO_* settings) for every product process
    env: dict[str, str] = field(default_factory=dict)
    #: supervisord's path; None: .venv/bin/supervisord if installed; "none": the restart loop
    supervisord: str | None = None
    #: run a copy of the working tree taken at the start (False: the live tree)
    snapshot: bool = True
    #: copy the processes' logs (and PostgreSQL's) here before the folder is removed
    keep_logs: str | None = None
    worker_loglevel: str = "WARNING"
    #: a PgBouncer (transaction mode) on this port in front of the private PostgreSQL:
    #: web, workers and beat reach the database through it (DB_POOLER=transaction;
    #: migrations, the bench's checks and verify_game go direct); 0: none
    pgbouncer_port: int = 0
    #: lines of its [pgbouncer] section beside the stock ones (PgBouncer(**settings))
    pgbouncer_settings: dict[str, object] = field(default_factory=dict)
    #: a streaming replica of the private PostgreSQL on this port, DATABASE_REPLICA_URL
    #: of the web processes (directly, not through PgBouncer); 0: none
    replica_port: int = 0


_DROPPED_ENV_PREFIXES = ("DATABASE_URL", "REDIS_URL", "CELERY_", "TEST_", "PG", "DJANGO_", "UNO_", "THROTTLE_")


class Stack:
    """Private PostgreSQL + Redis + the product's processes under a supervisor."""

    def __init__(self, cfg: StackConfig):
        self.cfg = cfg
        check_private_port(cfg.pg_port, "PostgreSQL")  # before anything is created
        check_private_port(cfg.redis_port, "Redis")
        self.id = secrets.token_hex(4)
        self.base = Path(tempfile.mkdtemp(prefix=f"uno_stack_{self.id}_"))
        os.chmod(self.base, 0o755)  # the postgres user must reach its folder
        self.app = self._snapshot() if cfg.snapshot else ROOT
        self.pg = PrivatePostgres(self.base, cfg.pg_port)
        self.redis = PrivateRedis(self.base, cfg.redis_port)
        self.bouncer = (PgBouncer(self.base, cfg.pgbouncer_port, cfg.pg_port, **cfg.pgbouncer_settings)
                        if cfg.pgbouncer_port else None)
        self.replica = PrivateReplica(self.base, cfg.replica_port, self.pg) if cfg.replica_port else None
        self.web_ports = self._web_ports()
        self.env = self._env()
        self.supervisor: LoopSupervisor | SupervisordSupervisor | None = None

    # -- code, environment and programs -------------------------------------------------
    def _snapshot(self) -> Path:
        """A copy of the working tree as it is now (tracked and untracked files git
        does not ignore): other developers edit the tree
        while a run lasts, and a process restarted by the supervisor must run the
        same code as the others."""
        app = self.base / "app"
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                                capture_output=True).stdout.decode().split("\0")
        for rel in filter(None, listed):
            src = ROOT / rel
            if src.is_file():
                (app / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, app / rel)
        return app

    def _web_ports(self) -> list[int]:
        if self.cfg.web_port:
            ports = [self.cfg.web_port + i for i in range(self.cfg.webs)]
            for port in ports:
                check_private_port(port, "web")
            return ports
        socks = [socket.socket() for _ in range(self.cfg.webs)]
        try:
            for s in socks:
                s.bind(("127.0.0.1", 0))
            return [s.getsockname()[1] for s in socks]
        finally:
            for s in socks:
                s.close()

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_ENV_PREFIXES)}
        run_dir = self.base / "run"
        run_dir.mkdir()
        (self.base / "logs").mkdir()
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=self.pg.url(),
            REDIS_URL=self.redis.url(),
            SECRET_KEY=secrets.token_urlsafe(40),
            DEBUG="0",
            LOG_LEVEL="WARNING",
            RUN_DIR=str(run_dir),
            STATIC_ROOT=str(self.base / "static"),
            THROTTLE_ANON="1000000/min",
            THROTTLE_USER="1000000/min",
            THROTTLE_AUTH="1000000/min",
            PYTHONUNBUFFERED="1",
            PYTHONPATH=str(self.app),  # ahead of the editable install's finder (which maps to ROOT)
            PYTHONWARNINGS="ignore",
            UNO_BENCH_STACK=self.id,
        )
        env.update(self.cfg.env)
        return env

    def program_env(self, web: bool = False) -> dict[str, str]:
        """The environment of a web process (``web``), a worker or beat: behind the
        PgBouncer when there is one, the web processes with the replica when there is one
        (``self.env`` is the direct one: migrations, verify_game)."""
        env = dict(self.env)
        if self.bouncer is not None:
            env.update(DATABASE_URL=self.bouncer.url(), DB_POOLER="transaction")
        if web and self.replica is not None:
            env["DATABASE_REPLICA_URL"] = self.replica.url()
        return env

    def web_cmd(self, port: int) -> tuple[list[str], dict[str, str]]:
        env = dict(self.program_env(web=True), PORT=str(port), WEB_CONCURRENCY=str(self.cfg.gunicorn_workers),
                   GUNICORN_THREADS=str(self.cfg.gunicorn_threads))
        gunicorn = str(VENV_BIN / "gunicorn")
        if (self.app / GUNICORN_CONF).exists():
            return [gunicorn, "-c", str(GUNICORN_CONF), "config.wsgi:application"], env
        return [gunicorn, "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
                "--workers", str(self.cfg.gunicorn_workers), "--threads", str(self.cfg.gunicorn_threads),
                "--log-level", "warning"], env

    def programs(self) -> list[Program]:
        celery = str(VENV_BIN / "celery")
        logs = self.base / "logs"
        out = []
        for i, port in enumerate(self.web_ports, 1):
            cmd, env = self.web_cmd(port)
            out.append(Program(f"web{i}", cmd, env, logs / f"web{i}.log", self.app, port=port))
        # the task lines that task_log() reads ("Task ... succeeded in Xs") are DEBUG records
        # of celery.app.trace (config/logs.py): a worker asked for INFO shows them
        worker_env = self.program_env()
        if self.cfg.worker_loglevel.upper() in ("INFO", "DEBUG"):
            worker_env = dict(worker_env, LOG_LEVELS=",".join(
                filter(None, [self.env.get("LOG_LEVELS", ""), "celery.app.trace=DEBUG"])))
        for i in range(1, self.cfg.workers + 1):
            out.append(Program(f"w{i}", [celery, "-A", "config", "worker", "--concurrency", str(self.cfg.concurrency),
                                         "-n", f"w{i}@%h", "--loglevel", self.cfg.worker_loglevel],
                               worker_env, logs / f"w{i}.log", self.app))
        if self.cfg.beat:
            out.append(Program("beat", [celery, "-A", "config", "beat", "-s", str(self.base / "run" / "beat-schedule"),
                                        "--loglevel", "INFO"], self.program_env(), logs / "beat.log", self.app))
        return out

    def supervisord_path(self) -> str | None:
        if self.cfg.supervisord == "none":
            return None
        if self.cfg.supervisord:
            return self.cfg.supervisord
        candidate = VENV_BIN / "supervisord"
        return str(candidate) if candidate.exists() else None

    # -- life cycle ----------------------------------------------------------------------
    def __enter__(self) -> "Stack":
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        t = time.time()
        self.pg.start()
        self.redis.start()
        log(f"private PostgreSQL on 127.0.0.1:{self.pg.port}, Redis on 127.0.0.1:{self.redis.port} "
            f"(folder {self.base}) in {time.time() - t:.1f} s")
        t = time.time()
        self.manage("migrate", "--noinput", "-v", "0")
        log(f"migrated in {time.time() - t:.1f} s (directly)")
        if self.replica is not None:
            t = time.time()
            self.replica.start()
            log(f"streaming replica (pg_basebackup -R) on 127.0.0.1:{self.replica.port} in {time.time() - t:.1f} s")
        if self.bouncer is not None:
            # as an operator behind a pooler sets it (DB_LOCK_TIMEOUT_MS is not sent: scaling.md)
            self.pg.admin("ALTER DATABASE uno SET lock_timeout = '10s'")
            self.bouncer.start()
            log(f"PgBouncer (transaction mode) on 127.0.0.1:{self.bouncer.port} in front of the private "
                f"PostgreSQL, settings beside the stock ones: {self.cfg.pgbouncer_settings or 'none'}; "
                "lock_timeout 10s set on the database")
        programs = self.programs()
        path = self.supervisord_path()
        self.supervisor = SupervisordSupervisor(programs, self.base, path) if path else LoopSupervisor(programs)
        self.supervisor.start()
        self.wait_ready()
        web = (f"gunicorn -c {GUNICORN_CONF}" if (self.app / GUNICORN_CONF).exists()
               else f"gunicorn --workers {self.cfg.gunicorn_workers} --threads {self.cfg.gunicorn_threads}")
        log(f"stack up in {time.time() - t:.1f} s: {self.cfg.webs} x {web} (ports "
            f"{', '.join(map(str, self.web_ports))}), {self.cfg.workers} x celery worker --concurrency "
            f"{self.cfg.concurrency}, {'1 beat' if self.cfg.beat else 'no beat'}; supervised by "
            f"{self.supervisor.kind}; code: {'a copy of the working tree taken at the start' if self.cfg.snapshot else 'the live working tree'}"
            f" ({self.app})")

    def manage(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run([PYTHON, "manage.py", *args], cwd=self.app, env=self.env, check=True, timeout=timeout,
                              capture_output=True, text=True)

    def wait_ready(self, timeout: float = 90) -> None:
        """Every web port answers /api/v1/health with 200 and every worker has its pool."""
        deadline = time.time() + timeout
        pending = {p.name: p for p in self.supervisor.programs.values()}
        while pending and time.time() < deadline:
            for name, p in list(pending.items()):
                pid = self.supervisor.pid(name)
                if pid is None:
                    continue
                if p.port is not None:
                    if self.health(p.port) == 200:
                        del pending[name]
                elif name.startswith("w"):
                    if len(children(pid)) >= self.cfg.concurrency:
                        del pending[name]
                else:
                    del pending[name]
            time.sleep(0.3)
        if pending:
            tails = "\n".join(f"--- {n}:\n{self.tail(n)}" for n in pending)
            raise RuntimeError(f"not ready after {timeout:.0f} s: {', '.join(pending)}\n{tails}")

    def health(self, port: int) -> int | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=5) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
        except OSError:
            return None

    def tail(self, name: str, n: int = 30) -> str:
        try:
            path = self.supervisor.programs[name].log
            return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
        except (OSError, KeyError, AttributeError):
            return ""

    def stop_programs(self) -> None:
        """Stop the product's processes (PostgreSQL and Redis stay up for the checks)."""
        if self.supervisor is not None:
            self.supervisor.stop()

    def close(self) -> None:
        self.stop_programs()
        left = marked_pids(self.id)
        for pid in left:
            kill9(pid)
        if left:
            log(f"killed {len(left)} leftover process(es) of this stack: {left}")
        self.redis.stop()
        if self.bouncer is not None:
            self.bouncer.stop()
        if self.replica is not None:
            self.replica.stop()
        self.pg.stop()
        if self.cfg.keep_logs:
            dest = Path(self.cfg.keep_logs)
            shutil.copytree(self.base / "logs", dest, dirs_exist_ok=True)
            for src, name in ((self.pg.logfile, "postgres.log"),
                              (self.replica.logfile if self.replica else None, "replica.log"),
                              (self.bouncer.logfile if self.bouncer else None, "pgbouncer.log")):
                if src is not None and src.exists():
                    shutil.copy(src, dest / name)
            log(f"logs kept in {dest}")
        shutil.rmtree(self.base, ignore_errors=True)

    # -- chaos and figures ---------------------------------------------------------------
    def pid(self, name: str) -> int | None:
        return self.supervisor.pid(name) if self.supervisor else None

    def process_groups(self) -> dict[str, list[int]]:
        """{program: [main pid, its descendants]} plus PostgreSQL's and Redis's processes."""
        groups: dict[str, list[int]] = {}
        for name in self.supervisor.programs:
            pid = self.pid(name)
            groups[name] = [pid, *descendants(pid)] if pid else []
        groups["postgres"] = self.pg.pids()
        groups["redis"] = self.redis.pids()
        if self.bouncer is not None:
            groups["pgbouncer"] = self.bouncer.pids()
        if self.replica is not None:
            groups["replica"] = self.replica.pids()
        return groups

    def memory(self) -> dict[str, tuple[int, float, list[tuple[int, float]]]]:
        """{name: (process count, total RSS MiB, [(pid, RSS MiB)])} of every process of the stack."""
        out: dict[str, tuple[int, float, list[tuple[int, float]]]] = {}
        for name, pids in self.process_groups().items():
            each = [(p, rss_mb(p)) for p in pids]
            out[name] = (len(each), sum(r for _, r in each), each)
        return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def cpu_snapshot(stack: "Stack", bench_label: str) -> dict[str, dict[int, float]]:
    """{process group name: {pid: CPU seconds}} for the stack and this script."""
    groups = {**stack.process_groups(), bench_label: [os.getpid()]}
    return {name: {p: cpu_seconds(p) for p in pids} for name, pids in groups.items()}


def cpu_used(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds per group between two snapshots (processes present in ``after``;
    a process that died in between loses what it had used)."""
    return {name: sum(t - before.get(name, {}).get(p, 0.0) for p, t in pids.items()) for name, pids in after.items()}


def print_cpu(used: dict[str, float], elapsed: float) -> None:
    for name, secs in sorted(used.items(), key=lambda kv: -kv[1]):
        print(f"    CPU {name:<16} {secs:7.1f} s  ({secs / elapsed * 100:5.1f}% of one core)")
    print(f"    CPU total of the stack + bench: {sum(used.values()):.1f} s of {elapsed * (os.cpu_count() or 1):.0f} "
          f"available (load average now {load_average()}: other work on the "
          f"machine takes the rest)")




def print_memory(start: dict, end: dict) -> None:
    print(f"{'process':<10}{'start: procs':>13}{'RSS MiB':>10}{'end: procs':>12}{'RSS MiB':>10}   per process (end)")
    for name in end:
        n0, r0, _ = start.get(name, (0, 0.0, []))
        n1, r1, each = end[name]
        detail = ", ".join(f"{pid}:{r:.0f}" for pid, r in each[:8]) + (" ..." if len(each) > 8 else "")
        print(f"{name:<10}{n0:>13}{r0:>10.1f}{n1:>12}{r1:>10.1f}   {detail}")


# --------------------------------------------------------------------------------------
# Database sampling: deadlines (for timer lateness) and stalled games
# --------------------------------------------------------------------------------------
class DbSampler:
    """Polls the private database: every active game's (version, deadline).

    * ``deadlines[(game, version)]`` is the deadline the game had at that version:
      a timer move recorded as seq ``version + 1`` enforced it (lateness =
      its ``created_at`` minus that deadline);
    * a game whose deadline is more than ``stall_after`` seconds in the past (by the
      database's clock) is stalled: ``stalls[game] = (worst overdue seconds, when,
      when first seen stalled)``.

    Polls that fail (PostgreSQL restarting) are counted and skipped.
    """

    def __init__(self, url: str, interval: float = 0.25, stall_after: float = 5.0,
                 only_timed: bool = False):
        self.url = url
        self.interval = interval
        self.stall_after = stall_after
        self.only_timed = only_timed
        self.deadlines: dict[tuple[int, int], dt.datetime] = {}
        self.stalls: dict[int, tuple[float, float, float]] = {}
        self.polls = 0
        self.failed_polls = 0
        self.poll_seconds: list[float] = []
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="db-sampler", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(10)

    def _run(self) -> None:
        import psycopg

        conn = None
        where = "status = 'active'" + (" AND turn_seconds IS NOT NULL" if self.only_timed else "")
        while not self.stop_event.wait(self.interval):
            t = time.perf_counter()
            try:
                if conn is None or conn.closed:
                    conn = psycopg.connect(self.url, autocommit=True, connect_timeout=3)
                rows = conn.execute(f"SELECT id, version, deadline, now() FROM games_game WHERE {where}").fetchall()
            except Exception:
                self.failed_polls += 1
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:
                        pass
                conn = None
                continue
            self.polls += 1
            self.poll_seconds.append(time.perf_counter() - t)
            for gid, version, deadline, now in rows:
                if deadline is None:
                    continue
                self.deadlines[(gid, version)] = deadline
                overdue = (now - deadline).total_seconds()
                if overdue > self.stall_after:
                    worst, at, first = self.stalls.get(gid, (0.0, 0.0, time.time()))
                    if overdue > worst:
                        self.stalls[gid] = (overdue, time.time(), first)
        if conn is not None:
            conn.close()


def timer_lateness(url: str, deadlines: dict[tuple[int, int], dt.datetime], since: dt.datetime,
                   until: dt.datetime) -> tuple[list[float], int, int]:
    """Lateness (seconds) of every timer move of a timed game recorded in [since, until):
    its ``created_at`` minus the deadline the game had just before it.  The deadline is
    the one sampled at the previous version; when the sampler missed that version,
    the previous move's ``created_at`` + ``turn_seconds`` (an upper bound of the
    deadline, so a lower bound of the lateness).  Returns (lateness, sampled, estimated)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            """SELECT m.game_id, m.seq, m.created_at, p.created_at, g.turn_seconds
                 FROM games_move m
                 JOIN games_game g ON g.id = m.game_id
                 JOIN games_move p ON p.game_id = m.game_id AND p.seq = m.seq - 1
                WHERE m.by = 'timer' AND g.turn_seconds IS NOT NULL
                  AND m.created_at >= %s AND m.created_at < %s""",
            (since, until),
        ).fetchall()
    late, sampled, estimated = [], 0, 0
    for gid, seq, created, prev_created, turn in rows:
        deadline = deadlines.get((gid, seq - 1))
        if deadline is not None:
            sampled += 1
        else:
            deadline = prev_created + dt.timedelta(seconds=turn)
            estimated += 1
        late.append((created - deadline).total_seconds())
    return late, sampled, estimated


def db_now(url: str) -> dt.datetime:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT now()").fetchone()[0]


REVOKED_LINE = re.compile(r"Discarding revoked task: games\.tasks\.(\w+)\[")
TASK_LINE = re.compile(r"Task games\.tasks\.(\w+)\[[^\]]+\] (succeeded|retry|raised)[^:]*?(?: in ([\d.]+)s)?: ?(.*)$")


def task_log(paths: list[Path]) -> dict:
    """Counts and run times of the workers' tasks, from their INFO logs (the
    worker logs ``Task ... succeeded in Xs: value`` and ``Discarding revoked task``,
    the latter for a message whose ``expires`` passed while it waited in the queue)."""
    runs: dict[str, list[float]] = defaultdict(list)
    results: Counter[str] = Counter()
    swept = 0
    for path in paths:
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            revoked = REVOKED_LINE.search(line)
            if revoked:
                results[f"{revoked.group(1)} discarded (expired before it ran)"] += 1
                continue
            m = TASK_LINE.search(line)
            if not m:
                continue
            name, outcome, took, value = m.groups()
            if took:
                runs[name].append(float(took))
            results[f"{name} {outcome} {value.strip()[:20]}"] += 1
            if name == "sweep_deadlines" and outcome == "succeeded" and value.strip().isdigit():
                swept += int(value)
    return {"runs": runs, "results": results, "swept": swept}


def print_task_log(tasks: dict) -> None:
    for name, runs in sorted(tasks["runs"].items()):
        print(f"    task {name:<22} {len(runs):>6} runs, run time p50 {fmt_s(percentile(runs, 50))}, "
              f"p99 {fmt_s(percentile(runs, 99))}, total {sum(runs):.1f} s")
    print(f"    deadlines enforced by the sweeper: {tasks['swept']} (the others by countdown tasks and bot steps)")
    for what, n in tasks["results"].most_common(10):
        print(f"    {n:>7} x {what}")


def verify_games(stack: Stack, ids: list[int], chunk: int = 200) -> tuple[int, list[str]]:
    """``manage.py verify_game`` on ``ids``; returns (OK count, lines of the others)."""
    ok, bad = 0, []
    for i in range(0, len(ids), chunk):
        part = ids[i : i + chunk]
        res = subprocess.run([PYTHON, "manage.py", "verify_game", *map(str, part)], cwd=stack.app, env=stack.env,
                             capture_output=True, text=True, timeout=1800)
        for line in res.stdout.splitlines():
            if ": OK" in line:
                ok += 1
            elif line.strip():
                bad.append(line.strip())
        if res.returncode and not any("MISMATCH" in b for b in bad):
            bad.append(f"verify_game exit {res.returncode}: {res.stderr.strip()[-500:]}")
    return ok, bad


def json_request(token: str | None, body, extra: dict | None = None) -> tuple[dict, bytes | None]:
    """The headers and body of an API request: JSON accepted, ``Authorization: Token``
    when given, ``body`` as JSON when there is one, then ``extra`` headers."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    headers.update(extra or {})
    return headers, payload


class Client:
    """One keep-alive HTTP/1.1 connection to the server on ``port`` (bench/api.py,
    bench/leaderboard.py): ``request`` answers (status, JSON body, seconds)."""

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, token: str | None = None, body=None) -> tuple[int, object, float]:
        headers, payload = json_request(token, body)
        for attempt in range(2):
            try:
                t0 = time.perf_counter()
                self.conn.request(method, path, body=payload, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                dt = time.perf_counter() - t0
                break
            except (OSError, http.client.HTTPException):
                # the server closed an idle keep-alive connection: reconnect once
                self.conn.close()
                if attempt:
                    raise
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = raw[:200]
        return resp.status, data, dt

    def close(self) -> None:
        self.conn.close()


class ServerProcess:
    """A gunicorn started by a benchmark (``proc``, its process group's leader, on
    ``port``, its output in the file ``log``): subclasses start it in ``__init__``."""

    proc: subprocess.Popen
    port: int
    log: Any

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                c = Client(self.port)
                status, _, _ = c.request("GET", "/api/v1/players/me")
                c.close()
                if status == 401:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"gunicorn not ready after {timeout:.0f} s:\n{self.tail()}")

    def tail(self, n: int = 40) -> str:
        try:
            return "\n".join(Path(self.log.name).read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)  # gunicorn's master and its workers
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        try:
            os.unlink(self.log.name)
        except OSError:
            pass
