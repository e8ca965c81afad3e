"""Bots of one owner's many tables against another owner's one table: the light owner's
bot latency alone, beside the heavy owner without the workers' fair share, and with it
(issue 24, ``games.botqueue``).

    .venv/bin/python bench/fairness.py                       # ~3 minutes
    .venv/bin/python bench/fairness.py --seconds 60 --heavy-tables 10 --level hard --share 2

Each phase runs a real Celery worker (``--concurrency`` pool processes, prefork on Redis)
and beat, with the product's defaults (``UNO_BOT_THINK_SECONDS`` 1, ``UNO_HARD_BUDGET_MS``
60), on its own database (``--db-name`` on ``--pg``, created and dropped) and Redis
(``--redis-url``, flushed):

1. ``alone``: the light owner's table only: one ``--level`` bot and the owner's seat left
   to the autopilot (so robots play every move: the move-to-move interval is the bots'
   latency: think time + wait in the queue + decision);
2. ``no share``: the same, beside the heavy owner's ``--heavy-tables`` tables of
   ``--bots`` ``--level`` bots each (also left to the autopilot), started first, with
   ``UNO_BOT_STEPS_PER_OWNER=0`` (every move queues its step, first come first served);
3. ``share K``: the same with ``UNO_BOT_STEPS_PER_OWNER=--share``.

Prints, per phase, the light table's move-to-move interval (median, p90, mean) over the
last ``--seconds`` (after ``--warmup``), and the heavy owner's moves per second.  The
machine is shared: figures move with its load (printed first).
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def admin(pg: str):
    import psycopg

    return psycopg.connect(pg.rstrip("/") + "/postgres", autocommit=True)


def recreate(pg: str, name: str, drop_only: bool = False) -> None:
    from psycopg import sql

    with admin(pg) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if not drop_only:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def start(argv: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = open(log, "ab")
    return subprocess.Popen([PYTHON, "-m", *argv], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def tables(owner, n: int, bots: int, level: str) -> list[int]:
    from games import services

    ids = []
    for _ in range(n):
        game = services.create_game(creator=owner, ruleset="standard", bots=[{"level": level}] * bots)
        services.start_game(player=owner, game_id=game.pk)
        services.leave_game(player=owner, game_id=game.pk)  # robots only from now on
        ids.append(game.pk)
    return ids


def intervals(game_ids: list[int], since) -> list[float]:
    from games.models import Move

    out = []
    for gid in game_ids:
        times = list(Move.objects.filter(game_id=gid, created_at__gte=since).order_by("seq")
                     .values_list("created_at", flat=True))
        out += [(b - a).total_seconds() for a, b in zip(times, times[1:])]
    return out


def phase(args, env: dict, label: str, share: int, heavy_tables: int, tmp: Path) -> str:
    from django.conf import settings
    from django.db import connections
    from django.utils import timezone

    from games.models import Game, Move
    from players.models import Player

    import redis

    redis.Redis.from_url(args.redis_url).flushdb()
    env = {**env, "UNO_BOT_STEPS_PER_OWNER": str(share)}
    settings.UNO_BOT_STEPS_PER_OWNER = share  # (this process queues the first steps)
    worker = start(["celery", "-A", "config", "worker", "--loglevel", "WARNING", "--concurrency",
                    str(args.concurrency), "--without-mingle", "--without-gossip"], env, tmp / "worker.log")
    beat = start(["celery", "-A", "config", "beat", "--loglevel", "WARNING", "-s", str(tmp / f"beat-{label}")],
                 env, tmp / "beat.log")
    try:
        time.sleep(5)  # the worker's pool up
        tag = secrets.token_hex(3)
        heavy = Player.objects.create_user(username=f"heavy_{tag}", password=None)
        light = Player.objects.create_user(username=f"light_{tag}", password=None)
        many = tables(heavy, heavy_tables, args.bots, args.level)
        (one,) = tables(light, 1, 1, args.level)
        time.sleep(args.warmup)
        since = timezone.now()
        time.sleep(args.seconds)
        light_iv = intervals([one], since)
        heavy_moves = Move.objects.filter(game_id__in=many, created_at__gte=since).count()
        Game.objects.filter(status="active").update(status="finished")  # the next phase starts clean
    finally:
        stop(worker)
        stop(beat)
        connections.close_all()
    if len(light_iv) < 2:
        return f"{label:>10}: the light table made {len(light_iv) + 1} moves in {args.seconds:g} s"
    q = statistics.quantiles(light_iv, n=10)
    return (f"{label:>10}: light table {len(light_iv) + 1} moves, interval median {statistics.median(light_iv):.2f} s, "
            f"p90 {q[8]:.2f} s, mean {statistics.mean(light_iv):.2f} s; heavy owner "
            f"{heavy_moves / args.seconds:.1f} moves/s over {heavy_tables} tables")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server (no database)")
    ap.add_argument("--db-name", default="uno_bench_fairness", help="database created and dropped")
    ap.add_argument("--redis-url", default="redis://127.0.0.1:6379/14", help="Redis database, flushed")
    ap.add_argument("--heavy-tables", type=int, default=10)
    ap.add_argument("--bots", type=int, default=3, help="bots per heavy table (the owner's seat: autopilot)")
    ap.add_argument("--level", default="hard")
    ap.add_argument("--share", type=int, default=2, help="UNO_BOT_STEPS_PER_OWNER of the last phase")
    ap.add_argument("--concurrency", type=int, default=2, help="worker pool processes")
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--warmup", type=float, default=5)
    args = ap.parse_args()

    db_url = f"{args.pg.rstrip('/')}/{args.db_name}"
    env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": args.redis_url, "SECRET_KEY": secrets.token_urlsafe(40),
           "DEBUG": "0", "LOG_LEVEL": "WARNING", "CELERY_SKIP_CHECKS": "1", "PYTHONWARNINGS": "ignore",
           "UNO_MAX_BOT_SEATS": "0", "UNO_MAX_GAMES": "0"}
    os.environ.update(env)
    recreate(args.pg, args.db_name)
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        sys.path.insert(0, str(ROOT))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        print(f"load average {os.getloadavg()[0]:.2f}; {args.heavy_tables} heavy tables of {args.bots} "
              f"{args.level} bots, one light table of 1; worker concurrency {args.concurrency}; "
              f"{args.seconds:g} s measured per phase", flush=True)
        with tempfile.TemporaryDirectory(prefix="uno_fairness_") as tmp:
            for label, share, heavy in (("alone", args.share, 0), ("no share", 0, args.heavy_tables),
                                        (f"share {args.share}", args.share, args.heavy_tables)):
                print(phase(args, env, label, share, heavy, Path(tmp)), flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        recreate(args.pg, args.db_name, drop_only=True)


if __name__ == "__main__":
    main()
