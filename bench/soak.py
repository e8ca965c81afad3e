"""Soak test of the whole stack: steady load for minutes, optionally with chaos.

    .venv/bin/python bench/soak.py                        # 10 minutes, 200 bot games, 50 clients
    .venv/bin/python bench/soak.py --minutes 1 --games 20 --clients 5
    .venv/bin/python bench/soak.py --chaos                # kill things while it runs
    .venv/bin/python bench/soak.py --hostile              # slow clients, long-polls, a password guesser
    .venv/bin/python bench/soak.py --topology scaled --chaos  # PgBouncer, a replica, 3 web processes

The stack (bench/_stack.py) runs on a PRIVATE PostgreSQL cluster and a PRIVATE
redis-server that this script starts and removes (ports ``--pg-port`` /
``--redis-port``), never on the machine's shared ones: two gunicorn web
processes (each on its own port), two Celery workers (``--concurrency 2``) and
one beat, kept up by a supervisor (supervisord from .venv if installed, else a
restart loop: the output says which), with ``UNO_BOT_THINK_SECONDS`` 0.3,
``UNO_SWEEP_SECONDS`` 2 and the throttles raised, all running a copy of the
working tree taken at the start (``--live-tree``: the tree itself).

Load, for ``--minutes``:

* ``--games`` bot games at all times: a host player creates a game with three
  bots (``random``/``easy``/``normal``; every tenth game one ``hard``) and
  ``{"rounds": 1}``, starts it and leaves it (``POST /games/{id}/leave``: the
  autopilot plays the seat), so four robots play it; a finished game is replaced
  by a new one;
* ``--clients`` scripted human clients (threads), spread over both web ports,
  each playing its own games against 1-3 bots with ``turn_seconds``
  (``--turn-seconds``), one after the other: poll the game (``If-None-Match``),
  post a random action of ``legal_actions`` with ``expected_version`` and an
  ``Idempotency-Key``.  Every tenth client of each kind: 20% are *idle* (they
  let ~30% of their turns time out, so the timer acts and, after
  ``UNO_MAX_TIMEOUTS``, the autopilot), 20% are *retriers* (half their POSTs
  without ``expected_version``, so only the key protects them; a quarter of
  them dropped: the connection is closed before the answer is read, then
  retried with the same key on the other web port; a quarter sent twice and
  the two answers compared), the rest plain players.  Every client retries a
  POST with the same key after a connection error, a 5xx, a 429 or
  ``idempotency_in_progress``, switching web port after a connection error or a 5xx.

The bot games' hosts (``--hosts``, default one per 8 games: 25 for 200) keep within the
product's per-player caps: ``UNO_MAX_BOT_SEATS`` (30) bot seats in a player's unfinished
created games is at most 10 unfinished three-bot games per host, ``UNO_MAX_GAMES`` (50)
and ``UNO_MAX_WAITING_GAMES`` (20) bind later.  A new bot game goes to the host with the
fewest unfinished games (shared by the four game managers), so no host goes past 8 while
the load runs; a game whose start or leave failed stays counted against its host, as it
does on the server.  (Eight hosts for 200 games would be refused ``409 too_many_bots``.)

Every honest request (human clients, bot-game managers) goes from 127.0.0.1, and its
latency is recorded: p50 / p99 / max are printed, overall and per kind of request, so that
runs with and without ``--hostile`` compare.

``--hostile``: for the whole load, beside the honest traffic and never counted in its
figures or its 5xx target:

* ``--slow`` (200) slow connections spread over the web ports, from addresses of their
  own (127.0.0.50-99, ``--slow-ips`` of them: the per-IP cap,
  ``WEB_MAX_CONNECTIONS_PER_IP``, applies to them, not to the honest 127.0.0.1), each
  sending a request line and then one header line every 2-4 s, never the blank line; when
  the server answers (408 after ``WEB_HEADER_TIMEOUT``, 429 past the per-IP cap) or closes,
  a new one is opened.  Counted: connections opened, answered 408 (and after how long), 429,
  other answers, closed without an answer, connection errors;
* 16 long-polls in a loop from one account (from 127.0.0.110), with the parameter's name
  percent-encoded, ``GET /games/{id}?wait_%66or_version=<its version>&timeout=60`` on a
  running bot game, counted by status, woken by a change or answered at the timeout;
* a password guesser: a wrong password for one real account every ~0.2 s from
  127.0.0.100-109, 400 and 429 counted.  The account's owner logged in once before (from
  127.0.0.1, keeping the device cookie); at the end the owner logs in with the right
  password with that cookie (a target: the lock-out must not lock the owner out), and
  once without it (a new device: printed, 429 with Retry-After is the documented answer).

Any 5xx the hostile traffic gets is listed and fails the run.

``--chaos``: at 1/7 ... 6/7 of the run, once each: kill -9 a pool child of worker
w1, kill -9 worker w2's main process, kill -9 beat, kill -9 the gunicorn master
of web1, FLUSHALL the private Redis, ``pg_ctl restart -m fast`` the private
PostgreSQL.

``--topology scaled`` (issue 30; ``single``, the default, is the stack above): three
gunicorn web processes (ports ``--web-port`` and the two after it; the clients spread
over them), two workers and beat, all reaching the database through a PgBouncer in
transaction mode (``--pgbouncer-port``; Debian's, stock settings but
``server_login_retry = 1`` as deploy/pgbouncer/pgbouncer.ini; ``DB_POOLER=transaction``,
``lock_timeout`` set on the database; migrations, the bench's own reads and
``verify_game`` go direct); a streaming replica of the private PostgreSQL
(``pg_basebackup -R``, ``--replica-port``), the web processes' ``DATABASE_REPLICA_URL``
(directly, not through PgBouncer); live events fanned out through Redis (``LIVE_FANOUT``
unset: ``redis``, the default with ``REDIS_URL``; the run prints what web1's settings say).
Beside the load above:

* every third human client is a *follower*: it reads its game with long-polls
  (``GET /games/{id}?wait_for_version=<version>&timeout=20``) on the web process after the
  one it posts to, so a move it did not make wakes it through another process;
* ``--spectators`` (4) accounts that never write (so the replica serves them; no
  ``DATABASE_REPLICA_STICKY_SECONDS``) read ``GET /games?status=active`` (every 3 s),
  follow one game to its end with long-polls on the web processes in turn (every other one
  a human client's game, posted to on any web process; the others from the list, mostly bot
  games moved by the workers), then read its ``/moves`` (checked whole: seqs 1..n) and
  ``/scores``.

With ``--chaos`` the scaled stack also has, the eight events at 1/9 ... 8/9 of the run:
kill -9 PgBouncer, started again 3 s later (503 with Retry-After is allowed from 0.5 s
before to ``--pg-grace`` s after, as for the PostgreSQL restart), and ``pg_ctl stop -m fast``
of the replica, started again half an interval later (at least 3 s, at most 30 s; the
reads meanwhile must come from the primary: no 5xx allowed).  The report adds: the long-polls
by kind, how each was answered (woken by a move committed during the wait, with the delay
from that move's ``created_at`` to the answer; unchanged at the timeout; a newer version
only at the timeout, more than 1 s after the move: a *missed* wake-up, listed); the
replica's transactions and scans per table (its ``pg_stat_database`` and
``pg_stat_user_tables`` before and after the load, summed around its restart if that reset
them) beside the spectators' lag-tolerant reads and how those answered while the replica
was down; PgBouncer's ``SHOW POOLS`` (sampled every second: most clients waiting, longest
wait; and at the end of the load) and ``SHOW STATS`` at the end (since its last start).

Printed: requests (by status), 5xx (503 with Retry-After during a PostgreSQL
restart counted apart), connection errors, stalled games (sampled from the
database every 0.5 s: an active game whose ``deadline`` is more than 5 s in the
past), timer lateness (a timer move's ``created_at`` minus the deadline it
enforced, as sampled at the version before it), moves/s, the RSS of every process
at the start and the end of the load, ``manage.py verify_game`` on every finished
game, a check that every action a client got a 200 for is in the move log exactly
once, the honest requests' latency (long-polls apart) and, with ``--hostile``, the hostile
figures.  A stalled game is listed with its kind, its owner, the moves before and after the
stall, and the owners' bot slots (``games.botqueue`` leases left) and held-back steps when
stalls were first seen.  Then one PASS/FAIL line per target.  Exit status 0 (figures only).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import math
import random
import re
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass

from _stack import (
    PYTHON,
    T0,
    add_stack_arguments,
    DbSampler,
    Stack,
    StackConfig,
    children,
    cpu_snapshot,
    cpu_used,
    db_now,
    fmt_s,
    json_request,
    kill9,
    load_average,
    log,
    percentile,
    print_cpu,
    print_memory,
    print_task_log,
    run_on_stack,
    task_log,
    timer_lateness,
    verify_games,
)

API = "/api/v1"
BOT_LEVELS = ("random", "easy", "normal")
RETRY_FOR = 60.0  # seconds a client keeps retrying one POST with the same key
GAMES_PER_HOST = 8  # bot games per host: 24 bot seats, within UNO_MAX_BOT_SEATS (30)
# Client addresses (all of 127.0.0.0/8 is the loopback): the honest clients' and the
# hostile traffic's apart, so the per-IP connection cap sees them apart.
HONEST_IP = "127.0.0.1"
SLOW_IPS = [f"127.0.0.{i}" for i in range(50, 100)]
GUESS_IPS = [f"127.0.0.{i}" for i in range(100, 110)]
POLL_IP = "127.0.0.110"
LONG_POLL_SECONDS = 20  # --topology scaled: the followers' and spectators' long-polls' timeout


# --------------------------------------------------------------------------------------
# HTTP: one keep-alive connection per web port per client; every request counted
# --------------------------------------------------------------------------------------
class ConnError(Exception):
    pass


@dataclass
class Resp:
    status: int
    data: object
    headers: dict[str, str]

    @property
    def code(self) -> str | None:
        return self.data.get("code") if isinstance(self.data, dict) else None


class Stats:
    """Every request's outcome, shared by all client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[int] = Counter()
        self.codes: Counter[str] = Counter()
        self.conn_errors = 0
        self.dropped = 0  # connections closed on purpose before the answer
        self.server_errors: list[tuple[float, int, str, str, str | None, str | None]] = []
        self.latencies: list[tuple[float, str, float]] = []  # (sent at, "METHOD label", seconds) of each answer
        self.frozen = False  # the stack is going down: nothing more is counted

    def record(self, method: str, path: str, resp: Resp | None, sent: float = 0.0, seconds: float = 0.0) -> None:
        with self.lock:
            if self.frozen:
                return
            if resp is None:
                self.conn_errors += 1
                return
            self.latencies.append((sent, f"{method} {path}", seconds))
            self.statuses[resp.status] += 1
            if resp.status >= 400 and resp.code:
                self.codes[f"{resp.status} {resp.code}"] += 1
            if resp.status >= 500:
                self.server_errors.append((time.time(), resp.status, method, path,
                                           resp.headers.get("retry-after"), resp.code))

    @property
    def requests(self) -> int:
        return sum(self.statuses.values()) + self.conn_errors


