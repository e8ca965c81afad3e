"""Notifications (issue 29) on the whole stack: 1,000 reminders due within a minute, every
one emailed once, how late; and the move endpoint with notifications on against off.

    nice -n 19 .venv/bin/python bench/notify.py                 # ~10 minutes
    .venv/bin/python bench/notify.py --games 200 --lead 60 --duration 20  # a quicker look

On the private stack of bench/_stack.py (its own PostgreSQL cluster and redis-server,
never the machine's shared ones): gunicorn, a Celery worker and beat (the product's
sweepers: the games' deadlines and reach's outbox, every ``UNO_REACH_SWEEP_SECONDS``, 10
by default), and a real SMTP server standing in for the mail server: aiosmtpd, in this
script, on 127.0.0.1 (``EMAIL_HOST`` / ``EMAIL_PORT`` of every process of the stack: the
product's emails go through Django's SMTP backend, as in production).  Every
notification setting is the product's default.

1. **Moves, notifications on against off.**  A child process (``--setup-players``, with
   the stack's environment) makes ``2 x --clients`` players and their API tokens with
   the product's services for each half: "on" players have a verified address (written
   in the database as an operator importing verified addresses would; ``Player.reachable``
   set by ``reach.services.refresh_reachable``) and every kind of notification on,
   "off" players none.  Each client creates ``--games-per-client`` correspondence games
   (a day a turn) through the API, then plays them as bench/api.py plays (a GET of the
   game as the player in turn, a POST of a legal action with ``expected_version``), for
   ``--duration`` seconds after a ``--warmup``.  The two halves' clients run **at the
   same time** (``--clients`` each), not in alternating slices as bench/api.py's
   product and floor do: on this shared machine the load swings by 2x between slices of
   ten seconds (a run in slices measured 0.66x and 0.81x, with GETs, which reach does not
   touch, slower in the "on" slices too); at once, both halves meet the same load at
   every instant.  "On" moves write the outbox in their transaction (your turn, due after
   its delay; reminders); "off" moves do not.  Printed: moves/s and the move's latency
   for each, and their ratio (target: on >= 0.95 x off).
2. **1,000 reminders within a minute.**  How the due times come soon without waiting a
   day: real games, each started with a turn that makes its reminder due at a chosen
   time.  A child (``--setup-reminders``) makes ``2 x --games`` players with verified
   addresses who want reminders by email and nothing else (their preferences: the other
   kinds off, so that what the SMTP server receives is the reminders alone), then, pair
   after pair, creates, joins and starts a two-player game through the product's
   services (``create_game``, ``join_game``, ``start_game``) whose ``turn_seconds``
   (a little over an hour) puts its "one hour left" reminder (``UNO_REACH_REMIND_SECONDS``,
   3600) at ``--lead`` (360) + ``--spread`` (50) x i / n seconds after the players were
   made: the 1,000 due times fall within a minute, a few minutes ahead, and each turn
   still has its hour to run (no reminder goes stale while the bench waits).  Every
   notification setting is the product's default.  Each start writes the reminders
   for the player in turn (the "quarter of the turn left" one comes 45 minutes later,
   outside the run, and is not counted); beat's sweeper queues each reminder's
   delivery task at its due time when it comes within its next run, and delivers what
   is due; nobody plays.  The script waits until every "one hour left" row is settled
   (or ``--patience`` after the last due time), then reads what the SMTP server
   received: each email's identity is its recipient and its game (the subject names
   it): duplicates and missing ones are counted against the reminder rows of the
   database; lateness = when the SMTP server received the email minus the row's
   ``due_at``.

Prints figures only; exit status 0.  The benchmark's helpers do nothing the product
does not do for itself: they make players and games, and read.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import random
import re
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from _stack import (
    PYTHON,
    Client,
    Stack,
    StackConfig,
    add_stack_arguments,
    fmt_s,
    log,
    percentile,
    run_on_stack,
)
from api import API, Game, call, merge_stats, new_stats, play_move, report_row

REMINDER_SUBJECT = re.compile(r"^Reminder: .* in game (\d+)$")
REMINDERS_ONLY = {k: {"email": k == "reminder", "push": False}
                  for k in ("your_turn", "reminder", "game_started", "game_finished", "challenge", "rematch")}


# --------------------------------------------------------------------------------------
# The children: players and games through the product's services, in the stack's env
# --------------------------------------------------------------------------------------
def _setup_django():
    import django  # the stack's code, first on PYTHONPATH

    django.setup()


def _player(name: str, address: str | None, kinds: dict | None = None):
    from players.models import Player
    from reach.models import Preferences
    from reach.services import refresh_reachable

    p = Player.objects.create_user(username=name, password=None)
    if address:
        Preferences.objects.create(player=p, email=address, email_verified=True,
                                   **({"kinds": kinds} if kinds else {}))
        refresh_reachable(p.pk)
    return p


def setup_players(clients: int) -> None:
    """Two players per client for each half, with tokens; prints one JSON line."""
    _setup_django()
    from players.tokens import token_issue

    out = {}
    for half in ("on", "off"):
        pairs = []
        for i in range(clients):
            pair = []
            for s in (0, 1):
                name = f"move_{half}_{i}_{s}"
                p = _player(name, f"{name}@bench.test" if half == "on" else None)
                pair.append(token_issue(player=p, name="bench").key)
            pairs.append(pair)
        out[half] = pairs
    print(json.dumps(out))


def setup_reminders(n: int, lead: float, spread: float) -> None:
    """``n`` games of two fresh players each who want reminders by email, created,
    joined and started one after the other; game ``i``'s ``turn_seconds`` makes its
    "one hour left" reminder due ``lead + spread * i / n`` seconds after the players
    were made.  Prints one JSON line."""
    _setup_django()
    import math

    from django.conf import settings

    from games import services

    t0 = time.time()
    pairs = [(_player(f"r{i}a", f"r{i}a@bench.test", REMINDERS_ONLY),
              _player(f"r{i}b", f"r{i}b@bench.test", REMINDERS_ONLY)) for i in range(n)]
    t1 = time.time()
    before = settings.UNO_REACH_REMIND_SECONDS
    ids, turns = [], []
    for i, (a, b) in enumerate(pairs):
        due = t1 + lead + spread * i / n
        # a turn whose "one hour left" is ``due`` (the join and start follow at once)
        turn = math.ceil(due - time.time() + before)
        game = services.create_game(creator=a, ruleset="standard", max_players=2, turn_seconds=turn)
        services.join_game(player=b, game_id=game.pk)
        services.start_game(player=a, game_id=game.pk)  # writes its reminder
        ids.append(game.pk)
        turns.append(turn)
    print(json.dumps({"players_s": t1 - t0, "started_s": time.time() - t1, "first": ids[0], "last": ids[-1],
                      "turns": [min(turns), max(turns)]}))


# --------------------------------------------------------------------------------------
# The SMTP server standing in for the mail server
# --------------------------------------------------------------------------------------
class Inbox:
    """aiosmtpd's handler: (time received, To, Subject) of every message accepted."""

    def __init__(self):
        self.lock = threading.Lock()
        self.got: list[tuple[float, str, str]] = []

    async def handle_DATA(self, server, session, envelope):
        at = time.time()
        m = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.lock:
            self.got.append((at, str(m["To"]), str(m["Subject"])))
        return "250 Message accepted for delivery"

    def reminders(self) -> list[tuple[float, str, int]]:
        with self.lock:
            got = list(self.got)
        out = []
        for at, to, subject in got:
            m = REMINDER_SUBJECT.match(" ".join(subject.split()))
            if m:
                out.append((at, to, int(m.group(1))))
        return out


