"""Quick play at scale: 1,000 requests arriving over two minutes (issue 26).

    .venv/bin/python bench/matchmaking.py                      # 1000 requests over 120 s
    .venv/bin/python bench/matchmaking.py --requests 200 --seconds 30

On the private stack of bench/_stack.py (its own PostgreSQL cluster and
redis-server, never the machine's shared ones): two gunicorn web processes, two
Celery workers and beat, as a deployment runs them.  A child process of this script
(``--create``, with the stack's environment) creates the players and their API tokens
through the product's models (registration's password hashing is not what is
measured).  Then ``--requests`` players each send one ``POST /api/v1/quickplay`` at
a random moment of ``--seconds`` (uniform arrivals, from a pool of client threads),
with a spread of settings (seeded, ``--seed``): one or two presets of the six, one or
two seat counts each preset allows, mostly ``realtime``, a fifth ``rated``; half of
the unrated ones allow bots after ``--bots-after`` seconds (20), of a random level.
Every POST carries an Idempotency-Key and is retried with it on a 503.

After the last arrival the script waits for the bots' waits to end (plus a margin)
and reads the outcome from the database:

* games formed (with and without bots), requests matched, still waiting, and
  the time to a game (a matched request's ``ended_at`` minus its ``created_at``, one
  clock) p50 / p99, for tables of people and for bot fill-ins apart;
* **matched twice**: a player seated in more than one game, or a game with more
  seats than ``max_players``, or a request whose game does not seat its player;
* **lost**: a POST that got no 202, a request still waiting whose wait for bots is
  over, or one still waiting while a table could be formed among those waiting (the
  same compatibility as the matchmaker: a common preset, seat count and speed, the
  same ``rated``).

Both targets are 0.  Also printed: the POST's latency p50 / p99 (the match attempt
runs inside it, under the matchmaker's lock).  Prints figures only; exit status 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _stack import PYTHON, Stack, StackConfig, add_stack_arguments, fmt_s, log, percentile, run_on_stack

PRESETS = {"standard": (2, 10), "house": (2, 10), "standard_112": (2, 10), "play_uno_com": (2, 10),
           "duo": (2, 2), "decktet_uno": (2, 4)}
#: how often each preset is asked for (the popular ones more)
WEIGHTS = {"standard": 5, "house": 3, "standard_112": 1, "play_uno_com": 1, "duo": 2, "decktet_uno": 1}
LEVELS = ("easy", "normal", "hard")


def create_players(n: int) -> None:
    """Runs in a child process with the stack's environment; prints one JSON line: the tokens."""
    import django  # the stack's code, first on PYTHONPATH

    django.setup()
    from players.models import Player
    from players.tokens import token_issue

    tag = uuid.uuid4().hex[:6]
    players = [Player.objects.create_user(username=f"mm{tag}{i}", password=None) for i in range(n)]
    tokens = [token_issue(player=p, name="bench").key for p in players]
    print(json.dumps({"tokens": tokens}))


def settings_for(rng: random.Random, bots_after: int) -> dict:
    """One request's settings: a spread of presets, seat counts and speeds."""
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    rulesets = list(dict.fromkeys(rng.choices(names, weights, k=rng.choice((1, 1, 2)))))
    low = min(PRESETS[r][0] for r in rulesets)
    high = max(PRESETS[r][1] for r in rulesets)
    sizes = [n for n in (2, 2, 2, 3, 3, 4, 4, 5, 6) if low <= n <= high]
    seats = list(dict.fromkeys(rng.sample(sizes, k=min(len(sizes), rng.choice((1, 2))))))
    body: dict = {"rulesets": rulesets, "seats": seats,
                  "speed": "correspondence" if rng.random() < 0.15 else "realtime"}
    if rng.random() < 0.2:
        body["rated"] = True
    elif rng.random() < 0.625:  # half of all requests: 0.8 * 0.625
        body["bots"] = {"after_seconds": bots_after, "level": rng.choice(LEVELS)}
    return body