class Http:
    """Connections from ``source`` (the honest clients' 127.0.0.1 unless told)."""

    def __init__(self, ports: list[int], stats: Stats, first: int = 0, source: str = HONEST_IP,
                 timeout: float = 60.0):
        self.ports = ports
        self.stats = stats
        self.current = first % len(ports)
        self.source = source
        self.timeout = timeout
        self.conns: dict[int, http.client.HTTPConnection] = {}

    def switch(self) -> None:
        self.current = (self.current + 1) % len(self.ports)

    def _conn(self) -> http.client.HTTPConnection:
        port = self.ports[self.current]
        if port not in self.conns:
            self.conns[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=self.timeout,
                                                          source_address=(self.source, 0))
        return self.conns[port]

    def _close(self) -> None:
        conn = self.conns.pop(self.ports[self.current], None)
        if conn is not None:
            conn.close()

    def request(self, method: str, path: str, token: str | None = None, body=None, headers: dict | None = None,
                label: str | None = None) -> Resp:
        """One request on the current port; ConnError (after counting it) when the
        connection fails.  A keep-alive connection the server closed while idle is
        reopened once before that counts as an error."""
        hdrs, payload = json_request(token, body, headers)
        sent, t = time.time(), time.perf_counter()
        for attempt in range(2):
            fresh = self.ports[self.current] not in self.conns
            try:
                conn = self._conn()
                conn.request(method, API + path, body=payload, headers=hdrs)
                r = conn.getresponse()
                raw = r.read()
                break
            except (OSError, http.client.HTTPException):
                self._close()
                if attempt or fresh:
                    self.stats.record(method, label or path, None)
                    raise ConnError from None
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = raw[:200]
        resp = Resp(r.status, data, {k.lower(): v for k, v in r.getheaders()})
        if r.getheader("Connection", "").lower() == "close":
            self._close()
        self.stats.record(method, label or path, resp, sent, time.perf_counter() - t)
        return resp

    def drop(self, method: str, path: str, token: str, body, headers: dict) -> None:
        """Send a request and close the connection without reading the answer."""
        hdrs, payload = json_request(token, body, headers)
        conn = http.client.HTTPConnection("127.0.0.1", self.ports[self.current], timeout=10,
                                          source_address=(self.source, 0))
        try:
            conn.request(method, API + path, body=payload, headers=hdrs)
        except OSError:
            pass
        finally:
            conn.close()
        with self.stats.lock:
            self.stats.dropped += 1

    def close(self) -> None:
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()


def retry_delay(resp: Resp) -> float:
    try:
        return min(5.0, max(0.1, float(resp.headers.get("retry-after", "0.5"))))
    except ValueError:
        return 0.5


def must(http_: Http, method: str, path: str, token: str | None, body=None, tries: int = 30,
         label: str | None = None) -> Resp:
    """A setup request retried after connection errors, 5xx and 429 until another
    answer; RuntimeError after ``tries`` attempts."""
    last: object = None
    for _ in range(tries):
        try:
            r = http_.request(method, path, token, body, label=label)
        except ConnError:
            last = "connection error"
            http_.switch()
            time.sleep(0.5)
            continue
        if r.status >= 500 or r.status == 429:
            last = (r.status, r.data)
            time.sleep(retry_delay(r))
            continue
        return r
    raise RuntimeError(f"{method} {path}: no answer after {tries} tries, last {last}")


# --------------------------------------------------------------------------------------
# The load
# --------------------------------------------------------------------------------------
@dataclass
class Wait:
    """One long-poll of a follower or a spectator (--topology scaled) answered 200."""

    who: str  # "follower" (on another web process than the one it posts to) / "spectator"
    game_id: int
    version: int  # asked: wait_for_version
    sent: float  # time.time()
    took: float
    answered: int  # the version answered


@dataclass
class Ack:
    """A 200 a client got for an action: the move it says was recorded."""

    player_id: int
    key: str
    game_id: int
    seq: int
    action: dict


