"""Benchmark of the HTTP API on PostgreSQL: moves per second and move latency.

    python bench/api.py                                  # defaults: ~2 minutes
    python bench/api.py --clients 16 --games 64 --duration 30 --workers 2 --threads 4
    python bench/api.py --skip-long --duration 10        # throughput only

What it does, in one run:

1. creates its own PostgreSQL database (``--db-name``, default ``uno_bench``; any
   leftover of that name is dropped first), runs the migrations into it
   (``manage.py migrate`` with the bench settings: the floor app's tables too);
2. starts gunicorn on a free 127.0.0.1 port with ``--workers`` processes
   (``--threads`` threads each), ``DEBUG`` off, generous throttle rates
   (``THROTTLE_USER`` / ``THROTTLE_ANON`` / ``THROTTLE_AUTH``), Redis as the cache
   (``--redis-url``; '' for none) and the settings module ``bench.floor_settings``:
   the product's settings and URLs plus a bare endpoint (bench/floor_app) that is
   not part of the product;
3. registers 2 players per client and creates ``--games`` two-player ``standard``
   games through the API (create, join, start), shared out among the clients;
4. long game: a game with ``{"rounds": 1000}`` played through the API by one
   client to move ``--long-moves``, and a fresh one to move ``--early-move``; then
   ``--samples`` moves of each, alternating between the two games, are timed: the
   median move request at position ~2000 against the one at ~20;
5. product: ``--clients`` threads, each with its own keep-alive connection, play
   their games for ``--duration`` seconds, every move a GET of the game as the
   player whose turn it is then a POST of one of its ``legal_actions`` with
   ``expected_version``; prints moves/s and the p50/p99 latency of the move (POST);
6. floor: the same clients for the same time against ``/bench/floor/<row>``: a GET
   of a row, then a POST (token auth and throttling as the product, one
   ``select_for_update`` of the client's own row, a counter incremented, one row
   inserted, a small JSON answer): the cheapest write this stack can serve;
   the two phases alternate ``--rounds`` times (slices of ``--duration / --rounds``
   seconds), so that drift in the machine's load hits both alike; prints their
   ratio, and the CPU time per move of the server (gunicorn), of the database
   (the PostgreSQL backends of the bench database, when PostgreSQL runs on this
   machine) and of the clients (this process), read in Linux's /proc;
7. stops gunicorn and drops the database (also on Ctrl-C or SIGTERM).

The clients run in this process (threads, ``http.client``) on the same machine
as the server: what they cost is part of what is measured.  Registration uses a
fast password hasher (setup only; the move path never hashes).  The first
``--warmup`` seconds of each load phase are not counted (of a later slice: at most
1 s, while the clients reconnect).  Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from _stack import Client, ServerProcess, percentile  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
GUNICORN = str(VENV_BIN / "gunicorn") if (VENV_BIN / "gunicorn").exists() else "gunicorn"
API = "/api/v1"


# --------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------
def ms(x: float) -> str:
    return "n/a" if x != x else f"{x * 1000:.1f}"




def call(client: Client, method: str, path: str, token: str | None = None, body=None, expect=(200,)):
    status, data, _ = client.request(method, path, token, body)
    if status not in expect:
        raise RuntimeError(f"{method} {path} -> {status}: {data}")
    return data


# --------------------------------------------------------------------------------------
# Server: database, migrations, gunicorn
# --------------------------------------------------------------------------------------
def admin_conn(pg_url: str):
    import psycopg

    return psycopg.connect(pg_url.rstrip("/") + "/postgres", autocommit=True)


def create_db(pg_url: str, name: str) -> None:
    from psycopg import sql

    with admin_conn(pg_url) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def print_storage(pg_url: str, name: str) -> None:
    """What the bench database holds after the load: its largest tables (heap, indexes and
    TOAST together), each per move recorded, for the capacity model's storage growth."""
    import psycopg

    with psycopg.connect(f"{pg_url.rstrip('/')}/{name}", autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")  # the free space of updated rows counted as such, not as growth
        moves = conn.execute("SELECT count(*) FROM games_move").fetchone()[0]
        games = conn.execute("SELECT count(*) FROM games_game").fetchone()[0]
        row = conn.execute("SELECT avg(pg_column_size(g.*)), avg(pg_column_size(g.state)) FROM games_game g").fetchone()
        tables = conn.execute(
            "SELECT relname, pg_total_relation_size(relid), pg_relation_size(relid), pg_indexes_size(relid) "
            "FROM pg_stat_user_tables ORDER BY 2 DESC LIMIT 6").fetchall()
    print(f"== Storage after the load: {moves:,} moves in {games:,} games (every table: heap + indexes + TOAST)")
    print(f"{'table':<28}{'total':>12}{'heap':>12}{'indexes':>12}{'per move':>12}")
    for table, total, heap, index in tables:
        print(f"{table:<28}{total:>12,}{heap:>12,}{index:>12,}{total / max(1, moves):>12,.0f}")
    print("   bytes; per move = the table's total over every move recorded (the moves table's own: what a "
          "move adds)")
    print(f"   a game's row now: {float(row[0] or 0):,.0f} bytes on average, its state {float(row[1] or 0):,.0f} "
          "(compressed); the games table's total counts the space its rewritten rows leave to vacuum")


def drop_db(pg_url: str, name: str) -> None:
    from psycopg import sql

    with admin_conn(pg_url) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def pg_version(pg_url: str) -> str:
    with admin_conn(pg_url) as conn:
        return conn.execute("SHOW server_version").fetchone()[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(args, db_url: str, prefix: str) -> dict:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="bench.floor_settings",
        DATABASE_URL=db_url,
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(40),
        LOG_LEVEL="WARNING",
        THROTTLE_USER=args.throttle,
        THROTTLE_ANON=args.throttle,
        THROTTLE_AUTH=args.throttle,
        REDIS_URL=args.redis_url,
        BENCH_CACHE_PREFIX=prefix,
        BENCH_FAST_PASSWORD_HASHER="1",
        RUN_DIR=str(Path(tempfile.gettempdir()) / f"uno_bench_run_{os.getpid()}"),
        PYTHONWARNINGS="ignore",
    )
    return env


def migrate(env: dict) -> None:
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT, env=env, check=True,
    )