def post(url: str, token: str, body: dict) -> tuple[int, dict, float]:
    import urllib.error
    import urllib.request

    key = uuid.uuid4().hex
    t0 = time.time()
    for _ in range(30):
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
            "Authorization": f"Token {token}", "Content-Type": "application/json", "Idempotency-Key": key})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read()), time.time() - t0
        except urllib.error.HTTPError as e:
            payload = json.loads(e.read() or b"{}")
            if e.code == 503 or payload.get("code") == "idempotency_in_progress":
                time.sleep(0.5)
                continue
            return e.code, payload, time.time() - t0
        except OSError as e:
            last = {"error": str(e)}
            time.sleep(0.5)
            continue
    return 0, locals().get("last", {}), time.time() - t0


def formable(waiting: list[dict]) -> list[int]:
    """The ids of waiting requests that a table could seat with others waiting (the
    matchmaker's compatibility: a common preset, seat count and speed, the same rated)."""
    found = []
    for r in waiting:
        for ruleset in r["rulesets"]:
            for n in r["seats"]:
                if not PRESETS[ruleset][0] <= n <= PRESETS[ruleset][1]:
                    continue
                for speed in r["speeds"]:
                    fit = [w for w in waiting if w["rated"] == r["rated"] and ruleset in w["rulesets"]
                           and n in w["seats"] and speed in w["speeds"]]
                    if len({w["player_id"] for w in fit}) >= n:
                        found.append(r["id"])
    return sorted(set(found))