class Run:
    """Shared state of one soak run."""

    def __init__(self, args, stack: Stack):
        self.args = args
        self.stack = stack
        self.stats = Stats()
        self.stop = threading.Event()  # no new games or moves
        self.hard_stop = threading.Event()  # give up retries too
        self.lock = threading.Lock()
        self.acks: list[Ack] = []
        self.unresolved: list[tuple[int, str, int]] = []  # (player, key, game) never answered for good
        self.replays = Counter()  # "same" / "different" answers to a repeated key
        self.counts = Counter()
        self.human_games: set[int] = set()
        self.bot_games: set[int] = set()
        self.client_players: dict[int, str] = {}  # player id -> profile
        self.chaos_log: list[tuple[float, str]] = []
        self.hostile: Hostile | None = None
        self.waits: list[Wait] = []  # --topology scaled: the long-polls
        self.bouncer_outages: list[tuple[float, float]] = []  # (killed, listening again)
        self.replica_stats: dict[str, dict] = {}  # the replica's counters at moments of the run
        self.later: list[threading.Thread] = []  # chaos events' second halves still to come
        self.spectated = Counter()
        self.lagging: list[tuple[float, str, int | None]] = []  # spectators' lag-tolerant reads (sent, label, status)
        self.replica_outages: list[tuple[float, float]] = []  # (stopped, started again)
        self.slot_snapshots: list[tuple[float, str]] = []  # the owners' bot slots when stalls were seen
        self.pools: dict = {"max cl_waiting": 0, "max maxwait": 0.0, "samples": 0, "failed": 0}

    def add(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counts[what] += n


def register(http_: Http, name: str) -> tuple[str, int]:
    r = must(http_, "POST", "/auth/register", None, {"username": name, "password": f"pw-{secrets.token_hex(8)}"},
             label="/auth/register")
    if r.status != 201:
        raise RuntimeError(f"register {name}: {r.status} {r.data}")
    return r.data["token"], r.data["player"]["id"]


class HumanClient(threading.Thread):
    """Plays its own games against bots, one after the other, until the run stops."""

    def __init__(self, run: Run, index: int, token: str, player_id: int, profile: str):
        super().__init__(name=f"client{index}", daemon=True)
        self.run_ = run
        self.token = token
        self.player_id = player_id
        self.profile = profile
        self.rng = random.Random(run.args.seed * 1000 + index)
        self.http = Http(run.stack.web_ports, run.stats, first=index)
        # --topology scaled: every third client follows its game with long-polls on the web
        # process after the one it posts to (the live fan-out across processes)
        self.follow = run.args.topology == "scaled" and index % 3 == 2
        self.waiter = Http(run.stack.web_ports, run.stats, first=index + 1) if self.follow else None

    def run(self) -> None:
        try:
            while not self.run_.stop.is_set():
                gid = self.new_game()
                if gid is None:
                    time.sleep(1)
                    continue
                self.play(gid)
        except Exception as exc:  # a client bug must be visible, not a silent thread death
            log(f"{self.name} failed: {exc!r}")
            self.run_.add("client crashes")
        finally:
            self.http.close()
            if self.waiter is not None:
                self.waiter.close()

    def new_game(self) -> int | None:
        args = self.run_.args
        bots = [{"level": self.rng.choice(BOT_LEVELS)} for _ in range(self.rng.randint(1, 3))]
        body = {"ruleset": "standard", "max_players": 1 + len(bots), "bots": bots, "turn_seconds": args.turn_seconds,
                "options": {"rounds": 1}}
        try:
            r = must(self.http, "POST", "/games", self.token, body, label="/games")
            if r.status != 201:
                raise RuntimeError(f"POST /games: {r.status} {r.data}")
            gid = r.data["id"]
            must(self.http, "POST", f"/games/{gid}/start", self.token, label="/games/{id}/start")
        except RuntimeError as exc:
            log(f"{self.name}: could not start a game: {exc}")
            return None
        with self.run_.lock:
            self.run_.human_games.add(gid)
        self.run_.add("human games started")
        return gid

    def play(self, gid: int) -> None:
        args, run = self.run_.args, self.run_
        etag = None
        view: dict | None = None
        while not run.stop.is_set():
            try:
                if self.waiter is not None and view is not None:
                    # a long-poll on the next web process: woken by a commit elsewhere
                    self.waiter.current = (self.http.current + 1) % len(self.http.ports)
                    r = long_poll(run, self.waiter, self.token, gid, view["version"], "follower")
                else:
                    r = self.http.request("GET", f"/games/{gid}", self.token,
                                          headers={"If-None-Match": etag} if etag else None, label="/games/{id}")
            except ConnError:
                (self.waiter if self.waiter is not None and view is not None else self.http).switch()
                time.sleep(0.3)
                continue
            if r.status == 304 and view is not None:
                time.sleep(args.poll)
                continue
            if r.status != 200:
                time.sleep(args.poll)
                continue
            view, etag = r.data, r.headers.get("etag")
            if view["status"] == "finished":
                run.add("human games finished")
                return
            legal = view["legal_actions"]
            mine = view["current_seat"] == view["seat"]
            if not legal or (not mine and self.rng.random() < 0.7):
                if self.waiter is None:
                    time.sleep(args.poll)
                continue
            if self.profile == "idle" and mine and self.rng.random() < 0.3:
                run.add("turns left to the timer")
                time.sleep(args.turn_seconds + 1.0)
                continue
            game = self.act(gid, view["version"], self.rng.choice(legal))
            if self.waiter is not None and game is not None:
                view = game  # the next long-poll waits for the move after its own
            time.sleep(self.rng.uniform(0.05, 0.3))

    def act(self, gid: int, version: int, action: dict) -> dict | None:
        """Post ``action``; the game as its 200 shows it (None: no 200)."""
        run = self.run_
        key = f"p{self.player_id}-g{gid}-v{version}-{secrets.token_hex(4)}"
        body = dict(action)
        mode = "plain"
        if self.profile == "retrier":
            if self.rng.random() < 0.5:
                body["expected_version"] = version
            r = self.rng.random()
            mode = "drop" if r < 0.25 else "twice" if r < 0.5 else "plain"
        else:
            body["expected_version"] = version
        first = self.post(gid, key, body, drop_first=mode == "drop")
        if first is None:
            with run.lock:
                run.unresolved.append((self.player_id, key, gid))
            return None
        if first.status == 200:
            with run.lock:
                run.acks.append(Ack(self.player_id, key, gid, first.data["game"]["version"], dict(action)))
        if mode == "twice":
            again = self.post(gid, key, body)
            same = again is not None and again.status == first.status and (
                first.status != 200 or again.data["game"]["version"] == first.data["game"]["version"])
            with run.lock:
                run.replays["same" if same else "different"] += 1
        return first.data["game"] if first.status == 200 else None

    def post(self, gid: int, key: str, body: dict, drop_first: bool = False) -> Resp | None:
        """POST the action until a definitive answer (None: none within RETRY_FOR s)."""
        path = f"/games/{gid}/actions"
        headers = {"Idempotency-Key": key}
        give_up = time.time() + RETRY_FOR
        while time.time() < give_up and not self.run_.hard_stop.is_set():
            if drop_first:
                drop_first = False
                self.http.drop("POST", path, self.token, body, headers)
                self.http.switch()
                time.sleep(0.05)
                continue
            try:
                r = self.http.request("POST", path, self.token, body, headers, label="/games/{id}/actions")
            except ConnError:
                self.http.switch()
                time.sleep(0.2)
                continue
            if r.status >= 500 or r.status == 429 or r.code == "idempotency_in_progress":
                if r.status >= 500:
                    self.http.switch()  # as a load balancer would: try the other web process
                time.sleep(retry_delay(r))
                continue
            return r
        return None


def long_poll(run: Run, http_: Http, token: str, gid: int, version: int, who: str) -> Resp:
    """``GET /games/{gid}?wait_for_version=<version>``, recorded (``run.waits``) when answered 200."""
    sent, t = time.time(), time.perf_counter()
    r = http_.request("GET", f"/games/{gid}?wait_for_version={version}&timeout={LONG_POLL_SECONDS}", token,
                      label="/games/{id}?wait_for_version")
    if r.status == 200:
        with run.lock:
            run.waits.append(Wait(who, gid, version, sent, time.perf_counter() - t, r.data["version"]))
    return r


class Spectator(threading.Thread):
    """--topology scaled: an account that never writes (so the read replica serves it,
    DATABASE_REPLICA_STICKY_SECONDS never applies) reads the list of active games, follows
    one to its end with long-polls on the web processes in turn (every other one a human
    client's game, posted to on any web process; the others from the list, mostly bot
    games, moved by the workers), then reads its history (``/moves``) and ``/scores``:
    reads the replica serves once it has the game's end."""

    LIST_EVERY = 3.0  # seconds: the list is read again this often while following a game

    def __init__(self, run: Run, index: int, token: str):
        super().__init__(name=f"spectator{index}", daemon=True)
        self.run_, self.index, self.token = run, index, token
        self.rng = random.Random(run.args.seed * 5000 + index)
        self.http = Http(run.stack.web_ports, run.stats, first=index)
        self.next_list = 0.0

    def run(self) -> None:
        k = 0
        try:
            while not self.run_.stop.is_set():
                k += 1
                gid = self.pick(k)
                if gid is None:
                    self.run_.stop.wait(1.0)
                    continue
                if self.follow(gid):
                    self.history(gid)
        except Exception as exc:
            log(f"{self.name} failed: {exc!r}")
            self.run_.add("client crashes")
        finally:
            self.http.close()

    def get(self, path: str, label: str) -> Resp | None:
        sent = time.time()
        try:
            r = self.http.request("GET", path, self.token, label=label)
        except ConnError:
            r = None
            self.http.switch()
            time.sleep(0.5)
        if "status=active" in path or "(finished)" in label:
            with self.run_.lock:
                self.run_.lagging.append((sent, label, r.status if r is not None else None))
        return r

    def list_games(self) -> list[int]:
        """The active games (a read the replica serves)."""
        self.next_list = time.monotonic() + self.LIST_EVERY
        r = self.get("/games?status=active&page_size=50", "/games?status=active")
        return [g["id"] for g in r.data["results"]] if r is not None and r.status == 200 else []

    def pick(self, k: int) -> int | None:
        listed = self.list_games()
        if k % 2 == 0:
            with self.run_.lock:
                humans = sorted(self.run_.human_games)[-max(1, self.run_.args.clients):]
            if humans:
                return self.rng.choice(humans)
        return self.rng.choice(listed) if listed else None

    def follow(self, gid: int) -> bool:
        """Long-polls until the game is finished (True) or the run stops."""
        r = self.get(f"/games/{gid}", "/games/{id}")
        if r is None or r.status != 200:
            return False
        view = r.data
        while view["status"] != "finished":
            if self.run_.stop.is_set():
                return False
            if time.monotonic() >= self.next_list:
                self.list_games()
            self.http.switch()  # the next long-poll on the next web process
            try:
                r = long_poll(self.run_, self.http, self.token, gid, view["version"], "spectator")
            except ConnError:
                time.sleep(0.5)
                continue
            if r.status != 200:
                time.sleep(1.0)
                continue
            view = r.data
        self.run_.spectated["games followed to their end"] += 1
        return True

    def history(self, gid: int) -> None:
        seqs: list[int] = []
        after = 0
        while True:
            r = self.get(f"/games/{gid}/moves?after={after}&limit=500", "/games/{id}/moves (finished)")
            if r is None or r.status != 200:
                self.run_.spectated["histories not read"] += 1
                return
            seqs += [m["seq"] for m in r.data["results"]]
            if r.data["next_cursor"] is None:
                break
            after = r.data["next_cursor"]
        ok = seqs == list(range(1, len(seqs) + 1)) and bool(seqs)
        self.run_.spectated["histories read whole" if ok else "histories with gaps"] += 1
        self.get(f"/games/{gid}/scores", "/games/{id}/scores (finished)")


class HostPool:
    """The bot games' hosts: a new game goes to the host with the fewest unfinished
    ones, so each stays within the per-player caps (UNO_MAX_BOT_SEATS)."""

    def __init__(self, tokens: list[str]):
        self.lock = threading.Lock()
        self.unfinished = dict.fromkeys(tokens, 0)

    def take(self) -> str:
        with self.lock:
            token = min(self.unfinished, key=self.unfinished.__getitem__)
            self.unfinished[token] += 1
            return token

    def release(self, token: str) -> None:
        with self.lock:
            self.unfinished[token] -= 1

    def most(self) -> int:
        with self.lock:
            return max(self.unfinished.values(), default=0)


class BotGames(threading.Thread):
    """Keeps ``target`` bot games running: create (3 bots), start, leave."""

    def __init__(self, run: Run, index: int, hosts: HostPool, target: int):
        super().__init__(name=f"botgames{index}", daemon=True)
        self.run_ = run
        self.hosts = hosts
        self.target = target
        self.index = index
        self.made = 0
        self.live: dict[int, str] = {}  # game -> its host's token
        self.http = Http(run.stack.web_ports, run.stats, first=index)

    def run(self) -> None:
        import psycopg

        conn = None
        try:
            while not self.run_.stop.is_set():
                if self.live:
                    try:
                        if conn is None or conn.closed:
                            conn = psycopg.connect(self.run_.stack.pg.url(), autocommit=True, connect_timeout=3)
                        rows = conn.execute("SELECT id FROM games_game WHERE id = ANY(%s) AND status = 'finished'",
                                            (list(self.live),)).fetchall()
                        for (gid,) in rows:
                            self.hosts.release(self.live.pop(gid))
                            self.run_.add("bot games finished")
                    except Exception:
                        conn = None
                        time.sleep(1)
                        continue
                while len(self.live) < self.target and not self.run_.stop.is_set():
                    self.launch()
                self.run_.stop.wait(1.0)
        except Exception as exc:
            log(f"{self.name} failed: {exc!r}")
            self.run_.add("client crashes")
        finally:
            self.http.close()
            if conn is not None:
                conn.close()

    def launch(self) -> None:
        n = self.made * 4 + self.index
        self.made += 1
        token = self.hosts.take()
        levels = [BOT_LEVELS[(n + k) % 3] for k in range(3)]
        if n % 10 == 0:
            levels[0] = "hard"
        body = {"ruleset": "standard", "max_players": 4, "bots": [{"level": lv} for lv in levels],
                "options": {"rounds": 1}}
        created = False
        try:
            r = must(self.http, "POST", "/games", token, body, label="/games")
            if r.status != 201:
                raise RuntimeError(f"POST /games: {r.status} {r.data}")
            gid = r.data["id"]
            created = True  # unfinished on the server from now on, counted against its host
            must(self.http, "POST", f"/games/{gid}/start", token, label="/games/{id}/start")
            must(self.http, "POST", f"/games/{gid}/leave", token, label="/games/{id}/leave")
        except RuntimeError as exc:
            if not created:
                self.hosts.release(token)
            log(f"{self.name}: could not launch a bot game: {exc}")
            self.run_.add("bot game launches failed")
            time.sleep(1)
            return
        self.live[gid] = token
        with self.run_.lock:
            self.run_.bot_games.add(gid)
        self.run_.add("bot games started")


# --------------------------------------------------------------------------------------
# Chaos
# --------------------------------------------------------------------------------------
def chaos_events(run: Run, gap: float) -> list[tuple[str, callable]]:
    """Today's six events; with --topology scaled also killing PgBouncer and stopping the
    replica (``gap``: seconds between two events)."""
    stack = run.stack
    def pool_child() -> str:
        main = stack.pid("w1")
        kids = children(main) if main else []
        if not kids:
            return "worker w1 has no pool child to kill"
        kill9(kids[0])
        return f"kill -9 pool child {kids[0]} of worker w1 (main {main})"

    def whole(name: str, what: str):
        def event() -> str:
            pid = stack.pid(name)
            if not pid:
                return f"{what}: not running"
            kill9(pid)
            return f"kill -9 {what} (pid {pid})"
        return event

    def flush() -> str:
        stack.redis.flushall()
        return "FLUSHALL on the private Redis"

    def pg_restart() -> str:
        took = stack.pg.restart()
        return f"pg_ctl restart -m fast of the private PostgreSQL ({took:.1f} s)"

    bouncer_down = 3.0  # seconds
    replica_down = min(30.0, max(3.0, gap / 2))

    def bouncer_kill() -> str:
        began = time.time()
        pid = stack.bouncer.kill9()
        time.sleep(bouncer_down)
        stack.bouncer.start()
        back = time.time()
        run.bouncer_outages.append((began, back))
        return f"kill -9 PgBouncer (pid {pid}); listening again {back - began:.1f} s later (pid {stack.bouncer.proc.pid})"

    def replica_stop() -> str:
        run.replica_stats["before the stop"] = replica_counts(stack)
        took = stack.replica.stop_fast()

        def again() -> None:
            time.sleep(replica_down)
            at = time.time()
            try:
                stack.replica.start_again()
                run.replica_outages[-1] = (began, time.time())
                what = f"replica started again ({time.time() - at:.1f} s; down {time.time() - began:.0f} s)"
                run.replica_stats["after the start"] = replica_counts(stack)
            except Exception as exc:
                what = f"replica start failed: {exc!r}"
            run.chaos_log.append((at, what))
            log(f"CHAOS: {what}")

        began = time.time()
        run.replica_outages.append((began, math.inf))
        th = threading.Thread(target=again, name="replica-again", daemon=True)
        th.start()
        run.later.append(th)
        return f"pg_ctl stop -m fast of the replica ({took:.1f} s); started again in {replica_down:.0f} s"

    events = [
        ("pool child", pool_child),
        ("worker", whole("w2", "worker w2's main process")),
        ("beat", whole("beat", "beat")),
        ("web master", whole("web1", "web1's gunicorn master")),
        ("flushall", flush),
        ("pg restart", pg_restart),
    ]
    if stack.bouncer is not None:
        events.insert(2, ("pgbouncer", bouncer_kill))
    if stack.replica is not None:
        events.insert(5, ("replica", replica_stop))
    return events


def chaos_thread(run: Run, t_start: float, duration: float) -> threading.Thread:
    n = 6 + (run.stack.bouncer is not None) + (run.stack.replica is not None)
    events = chaos_events(run, duration / (n + 1))

    def body() -> None:
        for k, (_, event) in enumerate(events, 1):
            if run.stop.wait(max(0.0, t_start + duration * k / (len(events) + 1) - time.time())):
                return
            at = time.time()
            try:
                what = event()
            except Exception as exc:
                what = f"chaos event failed: {exc!r}"
            run.chaos_log.append((at, what))
            log(f"CHAOS: {what}")

    th = threading.Thread(target=body, name="chaos", daemon=True)
    th.start()
    return th


# --------------------------------------------------------------------------------------
# --hostile: slow connections, encoded long-polls, a password guesser
# --------------------------------------------------------------------------------------
class Hostile:
    """The hostile traffic's figures, apart from the honest ones (``Run.stats``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slow: Counter[str] = Counter()  # opened, answered <status>, closed without an answer, ...
        self.slow_held: list[float] = []  # seconds from connect to the server's 408
        self.slow_5xx: list[tuple[float, int]] = []
        self.lookups = Stats()  # the long-pollers' plain GETs for a game's version
        self.polls = Stats()  # the long-polls
        self.poll_outcomes: Counter[str] = Counter()
        self.poll_woken: list[float] = []  # seconds until a change woke it
        self.guesses = Stats()
        self.retry_after: list[int] = []  # of the guesses' 429s
        self.owner: dict[str, Resp | str] = {}  # the owner's log-ins at the end
        self.guess_ips: set[str] = set()

    def all_stats(self) -> list[Stats]:
        return [self.lookups, self.polls, self.guesses]

    def freeze(self) -> None:
        for st in self.all_stats():
            with st.lock:
                st.frozen = True

    def server_errors(self) -> list[tuple[float, int, str, str, str | None, str | None]]:
        out = [e for st in self.all_stats() for e in st.server_errors]
        out += [(at, status, "GET", "/health (slow connection)", None, None) for at, status in self.slow_5xx]
        return sorted(out)


class SlowConnections(threading.Thread):
    """``n`` connections at all times that trickle their headers (an event loop of their own)."""

    def __init__(self, run: Run, hostile: Hostile, n: int, ips: list[str]):
        super().__init__(name="slow-connections", daemon=True)
        self.run_, self.hostile, self.n, self.ips = run, hostile, n, ips
        self.ports = run.stack.web_ports

    def run(self) -> None:
        asyncio.run(self.main())

    async def main(self) -> None:
        tasks = [asyncio.create_task(self.one(k)) for k in range(self.n)]
        while not self.run_.stop.is_set():
            await asyncio.sleep(0.5)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def count(self, what: str) -> None:
        with self.hostile.lock:
            self.hostile.slow[what] += 1

    async def one(self, k: int) -> None:
        rng = random.Random(k)
        ip, port = self.ips[k % len(self.ips)], self.ports[k % len(self.ports)]
        await asyncio.sleep(k * 3.0 / self.n)  # spread over the first 3 s, not all at once
        while not self.run_.stop.is_set():
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(ip, 0)), 10)
            except (OSError, asyncio.TimeoutError):
                self.count("connection errors")
                await asyncio.sleep(1)
                continue
            self.count("opened")
            opened = time.monotonic()
            status = None
            try:
                writer.write(b"GET /api/v1/health HTTP/1.1\r\nHost: soak\r\n")
                lines = 0
                while True:
                    try:
                        data = await asyncio.wait_for(reader.read(4096), rng.uniform(2.0, 4.0))
                    except asyncio.TimeoutError:
                        writer.write(f"X-Trickle-{lines}: {secrets.token_hex(8)}\r\n".encode())
                        lines += 1
                        continue
                    if data.startswith(b"HTTP/"):
                        status = int(data.split(b" ", 2)[1])
                    break
            except (OSError, ValueError, IndexError):
                pass
            finally:
                writer.close()
            held = time.monotonic() - opened
            if self.run_.stop.is_set():
                break
            if status is None:
                self.count("closed without an answer")
                continue
            self.count(f"answered {status}")
            if status == 408:
                with self.hostile.lock:
                    self.hostile.slow_held.append(held)
            elif status >= 500:
                with self.hostile.lock:
                    self.hostile.slow_5xx.append((time.time(), status))
            if status == 429:
                await asyncio.sleep(0.5)


class LongPoller(threading.Thread):
    """Long-polls running bot games in a loop, ``wait_for_version`` spelt percent-encoded."""

    def __init__(self, run: Run, hostile: Hostile, index: int, token: str):
        super().__init__(name=f"longpoll{index}", daemon=True)
        self.run_, self.hostile, self.token = run, hostile, token
        self.rng = random.Random(run.args.seed * 7000 + index)
        ports = run.stack.web_ports
        self.lookup = Http(ports, hostile.lookups, first=index, source=POLL_IP)
        self.http = Http(ports, hostile.polls, first=index, source=POLL_IP, timeout=90)

    def game(self) -> tuple[int, int] | None:
        """A running bot game and its version."""
        with self.run_.lock:
            recent = sorted(self.run_.bot_games)[-max(1, self.run_.args.games):]
        if not recent:
            return None
        gid = self.rng.choice(recent)
        try:
            r = self.lookup.request("GET", f"/games/{gid}", self.token, label="/games/{id}")
        except ConnError:
            self.lookup.switch()
            return None
        if r.status != 200 or r.data["status"] != "active":
            return None
        return gid, r.data["version"]

    def run(self) -> None:
        try:
            while not self.run_.stop.is_set():
                found = self.game()
                if found is None:
                    time.sleep(0.5)
                    continue
                gid, version = found
                while not self.run_.stop.is_set():
                    t = time.perf_counter()
                    try:
                        r = self.http.request("GET", f"/games/{gid}?wait_%66or_version={version}&timeout=60",
                                              self.token, label="/games/{id}?wait_%66or_version")
                    except ConnError:
                        self.http.switch()
                        time.sleep(0.5)
                        break
                    took = time.perf_counter() - t
                    if r.status != 200:
                        time.sleep(0.5)
                        break
                    with self.hostile.lock:
                        if self.hostile.polls.frozen:
                            break
                        if r.data["version"] > version:
                            self.hostile.poll_outcomes["woken by a change"] += 1
                            self.hostile.poll_woken.append(took)
                        else:
                            self.hostile.poll_outcomes["answered at the timeout"] += 1
                    if r.data["status"] != "active":
                        break
                    version = r.data["version"]
        except Exception as exc:
            log(f"{self.name} failed: {exc!r}")
        finally:
            self.http.close()
            self.lookup.close()


class Guesser(threading.Thread):
    """Wrong passwords for one account, one every ~0.2 s, from several addresses."""

    def __init__(self, run: Run, hostile: Hostile, username: str):
        super().__init__(name="guesser", daemon=True)
        self.run_, self.hostile, self.username = run, hostile, username
        self.conns = [Http(run.stack.web_ports, hostile.guesses, first=i, source=ip)
                      for i, ip in enumerate(GUESS_IPS)]

    def run(self) -> None:
        k = 0
        try:
            while not self.run_.stop.wait(random.uniform(0.1, 0.3)):
                http_ = self.conns[k % len(self.conns)]
                k += 1
                try:
                    r = http_.request("POST", "/auth/token", None,
                                      {"username": self.username, "password": f"guess-{secrets.token_hex(6)}"},
                                      label="/auth/token")
                except ConnError:
                    http_.switch()
                    continue
                with self.hostile.lock:
                    self.hostile.guess_ips.add(http_.source)
                    if r.status == 429:
                        try:
                            self.hostile.retry_after.append(int(r.headers.get("retry-after", "-1")))
                        except ValueError:
                            pass
        except Exception as exc:
            log(f"{self.name} failed: {exc!r}")
        finally:
            for http_ in self.conns:
                http_.close()


def device_cookie(resp: Resp) -> str | None:
    """``name=value`` of the uno_device_ cookie a log-in set."""
    m = re.search(r"(uno_device_[^=;,\s]+=[^;,\s]+)", resp.headers.get("set-cookie", ""))
    return m.group(1) if m else None


def owner_login(ports: list[int], username: str, password: str, cookie: str | None) -> Resp | str:
    """One log-in of the owner from 127.0.0.1 (retried only after a connection error)."""
    http_ = Http(ports, Stats())
    try:
        for _ in range(5):
            try:
                return http_.request("POST", "/auth/token", None, {"username": username, "password": password},
                                     headers={"Cookie": cookie} if cookie else None)
            except ConnError:
                http_.switch()
                time.sleep(0.5)
        return "no answer (connection errors)"
    finally:
        http_.close()


def lockout_bound(tiers: str, seconds: float) -> int:
    """The most password checks UNO_LOGIN_LOCKOUT's fixed windows allow in ``seconds``
    (an interval meets at most ceil(seconds / window) + 1 windows of a tier)."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    bounds = [int(n) * (math.ceil(seconds / (int(w or 1) * units[u])) + 1)
              for n, w, u in re.findall(r"(\d+)\s*/\s*(\d*)\s*([smhd])", tiers)]
    return min(bounds, default=10**9)