class Server(ServerProcess):
    def __init__(self, args, env: dict):
        self.port = args.port or free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="uno_bench_gunicorn_", suffix=".log", delete=False)
        cmd = [
            GUNICORN, "config.wsgi:application",
            "--bind", f"127.0.0.1:{self.port}",
            "--workers", str(args.workers),
            "--threads", str(args.threads),
            "--chdir", str(ROOT),
            "--log-level", "warning",
            "--timeout", "120",
        ]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)


def clear_redis(url: str, prefix: str) -> int:
    if not url:
        return 0
    try:
        import redis
    except ImportError:
        return 0
    r = redis.Redis.from_url(url)
    keys = list(r.scan_iter(match=f"{prefix}:*", count=1000))
    for i in range(0, len(keys), 500):
        r.delete(*keys[i : i + 500])
    return len(keys)


# --------------------------------------------------------------------------------------
# CPU: where the machine's time goes during a load phase
# --------------------------------------------------------------------------------------
CPU_PARTS = ("server", "database", "clients")


def _proc_stat(pid: int) -> tuple[int, float] | None:
    """(process group, CPU seconds user + system) of a process of this machine, None
    if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[2]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds used by the server (gunicorn's process group), by the PostgreSQL
    backends connected to the bench database (only when PostgreSQL runs on this
    machine) and by this process (the clients), from Linux's /proc."""

    def __init__(self, pg_url: str, db_name: str, server_pgid: int):
        self.available = Path("/proc/self/stat").exists()
        self.db_name, self.server_pgid = db_name, server_pgid
        self.conn = admin_conn(pg_url) if self.available else None

    def snapshot(self) -> dict[str, dict[int, float]]:
        if not self.available:
            return {}
        procs = {pid: stat for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if (stat := _proc_stat(pid))}
        backends = self.conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.db_name,))
        return {
            "server": {pid: cpu for pid, (group, cpu) in procs.items() if group == self.server_pgid},
            "database": {pid: procs[pid][1] for (pid,) in backends.fetchall() if pid in procs},
            "clients": {0: time.process_time()},
            # the cluster's write-ahead log, in bytes: what it wrote meanwhile (the bench's
            # own writes when nothing else writes to this PostgreSQL)
            "wal": {0: float(self.conn.execute("SELECT pg_current_wal_lsn() - '0/0'").fetchone()[0])},
        }

    @staticmethod
    def used(before: dict, after: dict) -> dict[str, float]:
        """CPU seconds per part between two snapshots (a process that started in
        between counts from zero; one that ended is missed)."""
        return {part: sum(cpu - before[part].get(pid, 0.0) for pid, cpu in after[part].items())
                for part in after}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


