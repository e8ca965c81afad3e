"""Timer lateness: many concurrent games with short turns where nobody acts.

    .venv/bin/python bench/timers.py                      # 1000 games, 2 s turns, 60 s measured
    .venv/bin/python bench/timers.py --games 200 --seconds 20
    .venv/bin/python bench/timers.py --games 10000 --turn-seconds 20 --sample-interval 1 --idle-seconds 0

On the private stack of bench/_stack.py (its own PostgreSQL cluster and
redis-server, never the machine's shared ones): Celery worker(s) and beat, kept
up by the same supervisor as bench/soak.py; no web server (nobody sends a
request).  A child process of this script (``--create``, with the stack's
environment) creates ``--games`` real two-player ``standard`` games through the
product's services (``create_game``, ``join_game``, ``start_game``): two human
players, ``turn_seconds`` ``--turn-seconds``, who never act.  The worker and
beat then play every turn by the timer: beat's batched sweep every
``UNO_SWEEP_SECONDS`` (``--sweep``) and the sweeps that sweeps queue for the
next deadline (``UNO_TIMER_RESOLUTION_SECONDS``, ``--resolution``), plus a
countdown task per turn with ``--fast-path`` (off by default, as in the product).
Before the games (``--idle-seconds``): the stack's cost at rest, with no game and
with one.

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
def create_games(n: int, turn_seconds: int, tag: str = "") -> None:
    """Runs in a child process with the stack's environment; prints one JSON line.  The
    players are ``timers_a<tag>`` and ``timers_b<tag>`` (made if missing)."""
    import django  # the stack's code, first on PYTHONPATH

    django.setup()
    from games import services
    from players.models import Player

    t0 = time.time()
    a = (Player.objects.filter(username=f"timers_a{tag}").first()
         or Player.objects.create_user(username=f"timers_a{tag}", password=None))
    b = (Player.objects.filter(username=f"timers_b{tag}").first()
         or Player.objects.create_user(username=f"timers_b{tag}", password=None))
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
def idle_cost(stack: Stack, seconds: float, what: str) -> None:
    """What the stack costs at rest for ``seconds``: the SQL statements PostgreSQL ran
    (``log_statement = 'all'`` on the private cluster for the time: each statement
    logged once, a prepared one at each execute), the commands Redis processed (the
    broker and the cache; the two INFO calls of this script taken off), and the CPU of
    the worker(s) and beat.  Printed on one line."""
    import redis as redis_lib

    r = redis_lib.Redis(host="127.0.0.1", port=stack.redis.port)
    stack.pg.admin("ALTER SYSTEM SET log_statement = 'all'")
    stack.pg.admin("SELECT pg_reload_conf()")
    time.sleep(1.0)
    offset = stack.pg.logfile.stat().st_size
    cmds0 = r.info("stats")["total_commands_processed"]
    cpu0 = cpu_snapshot(stack, "bench")
    t0 = time.time()
    time.sleep(seconds)
    elapsed = time.time() - t0
    cpu1 = cpu_snapshot(stack, "bench")
    cmds1 = r.info("stats")["total_commands_processed"]
    with open(stack.pg.logfile, "rb") as f:
        f.seek(offset)
        lines = f.read().decode(errors="replace").splitlines()
    stack.pg.admin("ALTER SYSTEM RESET log_statement")
    stack.pg.admin("SELECT pg_reload_conf()")
    statements = [ln for ln in lines if "LOG:  statement: " in ln or "LOG:  execute " in ln]
    # (this script's own ALTER/SELECT pg_reload_conf are not in the window)
    kinds = Counter(ln.split("LOG:  ", 1)[1].split(":", 1)[-1].split()[0].upper() for ln in statements)
    used = cpu_used(cpu0, cpu1)
    workers = sum(v for k, v in used.items() if k.startswith("w"))
    beat = used.get("beat", 0.0)
    print(f"    at rest, {what}: {len(statements) / elapsed:.2f} SQL statements/s "
          f"({', '.join(f'{k} {v}' for k, v in kinds.most_common(6))} in {elapsed:.0f} s), "
          f"{(cmds1 - cmds0 - 1) / elapsed:.1f} Redis commands/s, CPU worker(s) {workers / elapsed * 100:.2f}% + beat "
          f"{beat / elapsed * 100:.2f}% of one core, PostgreSQL {used.get('postgres', 0.0) / elapsed * 100:.2f}%, "
          f"Redis {used.get('redis', 0.0) / elapsed * 100:.2f}%", flush=True)




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
    ap.add_argument("--sample-interval", type=float, default=0.2,
                    help="seconds between two reads of every running game's deadline, default 0.2")
    ap.add_argument("--batch", type=int, default=None, metavar="N",
                    help="UNO_SWEEP_BATCH_SIZE: overdue games per transaction (default: the product's, 200 on PostgreSQL)")
    ap.add_argument("--resolution", type=float, default=None, metavar="SECONDS",
                    help="UNO_TIMER_RESOLUTION_SECONDS (default: the product's; 0: beat's sweeps only)")
    ap.add_argument("--max-timeouts", type=int, default=100000,
                    help="UNO_MAX_TIMEOUTS for the run, default 100000 (no autopilot within a run)")
    ap.add_argument("--idle-seconds", type=float, default=30.0,
                    help="before the games: the stack's cost at rest with no game, then with one timed game "
                    "(turn_seconds --turn-seconds, nobody acting), this long each (0: skip), default 30")
    ap.add_argument("--profile", type=int, default=1000, metavar="N",
                    help="after the window, profile N timer moves in one process (0: skip), default 1000")
    add_stack_arguments(ap)
    ap.add_argument("--create", type=int, default=0, help=argparse.SUPPRESS)  # the children's modes
    ap.add_argument("--create-tag", default="", help=argparse.SUPPRESS)
    ap.add_argument("--profile-child", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--create-procs", type=int, default=2,
                    help="child processes that create the games side by side, default 2")
    args = ap.parse_args()
    if args.create:
        create_games(args.create, args.turn_seconds, args.create_tag)
        return
    if args.profile_child:
        profile_timer_moves(args.profile_child)
        return
    # (one pair of players holds every game: the per-player caps of issue 24 are off)
    env = {"UNO_MAX_TIMEOUTS": str(args.max_timeouts), "LOG_LEVEL": "INFO", "UNO_MAX_GAMES": "0",
           "UNO_MAX_WAITING_GAMES": "0"}
    if args.sweep is not None:
        env["UNO_SWEEP_SECONDS"] = str(args.sweep)
    if args.batch is not None:
        env["UNO_SWEEP_BATCH_SIZE"] = str(args.batch)
    if args.resolution is not None:
        env["UNO_TIMER_RESOLUTION_SECONDS"] = str(args.resolution)
    if args.fast_path is not None:
        env["UNO_TIMER_FAST_PATH_SECONDS"] = str(args.fast_path)
    cfg = StackConfig(pg_port=args.pg_port, redis_port=args.redis_port, webs=0, workers=args.workers,
                      concurrency=args.concurrency, env=env, supervisord=args.supervisord, worker_loglevel="INFO",
                      keep_logs=args.keep_logs, snapshot=not args.live_tree)
    run_on_stack(cfg, f"timers: {args.games} games, turn_seconds {args.turn_seconds}, {args.seconds:g} s measured; "
                 f"UNO_MAX_TIMEOUTS={args.max_timeouts}", lambda stack: measure(args, stack))


#: the sweeper's reads (as games.robots runs them), EXPLAINed at the end of the window
PLANNED = {
    "the next deadline and bot step (robots.next_times, every sweep)": (
        "SELECT (SELECT g.deadline FROM games_game g WHERE g.status = 'active' AND g.deadline IS NOT NULL "
        "AND g.deadline > now() ORDER BY g.deadline LIMIT 1), (SELECT g.bot_due FROM games_game g "
        "WHERE g.status = 'active' AND g.bot_due IS NOT NULL AND g.bot_due > now() - interval '1.5 s' AND NOT EXISTS "
        "(SELECT 1 FROM games_deferredbotstep d WHERE d.game_id = g.id AND d.version = g.version) "
        "ORDER BY g.bot_due LIMIT 1)"),
    "a batch's overdue games (robots._overdue, without its FOR UPDATE SKIP LOCKED)": (
        "SELECT id FROM games_game WHERE status = 'active' AND deadline <= now() ORDER BY deadline LIMIT 200"),
}


def create_child(stack: Stack, games: int, turn_seconds: int, procs: int = 1) -> dict:
    """Create and start ``games`` games in ``procs`` child processes side by side
    (``--create``, each with players of its own); the slowest child's times."""
    procs = max(1, min(procs, games))
    children = []
    for i in range(procs):
        n = games // procs + (1 if i < games % procs else 0)
        children.append(subprocess.Popen(
            [PYTHON, str(Path(__file__).resolve()), "--create", str(n), "--turn-seconds", str(turn_seconds),
             "--create-tag", f"_{i}" if procs > 1 else ""], cwd=stack.app, env=stack.env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    made = []
    for child in children:
        out, err = child.communicate()
        if child.returncode:
            raise RuntimeError(f"creating the games failed:\n{err[-3000:]}")
        made.append(json.loads(out.strip().splitlines()[-1]))
    return {"games": sum(m["games"] for m in made), "created_s": max(m["created_s"] for m in made),
            "started_s": max(m["started_s"] for m in made)}


def measure(args, stack: Stack) -> None:
    import psycopg

    url = stack.pg.url()
    if args.idle_seconds > 0:
        log(f"the stack at rest: {args.idle_seconds:g} s with no game, then {args.idle_seconds:g} s with one")
        time.sleep(5)  # (the worker's and beat's start-up over)
        idle_cost(stack, args.idle_seconds, "no game")
        create_child(stack, 1, args.turn_seconds)
        time.sleep(2)
        idle_cost(stack, args.idle_seconds, f"one game of {args.turn_seconds} s turns where nobody acts (a timer "
                  f"move every {args.turn_seconds} s)")
    sampler = DbSampler(url, interval=args.sample_interval, only_timed=True)
    sampler.start()  # from the first start on: deadlines of the warm-up are sampled too
    made = create_child(stack, args.games, args.turn_seconds, args.create_procs)
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
        plans = {}
        for name, sql in PLANNED.items():
            try:
                plans[name] = [row[0] for row in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql).fetchall()]
            except psycopg.Error as exc:  # (code older than what this script plans)
                conn.rollback()
                plans[name] = [f"not planned: {exc}".splitlines()[0]]
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
    print(f"{'PASS' if late and p99 < 0.3 else 'FAIL'}: timer lateness p99 under 0.3 s ({fmt_s(p99)})")
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
    print()
    print(f"the sweeper's reads, planned and run at the end of the window ({args.games} running games):")
    for name, lines in plans.items():
        print(f"  {name}:")
        for line in lines:
            print(f"      {line}")
    if args.profile:
        res = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--profile-child", str(args.profile),
                              "--turn-seconds", str(args.turn_seconds)], cwd=stack.app,
                             env=dict(stack.env, LOG_LEVEL="WARNING"), capture_output=True, text=True)
        print(res.stdout.rstrip() if res.returncode == 0 else f"    profile failed:\n{res.stderr[-3000:]}")


if __name__ == "__main__":
    main()