# --------------------------------------------------------------------------------------
# Checks at the end
# --------------------------------------------------------------------------------------
def check_acks(run: Run) -> dict:
    """Every acknowledged action is the move at the seq its 200 named, by that player,
    with that action, and appears once; player moves nobody acknowledged are counted."""
    import psycopg

    players = list(run.client_players)
    with psycopg.connect(run.stack.pg.url()) as conn:
        rows = conn.execute(
            "SELECT game_id, seq, player_id, action FROM games_move WHERE by = 'player' AND player_id = ANY(%s)",
            (players,),
        ).fetchall()
    log_moves = {(g, s): (p, a) for g, s, p, a in rows if a.get("type") != "start"}
    out = Counter()
    seen: Counter[tuple[int, int]] = Counter()
    for ack in run.acks:
        seen[(ack.game_id, ack.seq)] += 1
        move = log_moves.get((ack.game_id, ack.seq))
        if move is None:
            out["missing"] += 1
        elif move != (ack.player_id, ack.action):
            out["different move at that seq"] += 1
        else:
            out["found"] += 1
    out["acknowledged twice (two keys, one move)"] = sum(1 for n in seen.values() if n > 1)
    out["player moves nobody acknowledged"] = sum(1 for k in log_moves if k not in seen)
    return out