# --------------------------------------------------------------------------------------
# Playing
# --------------------------------------------------------------------------------------
def pick(legal: list[dict], rng: random.Random) -> dict:
    """A plain player: a playable card (calling UNO with the next-to-last), else a
    colour, else draw / pass; never challenges."""
    plays = [a for a in legal if a["type"] == "play"]
    if plays:
        calling = [a for a in plays if a.get("uno")]
        return rng.choice(calling or plays)
    for kind in ("choose_color", "draw", "pass"):
        options = [a for a in legal if a["type"] == kind]
        if options:
            return rng.choice(options)
    return legal[0]


class Game:
    def __init__(self, gid: int, tokens: list[str], current: int | None):
        self.id = gid
        self.tokens = tokens  # per seat
        self.current = current
        self.finished = False


def register(client: Client, name: str) -> str:
    data = call(client, "POST", f"{API}/auth/register",
                body={"username": name, "password": f"pw-{secrets.token_hex(8)}"}, expect=(201,))
    return data["token"]


def new_game(client: Client, tokens: list[str], options: dict | None = None) -> Game:
    body = {"ruleset": "standard", "max_players": 2}
    if options:
        body["options"] = options
    g = call(client, "POST", f"{API}/games", tokens[0], body, expect=(201,))
    call(client, "POST", f"{API}/games/{g['id']}/join", tokens[1])
    g = call(client, "POST", f"{API}/games/{g['id']}/start", tokens[0])
    return Game(g["id"], tokens, g["current_seat"])


def play_move(client: Client, game: Game, rng: random.Random, stats: dict | None, t_from: float) -> int | None:
    """GET the game as the player to act, POST one of its legal actions; returns the
    new version (None: the game is over or the move was refused)."""
    token = game.tokens[game.current]
    t_get = time.perf_counter()
    status, view, dt_get = client.request("GET", f"{API}/games/{game.id}", token)
    if status != 200:
        if stats is not None:
            stats["errors"][f"GET {status}"] += 1
        return None
    if view["status"] != "active":
        game.finished = True
        return None
    if view["current_seat"] != game.current:
        game.current = view["current_seat"]
        return None
    action = dict(pick(view["legal_actions"], rng))
    action["expected_version"] = view["version"]
    t_post = time.perf_counter()
    status, res, dt_post = client.request("POST", f"{API}/games/{game.id}/actions", token, action)
    if stats is not None and t_get >= t_from:
        stats["get"].append(dt_get)
    if status != 200:
        if stats is not None:
            stats["errors"][f"POST {status} {res.get('code') if isinstance(res, dict) else ''}"] += 1
        return None
    if stats is not None and t_post >= t_from:
        stats["post"].append(dt_post)
    g = res["game"]
    game.current = g["current_seat"]
    game.finished = g["status"] != "active"
    return g["version"]


def new_stats() -> dict:
    return {"get": [], "post": [], "errors": Counter(), "cpu": Counter(), "seconds": 0.0}


def merge_stats(parts: list[dict]) -> dict:
    out = new_stats()
    for p in parts:
        out["get"] += p["get"]
        out["post"] += p["post"]
        out["errors"].update(p["errors"])
        out["cpu"].update(p["cpu"])
        out["seconds"] += p["seconds"]
    return out


