"""Live events' fan-out through Redis (``LIVE_FANOUT=redis``): what a writer publishes
after its commit, and the channels a web process's hub (``games.live``) subscribes to.

A message is only a wake-up, as PostgreSQL's ``NOTIFY`` was: the hub reads what it sends
from the database by version, so a lost message delays a delivery (until the hub's next
catch-up, ``LIVE_CATCHUP_SECONDS``) and never loses or duplicates one.

Channels (payload in brackets):

- ``uno:live:g:<game id>``: the game's row was written (``<game id>``), or a notice of the
  game's stream was (``n``);
- ``uno:live:p:<player id>``: a seat of the player was written, so a game they sit in
  changed (``<game id>``), or a notice for their feed was (``n``);
- ``uno:live:all``: something was written that no writer named (``*``): every hub
  compares everything its subscribers watch with the database.

**Nothing can forget to publish.**  The writers name what they write where they write
it, in a few places every write goes through (:func:`games_written`, :func:`seats_written`,
:func:`notices_written`: the models' ``pre_save``/``pre_delete`` signals, ``services.
insert_rows``/``update_rows``, the bulk inserts and the few queryset updates), and a
guard under all of them, an execute wrapper on every database connection, sees each
statement that inserts, updates or deletes rows of the games or notices table (the
tables whose triggers feed ``LISTEN uno_live``): a transaction that wrote one of them
without naming any of its rows publishes on ``uno:live:all`` instead, and logs a warning
naming the statement (tests/test_live_fanout.py fails on it).

Publishing happens after the commit (``transaction.on_commit``; a statement outside any
transaction block, after the statement), on a thread of the process's own, so a slow or
lost Redis never fails or slows a write: a failed publish is logged.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.backends.signals import connection_created

log = logging.getLogger(__name__)

PREFIX = "uno:live:"
ALL = PREFIX + "all"
#: payloads: "new notices", and "something unnamed changed"
NOTICE = "n"
EVERYTHING = "*"
#: the tables whose writes must be named, and which writes (those the PostgreSQL triggers
#: of LISTEN watch: any write of a game's row, a new notice)
WATCHED = {"games_game": ("UPDATE", "INSERT", "DELETE"), "notices_notice": ("INSERT",)}
#: seconds a Redis call may take (connect, or an answer) before it counts as failed
REDIS_TIMEOUT_SECONDS = 2.0

_WRITE = re.compile(r'\s*(UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+"?(\w+)"?', re.IGNORECASE)


def game_channel(game_id: int) -> str:
    return f"{PREFIX}g:{game_id}"


def player_channel(player_id: int) -> str:
    return f"{PREFIX}p:{player_id}"


def enabled() -> bool:
    return settings.LIVE_FANOUT == "redis"


_clients: dict[tuple[int, str], Any] = {}


def client(**options: Any):
    """A redis-py client of ``REDIS_URL`` for this process (with short timeouts)."""
    import redis

    key = (os.getpid(), repr(sorted(options.items())))
    found = _clients.get(key)
    if found is None:
        found = _clients[key] = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            socket_timeout=REDIS_TIMEOUT_SECONDS, **options)
    return found


# --------------------------------------------------------------------------------------
# What a transaction wrote
# --------------------------------------------------------------------------------------
class _Pending:
    __slots__ = ("games", "players", "game_notices", "player_notices", "named", "unnamed", "flush")

    def __init__(self) -> None:
        self.games: set[int] = set()
        self.players: dict[int, set[int]] = {}  # player -> games of theirs written
        self.game_notices: set[int] = set()
        self.player_notices: set[int] = set()
        self.named: set[str] = set()  # watched tables whose writes were named
        self.unnamed: dict[str, str] = {}  # watched table -> a statement that wrote it
        self.flush = None  # its on_commit callback, once registered

    def messages(self) -> list[tuple[str, str]]:
        out = [(game_channel(g), str(g)) for g in sorted(self.games)]
        out += [(player_channel(p), str(g)) for p, games in sorted(self.players.items()) for g in sorted(games)]
        out += [(game_channel(g), NOTICE) for g in sorted(self.game_notices)]
        out += [(player_channel(p), NOTICE) for p in sorted(self.player_notices)]
        if set(self.unnamed) - self.named:
            out.append((ALL, EVERYTHING))
        return out


def _pending(conn) -> _Pending:
    """The writes of ``conn``'s current transaction (a new record once the last one was
    published or rolled back)."""
    pending = getattr(conn, "_uno_fanout", None)
    if conn.in_atomic_block:
        if pending is not None and pending.flush is not None and any(
                f is pending.flush for _, f, _ in conn.run_on_commit):
            return pending
        if pending is None or pending.flush is not None:
            pending = _Pending()
        # (else: named just before the transaction block began, carried into it)
        def flush(pending=pending) -> None:
            _publish(pending)
        pending.flush = flush
        conn._uno_fanout = pending
        conn.on_commit(flush)
        return pending
    if pending is None or pending.flush is not None:  # outside a transaction block:
        pending = conn._uno_fanout = _Pending()  # published after the statement
    return pending


def _after_statement(conn) -> None:
    """Outside a transaction block a statement commits as it runs: publish now."""
    pending = getattr(conn, "_uno_fanout", None)
    if pending is not None and pending.flush is None and not conn.in_atomic_block:
        conn._uno_fanout = None
        _publish(pending)


def games_written(game_ids: Iterable[int | None], using: str = "default") -> None:
    """Games ``game_ids`` were (or are about to be) written in the current transaction."""
    if not enabled():
        return
    conn = connections[using]
    pending = _pending(conn)
    pending.named.add("games_game")
    pending.games.update(g for g in game_ids if g is not None)


def seats_written(seats: Iterable[tuple[int | None, int | None]], using: str = "default") -> None:
    """Seats ``(game id, player id)`` were (or are about to be) written: their players'
    feeds learn of their games."""
    if not enabled():
        return
    pending = _pending(connections[using])
    for game_id, player_id in seats:
        if game_id is not None:
            pending.games.add(game_id)
            if player_id is not None:
                pending.players.setdefault(player_id, set()).add(game_id)


def notices_written(notices: Iterable[tuple[int | None, int | None]], using: str = "default") -> None:
    """Notices ``(game id, player id)`` were (or are about to be) written."""
    if not enabled():
        return
    pending = _pending(connections[using])
    pending.named.add("notices_notice")
    for game_id, player_id in notices:
        if game_id is not None:
            pending.game_notices.add(game_id)
        if player_id is not None:
            pending.player_notices.add(player_id)


def _guard(execute, sql, params, many, context):
    """The execute wrapper of every connection (redis fan-out): notes each statement that
    writes a watched table, so that a transaction that wrote one without naming what it
    wrote publishes on ``uno:live:all`` (and says so)."""
    result = execute(sql, params, many, context)
    conn = context["connection"]
    found = _WRITE.match(sql) if isinstance(sql, str) else None
    if found and found.group(1)[:6].upper() in WATCHED.get(found.group(2), ()):
        _pending(conn).unnamed.setdefault(found.group(2), sql.lstrip()[:200])
    _after_statement(conn)
    return result


def install(sender=None, connection=None, **kwargs) -> None:
    """Put the guard on ``connection`` (``connection_created``; once per wrapper)."""
    if enabled() and connection is not None and _guard not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, _guard)


connection_created.connect(install, dispatch_uid="uno-live-fanout-guard")


# --------------------------------------------------------------------------------------
# Publishing (a thread of this process's own)
# --------------------------------------------------------------------------------------
class _Publisher:
    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[_Pending | threading.Event] = queue.SimpleQueue()
        self.pid = os.getpid()
        self.failed_at = 0.0
        threading.Thread(target=self._run, name="live-fanout-publisher", daemon=True).start()

    def _run(self) -> None:
        while True:
            first = self.queue.get()
            batch = [first]
            while True:  # every write committed meanwhile, in one round trip
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            pendings = [p for p in batch if isinstance(p, _Pending)]
            if pendings:
                self._send(pendings)
            for done in batch:
                if isinstance(done, threading.Event):
                    done.set()

    def _send(self, pendings: list[_Pending]) -> None:
        for pending in pendings:
            if set(pending.unnamed) - pending.named:
                statements = "; ".join(pending.unnamed.values())
                # (a bulk delete, e.g. a test database's flush, is only told; a forgotten
                # insert or update is a writer to fix)
                level = logging.INFO if all(q.upper().startswith("DELETE") for q in pending.unnamed.values()) \
                    else logging.WARNING
                log.log(level, "live fan-out: a transaction wrote %s without naming what it wrote (%s);"
                        " every hub catches up", sorted(set(pending.unnamed) - pending.named), statements)
        messages = [m for p in pendings for m in p.messages()]
        if not messages:
            return
        try:
            pipe = client().pipeline(transaction=False)
            for channel, payload in messages:
                pipe.publish(channel, payload)
            pipe.execute()
        except Exception:
            now = time.monotonic()
            if now - self.failed_at > 10:  # once per 10 s at most
                log.warning("live fan-out: publishing to Redis failed (%d messages); the hubs catch up"
                            " within LIVE_CATCHUP_SECONDS", len(messages), exc_info=True)
            self.failed_at = now


_publisher: _Publisher | None = None
_publisher_lock = threading.Lock()


def _the_publisher() -> _Publisher:
    global _publisher
    if _publisher is None or _publisher.pid != os.getpid():
        with _publisher_lock:
            if _publisher is None or _publisher.pid != os.getpid():
                _publisher = _Publisher()
    return _publisher


def _publish(pending: _Pending) -> None:
    if pending.games or pending.players or pending.game_notices or pending.player_notices or pending.unnamed:
        _the_publisher().queue.put(pending)


def flush(timeout: float = 10.0) -> bool:
    """Wait until what this process committed so far was published (or failed to be)."""
    if _publisher is None or _publisher.pid != os.getpid():
        return True
    done = threading.Event()
    _publisher.queue.put(done)
    return done.wait(timeout)
