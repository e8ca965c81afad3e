"""Live events at scale: many Server-Sent-Events subscribers on one web process, or
spread over ``--web N`` of them, while games are played (issues 12 and 30).

On a private stack (``_stack.py``: its own PostgreSQL and Redis, the product's
processes as a deployment runs them) with ``--web`` gunicorn masters of one worker
process each (one by default), the live hubs learning of changes by ``--fanout``
(``redis``, the default: Redis pub/sub; ``postgres``: LISTEN), this script

1. registers players and creates ``--games`` games of ``standard`` (to 500 points:
   they last), each a person (this script) against a bot (``--bot``, played by the
   Celery worker), and starts them;
2. measures the web worker's CPU for ``--idle-seconds`` with nobody subscribed and
   nothing played (the baseline);
3. opens ``--subscribers`` event streams (``GET /api/v1/games/{id}/events``) spread
   over the games and over the web processes (subscriber i on process i mod N), from
   one asyncio loop in this process (a connection each, no thread each), signed in as
   the games' players and as spectators (enough of them that none holds more than
   ``LIVE_MAX_STREAMS_PER_PLAYER`` streams, counted across the processes with redis);
4. measures the web worker's CPU (and PostgreSQL's) for ``--idle-seconds`` again with
   every stream open and nothing played: idle subscribers must cost no polling work;
   and the worker's memory with them, against before (memory per subscriber);
5. plays for ``--minutes``: a client thread makes the person's moves over HTTP
   (``legal_actions[0]`` with ``expected_version``) at about ``--rate`` moves a second
   in all, through the LAST web process (so with ``--web 2`` half the subscribers get
   moves committed through another process), the bots answer on the worker; every
   stream must receive every move of its game, in order, once.

Printed: connect time, moves committed, events delivered, delivery latency (p50, p90,
p99, max), gaps and duplicates (must be 0), CPU while idle with and without the
subscribers, memory per subscriber.  Latency is the time a move's event reaches its
subscriber minus the move's ``created_at`` (one clock: same machine).  ``created_at``
is stamped while the move is recorded, just before its commit, so the figure slightly
overstates the time from commit to client.  The subscribers run in this script, on
the same 2 cores as the server: their own CPU is printed too.

    .venv/bin/python bench/stream.py                  # about 5 minutes
    .venv/bin/python bench/stream.py --subscribers 200 --minutes 1
    .venv/bin/python bench/stream.py --web 2 --subscribers 500 --minutes 1   # redis fan-out
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import http.client
import json
import math
import os
import random
import threading
import time
import uuid

from _stack import (
    Stack,
    StackConfig,
    add_stack_arguments,
    children,
    cpu_seconds,
    log,
    percentile,
    rss_mb,
    run_on_stack,
)


# --------------------------------------------------------------------------------------
# HTTP (the players' side)
# --------------------------------------------------------------------------------------
class Api:
    """One keep-alive connection to the web process."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict | None]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        for attempt in range(3):
            try:
                self.conn.request(method, "/api/v1" + path, None if body is None else json.dumps(body), headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                return resp.status, (json.loads(raw) if raw else None)
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def register(api: Api) -> str:
    status, body = api.call("POST", "/auth/register",
                            {"username": f"s{uuid.uuid4().hex[:12]}", "password": "stream-bench-password"})
    assert status == 201, (status, body)
    return body["token"]


# --------------------------------------------------------------------------------------
# The subscribers (one asyncio loop)
# --------------------------------------------------------------------------------------
class Subscriber:
    def __init__(self, game_id: int, token: str, number: int = 0, port: int = 0) -> None:
        self.game_id, self.token, self.number, self.port = game_id, token, number, port
        self.last: int | None = None
        self.events = 0
        self.gaps = 0
        self.duplicates = 0
        self.connected = asyncio.Event()
        self.failed: str | None = None


class Subscribers:
    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.latencies: list[float] = []
        self.recording = False
        self.subs: list[Subscriber] = []
        #: the subscribers' tasks: asyncio keeps only weak references to tasks, and a task
        #: waiting on its stream (which holds it back only weakly) is otherwise collected
        #: ("Task was destroyed but it is pending!": 10,000 streams stopped reading)
        self.tasks: set[asyncio.Task] = set()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    async def _run(self, sub: Subscriber) -> None:
        try:
            # each subscriber from an address of its own among 127.0.0.2-201, as a thousand
            # clients would be (one address holds at most WEB_MAX_CONNECTIONS_PER_IP per worker)
            source = f"127.0.0.{2 + sub.number % 200}"
            reader, writer = await asyncio.open_connection("127.0.0.1", sub.port, limit=1 << 22,
                                                           local_addr=(source, 0))
            writer.write((f"GET /api/v1/games/{sub.game_id}/events HTTP/1.1\r\nHost: bench\r\n"
                          f"Authorization: Token {sub.token}\r\nAccept: text/event-stream\r\n\r\n").encode())
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                sub.failed = status.decode(errors="replace").strip()
                sub.connected.set()
                return
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            sub.connected.set()
            while True:
                line = await reader.readline()
                if not line:
                    return
                if not line.startswith(b"data: "):
                    continue
                now = time.time()
                data = json.loads(line[6:])
                if "created_at" not in data:  # an `event: game` frame, not a move
                    continue
                seq = data["seq"]
                if sub.last is not None:
                    if seq <= sub.last:
                        sub.duplicates += 1
                        continue
                    if seq != sub.last + 1:
                        sub.gaps += 1
                sub.last = seq
                sub.events += 1
                if self.recording:
                    created = dt.datetime.fromisoformat(data["created_at"].replace("Z", "+00:00")).timestamp()
                    self.latencies.append(now - created)
        except (OSError, asyncio.IncompleteReadError) as exc:
            sub.failed = repr(exc)
            sub.connected.set()

    def open(self, targets: list[tuple[int, str]]) -> float:
        """Open a stream per (game, token); the seconds until all are connected."""
        async def go() -> None:
            for game_id, token in targets:
                n = len(self.subs)
                sub = Subscriber(game_id, token, n, self.ports[n % len(self.ports)])
                self.subs.append(sub)
                self.tasks.add(asyncio.ensure_future(self._run(sub)))
            await asyncio.gather(*(s.connected.wait() for s in self.subs))

        started = time.monotonic()
        asyncio.run_coroutine_threadsafe(go(), self.loop).result(timeout=600)
        return time.monotonic() - started


# --------------------------------------------------------------------------------------
# The measurement
# --------------------------------------------------------------------------------------
def web_workers(stack: Stack) -> list[int]:
    """The gunicorn worker process of each web process."""
    out = []
    for i in range(1, len(stack.web_ports) + 1):
        master = stack.pid(f"web{i}")
        assert master, f"no web process web{i}"
        kids = children(master)
        assert len(kids) == 1, f"expected one gunicorn worker in web{i}, found {kids}"
        out.append(kids[0])
    return out


def cpu_over(pids: list[int], seconds: float) -> float:
    before = sum(cpu_seconds(p) for p in pids)
    time.sleep(seconds)
    return sum(cpu_seconds(p) for p in pids) - before


def play(port: int, games: list[tuple[int, str]], stop: threading.Event, rate: float, counts: dict) -> None:
    """The people's moves: ``legal_actions[0]`` wherever they have one, about ``rate``
    moves a second in all."""
    api = Api(port)
    rng = random.Random(1)
    interval = 1.0 / rate if rate > 0 else 0.0
    while not stop.is_set():
        game_id, token = rng.choice(games)
        started = time.monotonic()
        status, game = api.call("GET", f"/games/{game_id}", token=token)
        if status == 200 and game["status"] == "active" and game["legal_actions"]:
            action = {**game["legal_actions"][0], "expected_version": game["version"]}
            status, _ = api.call("POST", f"/games/{game_id}/actions", action, token)
            counts["posted"] += status == 200
            counts["refused"] += status != 200
        wait = interval - (time.monotonic() - started)
        if wait > 0:
            stop.wait(wait)


def measure(args: argparse.Namespace, stack: Stack) -> None:
    port = stack.web_ports[0]
    mover = stack.web_ports[-1]  # the people's moves: through the last web process
    api = Api(port)
    workers = web_workers(stack)
    t = time.monotonic()
    players = [register(api) for _ in range(args.games + args.spectators)]
    people, spectators = players[: args.games], players[args.games:]
    games: list[tuple[int, str]] = []
    for token in people:
        status, game = api.call("POST", "/games", {"ruleset": "standard", "max_players": 2,
                                                   "bots": [{"level": args.bot}]}, token)
        assert status == 201, (status, game)
        assert api.call("POST", f"/games/{game['id']}/start", None, token)[0] == 200
        games.append((game["id"], token))
    log(f"{len(players)} players, {len(games)} games started in {time.monotonic() - t:.1f} s")
    time.sleep(5)  # the bots' first moves, then every game waits for its person

    pg = stack.pg.pids()
    rss_before = sum(rss_mb(w) for w in workers)
    cpu_idle_0 = cpu_over(workers, args.idle_seconds)

    subs = Subscribers(stack.web_ports)
    targets = []
    for i in range(args.subscribers):
        game_id, owner = games[i % len(games)]
        token = owner if i < len(games) else spectators[i % len(spectators)]
        targets.append((game_id, token))
    bench_cpu_0 = time.process_time()
    connect = subs.open(targets)
    failed = [s.failed for s in subs.subs if s.failed]
    log(f"{len(subs.subs) - len(failed)} of {len(subs.subs)} streams open in {connect:.1f} s"
        + (f"; failed: {failed[:3]}" if failed else ""))
    time.sleep(3)
    rss_after = sum(rss_mb(w) for w in workers)
    pg_before = sum(cpu_seconds(p) for p in pg)
    bench_before = time.process_time()
    cpu_idle_n = cpu_over(workers, args.idle_seconds)
    pg_idle_n = sum(cpu_seconds(p) for p in pg) - pg_before
    bench_idle = time.process_time() - bench_before

    stop = threading.Event()
    counts = {"posted": 0, "refused": 0}
    version_before = {g: api.call("GET", f"/games/{g}", token=tok)[1]["version"] for g, tok in games}
    subs.recording = True
    cpu_play_0, pg_play_0 = sum(cpu_seconds(w) for w in workers), sum(cpu_seconds(p) for p in pg)
    players_thread = threading.Thread(target=play, args=(mover, games, stop, args.rate, counts))
    started = time.monotonic()
    players_thread.start()
    time.sleep(args.minutes * 60)
    stop.set()
    players_thread.join()
    played = time.monotonic() - started
    cpu_play = sum(cpu_seconds(w) for w in workers) - cpu_play_0
    pg_play = sum(cpu_seconds(p) for p in pg) - pg_play_0
    time.sleep(5)  # the last bot moves and deliveries
    subs.recording = False
    version_after = {g: api.call("GET", f"/games/{g}", token=tok)[1]["version"] for g, tok in games}
    committed = sum(version_after[g] - version_before[g] for g in version_after)
    per_game = {g: sum(1 for s in subs.subs if s.game_id == g) for g, _ in games}
    expected = sum((version_after[g] - version_before[g]) * per_game[g] for g in version_after)
    lat = sorted(subs.latencies)
    missing = [s for s in subs.subs if not s.failed and s.last != version_after[s.game_id]]
    bench_cpu = time.process_time() - bench_cpu_0
    webs = len(stack.web_ports)

    print()
    print(f"== {len(subs.subs)} subscribers on {webs} web process{'es' if webs > 1 else ''} (gunicorn 1 worker "
          f"each, {stack.cfg.gunicorn_threads} threads), fan-out {args.fanout}, {len(games)} games against "
          f"`{args.bot}` bots; the people's moves through web{webs}")
    print(f"   streams open: {len(subs.subs) - len(failed)} of {len(subs.subs)} in {connect:.1f} s")
    print(f"   play: {played:.0f} s, {committed} moves committed ({committed / played:.1f}/s; "
          f"{counts['posted']} by the people, the rest by the bots on the worker; {counts['refused']} refused)")
    print(f"   events delivered while measuring: {len(lat)} of {expected} expected "
          f"({len(lat) / played:.0f}/s): missing {max(0, expected - len(lat))}, gaps {sum(s.gaps for s in subs.subs)}, "
          f"duplicates {sum(s.duplicates for s in subs.subs)}, streams not at their game's last move {len(missing)}"
          f" (every event once, in order: all 0)")
    if lat:
        print(f"   delivery latency (receipt - the move's created_at): p50 {percentile(lat, 50) * 1000:.1f} ms, "
              f"p90 {percentile(lat, 90) * 1000:.1f} ms, p99 {percentile(lat, 99) * 1000:.1f} ms, "
              f"max {lat[-1] * 1000:.1f} ms  (target: p99 under 250 ms)")
    print(f"   web workers' CPU while playing: {cpu_play / played * 100:.1f}% of a core; PostgreSQL "
          f"{pg_play / played * 100:.1f}%")
    print(f"   memory: web workers' RSS {rss_before:.1f} MiB before, {rss_after:.1f} MiB with the streams open: "
          f"{(rss_after - rss_before) * 1024 / max(1, len(subs.subs)):.1f} KiB per subscriber")
    print(f"   idle ({args.idle_seconds:g} s, nothing played): web worker CPU {cpu_idle_0 * 1000:.0f} ms with no "
          f"subscriber, {cpu_idle_n * 1000:.0f} ms with {len(subs.subs)} "
          f"({cpu_idle_n / args.idle_seconds * 100:.2f}% of a core); PostgreSQL {pg_idle_n * 1000:.0f} ms; "
          f"this script's subscribers {bench_idle * 1000:.0f} ms (heartbeats every "
          f"{args.heartbeat:g} s)")
    print(f"   this script's own CPU from connecting to the end: {bench_cpu:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--subscribers", type=int, default=1000, help="event streams to open (default 1000)")
    ap.add_argument("--games", type=int, default=50, help="games played meanwhile (default 50)")
    ap.add_argument("--spectators", type=int, default=None,
                    help="signed-in spectators among the subscribers (default: at least 50, and enough that none "
                         "holds more than LIVE_MAX_STREAMS_PER_PLAYER streams, 20)")
    ap.add_argument("--web", type=int, default=1, help="web processes the subscribers are spread over (default 1)")
    ap.add_argument("--web-port", type=int, default=0, help="first web process's port, the others following "
                    "(default: free ports)")
    ap.add_argument("--fanout", default="redis", choices=("redis", "postgres"),
                    help="LIVE_FANOUT of the web processes (default redis)")
    ap.add_argument("--bot", default="easy", choices=("random", "easy", "normal", "hard"))
    ap.add_argument("--rate", type=float, default=15.0, help="the people's moves per second, in all (default 15)")
    ap.add_argument("--minutes", type=float, default=3.0, help="minutes of play measured (default 3)")
    ap.add_argument("--idle-seconds", type=float, default=30.0, help="each idle window (default 30)")
    ap.add_argument("--heartbeat", type=float, default=15.0, help="LIVE_HEARTBEAT_SECONDS (default 15)")
    add_stack_arguments(ap)
    args = ap.parse_args()
    if args.spectators is None:  # (a game's person holds one stream; the spectators the rest)
        args.spectators = max(50, math.ceil(max(0, args.subscribers - args.games) / 19))
    env = {"UNO_BOT_THINK_SECONDS": "0.2", "LIVE_HEARTBEAT_SECONDS": str(args.heartbeat), "LIVE_FANOUT": args.fanout}
    cfg = StackConfig(pg_port=args.pg_port, redis_port=args.redis_port, webs=args.web, web_port=args.web_port,
                      gunicorn_workers=1, workers=1,
                      concurrency=2, env=env, supervisord=args.supervisord, keep_logs=args.keep_logs,
                      snapshot=not args.live_tree)
    run_on_stack(cfg, f"stream: {args.subscribers} subscribers over {args.web} web process(es), fan-out "
                 f"{args.fanout}, {args.games} games, {args.minutes:g} min of play "
                 f"(pid {os.getpid()})", lambda stack: measure(args, stack))


if __name__ == "__main__":
    main()