def near_chaos(run: Run, at: float) -> str:
    if not run.chaos_log:
        return ""
    t, what = min(run.chaos_log, key=lambda e: abs(e[0] - at))
    return f" ({at - t:+.0f} s from '{what[:40]}')"


def sample_pools(run: Run, label: str | None = None) -> None:
    """PgBouncer's SHOW POOLS for the database uno: the worst client wait so far
    (``label``: keep the whole answer under that name)."""
    try:
        pools = [p for p in run.stack.bouncer.show("POOLS") if p["database"] == "uno"]
    except Exception:
        run.pools["failed"] += 1
        return
    run.pools["samples"] += 1
    for p in pools:
        run.pools["max cl_waiting"] = max(run.pools["max cl_waiting"], int(p["cl_waiting"]))
        run.pools["max maxwait"] = max(run.pools["max maxwait"], int(p["maxwait"]) + int(p.get("maxwait_us", 0)) / 1e6)
    if label:
        run.pools[label] = pools


def in_db_outage(run: Run, at: float, grace: float) -> bool:
    """Whether ``at`` falls in a PostgreSQL restart or a PgBouncer outage (from 0.5 s
    before to ``grace`` s after)."""
    return any(began - 0.5 <= at <= ready + grace for began, ready in run.stack.pg.restarts + run.bouncer_outages)


def replica_counts(stack: Stack) -> dict | None:
    """The replica's own counters for the database: transactions, and index and
    sequential scans per table (what was read there); None when it does not answer."""
    import psycopg

    try:
        with psycopg.connect(stack.replica.url(), autocommit=True, connect_timeout=3) as conn:
            xacts = conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                 "WHERE datname = 'uno'").fetchone()[0]
            tables = {name: (seq or 0) + (idx or 0) for name, seq, idx in conn.execute(
                "SELECT relname, seq_scan, idx_scan FROM pg_stat_user_tables")}
    except Exception:
        return None
    return {"xacts": xacts, "tables": tables}


# --------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the load, default 10")
    ap.add_argument("--games", type=int, default=200, help="bot games kept running, default 200")
    ap.add_argument("--clients", type=int, default=50, help="scripted human clients, default 50")
    ap.add_argument("--chaos", action="store_true", help="kill things during the run (see above)")
    ap.add_argument("--turn-seconds", type=int, default=4, help="turn_seconds of the clients' games, default 4")
    ap.add_argument("--poll", type=float, default=1.0, help="seconds between a client's polls, default 1")
    ap.add_argument("--think", type=float, default=0.3, help="UNO_BOT_THINK_SECONDS, default 0.3")
    ap.add_argument("--sweep", type=float, default=None, help="UNO_SWEEP_SECONDS (default: the product's)")
    ap.add_argument("--hosts", type=int, default=None,
                    help=f"players that create the bot games, default one per {GAMES_PER_HOST} games (the caps)")
    ap.add_argument("--hostile", action="store_true",
                    help="slow connections, encoded long-polls and a password guesser during the load (see above)")
    ap.add_argument("--slow", type=int, default=200, help="--hostile's slow connections, default 200")
    ap.add_argument("--slow-ips", type=int, default=len(SLOW_IPS),
                    help=f"addresses they come from (127.0.0.50 on), default {len(SLOW_IPS)}")
    ap.add_argument("--web-port", type=int, default=0, help="first web port (default: free ports)")
    ap.add_argument("--pg-grace", type=float, default=5.0,
                    help="seconds after a PostgreSQL restart (or PgBouncer's, scaled) during which a 503 with "
                    "Retry-After is allowed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--topology", choices=("single", "scaled"), default="single",
                    help="single (default): 2 web processes, the database direct; scaled: 3 web processes, "
                    "PgBouncer (transaction mode), a streaming replica, followers and spectators (see above)")
    ap.add_argument("--pgbouncer-port", type=int, default=56432, help="scaled: PgBouncer's port, default 56432")
    ap.add_argument("--replica-port", type=int, default=55433, help="scaled: the replica's port, default 55433")
    ap.add_argument("--spectators", type=int, default=None,
                    help="scaled: accounts that only read (lists, long-polls, histories), default 4")
    add_stack_arguments(ap)
    args = ap.parse_args()
    scaled = args.topology == "scaled"
    if args.spectators is None:
        args.spectators = 4 if scaled else 0
    if args.spectators and not scaled:
        ap.error("--spectators: with --topology scaled")
    if args.hosts is None:
        args.hosts = max(1, math.ceil(args.games / GAMES_PER_HOST))
    if not 1 <= args.slow_ips <= len(SLOW_IPS):
        ap.error(f"--slow-ips: 1 to {len(SLOW_IPS)}")
    cfg = StackConfig(pg_port=args.pg_port, redis_port=args.redis_port, web_port=args.web_port,
                      supervisord=args.supervisord, keep_logs=args.keep_logs,
                      snapshot=not args.live_tree, webs=3 if scaled else 2,
                      pgbouncer_port=args.pgbouncer_port if scaled else 0,
                      # as deploy/pgbouncer/pgbouncer.ini: the stock 15 s refused every client for
                      # 15 s after a failed login during a PostgreSQL restart
                      pgbouncer_settings={"server_login_retry": 1},
                      replica_port=args.replica_port if scaled else 0,
                      worker_loglevel="INFO",  # task lines: sweeps run and sweeps discarded
                      env={"UNO_BOT_THINK_SECONDS": str(args.think), "LOG_LEVEL": "INFO",
                           **({"UNO_SWEEP_SECONDS": str(args.sweep)} if args.sweep is not None else {})})
    topology = ("topology scaled: 3 web processes, 2 workers, beat, PgBouncer in transaction mode "
                f"(DB_POOLER=transaction) on {args.pgbouncer_port}, a streaming replica on {args.replica_port} "
                "(DATABASE_REPLICA_URL of the web processes), live fan-out through Redis (LIVE_FANOUT unset: "
                f"redis, the default with REDIS_URL), {args.spectators} spectators, every third client a follower"
                if scaled else "topology single: 2 web processes, 2 workers, beat, PostgreSQL direct")
    run_on_stack(cfg, f"soak: {args.minutes:g} min, {args.games} bot games, {args.clients} clients, turn_seconds "
                 f"{args.turn_seconds}, {args.hosts} hosts, chaos {'on' if args.chaos else 'off'}, hostile "
                 f"{'on' if args.hostile else 'off'}; {topology}", lambda stack: soak(args, stack))


