"""Leaderboards with a million rated players, and what rating costs the move that ends a
game (issue 27).

    nice -n 10 .venv/bin/python bench/leaderboard.py                 # 1,000,000 players: ~6 minutes
    .venv/bin/python bench/leaderboard.py --players 100000 --requests 200 --games 20   # quicker
    .venv/bin/python bench/leaderboard.py --reuse      # the database of an earlier --keep-db run

What it does, in one run:

1. creates its own PostgreSQL database (``--db-name``, default ``uno_bench27b``; a
   leftover of that name is dropped first) and migrates it (``manage.py migrate``);
2. loads ``--players`` players, each rated in ``standard``, with ``COPY`` through psycopg:
   the Player rows (usernames ``lb0000001``..., their ``username_key`` and
   ``username_skeleton`` as the product computes them, no usable password), one Rating
   each (``games`` drawn from an exponential law of mean 40, so that about 20% have
   fewer than UNO_RATING_PROVISIONAL_GAMES and are provisional; ``mu`` around 25 with the
   spread of a real board, ``sigma`` shrinking with the games played, ``ordinal`` and
   ``bucket`` as ``standing.services`` computes them), then the RankBucket counts they
   imply (one ``INSERT ... SELECT ... GROUP BY``), then ``VACUUM ANALYZE`` (what
   autovacuum does to a table that grew that much);
3. picks ``--sample`` ranked players spread evenly over the board (the first and the
   last included) and a tenth as many provisional ones, and issues each an API token
   (``players.tokens.token_issue``);
4. starts gunicorn as production does (``-c config/gunicorn.conf.py``: 2 worker
   processes x 4 threads, the uvicorn front door) on ``--port`` (8722), ``DEBUG`` off,
   Redis as the cache (``--redis-url``), throttle rates out of the way;
5. leaderboards: for each number of ``--clients`` (1, then 4), that many threads
   (keep-alive connections) send, in a shuffled order, ``--requests`` requests of each
   kind and time each (the client's wall time: request sent to body read): the top
   page (``GET /leaderboards/standard``, anonymous, 50 entries), ``?around=me`` of the
   sampled ranked players (their tokens; 25 entries above and below), ``?around=me`` of
   the provisional ones, and a deep page (``?after=`` the ``next_cursor`` of an
   ``around=me`` answer: pages anywhere on the board); p50 / p99 / max of each, after
   ``--warmup`` untimed requests.  Before each phase every sampled player's ``around=me``
   is asked once, in turn, and its rank checked against the database's ordering: their
   next requests, within the minute, write no presence (``last_used_at`` and
   ``last_seen_at``, at most once a minute per token and player); the first such pass is
   timed apart (the caller's first request: those two UPDATEs included).  ``rank_of`` counts
   the ratings above one in its rank bucket (up to ~8,000 here) by an index-only scan,
   which reads the table only for pages that changed since the last vacuum: the load's
   ``VACUUM`` leaves none, a busy server's autovacuum some;
6. the finishing move: ``--games`` games of ``standard`` with ``{"rounds": 1}`` and four
   of the loaded players (who have ratings already), rated and unrated alternately,
   are played through ``games.services`` up to the move that ends them (the engine,
   on a copy of the state, says which); that move, and the one before it, are then
   sent as ``POST /games/{id}/actions`` to the server as the seat's player and timed.
   Prints the p50 of each, rated against unrated: what rating the game (openskill, the
   four ratings locked and updated, the RankBuckets, the RatingChanges) adds to the
   move that ends it;
7. stops gunicorn and drops the database (``--keep-db`` keeps it, for ``--reuse``).

The clients run in this process on the same 2-core machine as the server and the
database: what they cost is part of what is measured.  Prints figures only.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from _stack import Client, ServerProcess, percentile  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
GUNICORN = str(VENV_BIN / "gunicorn") if (VENV_BIN / "gunicorn").exists() else "gunicorn"
API = "/api/v1"
POOL = "standard"

T0 = time.time()


def log(msg: str) -> None:
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def ms(x: float) -> str:
    return "n/a" if x != x else f"{x * 1000:.1f} ms"


# --------------------------------------------------------------------------------------
# The database
# --------------------------------------------------------------------------------------
def admin(pg: str):
    import psycopg

    return psycopg.connect(f"{pg.rstrip('/')}/postgres", autocommit=True)


def drop_db(pg: str, name: str) -> None:
    from psycopg import sql

    with admin(pg) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def create_db(pg: str, name: str) -> None:
    from psycopg import sql

    drop_db(pg, name)
    with admin(pg) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def server_env(args, db_url: str) -> dict:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=db_url,
        REDIS_URL=args.redis_url,
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(40),
        LOG_LEVEL="WARNING",
        THROTTLE_USER="1000000/min",
        THROTTLE_ANON="1000000/min",
        THROTTLE_AUTH="1000000/min",
        RUN_DIR=str(Path(tempfile.gettempdir()) / f"uno_bench_leaderboard_{os.getpid()}"),
        PYTHONWARNINGS="ignore",
    )
    return env


def rating_rows(n: int, rng: random.Random):
    """(games, wins, mu, sigma) of ``n`` players: a board's shape (more players with
    few games, the established spread around 25, sigma shrinking as games add up)."""
    for _ in range(n):
        games = 1 + min(int(rng.expovariate(1 / 40)), 5000)
        skill = rng.gauss(25.0, 3.0)
        sigma = max(0.9, 8.333 / math.sqrt(1 + games / 3))
        mu = skill + rng.gauss(0, sigma / 2)
        wins = min(games, max(0, round(games * min(0.9, max(0.02, 0.25 + (skill - 25) / 20)))))
        yield games, wins, mu, sigma


def load(conn, n: int, seed: int) -> None:
    """``n`` players and their ratings in ``standard`` (COPY), the RankBuckets they imply."""
    from django.conf import settings

    from players.models import username_key
    from players.usernames import username_skeleton
    from standing import ratings
    from standing.services import bucket_of

    rng = random.Random(seed)
    provisional_games = settings.UNO_RATING_PROVISIONAL_GAMES
    now = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    with conn.cursor() as cur:
        with cur.copy("COPY players_player (id, password, is_superuser, username, first_name, last_name, email, "
                      "is_staff, is_active, date_joined, is_bot, username_key, username_skeleton) FROM STDIN") as cp:
            for i in range(1, n + 1):
                name = f"lb{i:07d}"
                cp.write_row((i, "!", False, name, "", "", "", False, True, now, False, username_key(name),
                              username_skeleton(name)))
        log(f"  {n:,} players copied in {time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        with cur.copy("COPY standing_rating (id, pool, bot_level, mu, sigma, ordinal, bucket, games, wins, "
                      "established, updated_at, player_id) FROM STDIN") as cp:
            for i, (games, wins, mu, sigma) in enumerate(rating_rows(n, rng), start=1):
                o = ratings.ordinal(mu, sigma)
                cp.write_row((i, POOL, "", mu, sigma, o, bucket_of(o), games, wins, games >= provisional_games, now,
                              i))
        log(f"  {n:,} ratings copied in {time.perf_counter() - t0:.1f} s")
        for table in ("players_player", "standing_rating"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), %s)", (n,))
        cur.execute("INSERT INTO standing_rankbucket (pool, bucket, count) SELECT pool, bucket, count(*) "
                    "FROM standing_rating WHERE established GROUP BY pool, bucket")
    conn.commit()
    t0 = time.perf_counter()
    conn.autocommit = True
    for table in ("players_player", "standing_rating", "standing_rankbucket"):
        conn.execute(f"VACUUM ANALYZE {table}")
    conn.autocommit = False
    log(f"  VACUUM ANALYZE in {time.perf_counter() - t0:.1f} s")


def describe(conn) -> str:
    ranked, provisional, buckets, widest, lo, hi = conn.execute(
        "SELECT count(*) FILTER (WHERE established), count(*) FILTER (WHERE NOT established), "
        "(SELECT count(*) FROM standing_rankbucket WHERE pool = %s), "
        "(SELECT max(count) FROM standing_rankbucket WHERE pool = %s), "
        "min(ordinal) FILTER (WHERE established), max(ordinal) FILTER (WHERE established) "
        "FROM standing_rating WHERE pool = %s", (POOL, POOL, POOL)).fetchone()
    return (f"{ranked:,} ranked and {provisional:,} provisional ratings in {POOL}; ordinals {lo:.1f} to {hi:.1f} "
            f"in {buckets} rank buckets (the fullest holds {widest:,})")


def sample(conn, n_ranked: int, seed: int) -> tuple[list[tuple[int, int]], list[int]]:
    """[(player id, rank)] of ``n_ranked`` ranked players spread evenly over the board
    (the first and the last included), and the ids of a tenth as many provisional ones."""
    total = conn.execute("SELECT count(*) FROM standing_rating WHERE pool = %s AND established",
                         (POOL,)).fetchone()[0]
    wanted = sorted({1, total, *(1 + round(k * (total - 1) / max(1, n_ranked - 1)) for k in range(n_ranked))})
    rows = conn.execute(
        "SELECT player_id, rn FROM (SELECT player_id, row_number() OVER (ORDER BY ordinal DESC, id) AS rn "
        "FROM standing_rating WHERE pool = %s AND established) t WHERE rn = ANY(%s)", (POOL, wanted)).fetchall()
    provisional = [r[0] for r in conn.execute(
        "SELECT player_id FROM standing_rating WHERE pool = %s AND NOT established ORDER BY id LIMIT %s",
        (POOL, max(1, n_ranked // 10) * 7)).fetchall()]
    rng = random.Random(seed)
    return sorted(rows, key=lambda r: r[1]), rng.sample(provisional, max(1, n_ranked // 10))


def tokens_for(player_ids: list[int]) -> dict[int, str]:
    from players.models import Player
    from players.tokens import token_issue

    players = Player.objects.in_bulk(player_ids)
    return {pid: token_issue(player=players[pid], name="bench").key for pid in player_ids}


# --------------------------------------------------------------------------------------
# The server and its clients
# --------------------------------------------------------------------------------------
class Server(ServerProcess):
    def __init__(self, args, env: dict):
        self.port = args.port
        self.log = tempfile.NamedTemporaryFile(prefix="uno_bench_leaderboard_", suffix=".log", delete=False)
        env = dict(env, PORT=str(self.port), WEB_CONCURRENCY=str(args.workers), GUNICORN_THREADS=str(args.threads))
        self.proc = subprocess.Popen([GUNICORN, "-c", "config/gunicorn.conf.py", "config.wsgi:application"],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)


def each_around_me(port: int, ranked: list[tuple[int, int]], tokens: dict[int, str]) -> tuple[list[str], list[float]]:
    """Every sampled player's ``around=me`` once, in turn (one client): checks that the
    server ranks each where the database does, and returns the ``next_cursor`` of each
    (the deep pages' cursors, all over the board) and the latencies.  The caller's first
    request in a minute also records it (``ApiToken.last_used_at``, ``Player.last_seen_at``:
    two small UPDATEs), which the phase right after (within the minute) does not."""
    setup = Client(port)
    cursors, times = [], []
    for pid, rank in ranked:
        status, body, dt = setup.request("GET", f"{API}/leaderboards/{POOL}?around=me", tokens[pid])
        assert status == 200, (status, body)
        assert body["me"]["rank"] == rank, (pid, rank, body["me"])
        times.append(dt)
        if body["next_cursor"]:
            cursors.append(body["next_cursor"])
    return cursors, times


def leaderboards(args, port: int, n_clients: int, ranked: list[tuple[int, int]], provisional: list[int],
                 tokens: dict[int, str], cursors: list[str]) -> dict[str, list[float]]:
    """The timed requests of part 5 with ``n_clients`` clients: latency lists by kind."""
    rng = random.Random(args.seed + n_clients)
    board = f"{API}/leaderboards/{POOL}"
    setup = Client(port)
    kinds = {
        "top page": lambda: ("GET", board, None),
        "around=me (ranked)": lambda: ("GET", f"{board}?around=me", tokens[rng.choice(ranked)[0]]),
        "around=me (provisional)": lambda: ("GET", f"{board}?around=me", tokens[rng.choice(provisional)]),
        "a page deep in the board": lambda: ("GET", f"{board}?after={rng.choice(cursors)}", None),
    }
    plan = [kind for kind in kinds for _ in range(args.requests)]
    rng.shuffle(plan)
    work = [(kind, kinds[kind]()) for kind in plan]
    for _, (method, path, token) in work[: args.warmup]:
        setup.request(method, path, token)
    times: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    lock = threading.Lock()
    queue = iter(work)

    def client() -> None:
        c = Client(port)
        while True:
            with lock:
                item = next(queue, None)
            if item is None:
                return
            kind, (method, path, token) = item
            status, body, dt = c.request(method, path, token)
            with lock:
                if status != 200:
                    errors.append(f"{kind}: {status} {body}")
                times[kind].append(dt)

    threads = [threading.Thread(target=client) for _ in range(n_clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    log(f"{len(work):,} requests from {n_clients} client(s) in {elapsed:.1f} s ({len(work) / elapsed:.0f}/s); "
        f"errors: {len(errors)}{' ' + errors[0] if errors else ''}")
    return times


# --------------------------------------------------------------------------------------
# The move that ends a game
# --------------------------------------------------------------------------------------
def quick(legal: list[dict], rng: random.Random) -> dict:
    """Random, plays (and colour choices) first: games end sooner (tests/games_support.py's)."""
    plays = [a for a in legal if a["type"] in ("play", "choose_color")]
    return rng.choice(plays or legal)


def to_the_last_move(gid: int, rng: random.Random) -> list[tuple[int, dict]]:
    """Play game ``gid`` through the services until two moves are left: the next one and
    the one that ends it (found on copies of the state).  Returns [(seat, action)] of those two."""
    from games import engine, services
    from games.models import Game, Seat

    players = {s.seat: s.player for s in Seat.objects.filter(game_id=gid).select_related("player")}
    for _ in range(20_000):
        state = engine.State.from_dict(Game.objects.get(pk=gid).state)
        seat = state.actor()
        action = quick(engine.legal_actions(state, seat), rng)
        after = copy.deepcopy(state)
        engine.apply(after, seat, action)
        if after.status != engine.FINISHED:
            nxt = after.actor()
            last = quick(engine.legal_actions(after, nxt), rng)
            ending = copy.deepcopy(after)
            engine.apply(ending, nxt, last)
            if ending.status == engine.FINISHED:
                return [(seat, action), (nxt, last)]
        services.act(game_id=gid, player=players[seat], action=action)
    raise RuntimeError(f"game {gid} did not come to its end")


def finishing_moves(args, port: int, players: list[int]) -> dict[str, list[float]]:
    """Part 6: {"rated: last move": [s], "rated: the move before": [s], "unrated: ...": ...}."""
    from games import services
    from games.models import Game
    from players.models import Player
    from standing.models import RatingChange

    rng = random.Random(args.seed)
    tokens = tokens_for(players)
    people = Player.objects.in_bulk(players)
    client = Client(port)
    times: dict[str, list[float]] = defaultdict(list)
    for i in range(args.games):
        rated = i % 2 == 0
        kind = "rated" if rated else "unrated"
        four = [people[p] for p in players[4 * i: 4 * i + 4]]
        game = services.create_game(creator=four[0], ruleset=POOL, options={"rounds": 1}, max_players=4, rated=rated)
        for p in four[1:]:
            services.join_game(player=p, game_id=game.pk)
        services.start_game(player=four[0], game_id=game.pk)
        seat_player = {s.seat: s.player_id for s in game.seats.all()}
        for n, (seat, action) in enumerate(to_the_last_move(game.pk, rng)):
            version = Game.objects.get(pk=game.pk).version
            status, body, dt = client.request("POST", f"{API}/games/{game.pk}/actions",
                                              tokens[seat_player[seat]], {**action, "expected_version": version})
            if status != 200:
                raise RuntimeError(f"game {game.pk}: {action} -> {status} {body}")
            times[f"{kind}: {'the move that ends it' if n else 'the move before'}"].append(dt)
        finished = Game.objects.get(pk=game.pk)
        assert finished.status == "finished", finished.status
        assert RatingChange.objects.filter(game_id=game.pk).count() == (4 if rated else 0)
    return times


def report(times: dict[str, list[float]], order: list[str]) -> None:
    width = max(len(k) for k in order)
    for kind in order:
        values = times.get(kind, [])
        print(f"  {kind:<{width}}  n={len(values):<5} p50 {ms(percentile(values, 50)):>9}   "
              f"p99 {ms(percentile(values, 99)):>9}   max {ms(max(values) if values else float('nan')):>9}")


# --------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--players", type=int, default=1_000_000, help="rated players loaded (default 1,000,000)")
    ap.add_argument("--sample", type=int, default=200, help="ranked players whose around=me is timed (default 200)")
    ap.add_argument("--requests", type=int, default=500, help="timed requests of each kind (default 500)")
    ap.add_argument("--warmup", type=int, default=100, help="untimed requests first (default 100)")
    ap.add_argument("--clients", default="1,4", help="concurrent clients of each phase, one phase after the "
                    "other (default 1,4)")
    ap.add_argument("--games", type=int, default=60, help="4-seat games for the finishing move, half rated "
                    "(default 60)")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    ap.add_argument("--threads", type=int, default=4, help="threads per worker (default 4)")
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432", help="PostgreSQL server (no database)")
    ap.add_argument("--db-name", default="uno_bench27b")
    ap.add_argument("--redis-url", default="redis://127.0.0.1:6379/4", help="cache and broker ('' for none)")
    ap.add_argument("--port", type=int, default=8722)
    ap.add_argument("--keep-db", action="store_true", help="keep the database at the end (for --reuse)")
    ap.add_argument("--reuse", action="store_true", help="use the database as an earlier --keep-db run left it")
    ap.add_argument("--skip-moves", action="store_true", help="skip the finishing move (part 6)")
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    db_url = f"{args.pg.rstrip('/')}/{args.db_name}"
    env = server_env(args, db_url)
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "SECRET_KEY",
                                            "DEBUG", "RUN_DIR", "LOG_LEVEL")})
    sys.path.insert(0, str(ROOT))
    server: Server | None = None
    try:
        import psycopg

        with admin(args.pg) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
        print(f"PostgreSQL {version}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; load average "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        if not args.reuse:
            create_db(args.pg, args.db_name)
            subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
            log(f"database {args.db_name} created and migrated")
        import django

        django.setup()
        with psycopg.connect(db_url) as conn:
            if not args.reuse:
                log(f"loading {args.players:,} rated players")
                load(conn, args.players, args.seed)
            log(describe(conn))
            ranked, provisional = sample(conn, args.sample, args.seed)
        tokens = tokens_for([pid for pid, _ in ranked] + provisional)
        log(f"{len(ranked)} ranked players sampled from rank {ranked[0][1]:,} to {ranked[-1][1]:,}, "
            f"{len(provisional)} provisional; tokens issued")
        server = Server(args, env)
        server.wait_ready()
        log(f"gunicorn up on 127.0.0.1:{server.port} ({args.workers} workers x {args.threads} threads, "
            "config/gunicorn.conf.py)")
        cursors, first = each_around_me(server.port, ranked, tokens)
        print(f"around=me, each sampled player's first request (theirs, and their token's, first use: presence "
              f"written), one client: p50 {ms(percentile(first, 50))}, p99 {ms(percentile(first, 99))}", flush=True)
        for n_clients in [int(n) for n in args.clients.split(",")]:
            each_around_me(server.port, ranked, tokens)  # seen within the minute: the phase writes no presence
            warm = Client(server.port)
            for pid in provisional:
                warm.request("GET", f"{API}/leaderboards/{POOL}?around=me", tokens[pid])
            times = leaderboards(args, server.port, n_clients, ranked, provisional, tokens, cursors)
            print(f"Leaderboard latency, {n_clients} concurrent client(s) (keep-alive; load average "
                  f"{os.getloadavg()[0]:.2f}):")
            report(times, ["top page", "around=me (ranked)", "around=me (provisional)", "a page deep in the board"])
            worst = max(percentile(times["top page"], 99), percentile(times["around=me (ranked)"], 99))
            print(f"  target p99 < 50 ms (top page, around=me): {'PASS' if worst < 0.05 else 'FAIL'}", flush=True)
        if not args.skip_moves:
            print(flush=True)
            from standing.models import Rating

            used = {pid for pid, _ in ranked} | set(provisional)
            pool = [pid for pid in Rating.objects.filter(pool=POOL, established=True, player__isnull=False)
                    .order_by("?").values_list("player_id", flat=True)[: 4 * args.games + len(used)]
                    if pid not in used][: 4 * args.games]
            t0 = time.perf_counter()
            moves = finishing_moves(args, server.port, pool)
            log(f"{args.games} games of 4 players played to their end in {time.perf_counter() - t0:.1f} s")
            print(f"The move that ends a 4-seat game, rated against unrated (POST /games/{{id}}/actions; load average "
                  f"{os.getloadavg()[0]:.2f}):")
            report(moves, ["unrated: the move before", "unrated: the move that ends it", "rated: the move before",
                           "rated: the move that ends it"])
            rated_end = percentile(moves["rated: the move that ends it"], 50)
            unrated_end = percentile(moves["unrated: the move that ends it"], 50)
            print(f"  rating the game adds {ms(rated_end - unrated_end)} to the median finishing move "
                  f"({ms(unrated_end)} -> {ms(rated_end)})")
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        if server is not None:
            server.stop()
        if not args.keep_db:
            from django.db import connections

            connections.close_all()
            drop_db(args.pg, args.db_name)


if __name__ == "__main__":
    main()