def run_phase(port: int, n_clients: int, duration: float, warmup: float, body, meter: CpuMeter) -> dict:
    """Run ``body(client_index, http_client, stats, t_from, t_end)`` in n threads; the
    stats of the window from ``t_from`` to ``t_end``, with the CPU used in it."""
    results: list[dict] = [new_stats() for _ in range(n_clients)]
    t_start = time.perf_counter()
    t_from, t_end = t_start + warmup, t_start + warmup + duration
    failures: list[BaseException] = []

    def worker(i: int) -> None:
        c = Client(port)
        try:
            body(i, c, results[i], t_from, t_end)
        except BaseException as exc:  # reported below
            failures.append(exc)
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(n_clients)]
    for t in threads:
        t.start()
    time.sleep(max(0.0, t_from - time.perf_counter()))
    cpu_from = meter.snapshot()
    time.sleep(max(0.0, t_end - time.perf_counter()))
    cpu_to = meter.snapshot()
    for t in threads:
        while t.is_alive():
            t.join(0.5)
    if failures:
        print(f"   {len(failures)} client(s) failed, first: {failures[0]!r}")
    out = merge_stats(results)
    out["cpu"].update(meter.used(cpu_from, cpu_to) if cpu_to else {})
    out["seconds"] = duration
    return out


def report_row(label: str, stats: dict) -> None:
    post, get, seconds = stats["post"], stats["get"], stats["seconds"]
    errors = sum(stats["errors"].values())
    print(f"{label:<10}{len(post):>8}{len(post) / seconds:>10.1f}"
          f"{ms(percentile(post, 50)):>9}{ms(percentile(post, 99)):>9}"
          f"{ms(percentile(get, 50)):>9}{ms(percentile(get, 99)):>9}{errors:>8}")
    if stats["errors"]:
        print(f"          errors: {dict(stats['errors'])}")