def product_settings(stack: Stack) -> str:
    """What web1's settings say (live fan-out, pooler, replica): the banner's claim checked."""
    import subprocess

    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(f'LIVE_FANOUT={s.LIVE_FANOUT}, DB_POOLER={s.DB_POOLER or None}, "
            "replica={\"replica\" in s.DATABASES}, DATABASE_URL port {s.DATABASES[\"default\"][\"PORT\"]}')")
    p = stack.supervisor.programs["web1"]
    res = subprocess.run([PYTHON, "-c", code], cwd=p.cwd, env=p.env, capture_output=True, text=True, timeout=120)
    return res.stdout.strip() or res.stderr.strip()[-300:]


def soak(args, stack: Stack) -> None:
    run = Run(args, stack)
    setup = Http(stack.web_ports, run.stats)
    rid = secrets.token_hex(2)
    t = time.time()
    profiles = ["idle", "idle", "retrier", "retrier", "player", "player", "player", "player", "player", "player"]
    accounts: list[tuple[str, str, int]] = []
    failures: list[Exception] = []
    lock = threading.Lock()

    def reg(name: str) -> None:
        try:
            acc = register(Http(stack.web_ports, run.stats, first=len(name)), name)
        except Exception as exc:
            failures.append(exc)
            return
        with lock:
            accounts.append((name, *acc))

    names = ([f"s{rid}h{i}" for i in range(args.hosts)] + [f"s{rid}c{i}" for i in range(args.clients)]
             + [f"s{rid}v{i}" for i in range(args.spectators)])
    threads = [threading.Thread(target=reg, args=(n,)) for n in names]
    for k in range(0, len(threads), 8):  # registration hashes passwords: 8 at a time
        for th in threads[k : k + 8]:
            th.start()
        for th in threads[k : k + 8]:
            th.join()
    if failures:
        raise RuntimeError(f"{len(failures)} registrations failed, first: {failures[0]}")
    by_name = {n: (tok, pid) for n, tok, pid in accounts}
    hosts = HostPool([by_name[n][0] for n in names[: args.hosts]])
    clients: list[threading.Thread] = []
    for i, n in enumerate(names[args.hosts : args.hosts + args.clients]):
        token, pid = by_name[n]
        profile = profiles[i % len(profiles)]
        run.client_players[pid] = profile
        clients.append(HumanClient(run, i, token, pid, profile))
    clients += [Spectator(run, i, by_name[n][0]) for i, n in enumerate(names[args.hosts + args.clients :])]
    if args.topology == "scaled":
        log(f"product settings of web1: {product_settings(stack)}")
    owner = None
    if args.hostile:
        # the guessed account: its owner logged in once before the attack (device cookie)
        owner = (f"s{rid}owner", f"pw-{secrets.token_hex(8)}")
        r = must(setup, "POST", "/auth/register", None, {"username": owner[0], "password": owner[1]},
                 label="/auth/register")
        if r.status != 201:
            raise RuntimeError(f"register {owner[0]}: {r.status} {r.data}")
        first = owner_login(stack.web_ports, *owner, None)
        cookie = device_cookie(first) if isinstance(first, Resp) else None
        if not isinstance(first, Resp) or first.status != 200:
            raise RuntimeError(f"the owner's first log-in: {getattr(first, 'status', first)}")
        owner = (*owner, cookie)
        poll_token, _ = register(setup, f"s{rid}poll")
    setup.close()
    log(f"registered {len(names) + (2 if args.hostile else 0)} players through the API in {time.time() - t:.1f} s")

    sampler = DbSampler(stack.pg.url(), interval=0.5, stall_after=5.0)
    mem_start = stack.memory()
    cpu_start = cpu_snapshot(stack, "bench (clients)")
    db_t0 = db_now(stack.pg.url())
    if stack.replica is not None:
        run.replica_stats["start"] = replica_counts(stack)
    t_start = time.time()
    duration = args.minutes * 60
    sampler.start()
    managers = [BotGames(run, k, hosts, args.games // 4 + (1 if k < args.games % 4 else 0)) for k in range(4)]
    for th in managers + clients:
        th.start()
    if args.chaos:
        chaos_thread(run, t_start, duration)
    hostile_threads: list[threading.Thread] = []
    if args.hostile:
        run.hostile = Hostile()
        hostile_threads = [SlowConnections(run, run.hostile, args.slow, SLOW_IPS[: args.slow_ips]),
                           Guesser(run, run.hostile, owner[0]),
                           *(LongPoller(run, run.hostile, k, poll_token) for k in range(16))]
        for th in hostile_threads:
            th.start()
        log(f"hostile: {args.slow} slow connections from {args.slow_ips} addresses, 16 long-pollers, "
            f"a password guesser (owner's device cookie: {'yes' if owner[2] else 'NONE SET'})")
    log(f"load running for {args.minutes:g} min")
    next_report = t_start + 60
    queue_lengths: list[int] = []  # the broker's backlog: tells overload from lost tasks
    redis_client = stack.redis.client()
    stalls_seen = 0
    while time.time() < t_start + duration:
        time.sleep(1)
        try:
            queue_lengths.append(redis_client.llen("celery"))
        except Exception:
            pass
        if stack.bouncer is not None:
            sample_pools(run)
        if len(sampler.stalls) > stalls_seen and len(run.slot_snapshots) < 5:
            stalls_seen = len(sampler.stalls)
            run.slot_snapshots.append((time.time(), bot_slots(stack, redis_client)))
        if time.time() >= next_report:
            next_report += 60
            c = run.counts
            log(f"progress: {run.stats.requests} requests, {len(run.stats.server_errors)} 5xx, "
                f"{run.stats.conn_errors} connection errors, bot games {c['bot games finished']}/"
                f"{c['bot games started']} finished, human games {c['human games finished']}/"
                f"{c['human games started']}, {len(run.acks)} acks, stalled games so far {len(sampler.stalls)}, "
                f"broker queue {queue_lengths[-1] if queue_lengths else '?'}; "
                f"load average {load_average()}")
            if run.hostile:
                h = run.hostile
                log(f"hostile: slow {dict(h.slow)}; long-polls {dict(h.polls.statuses)} "
                    f"{dict(h.poll_outcomes)}; guesses {dict(h.guesses.statuses)}")
    mem_end = stack.memory()
    cpu = cpu_used(cpu_start, cpu_snapshot(stack, "bench (clients)"))
    db_t1 = db_now(stack.pg.url())
    if stack.bouncer is not None:
        sample_pools(run, "end of the load")
    run.stop.set()
    log("load stopped; waiting for the clients' last retries")
    deadline = time.time() + RETRY_FOR + 10
    for th in managers + clients:
        th.join(max(0.1, deadline - time.time()))
    run.hard_stop.set()
    if run.hostile:
        for th in hostile_threads:
            if not isinstance(th, LongPoller):  # those may be in a 60 s wait: their answers are not waited for
                th.join(15)
        # the owner, after the guessing: from the device that logged in before, then a new one
        run.hostile.owner["with the device cookie"] = owner_login(stack.web_ports, *owner)
        run.hostile.owner["from a new device (no cookie)"] = owner_login(stack.web_ports, *owner[:2], None)
        run.hostile.freeze()
    sampler.stop()
    for th in run.later:  # a replica stopped by the chaos starts again before the checks
        th.join(60)
    restarts = list(stack.supervisor.exits)
    stack.stop_programs()
    log("product processes stopped; checking the database")
    if stack.replica is not None:
        run.replica_stats["end"] = replica_counts(stack)  # (the web processes' sessions ended: stats flushed)
    if stack.bouncer is not None:
        try:
            run.pools["stats"] = stack.bouncer.show("STATS")
        except Exception as exc:
            run.pools["stats"] = [{"error": repr(exc)}]
    report(args, run, stack, sampler, restarts, (mem_start, mem_end), cpu, db_t0, db_t1, duration, queue_lengths,
           t_start, hosts.most())


def bot_slots(stack: Stack, redis_client) -> str:
    """The owners' bot slots (games.botqueue: leases in the cache, seconds left of each)
    and their held-back steps, for a stall's diagnosis."""
    import psycopg

    try:
        slots = sorted((k.decode().split("botslot:", 1)[1], redis_client.ttl(k))
                       for k in redis_client.scan_iter(match="*botslot:*"))
        with psycopg.connect(stack.pg.url(), connect_timeout=3) as conn:
            held = dict(conn.execute("SELECT owner_id, count(*) FROM games_deferredbotstep GROUP BY owner_id"))
    except Exception as exc:
        return f"not read: {exc!r}"
    return (f"slots held (owner:slot, s left of a lease of games.botqueue.LEASE_SECONDS) {', '.join(f'{k} {t}s' for k, t in slots) or 'none'}; "
            f"held-back steps per owner {held or 'none'}")


def stall_moves(run: Run, url: str, gid: int, first: float) -> str:
    """A stalled game's kind, and the moves before and after its stall (who ended it)."""
    import datetime as dt

    import psycopg

    kind = "human client's game" if gid in run.human_games else "bot game"
    at = dt.datetime.fromtimestamp(first, dt.timezone.utc)
    with psycopg.connect(url) as conn:
        owner = conn.execute("SELECT creator_id FROM games_game WHERE id = %s", (gid,)).fetchone()[0]
        before = conn.execute("SELECT seq, by, created_at FROM games_move WHERE game_id = %s AND created_at <= %s "
                              "ORDER BY seq DESC LIMIT 1", (gid, at)).fetchone()
        after = conn.execute("SELECT seq, by, created_at FROM games_move WHERE game_id = %s AND created_at > %s "
                             "ORDER BY seq LIMIT 1", (gid, at)).fetchone()
    def move(m) -> str:
        return f"seq {m[0]} by {m[1]} at {m[2].timestamp() - T0:.1f}s" if m else "none"
    return f"{kind} of owner {owner}; last move before: {move(before)}; next: {move(after)}"


def latency_line(values: list[float]) -> str:
    return (f"p50 {fmt_s(percentile(values, 50))}, p99 {fmt_s(percentile(values, 99))}, max "
            f"{fmt_s(max(values, default=float('nan')))} ({len(values)})")


def report_hostile(args, run: Run, duration: float) -> list[tuple[str, bool, str]]:
    """The hostile figures; their verdicts."""
    h = run.hostile
    slow_ips = SLOW_IPS[: args.slow_ips]
    print("hostile (--hostile; none of it in the figures above):")
    print(f"  slow connections:  {args.slow} at all times over {len(run.stack.web_ports)} web ports from "
          f"{len(slow_ips)} addresses ({slow_ips[0]}-{slow_ips[-1].rsplit('.', 1)[1]}), a header line every 2-4 s: "
          f"{h.slow['opened']} opened, {h.slow['answered 408']} closed by the server with 408 (after "
          f"p50 {fmt_s(percentile(h.slow_held, 50))}, max {fmt_s(max(h.slow_held, default=float('nan')))}), "
          f"{h.slow['answered 429']} refused with 429, other answers "
          f"{ {k: v for k, v in h.slow.items() if k.startswith('answered') and k[-3:] not in ('408', '429')} }, "
          f"closed without an answer {h.slow['closed without an answer']}, connection errors "
          f"{h.slow['connection errors']}")
    woken = h.poll_woken
    print(f"  long-polls:        16 x GET /games/{{id}}?wait_%66or_version=<version>&timeout=60, one account from "
          f"{POLL_IP}: {sum(h.polls.statuses.values())} answers {dict(sorted(h.polls.statuses.items()))}, "
          f"{dict(h.poll_outcomes)}, connection errors {h.polls.conn_errors}; woken after "
          f"{latency_line(woken)}; plus {h.lookups.requests} plain GETs for a game's version "
          f"{dict(sorted(h.lookups.statuses.items()))}, connection errors {h.lookups.conn_errors}")
    g = h.guesses
    print(f"  password guesses:  {g.requests} wrong passwords for one account from {len(h.guess_ips)} addresses "
          f"({GUESS_IPS[0]}-{GUESS_IPS[-1].rsplit('.', 1)[1]}), one every ~0.2 s: "
          f"{dict(sorted(g.statuses.items()))}, codes {dict(g.codes)}, connection errors {g.conn_errors}; "
          f"Retry-After of the 429s: min {min(h.retry_after, default='-')}, max {max(h.retry_after, default='-')} s")
    owner_ok = False
    for how, r in h.owner.items():
        if isinstance(r, Resp):
            extra = f" Retry-After {r.headers.get('retry-after')} s" if r.status == 429 else ""
            print(f"  the owner after:   {how}: {r.status} {r.code or ''}{extra}")
            if how == "with the device cookie":
                owner_ok = r.status == 200
        else:
            print(f"  the owner after:   {how}: {r}")
    bad = h.server_errors()
    print(f"  5xx to hostile traffic: {len(bad)}")
    for at, status, method, path, ra, code in bad[:15]:
        print(f"    {at - T0:7.1f}s {status} {method} {path} code={code} Retry-After={ra}")
    tiers = run.stack.env.get("UNO_LOGIN_LOCKOUT", "5/1m,10/15m,20/1h,50/1d")
    bound = lockout_bound(tiers, duration + 10)
    checked = g.statuses[400]
    return [
        ("0 5xx to the hostile traffic", not bad, f"{len(bad)} 5xx"),
        ("the guesser's passwords checked within the account's lock-out", bool(g.statuses[429]) and checked <= bound,
         f"{checked} checked (400), {g.statuses[429]} refused (429); {tiers} allow at most {bound} in this run"),
        ("the owner logs in after the guessing (device cookie)", owner_ok,
         f"{getattr(h.owner.get('with the device cookie'), 'status', h.owner.get('with the device cookie'))}"),
    ]


def fanout_delivery(run: Run, url: str) -> dict[str, dict]:
    """The followers' and spectators' long-polls, by kind: how each was answered and, when
    woken by a move committed during the wait, how long after that move's ``created_at``
    the answer came (the move's transaction, the publication on Redis, the hub of another
    process, the answer).  A long-poll answered at its timeout with a version newer than it
    asked, more than 1 s after the move that made it, missed its wake-up."""
    import psycopg

    waits = list(run.waits)
    created: dict[tuple[int, int], float] = {}
    if waits:
        with psycopg.connect(url) as conn:
            rows = conn.execute(
                "SELECT m.game_id, m.seq, m.created_at FROM games_move m "
                "JOIN unnest(%s::bigint[], %s::int[]) AS w(g, s) ON m.game_id = w.g AND m.seq = w.s",
                ([w.game_id for w in waits], [w.version + 1 for w in waits])).fetchall()
        created = {(g, q): at.timestamp() for g, q, at in rows}
    out: dict[str, dict] = {}
    for w in waits:
        d = out.setdefault(w.who, {"outcomes": Counter(), "delivery": [], "missed": []})
        if w.answered <= w.version:
            d["outcomes"]["unchanged at the timeout"] += 1
            continue
        at = created.get((w.game_id, w.version + 1))
        answered_at = w.sent + w.took
        if at is None:
            d["outcomes"]["newer, no move at version + 1"] += 1
        elif at <= w.sent:
            d["outcomes"]["newer already when asked"] += 1
        elif w.took >= LONG_POLL_SECONDS - 0.5 and answered_at - at > 1.0:
            d["outcomes"]["MISSED: answered at the timeout, the move earlier"] += 1
            d["missed"].append((w, answered_at - at))
        else:
            d["outcomes"]["woken by a move during the wait"] += 1
            d["delivery"].append(answered_at - at)
    return out


def counter_delta(stats: dict, key) -> tuple[float, str]:
    """A replica counter over the run (``key(snapshot)``), across a stop and a start of the
    replica by the chaos: (delta, how it was counted)."""
    start, end = stats.get("start"), stats.get("end")
    if not start or not end:
        return float("nan"), "the replica did not answer"
    pre, post = stats.get("before the stop"), stats.get("after the start")
    if pre and post and key(post) < key(pre):  # its statistics did not survive the restart
        return key(pre) - key(start) + key(end) - key(post), "statistics reset by the restart: summed around it"
    return key(end) - key(start), "one count"


def report_scaled(run: Run, stack: Stack) -> None:
    """--topology scaled: the live fan-out across processes, the replica's reads, PgBouncer's pools."""
    print("live fan-out (long-polls of followers, on the web process after the one they post to, and "
          f"of spectators, on the web processes in turn; timeout {LONG_POLL_SECONDS} s):")
    for who, d in sorted(fanout_delivery(run, stack.pg.url()).items()):
        print(f"    {who + 's':<11} {sum(d['outcomes'].values())} answered 200: {dict(d['outcomes'])}; "
              f"delivery after the move's created_at: {latency_line(d['delivery'])}")
        for w, late in d["missed"][:5]:
            print(f"        missed: game {w.game_id} v{w.version} at {w.sent - T0:.0f}s, the move {late:.1f} s "
                  f"before the answer{near_chaos(run, w.sent + w.took)}")
    print(f"    spectators:  {dict(run.spectated)}")
    if stack.replica is not None:
        xacts, how = counter_delta(run.replica_stats, lambda c: c["xacts"])
        tables = set()
        for snap in run.replica_stats.values():
            if snap:
                tables |= set(snap["tables"])
        scans = {}
        for name in sorted(tables):
            n, _ = counter_delta(run.replica_stats, lambda c, name=name: c["tables"].get(name, 0))
            if n == n and n > 0:
                scans[name] = int(n)
        kinds = Counter(label for _, label, _ in run.lagging)
        statuses = Counter(status for _, _, status in run.lagging)
        print(f"read replica:        {xacts:.0f} transactions on the replica's database during the load ({how}; "
              f"a few are the bench's own); scans per table there: {scans or 'none'}")
        print(f"    the spectators' lag-tolerant reads: {dict(kinds)}, answered {dict(statuses)} (None: no answer); "
              "lists, and a finished game's moves and scores: from the replica when it is up and has the "
              "game's end, else the primary")
        for began, back in run.replica_outages:
            during = Counter(status for sent, _, status in run.lagging if began <= sent <= back)
            print(f"    while the replica was down ({began - T0:.0f}s-{back - T0:.0f}s): {sum(during.values())} of "
                  f"them, answered {dict(during)} (from the primary)")
    if stack.bouncer is not None:
        pools = run.pools
        print(f"PgBouncer:           SHOW POOLS sampled every second ({pools['samples']} samples, {pools['failed']} "
              f"failed: its outage): clients waiting for a server connection at most {pools['max cl_waiting']}, "
              f"longest wait {pools['max maxwait']:.3f} s")
        for p in pools.get("end of the load", []):
            print("    at the end of the load: " + ", ".join(
                f"{k} {p[k]}" for k in ("user", "cl_active", "cl_waiting", "sv_active", "sv_idle", "sv_used",
                                        "sv_login", "maxwait", "pool_mode") if k in p))
        for st in pools.get("stats", []):
            if st.get("database") in ("uno", None):
                print("    SHOW STATS (since its last start; times in µs): " + ", ".join(
                    f"{k} {st[k]}" for k in ("total_xact_count", "total_query_count", "total_wait_time",
                                             "avg_xact_count", "avg_query_count", "avg_xact_time", "avg_query_time",
                                             "avg_wait_time", "error") if k in st))


def report(args, run: Run, stack: Stack, sampler: DbSampler, restarts, memory, cpu, db_t0, db_t1,
           duration: float, queue_lengths: list[int], t_start: float, most_per_host: int) -> None:
    import psycopg

    url = stack.pg.url()
    with psycopg.connect(url) as conn:
        by = dict(conn.execute("SELECT by, count(*) FROM games_move WHERE created_at >= %s AND created_at < %s "
                               "GROUP BY by", (db_t0, db_t1)).fetchall())
        finished = [g for (g,) in conn.execute("SELECT id FROM games_game WHERE status = 'finished' ORDER BY id")]
        active = [g for (g,) in conn.execute("SELECT id FROM games_game WHERE status = 'active' ORDER BY id")]
    late, sampled, estimated = timer_lateness(url, sampler.deadlines, db_t0, db_t1)
    acks = check_acks(run)
    t = time.time()
    ok_fin, bad_fin = verify_games(stack, finished)
    ok_act, bad_act = verify_games(stack, active)
    verify_s = time.time() - t

    s = run.stats
    allowed = [e for e in s.server_errors if e[1] == 503 and e[4] and in_db_outage(run, e[0], args.pg_grace)]
    bad5 = [e for e in s.server_errors if e not in allowed]
    moves = sum(by.values())
    print()
    print("=" * 100)
    print(f"SOAK RESULTS ({args.minutes:g} min, topology {args.topology}, {args.games} bot games, {args.clients} "
          f"clients{f', {args.spectators} spectators' if args.spectators else ''}, chaos "
          f"{'on' if args.chaos else 'off'}, hostile {'on' if args.hostile else 'off'}; supervision: "
          f"{stack.supervisor.kind}; load average now "
          f"{load_average()})")
    print("=" * 100)
    print(f"requests:            {s.requests} ({', '.join(f'{k}: {v}' for k, v in sorted(s.statuses.items()))}; "
          f"connection errors {s.conn_errors}; plus {s.dropped} connections dropped on purpose)")
    print(f"error codes:         {dict(s.codes.most_common())}")
    print(f"5xx:                 {len(bad5)} counted, {len(allowed)} allowed (503 with Retry-After within "
          f"{args.pg_grace:g} s of a PostgreSQL restart{' or a PgBouncer outage' if stack.bouncer else ''})")
    for at, status, method, path, ra, code in bad5[:15]:
        print(f"    {at - T0:7.1f}s {status} {method} {path} code={code} Retry-After={ra}"
              f"{near_chaos(run, at)}")
    if len(bad5) > 15:
        print(f"    ... {len(bad5) - 15} more")
    print(f"games:               bot {run.counts['bot games finished']} finished of {run.counts['bot games started']}"
          f" started; human {run.counts['human games finished']} finished of {run.counts['human games started']}; "
          f"turns left to the timer {run.counts['turns left to the timer']}; client crashes "
          f"{run.counts['client crashes']}; {args.hosts} hosts, at most {most_per_host} unfinished bot games "
          f"each at the end, {run.counts['bot game launches failed']} launches failed")
    lat = [(label, secs) for sent, label, secs in s.latencies if sent >= t_start]
    print(f"honest latency:      every honest request from the start of the load (from {HONEST_IP}), "
          f"long-polls apart: {latency_line([x for label, x in lat if 'wait_for_version' not in label])}")
    kinds: dict[str, list[float]] = {}
    for label, secs in lat:
        kinds.setdefault(label, []).append(secs)
    for label, values in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"    {label:<32} {latency_line(values)}")
    print(f"moves:               {moves} in {duration:.0f} s = {moves / duration:.1f} moves/s "
          f"({', '.join(f'{k} {v}' for k, v in sorted(by.items()))})")
    print(f"stalled games:       {len(sampler.stalls)} (an active game's deadline more than 5 s past; "
          f"{sampler.polls} samples, {sampler.failed_polls} failed during outages)")
    firsts = sorted(first for _, _, first in sampler.stalls.values())
    if firsts:
        print(f"    first seen stalled: {', '.join(f'{t - T0:.0f}s' for t in firsts[:: max(1, len(firsts) // 10)])} "
              f"(every {max(1, len(firsts) // 10)}th game, in order)")
    for gid, (overdue, at, first) in sorted(sampler.stalls.items(), key=lambda kv: -kv[1][0])[:10]:
        print(f"    game {gid}: {overdue:.1f} s overdue at {at - T0:.0f}s (stalled since {first - T0:.0f}s)"
              f"{near_chaos(run, at)}; {stall_moves(run, url, gid, first)}")
    for at, slots in run.slot_snapshots:
        print(f"    at {at - T0:.0f}s: {slots}")
    print(f"broker queue:        LLEN celery sampled every second: p50 {percentile(queue_lengths, 50):.0f}, max "
          f"{max(queue_lengths, default=0)} (a long queue: the stack is over capacity)")
    print(f"timer lateness:      p50 {fmt_s(percentile(late, 50))}, p99 {fmt_s(percentile(late, 99))}, max "
          f"{fmt_s(max(late) if late else float('nan'))} over {len(late)} timer moves ({sampled} with the "
          f"sampled deadline, {estimated} estimated from the previous move)")
    print(f"acknowledged actions: {len(run.acks)} (200s); {dict(acks)}; repeated keys: {dict(run.replays)}; "
          f"unresolved after {RETRY_FOR:.0f} s of retries: {len(run.unresolved)}")
    print(f"verify_game:         finished games {ok_fin} OK of {len(finished)}; still-active games {ok_act} OK of "
          f"{len(active)} ({verify_s:.0f} s)")
    for line in (bad_fin + bad_act)[:10]:
        print(f"    {line}")
    if stack.bouncer is not None or stack.replica is not None:
        report_scaled(run, stack)
    if run.chaos_log:
        print("chaos:")
        for at, what in run.chaos_log:
            print(f"    {at - T0:7.1f}s {what}")
    print(f"restarts by the supervisor: {len(restarts)} (times noticed by the bench)")
    for r in restarts:
        back = f"running again at {r.restarted_at - T0:.1f}s" if r.restarted_at else "not running again"
        print(f"    {r.at - T0:7.1f}s {r.name} {r.how}; {back}")
    print("worker tasks (from the workers' INFO logs, whole run):")
    print_task_log(task_log([p.log for p in stack.supervisor.programs.values() if p.name.startswith("w")]))
    print("memory (RSS) at the start and the end of the load:")
    print_memory(*memory)
    print("CPU used during the load (processes alive at the end):")
    print_cpu(cpu, duration)
    print()
    unacked = acks["player moves nobody acknowledged"] - len(run.unresolved)
    exactly_once = (acks["found"] == len(run.acks) and not acks["acknowledged twice (two keys, one move)"]
                    and unacked <= 0 and not run.replays["different"])
    verdicts = [
        (f"0 5xx (503 + Retry-After during the PostgreSQL restart{' and the PgBouncer outage' if stack.bouncer else ''}"
         " excepted)", not bad5, f"{len(bad5)} 5xx"),
        ("0 stalled games", not sampler.stalls, f"{len(sampler.stalls)} stalled"),
        ("every acknowledged action in the move log exactly once", exactly_once,
         f"{acks['found']}/{len(run.acks)} found, {max(unacked, 0)} unacknowledged player moves beyond the "
         f"{len(run.unresolved)} unresolved keys, {run.replays['different']} replays that differed"),
        ("every finished game verified", ok_fin == len(finished) and bool(finished),
         f"{ok_fin}/{len(finished)} OK"),
    ]
    if run.hostile:
        verdicts += report_hostile(args, run, duration)
        print()
    for what, ok, detail in verdicts:
        print(f"{'PASS' if ok else 'FAIL'}: {what} ({detail})")


if __name__ == "__main__":
    main()