def measure(args, stack: Stack) -> None:
    import psycopg

    res = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--create", str(args.requests)],
                         cwd=stack.app, env=stack.env, capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"creating the players failed:\n{res.stderr[-3000:]}")
    tokens = json.loads(res.stdout.strip().splitlines()[-1])["tokens"]
    log(f"{len(tokens)} players and tokens created")
    rng = random.Random(args.seed)
    arrivals = sorted(rng.uniform(0, args.seconds) for _ in tokens)
    bodies = [settings_for(rng, args.bots_after) for _ in tokens]
    urls = [f"http://127.0.0.1:{p}/api/v1/quickplay" for p in stack.web_ports]
    answers: list[tuple[int, dict, float] | None] = [None] * len(tokens)
    start = time.time() + 1.0
    lock = threading.Lock()
    sent = Counter()

    def one(i: int) -> None:
        delay = start + arrivals[i] - time.time()
        if delay > 0:
            time.sleep(delay)
        answers[i] = post(urls[i % len(urls)], tokens[i], bodies[i])
        with lock:
            sent[answers[i][0]] += 1

    log(f"{len(tokens)} requests over {args.seconds:g} s ({len(tokens) / args.seconds:.1f}/s), "
        f"{sum('bots' in b for b in bodies)} allowing bots after {args.bots_after} s, "
        f"{sum(bool(b.get('rated')) for b in bodies)} rated, {sum(b['speed'] == 'correspondence' for b in bodies)} "
        "correspondence")
    with ThreadPoolExecutor(args.threads) as pool:
        list(pool.map(one, range(len(tokens))))
    log(f"all sent: answers {dict(sent)}")
    time.sleep(args.bots_after + args.margin)

    url = stack.pg.url()
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT id, player_id, status, rulesets, seats, speeds, rated, bots_at, created_at, ended_at, game_id,"
            " bot_seats FROM matchmaking_quickplayrequest").fetchall()
        seats = conn.execute("SELECT game_id, player_id FROM games_seat").fetchall()
        games = dict(conn.execute("SELECT id, max_players FROM games_game").fetchall())
        now = conn.execute("SELECT now()").fetchone()[0]
    cols = ("id", "player_id", "status", "rulesets", "seats", "speeds", "rated", "bots_at", "created_at", "ended_at",
            "game_id", "bot_seats")
    reqs = [dict(zip(cols, r)) for r in rows]
    matched = [r for r in reqs if r["status"] == "matched"]
    waiting = [r for r in reqs if r["status"] == "waiting"]
    seats_per_game = Counter(g for g, _ in seats)
    games_of_player = Counter(p for _, p in seats if p is not None)
    seat_of = {(g, p) for g, p in seats}
    twice = (sum(1 for c in games_of_player.values() if c > 1)
             + sum(1 for g, n in seats_per_game.items() if n > games[g])
             + sum(1 for r in matched if (r["game_id"], r["player_id"]) not in seat_of))
    not_202 = sum(1 for a in answers if a is None or a[0] != 202)
    overdue = [r["id"] for r in waiting if r["bots_at"] is not None and r["bots_at"] <= now]
    stuck = formable(waiting)
    lost = not_202 + len(overdue) + len(stuck) + (len(tokens) - len(reqs))
    game_ids = {r["game_id"] for r in matched}
    with_bots = {r["game_id"] for r in matched if r["bot_seats"]}
    wait_people = [(r["ended_at"] - r["created_at"]).total_seconds() for r in matched if not r["bot_seats"]]
    wait_bots = [(r["ended_at"] - r["created_at"]).total_seconds() for r in matched if r["bot_seats"]]
    wait_all = wait_people + wait_bots
    post_s = [a[2] for a in answers if a is not None]
    print(flush=True)
    print(f"requests            {len(tokens)} sent over {args.seconds:g} s, {len(reqs)} recorded")
    print(f"games formed        {len(game_ids)} ({len(game_ids) - len(with_bots)} of people only, "
          f"{len(with_bots)} filled with bots)")
    print(f"requests matched    {len(matched)} ({len(wait_people)} at tables of people, {len(wait_bots)} with bots); "
          f"still waiting {len(waiting)} (no compatible partner)")
    print(f"time to a game      p50 {fmt_s(percentile(wait_all, 50))}, p99 {fmt_s(percentile(wait_all, 99))} "
          f"(people only: p50 {fmt_s(percentile(wait_people, 50))}, p99 {fmt_s(percentile(wait_people, 99))}; "
          f"bot fill-ins: p50 {fmt_s(percentile(wait_bots, 50))}, p99 {fmt_s(percentile(wait_bots, 99))})")
    print(f"POST /quickplay     p50 {fmt_s(percentile(post_s, 50))}, p99 {fmt_s(percentile(post_s, 99))}")
    print(f"matched twice       {twice}")
    print(f"lost                {lost} (no 202: {not_202}; waiting past their bots' wait: {len(overdue)}; "
          f"waiting with a table possible: {len(stuck)})")
    by_size = Counter(r["game_id"] and games[r["game_id"]] for r in matched)
    print(f"matched by seats    {dict(sorted(by_size.items()))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--requests", type=int, default=1000, help="quick-play requests, one per player (default 1000)")
    ap.add_argument("--seconds", type=float, default=120.0, help="over how long they arrive (default 120)")
    ap.add_argument("--bots-after", type=int, default=20, help="after_seconds of the bots' half (default 20)")
    ap.add_argument("--margin", type=float, default=10.0, help="seconds waited after the bots' wait (default 10)")
    ap.add_argument("--threads", type=int, default=64, help="client threads (default 64)")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--create", type=int, default=0, help=argparse.SUPPRESS)  # the child's mode
    add_stack_arguments(ap)
    args = ap.parse_args()
    if args.create:
        create_players(args.create)
        return
    env = {"UNO_BOT_THINK_SECONDS": "0.5"}
    cfg = StackConfig(pg_port=args.pg_port, redis_port=args.redis_port, webs=1, gunicorn_workers=2, workers=2,
                      concurrency=2, env=env, supervisord=args.supervisord, keep_logs=args.keep_logs,
                      snapshot=not args.live_tree)
    run_on_stack(cfg, f"matchmaking: {args.requests} quick-play requests over {args.seconds:g} s (pid {os.getpid()})",
                 lambda stack: measure(args, stack))


if __name__ == "__main__":
    main()
