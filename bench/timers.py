"""Timer lateness: many concurrent games with short turns where nobody acts.

    .venv/bin/python bench/timers.py                      # 1000 games, 2 s turns, 60 s measured
    .venv/bin/python bench/timers.py --games 200 --seconds 20

On the private stack of bench/_stack.py (its own PostgreSQL cluster and
redis-server, never the machine's shared ones): Celery worker(s) and beat, kept
up by the same supervisor as bench/soak.py; no web server (nobody sends a
request).  A child process of this script (``--create``, with the stack's
environment) creates ``--games`` real two-player ``standard`` games through the
product's services (``create_game``, ``join_game``, ``start_game``): two human
players, ``turn_seconds`` ``--turn-seconds``, who never act.  The worker and
beat then play every turn by the timer: beat's batched sweep every
``UNO_SWEEP_SECONDS`` (``--sweep``), plus a countdown task per turn with
``--fast-path`` (off by default, as in the product).

After ``--warmup`` seconds, for ``--seconds`` seconds, the script samples every
running game's ``(version, deadline)`` from the database (every 0.2 s) and, at
the end, takes every timer move recorded in that window: its lateness is its
``created_at`` minus the deadline the game had at the version before it.

Autopilot: after ``UNO_MAX_TIMEOUTS`` timeouts in a row a seat would go on
autopilot and bot moves would replace timer moves.  The run sets
``UNO_MAX_TIMEOUTS`` to ``--max-timeouts`` (default 100000: never within a run)
and says so; with a low value only timer moves are measured and bot moves are
counted apart.

Also printed, to see where the time goes: the worker's task log (``LOG_LEVEL``
INFO for the worker: how many timer moves the sweeps made, and the countdown
tasks if any, each task's run time, the sweeps discarded because they expired in
the queue), the CPU seconds each process of the stack used during the window, the
lateness per 10 s of the window, and (``--profile N``) a cProfile of one sweep
over N overdue games in one process: time, CPU and SQL statements per timer move.
Prints figures only; exit status 0.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

from _stack import (
    PYTHON,
    DbSampler,
    Stack,
    StackConfig,
    cpu_snapshot,
    cpu_used,
    db_now,
    add_stack_arguments,
    fmt_s,
    log,
    percentile,
    print_cpu,
    print_task_log,
    run_on_stack,
    task_log,
    timer_lateness,
)


# --------------------------------------------------------------------------------------
# The child: create the games in-process through the product's services
# --------------------------------------------------------------------------------------
def create_games(n: int, turn_seconds: int) -> None:
    """Runs in a child process with the stack's environment; prints one JSON line."""
    import django  # the stack's code, first on PYTHONPATH

    django.setup()
    from games import services
    from players.models import Player

    t0 = time.time()
    a = Player.objects.create_user(username="timers_a", password=None)
    b = Player.objects.create_user(username="timers_b", password=None)
    ids = []
    for _ in range(n):
        game = services.create_game(creator=a, ruleset="standard", max_players=2, turn_seconds=turn_seconds)
        services.join_game(player=b, game_id=game.pk)
        ids.append(game.pk)
    t1 = time.time()
    for gid in ids:  # each start deals and sets the first deadline (and its countdown task)
        services.start_game(player=a, game_id=gid)
    print(json.dumps({"created_s": t1 - t0, "started_s": time.time() - t1, "games": len(ids)}))