# --------------------------------------------------------------------------------------
# Part 1: moves, notifications on against off
# --------------------------------------------------------------------------------------
def new_game(client: Client, tokens: list[str]) -> Game:
    g = call(client, "POST", f"{API}/games", tokens[0],
             {"ruleset": "standard", "max_players": 2, "turn_seconds": 86400}, expect=(201,))
    call(client, "POST", f"{API}/games/{g['id']}/join", tokens[1])
    g = call(client, "POST", f"{API}/games/{g['id']}/start", tokens[0])
    return Game(g["id"], tokens, g["current_seat"])


def moves_on_off(args, stack: Stack) -> None:
    res = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--setup-players", str(args.clients)],
                         cwd=stack.app, env=stack.env, capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"making the players failed:\n{res.stderr[-3000:]}")
    pairs = json.loads(res.stdout.strip().splitlines()[-1])
    port = stack.web_ports[0]
    setup = Client(port)
    games = {half: [[new_game(setup, pairs[half][i]) for _ in range(args.games_per_client)]
                    for i in range(args.clients)] for half in ("on", "off")}
    setup.close()
    log(f"moves: {2 * args.clients} players and {args.clients * args.games_per_client} correspondence games "
        f"for each half (on: verified addresses, every kind on; off: none)")

    def body_of(half: str):
        def body(i: int, c: Client, stats: dict, t_from: float, t_end: float) -> None:
            rng = random.Random(args.seed * 1000 + i)
            mine = games[half][i]
            k = 0
            while time.perf_counter() < t_end:
                live = [g for g in mine if not g.finished]
                if not live:
                    mine.append(new_game(c, pairs[half][i]))
                    continue
                play_move(c, live[k % len(live)], rng, stats, t_from)
                k += 1
        return body

    # both halves at once, each client its half: at every instant both meet the same load
    # of the (shared) machine, which swings by 2x between slices of seconds
    stats = {half: [new_stats() for _ in range(args.clients)] for half in ("on", "off")}
    failures: list[BaseException] = []
    t_from = time.perf_counter() + args.warmup
    t_end = t_from + args.duration

    def client(half: str, i: int) -> None:
        c = Client(port)
        try:
            body_of(half)(i, c, stats[half][i], t_from, t_end)
        except BaseException as exc:  # reported below
            failures.append(exc)
        finally:
            c.close()

    threads = [threading.Thread(target=client, args=(half, i), daemon=True)
               for i in range(args.clients) for half in ("on", "off")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        print(f"   {len(failures)} client(s) failed, first: {failures[0]!r}")
    slices = {half: parts for half, parts in stats.items()}
    for parts in slices.values():
        for part in parts:
            part["seconds"] = args.duration / args.clients  # merge_stats sums them
    rows = {half: merge_stats(parts) for half, parts in slices.items()}
    print()
    print(f"== Moves with notifications on against off: {args.clients} clients (threads, keep-alive) of each half "
          f"at once, {args.duration:g} s measured after {args.warmup:g} s; one gunicorn "
          f"({stack.cfg.gunicorn_workers} workers x {stack.cfg.gunicorn_threads} threads)")
    print(f"{'moves':<10}{'moves':>8}{'moves/s':>10}{'POST p50':>9}{'p99':>9}{'GET p50':>9}{'p99':>9}{'errors':>8}")
    print(f"{'':<28}{'(ms)':>9}{'(ms)':>9}{'(ms)':>9}{'(ms)':>9}")
    print("-" * 72)
    for half in ("off", "on"):
        report_row(f"notif {half}", rows[half])
    rate = {half: len(rows[half]["post"]) / rows[half]["seconds"] for half in rows}
    ratio = rate["on"] / rate["off"] if rate["off"] else float("nan")
    print(f"          on / off: {ratio:.2f}x the moves/s ({'PASS' if ratio >= 0.95 else 'FAIL'}: target >= 0.95x)")
    print()


# --------------------------------------------------------------------------------------
# Part 2: 1,000 reminders due within a minute
# --------------------------------------------------------------------------------------
def reminders(args, stack: Stack, inbox: Inbox) -> None:
    import psycopg

    url = stack.pg.url()
    log(f"reminders: making {2 * args.games} players and {args.games} games, reminders due {args.lead:g} to "
        f"{args.lead + args.spread:g} s after")
    res = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--setup-reminders", str(args.games),
                          "--lead", str(args.lead), "--spread", str(args.spread)], cwd=stack.app, env=stack.env,
                         capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"making the games failed:\n{res.stderr[-3000:]}")
    made = json.loads(res.stdout.strip().splitlines()[-1])
    first, last = made["first"], made["last"]
    log(f"reminders: players made in {made['players_s']:.1f} s, games made and started in {made['started_s']:.1f} s "
        f"(turn_seconds {made['turns'][0]} to {made['turns'][1]})")
    if made["started_s"] > args.lead:
        log("reminders: the starts took longer than --lead: the last due times are later than planned")
    query = """SELECT m.game_id, p.email, m.due_at, m.status, m.sent_at, m.attempts, m.id
                 FROM reach_message m JOIN reach_preferences p ON p.player_id = m.player_id
                WHERE m.kind = 'reminder' AND m.key LIKE '%%:before' AND m.game_id BETWEEN %s AND %s
                  AND m.id <= %s"""
    with psycopg.connect(url, autocommit=True) as conn:
        # the reminders the starts wrote (not those of the turns the timer plays later)
        top = conn.execute("SELECT coalesce(max(id), 0) FROM reach_message").fetchone()[0]
        rows = conn.execute(query, (first, last, top)).fetchall()
        dues = [r[2].timestamp() for r in rows]
        give_up = max(dues) + args.patience
        log(f"reminders: {len(rows)} reminder rows written, due from {min(dues) - time.time():+.0f} s to "
            f"{max(dues) - time.time():+.0f} s from now (a spread of {max(dues) - min(dues):.1f} s)")
        # until every reminder row is settled and the SMTP server got as many, or --patience after the last due
        while time.time() < give_up:
            pending = conn.execute("SELECT count(*) FROM reach_message WHERE kind = 'reminder' AND status = 'pending' "
                                   "AND key LIKE '%%:before' AND game_id BETWEEN %s AND %s AND id <= %s",
                                   (first, last, top)).fetchone()[0]
            if not pending and len(inbox.reminders()) >= len(rows):
                break
            time.sleep(1)
        time.sleep(12)  # another sweep or more: no second copy
        rows = conn.execute(query, (first, last, top)).fetchall()
    got = inbox.reminders()
    expected = {(r[1], r[0]): r for r in rows}
    counts = Counter((to, gid) for _, to, gid in got)
    first_at: dict[tuple[str, int], float] = {}
    for at, to, gid in sorted(got):
        first_at.setdefault((to, gid), at)
    duplicates = sum(n - 1 for n in counts.values() if n > 1)
    missing = [k for k in expected if k not in counts]
    strays = [k for k in counts if k not in expected]
    late = [first_at[k] - expected[k][2].timestamp() for k in expected if k in first_at]
    recorded = [(r[4] - r[2]).total_seconds() for r in rows if r[4] is not None]
    statuses = Counter(r[3] for r in rows)
    retried = sum(1 for r in rows if r[5])
    dues = [r[2].timestamp() for r in rows]
    print()
    print(f"== Reminders: {args.games} games, reminders due within "
          f"{max(dues) - min(dues):.1f} s; {stack.cfg.workers} worker x --concurrency {stack.cfg.concurrency}, beat "
          f"(reach's sweeper every 10 s: a task at each due time); SMTP: aiosmtpd in the bench")
    print(f"reminder rows: {len(rows)} ({dict(statuses)}; {retried} retried); emails received: {len(got)} "
          f"({len(counts)} distinct by recipient and game)")
    print(f"duplicates: {duplicates}; missing: {len(missing)}; emails for no reminder row: {len(strays)}")
    print(f"{'PASS' if rows and not duplicates and not missing and not strays else 'FAIL'}: every reminder "
          f"emailed exactly once")
    print(f"lateness (received by the SMTP server - due_at): p50 {fmt_s(percentile(late, 50))}, "
          f"p99 {fmt_s(percentile(late, 99))}, max {fmt_s(max(late) if late else float('nan'))}")
    print(f"recorded by the product (sent_at - due_at): p50 {fmt_s(percentile(recorded, 50))}, "
          f"p99 {fmt_s(percentile(recorded, 99))}")
    if missing:
        print(f"    missing, first: {missing[:5]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000, help="games (one reminder each), default 1000")
    ap.add_argument("--lead", type=float, default=360.0, help="the first reminder is due this long after the "
                    "players are made (the games are made and started meanwhile), default 360")
    ap.add_argument("--spread", type=float, default=50.0, help="the due times spread over this many seconds, "
                    "default 50")
    ap.add_argument("--clients", type=int, default=4, help="clients playing moves (threads) of each half, default 4")
    ap.add_argument("--games-per-client", type=int, default=4, help="games of each client per half, default 4")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds measured, default 60")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds not counted at the start")
    ap.add_argument("--patience", type=float, default=300.0, help="wait at most this long after the last due "
                    "time, default 300")
    ap.add_argument("--smtp-port", type=int, default=0, help="the SMTP stand-in's port (default: a free one)")
    ap.add_argument("--web-port", type=int, default=0, help="gunicorn's port (default: a free one)")
    ap.add_argument("--skip-moves", action="store_true", help="the reminders only")
    ap.add_argument("--seed", type=int, default=1)
    add_stack_arguments(ap)
    ap.add_argument("--setup-players", type=int, default=0, help=argparse.SUPPRESS)  # the children's modes
    ap.add_argument("--setup-reminders", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.setup_players:
        setup_players(args.setup_players)
        return
    if args.setup_reminders:
        setup_reminders(args.setup_reminders, args.lead, args.spread)
        return
    from aiosmtpd.controller import Controller

    from api import free_port

    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=args.smtp_port or free_port())
    smtp.start()
    env = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1",
           "EMAIL_PORT": str(smtp.port), "UNO_PUBLIC_URL": "http://bench.test",
           "UNO_MAX_GAMES": "0", "UNO_MAX_WAITING_GAMES": "0"}
    cfg = StackConfig(pg_port=args.pg_port, redis_port=args.redis_port, web_port=args.web_port, webs=1, workers=1, concurrency=2, env=env,
                      supervisord=args.supervisord, keep_logs=args.keep_logs, snapshot=not args.live_tree,
                      worker_loglevel="INFO")

    def body(stack: Stack) -> None:
        if not args.skip_moves:
            moves_on_off(args, stack)
        reminders(args, stack, inbox)

    try:
        run_on_stack(cfg, f"notify: {args.games} reminders due within a minute; moves with notifications on/off",
                     body)
    finally:
        smtp.stop()


if __name__ == "__main__":
    main()