# --------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=16, help="concurrent clients (threads), default 16")
    ap.add_argument("--games", type=int, default=64, help="two-player games shared by the clients, default 64")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds measured per load phase, default 30")
    ap.add_argument("--warmup", type=float, default=3.0, help="seconds not counted at the start of a phase")
    ap.add_argument("--rounds", type=int, default=3, help="the load phases alternate this many times, "
                    "each for --duration / --rounds seconds (default 3)")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers (2-4), default 2")
    ap.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker (as scripts/run.sh), "
                    "default 4")
    ap.add_argument("--long-moves", type=int, default=2000, help="position of the late sample, default 2000")
    ap.add_argument("--early-move", type=int, default=20, help="position of the early sample, default 20")
    ap.add_argument("--samples", type=int, default=21, help="timed moves at each position, default 21")
    ap.add_argument("--skip-long", action="store_true", help="skip the long-game measurement")
    ap.add_argument("--skip-floor", action="store_true", help="skip the floor endpoint")
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432", help="PostgreSQL server URL "
                    "(no database)")
    ap.add_argument("--db-name", default="uno_bench")
    ap.add_argument("--redis-url", default="redis://127.0.0.1:6379/13",
                    help="cache (throttle counters) and broker; '' for the local-memory cache")
    ap.add_argument("--throttle", default="1000000/min", help="THROTTLE_USER/ANON/AUTH rates")
    ap.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored
    db_url = f"{args.pg.rstrip('/')}/{args.db_name}"
    prefix = f"uno_bench_{os.getpid()}"
    env = server_env(args, db_url, prefix)
    rng = random.Random(args.seed)
    server: Server | None = None
    created = False
    t_all = time.perf_counter()
    try:
        print(f"PostgreSQL {pg_version(args.pg)}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
              f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        create_db(args.pg, args.db_name)
        created = True
        t0 = time.perf_counter()
        migrate(env)
        server = Server(args, env)
        server.wait_ready()
        print(f"database {args.db_name} migrated, gunicorn up on 127.0.0.1:{server.port} "
              f"({args.workers} workers x {args.threads} threads, DEBUG off, cache "
              f"{'Redis' if args.redis_url else 'local memory'}) in {time.perf_counter() - t0:.1f} s")

        # -- setup: players and games ------------------------------------------------
        t0 = time.perf_counter()
        setup = Client(server.port)
        run_id = secrets.token_hex(3)
        pairs = [[register(setup, f"b{run_id}c{i}s{s}") for s in (0, 1)] for i in range(args.clients)]
        games: list[list[Game]] = [[] for _ in range(args.clients)]
        for k in range(args.games):
            i = k % args.clients
            games[i].append(new_game(setup, pairs[i]))
        print(f"setup: {2 * args.clients} players, {args.games} games in {time.perf_counter() - t0:.1f} s")
        print()

        # -- long game --------------------------------------------------------------------
        if not args.skip_long:
            t0 = time.perf_counter()

            def move(g: Game, stats: dict) -> int:
                for _ in range(100):
                    v = play_move(setup, g, rng, stats, 0.0)
                    if v is not None:
                        return v
                    if g.finished:
                        raise RuntimeError("the long game ended early")
                raise RuntimeError(f"long game stuck: {dict(stats['errors'])}")

            def advance(g: Game, version: int, to: int) -> int:
                while version < to:
                    version = move(g, new_stats())
                return version

            # The late game is played up to just before the late sample, then a fresh
            # game up to just before the early one; the timed moves then alternate
            # between the two, so that drift in the machine's load hits both alike.
            late_game = new_game(setup, pairs[0], {"rounds": 1000})
            v_late = advance(late_game, 1, args.long_moves - 1)
            early_game = new_game(setup, pairs[0], {"rounds": 1000})
            v_early = advance(early_game, 1, args.early_move - 1)
            e_stats, l_stats = new_stats(), new_stats()
            for _ in range(args.samples):
                v_early = move(early_game, e_stats)
                v_late = move(late_game, l_stats)
            e, l_ = e_stats["post"], l_stats["post"]
            print(f"== Long game ({{'rounds': 1000}}, one client, no other load from this script; "
                  f"{v_late + v_early} moves played in {time.perf_counter() - t0:.1f} s)")
            me, ml = statistics.median(e), statistics.median(l_)
            print(f"   move (POST) at positions {v_early - args.samples + 1}-{v_early} of a new game: "
                  f"median {ms(me)} ms (min {ms(min(e))}, n={len(e)})")
            print(f"   move (POST) at positions {v_late - args.samples + 1}-{v_late} of the long game: "
                  f"median {ms(ml)} ms (min {ms(min(l_))}, n={len(l_)})")
            print(f"   ratio late/early: {ml / me:.2f} on medians ({min(l_) / min(e):.2f} on minima); "
                  f"timed moves alternate between the two games")
            print(f"   GET of the game: median {ms(statistics.median(e_stats['get']))} ms early, "
                  f"{ms(statistics.median(l_stats['get']))} ms late")
            print()

        # -- load phases ------------------------------------------------------------------
        print(f"== Load: {args.clients} clients (threads, keep-alive), {args.duration:g} s measured per phase "
              f"in {args.rounds} alternating slices (so that drift in the machine's load hits both alike), "
              f"after {args.warmup:g} s warm-up; gunicorn {args.workers} workers x {args.threads} threads")

        def product(i: int, c: Client, stats: dict, t_from: float, t_end: float) -> None:
            crng = random.Random(args.seed * 1000 + i)
            mine = games[i]
            k = 0
            while time.perf_counter() < t_end:
                live = [g for g in mine if not g.finished]
                if not live:
                    mine.append(new_game(c, pairs[i]))
                    continue
                play_move(c, live[k % len(live)], crng, stats, t_from)
                k += 1

        def floor(i: int, c: Client, stats: dict, t_from: float, t_end: float) -> None:
            token = pairs[i][0]
            path = f"/bench/floor/{i + 1}"
            while time.perf_counter() < t_end:
                t_get = time.perf_counter()
                status, _, dt_get = c.request("GET", path, token)
                if status != 200:
                    stats["errors"][f"GET {status}"] += 1
                    continue
                t_post = time.perf_counter()
                status, _, dt_post = c.request("POST", path, token, {"type": "play", "card": 17})
                if status != 200:
                    stats["errors"][f"POST {status}"] += 1
                    continue
                if t_get >= t_from:
                    stats["get"].append(dt_get)
                if t_post >= t_from:
                    stats["post"].append(dt_post)

        phases = {"product": product} if args.skip_floor else {"product": product, "floor": floor}
        slices: dict[str, list[dict]] = {label: [] for label in phases}
        meter = CpuMeter(args.pg, args.db_name, server.proc.pid)
        try:
            for r in range(args.rounds):
                for label, body in phases.items():
                    # a full warm-up before a phase's first slice; then only the clients reconnect
                    warmup = args.warmup if r == 0 else min(args.warmup, 1.0)
                    slices[label].append(
                        run_phase(server.port, args.clients, args.duration / args.rounds, warmup, body, meter))
        finally:
            meter.close()
        rows = [(label, merge_stats(parts)) for label, parts in slices.items()]
        print()
        print(f"{'endpoint':<10}{'moves':>8}{'moves/s':>10}{'POST p50':>9}{'p99':>9}{'GET p50':>9}"
              f"{'p99':>9}{'errors':>8}")
        print(f"{'':<28}{'(ms)':>9}{'(ms)':>9}{'(ms)':>9}{'(ms)':>9}")
        print("-" * 72)
        for label, stats in rows:
            report_row(label, stats)
        if len(rows) == 2:
            moves = [len(stats["post"]) / stats["seconds"] for _, stats in rows]
            post = [(percentile(stats["post"], 50), percentile(stats["post"], 99)) for _, stats in rows]
            print(f"          product / floor: {moves[0] / moves[1]:.2f}x the moves/s; POST p99 / p50: "
                  f"{post[0][1] / post[0][0]:.1f} (product), {post[1][1] / post[1][0]:.1f} (floor)")
        if all(stats["cpu"] for _, stats in rows):
            print()
            print(f"{'CPU per move (ms)':<22}" + "".join(f"{part:>10}" for part in CPU_PARTS) + f"{'total':>10}")
            for label, stats in rows:
                n = max(1, len(stats["post"]))
                cpu = [stats["cpu"][part] / n * 1000 for part in CPU_PARTS]
                print(f"{label:<22}" + "".join(f"{c:>10.2f}" for c in cpu) + f"{sum(cpu):>10.2f}")
            print("   server: gunicorn's processes; database: the PostgreSQL backends of the bench database "
                  "(0 when PostgreSQL is not on this machine); clients: this script")
            print("WAL per move (bytes): " + ", ".join(
                f"{label} {stats['cpu']['wal'] / max(1, len(stats['post'])):,.0f}" for label, stats in rows)
                + "   (the cluster's write-ahead log over the phase: the bench's when nothing else writes)")
        print()
        print_storage(args.pg, args.db_name)
        print()
        print("   product: POST /api/v1/games/{id}/actions (with expected_version), each preceded by GET "
              "/api/v1/games/{id}")
        if not args.skip_floor:
            print("   floor:   POST /bench/floor/{row} (lock one row, update it, insert one row), each preceded "
                  "by GET of the row")
        print("   moves = POSTs answered 200 within the measured window; latencies are client-side, "
              "keep-alive, over loopback")
    except KeyboardInterrupt:
        print("\ninterrupted: cleaning up")
    finally:
        if server is not None:
            if server.proc.poll() is not None:
                print(f"gunicorn had exited ({server.proc.returncode}):\n{server.tail()}")
            server.stop()
        if created:
            try:
                drop_db(args.pg, args.db_name)
            except Exception as exc:  # noqa: BLE001 - report, never mask the run's own error
                print(f"could not drop database {args.db_name}: {exc}")
        shutil.rmtree(env["RUN_DIR"], ignore_errors=True)
        try:
            clear_redis(args.redis_url, prefix)
        except Exception as exc:  # noqa: BLE001
            print(f"could not clear Redis keys {prefix}:*: {exc}")
        print(f"(total {time.perf_counter() - t_all:.0f} s; gunicorn stopped, database {args.db_name} dropped)")


if __name__ == "__main__":
    main()