def profile_timer_moves(n: int) -> None:
    """Runs in a child process with the stack's environment (no worker running):
    ``robots.sweep_deadlines`` over ``n`` overdue games under cProfile, as beat's
    sweep task calls it (batch after batch, each with its follow-ups).  Prints the
    cost per timer move and where it goes."""
    import cProfile
    import pstats

    import django  # the stack's code, first on PYTHONPATH

    django.setup()
    from django.db import connection
    from django.utils import timezone

    from games import robots, services
    from games.models import Game
    from players.models import Player

    # the measured games (their worker is stopped) are left alone: no deadline any more
    Game.objects.filter(status="active").update(deadline=None)
    a = Player.objects.create_user(username="profile_a", password=None)
    b = Player.objects.create_user(username="profile_b", password=None)
    ids = []
    warm = 20
    for _ in range(n + warm):
        # (an hour's turns: a game the sweep has moved is not overdue again before it ends)
        game = services.create_game(creator=a, ruleset="standard", max_players=2, turn_seconds=3600)
        services.join_game(player=b, game_id=game.pk)
        services.start_game(player=a, game_id=game.pk)
        ids.append(game.pk)
    overdue = timezone.now() - dt.timedelta(seconds=1)
    Game.objects.filter(pk__in=ids[:warm]).update(deadline=overdue)
    robots.sweep_deadlines(budget=600)  # warm-up: imports, connections, prepared statements
    Game.objects.filter(pk__in=ids[warm:]).update(deadline=overdue)
    queries: Counter[str] = Counter()

    def count(execute, sql, params, many, context):
        queries[sql.split()[0].upper()] += 1
        return execute(sql, params, many, context)

    prof = cProfile.Profile()
    wall, cpu = time.perf_counter(), time.process_time()
    with connection.execute_wrapper(count):
        prof.enable()
        done = robots.sweep_deadlines(budget=600)
        prof.disable()
    wall, cpu = (time.perf_counter() - wall) / n, (time.process_time() - cpu) / n
    print(f"    one timer move (robots.sweep_deadlines over {n} overdue games, batches of {robots.batch_size()}, "
          f"{done} moves, in one process): {wall * 1000:.2f} ms wall, {cpu * 1000:.2f} ms CPU, "
          f"{sum(queries.values()) / n:.3f} SQL statements "
          f"({', '.join(f'{k} {v}' for k, v in queries.most_common())} in all) + BEGIN/COMMIT")
    stats = pstats.Stats(prof).stats  # {(file, line, func): (cc, nc, tt, ct, callers)}
    rows = []
    for (path, line, func), (_, calls, _, cum, _) in stats.items():
        mine = "/games/" in path or "/config/" in path
        wanted = func in ("execute", "bulk_create", "bulk_update", "commit") and ("psycopg" in path
                                                                                 or "django/db" in path)
        if mine or wanted:
            where = path.split("/app/")[-1] if mine else path.split("site-packages/")[-1]
            rows.append((cum, calls, f"{where}:{line} {func}"))
    print("    cumulative time per timer move, by function (project code, the engine, DB calls):")
    for cum, calls, what in sorted(rows, reverse=True)[:26]:
        print(f"      {cum / n * 1000:7.3f} ms  {calls / n:6.3f} calls  {what}")


# --------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000, help="concurrent games, default 1000")
    ap.add_argument("--turn-seconds", type=int, default=2, help="turn_seconds of every game, default 2")
    ap.add_argument("--seconds", type=float, default=60.0, help="measured window, default 60")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds after the last start before measuring")
    ap.add_argument("--workers", type=int, default=1, help="Celery worker processes (main), default 1")
    ap.add_argument("--concurrency", type=int, default=2, help="pool size of each worker, default 2")
    ap.add_argument("--sweep", type=float, default=None, help="UNO_SWEEP_SECONDS (default: the product's)")
    ap.add_argument("--fast-path", type=float, default=None, metavar="SECONDS",
                    help="UNO_TIMER_FAST_PATH_SECONDS (default: the product's; 0: no countdown tasks, the sweeper "
                    "alone enforces the deadlines)")
    ap.add_argument("--max-timeouts", type=int, default=100000,
                    help="UNO_MAX_TIMEOUTS for the run, default 100000 (no autopilot within a run)")
    ap.add_argument("--profile", type=int, default=1000, metavar="N",
                    help="after the window, profile N timer moves in one process (0: skip), default 1000")
    add_stack_arguments(ap)
    ap.add_argument("--create", type=int, default=0, help=argparse.SUPPRESS)  # the children's modes
    ap.add_argument("--profile-child", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.create:
        create_games(args.create, args.turn_seconds)
        return
    if args.profile_child:
        profile_timer_moves(args.profile_child)
        return
    # (one pair of players holds every game: the per-player caps of issue 24 are off)
    env = {"UNO_MAX_TIMEOUTS": str(args.max_timeouts), "LOG_LEVEL": "INFO", "UNO_MAX_GAMES": "0",
           "UNO_MAX_WAITING_GAMES": "0"}
    if args.sweep is not None:
        env["UNO_SWEEP_SECONDS"] = str(args.sweep)
    if args.fast_path is not None:
        env["UNO_TIMER_FAST_PATH_SECONDS"] = str(args.fast_path)
    cfg = StackConfig(pg_port=args.pg_port, redis_port=args.redis_port, webs=0, workers=args.workers,
                      concurrency=args.concurrency, env=env, supervisord=args.supervisord, worker_loglevel="INFO",
                      keep_logs=args.keep_logs, snapshot=not args.live_tree)
    run_on_stack(cfg, f"timers: {args.games} games, turn_seconds {args.turn_seconds}, {args.seconds:g} s measured; "
                 f"UNO_MAX_TIMEOUTS={args.max_timeouts}", lambda stack: measure(args, stack))


def measure(args, stack: Stack) -> None:
    import psycopg

    url = stack.pg.url()
    sampler = DbSampler(url, interval=0.2, only_timed=True)
    sampler.start()  # from the first start on: deadlines of the warm-up are sampled too
    res = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--create", str(args.games), "--turn-seconds",
                          str(args.turn_seconds)], cwd=stack.app, env=stack.env, capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"creating the games failed:\n{res.stderr[-3000:]}")
    made = json.loads(res.stdout.strip().splitlines()[-1])
    log(f"{made['games']} games created (+ joined) in {made['created_s']:.1f} s and started in "
        f"{made['started_s']:.1f} s through games.services, in a child process")
    time.sleep(args.warmup)
    cpu0 = cpu_snapshot(stack, "bench (sampler)")
    logs = [p.log for p in stack.supervisor.programs.values() if p.name.startswith("w")]
    log_offsets = {p: p.stat().st_size if p.exists() else 0 for p in logs}
    since = db_now(url)
    t_win = time.time()
    log(f"measuring for {args.seconds:g} s")
    time.sleep(args.seconds)
    until = db_now(url)
    cpu1 = cpu_snapshot(stack, "bench (sampler)")
    elapsed = time.time() - t_win
    sampler.stop()
    stack.stop_programs()

    late, sampled, estimated = timer_lateness(url, sampler.deadlines, since, until)
    with psycopg.connect(url) as conn:
        by = dict(conn.execute("SELECT by, count(*) FROM games_move WHERE created_at >= %s AND created_at < %s "
                               "GROUP BY by", (since, until)).fetchall())
        series = conn.execute(
            """SELECT floor(extract(epoch FROM m.created_at - %s) / 10)::int AS bucket, m.game_id, m.seq,
                      m.created_at
                 FROM games_move m WHERE m.by = 'timer' AND m.created_at >= %s AND m.created_at < %s""",
            (since, since, until)).fetchall()
        overdue_end = conn.execute(
            "SELECT count(*), coalesce(max(extract(epoch FROM %s - deadline)), 0) FROM games_game "
            "WHERE status = 'active' AND deadline < %s", (until, until)).fetchone()
    # the worker log of the window only
    window_logs = []
    for p in logs:
        tail = p.with_suffix(".window.log")
        with open(p, "rb") as f:
            f.seek(log_offsets[p])
            tail.write_bytes(f.read())
        window_logs.append(tail)
    tasks = task_log(window_logs)

    expected = args.games * args.seconds / args.turn_seconds
    print()
    print("=" * 100)
    print(f"TIMER RESULTS ({args.games} games, turn_seconds {args.turn_seconds}, {args.seconds:g} s window; "
          f"{args.workers} worker x --concurrency {args.concurrency}; supervision: {stack.supervisor.kind})")
    print("=" * 100)
    print(f"timer moves measured: {len(late)} ({sampled} against the sampled deadline, {estimated} estimated from the "
          f"previous move); {len(late) / elapsed:.1f}/s; a timer move every turn of every game would be "
          f"{expected:.0f} ({expected / args.seconds:.0f}/s)")
    print(f"moves in the window by kind: {dict(by)} (bot moves: seats on autopilot, UNO_MAX_TIMEOUTS="
          f"{args.max_timeouts})")
    print(f"lateness (created_at - deadline): p50 {fmt_s(percentile(late, 50))}, p99 {fmt_s(percentile(late, 99))}, "
          f"max {fmt_s(max(late) if late else float('nan'))}, min {fmt_s(min(late) if late else float('nan'))}")
    p99 = percentile(late, 99)
    print(f"{'PASS' if late and p99 < 1.0 else 'FAIL'}: timer lateness p99 under 1 s ({fmt_s(p99)})")
    print(f"games overdue at the end of the window: {overdue_end[0]} (worst {overdue_end[1]:.1f} s)")
    print()
    print("lateness per 10 s of the window (does it grow? then the timers fall behind):")
    by_bucket: dict[int, list[float]] = defaultdict(list)
    for bucket, gid, seq, created in series:
        deadline = sampler.deadlines.get((gid, seq - 1))
        if deadline is not None:
            by_bucket[bucket].append((created - deadline).total_seconds())
    for b in sorted(by_bucket):
        v = by_bucket[b]
        print(f"    {b * 10:>4}-{b * 10 + 10:<4}s  {len(v):>6} moves  p50 {fmt_s(percentile(v, 50))}  "
              f"p99 {fmt_s(percentile(v, 99))}  max {fmt_s(max(v))}")
    print()
    print("where the time goes (window only):")
    print_cpu(cpu_used(cpu0, cpu1), elapsed)
    print_task_log(tasks)
    print(f"    sampler: {sampler.polls} polls of the running games, p50 {fmt_s(percentile(sampler.poll_seconds, 50))}")
    if args.profile:
        res = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--profile-child", str(args.profile),
                              "--turn-seconds", str(args.turn_seconds)], cwd=stack.app,
                             env=dict(stack.env, LOG_LEVEL="WARNING"), capture_output=True, text=True)
        print(res.stdout.rstrip() if res.returncode == 0 else f"    profile failed:\n{res.stderr[-3000:]}")


if __name__ == "__main__":
    main()
