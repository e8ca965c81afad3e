"""Live events: what the streams and long-polls of this process wait for, and how a
commit reaches them.

One :class:`Hub` per process (:func:`hub`) holds every open subscription: a game's
stream (``GET /games/{id}/events``, :class:`GameStream`), a player's feed
(``GET /players/me/events``, :class:`Feed`) and a long-poll (``GET /games/{id}?
wait_for_version=N``, :class:`Waiter`).  Two threads of its own serve them all:

- the **listener** learns that games changed, from whichever process committed the
  change (a web request, a bot or timer move on a Celery worker, the sweeper), as
  ``LIVE_FANOUT`` says: with ``redis`` (the default when ``REDIS_URL`` is set) from the
  Redis channels of what this process's subscribers watch, on which writers publish
  after their commit (``config.fanout``; :meth:`Hub._listen_redis`); with ``postgres``
  from ``LISTEN uno_live``, which a trigger on the games table feeds with
  the game's id at every commit that inserts, updates or deletes its row (migration
  0007: delivered at the commit, never for a rolled-back transaction, and across every
  process and node using the database); on SQLite (the embedded default) from the
  file's ``PRAGMA data_version``, which changes when another connection commits: read
  every ``SQLITE_CHECK_SECONDS`` while anything is subscribed, one cheap read per
  process whatever the number of subscribers;
- the **processor** reads each changed game once (its row and seats, the new moves)
  and renders what each kind of viewer may see once per seat, as ready SSE frames,
  handed to the subscribers' event loops.  A notification is only a wake-up: what is
  sent is read from the database by ``seq``, so a lost or coalesced notification
  (a listener reconnecting, a burst of moves) loses nothing, and a subscriber that
  resumes (``Last-Event-ID``) gets every move after its own.

Nothing here polls per subscriber: an idle stream costs its socket, a queue and a
comment every ``LIVE_HEARTBEAT_SECONDS`` (one timer per event loop for all of them).  A subscriber whose client reads too
slowly (``MAX_QUEUED`` frames waiting) is closed; its client reconnects and resumes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from rest_framework.utils.encoders import JSONEncoder

from config import fanout
from config.problems import ApiError

from games import obligations, selectors
from games.models import Game, GameStatus, Move, Seat
from notices import selectors as notices
from notices.models import Audience
from players import presence
from players.selectors import blocks_among, live_token_ids

log = logging.getLogger(__name__)

#: the PostgreSQL channel the games table's trigger notifies (migration 0007)
CHANNEL = "uno_live"
#: moves read per pass for one game's streams
BATCH = 500
#: frames waiting for one slow client before its stream is closed (it resumes)
MAX_QUEUED = 2000
#: SSE frame that ends a stream (its client reconnects and resumes)
CLOSE = b""
#: the listener's payload for "new notices" (the notices table's trigger)
NOTICES = "n"
#: a notice id is allocated before its transaction commits, so notices may become visible
#: out of id order: notices this many seconds past the newest sent are read again
NOTICE_LOOKBACK_SECONDS = 30.0


def heartbeat_seconds() -> float:
    return float(getattr(settings, "LIVE_HEARTBEAT_SECONDS", 15.0))


def credentials_check_seconds() -> float:
    return float(getattr(settings, "LIVE_CREDENTIALS_CHECK_SECONDS", 1.0))


def presence_touch_seconds() -> float:
    """How often the players of the open streams and feeds are marked seen (presence)."""
    return float(getattr(settings, "LIVE_PRESENCE_TOUCH_SECONDS", 60.0))


def sqlite_check_seconds() -> float:
    return float(getattr(settings, "LIVE_SQLITE_CHECK_SECONDS", 0.1))


def catchup_seconds() -> float:
    """With redis fan-out: how often the hub compares everything of interest with the
    database, whatever it heard (a publish lost with Redis is caught up by then)."""
    return float(getattr(settings, "LIVE_CATCHUP_SECONDS", 5.0))


def lease_seconds() -> float:
    return float(getattr(settings, "LIVE_STREAM_LEASE_SECONDS", 30.0))


def _json(data: Any) -> str:
    return json.dumps(data, cls=JSONEncoder, separators=(",", ":"))


def sse(data: Any, *, event: str | None = None, id: int | str | None = None) -> bytes:
    """One Server-Sent Events frame (``data`` as one line of JSON)."""
    head = (f"event: {event}\n" if event else "") + (f"id: {id}\n" if id is not None else "")
    return f"{head}data: {_json(data)}\n\n".encode()


class _Viewer:
    """Who a view is rendered for: only the player's id matters (their seat, or none)."""

    def __init__(self, pk: int) -> None:
        self.pk = pk


# --------------------------------------------------------------------------------------
# Subscriptions (created on the subscriber's event loop, fed from the processor thread)
# --------------------------------------------------------------------------------------
class _Subscription:
    def __init__(self, loop: asyncio.AbstractEventLoop, token_id: int | None = None) -> None:
        self.loop = loop
        #: the API token it was opened with: it ends when the token does (:meth:`Hub._end_revoked`)
        self.token_id = token_id
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.closed = False
        self.quiet = True  # nothing sent since the last heartbeat tick
        #: its response was dropped unsent (a client gone before its stream began): the
        #: hub removes it (:meth:`Hub.abandon`)
        self.abandoned = False
        #: its lease among its player's streams across processes (:class:`Leases`), if any
        self.lease: str | None = None

    def push(self, frames: Iterable[bytes]) -> None:
        """Hand ``frames`` to the subscriber (from the processor thread)."""
        for frame in frames:
            if self.closed:
                return
            if self.queue.qsize() >= MAX_QUEUED:
                self.closed = True
                frame = CLOSE
            try:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, frame)
            except RuntimeError:  # its loop is closed: the client is gone
                self.closed = True
                return

    def revoke(self) -> None:
        """End the subscription now, dropping what it has not sent yet (from the
        processor thread): its credentials ended."""
        self.closed = True

        def end() -> None:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(CLOSE)
        try:
            self.loop.call_soon_threadsafe(end)
        except RuntimeError:
            pass

    async def frames(self) -> Any:
        """The frames to send (heartbeats included: :func:`_beat`); ends at CLOSE."""
        beating = _beating.setdefault(self.loop, set())
        if self.loop not in _ticking:  # the first subscription on this loop starts its heartbeat
            _ticking.add(self.loop)
            self.loop.call_later(heartbeat_seconds(), _beat, self.loop)
        beating.add(self)
        try:
            while True:
                frame = await self.queue.get()
                if frame == CLOSE:
                    return
                self.quiet = False
                yield frame
        finally:
            beating.discard(self)
            if not beating:
                _beating.pop(self.loop, None)


#: the open subscriptions of each event loop, and the loops whose heartbeat runs (:func:`_beat`;
#: each touched on its own loop's thread only)
_beating: dict[asyncio.AbstractEventLoop, set[_Subscription]] = {}
_ticking: set[asyncio.AbstractEventLoop] = set()
HEARTBEAT = b": keepalive\n\n"


def _beat(loop: asyncio.AbstractEventLoop) -> None:
    """Every ``LIVE_HEARTBEAT_SECONDS``, one timer per event loop (not one per
    subscription): a comment to each subscription that was sent nothing since the last."""
    beating = _beating.get(loop)
    if not beating:
        _ticking.discard(loop)
        return
    for sub in beating:
        if sub.quiet and sub.queue.empty():
            sub.queue.put_nowait(HEARTBEAT)
        sub.quiet = True
    loop.call_later(heartbeat_seconds(), _beat, loop)


class TooManyStreams(Exception):
    """A player already holds the most streams (game streams and feeds) they may hold
    (``LIVE_MAX_STREAMS_PER_PLAYER``: across processes with redis fan-out, :class:`Leases`;
    else in this process)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


class GameStream(_Subscription):
    """A viewer's stream of one game's moves after ``last`` (None: from now on)."""

    def __init__(self, loop, game_id: int, player_id: int, last: int | None, token_id: int | None = None) -> None:
        super().__init__(loop, token_id)
        self.game_id, self.player_id, self.last = game_id, player_id, last
        self.seen: tuple | None = None  # (version, updated_at) last shown


class Feed(_Subscription):
    """A player's own feed: your_turn, game_started, game_finished, joined."""

    def __init__(self, loop, player_id: int, token_id: int | None = None) -> None:
        super().__init__(loop, token_id)
        self.player_id = player_id
        self.fresh = True  # its catch-up (the games awaiting it now) is still to send


@dataclass(eq=False)
class Waiter:
    """A long-poll: resolved once game ``game_id``'s version exceeds ``version``."""

    loop: asyncio.AbstractEventLoop
    game_id: int
    version: int
    future: asyncio.Future = field(default=None)  # type: ignore[assignment]
    token_id: int | None = None

    def resolve(self) -> None:
        def done() -> None:
            if not self.future.done():
                self.future.set_result(None)
        try:
            self.loop.call_soon_threadsafe(done)
        except RuntimeError:
            pass


@dataclass
class _Seen:
    """What the feed knew of a game at its last look."""

    version: int
    status: str
    seats: dict[int, int | None]  # seat -> player id


# --------------------------------------------------------------------------------------
# The hub
# --------------------------------------------------------------------------------------
class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: dict[int, set[GameStream]] = defaultdict(set)
        self._feeds: dict[int, set[Feed]] = defaultdict(set)
        self._waiters: dict[int, set[Waiter]] = defaultdict(set)
        #: games the feeds follow: what was last seen of each
        self._followed: dict[int, _Seen] = {}
        #: (version, updated_at) of every game of interest, as last read (SQLite's check)
        self._stamps: dict[int, tuple] = {}
        self._dirty: set[int] = set()
        self._unknown = False  # something changed, which games unknown (SQLite; a reconnect)
        self._wake = threading.Event()
        self._interest = threading.Event()  # set while anything is subscribed
        self._started = False
        #: open streams (game streams and feeds) per player id
        self._open: dict[int, set[GameStream | Feed]] = defaultdict(set)
        self._reap = False  # some subscription was abandoned
        #: notices (``notices``): those with an id above the floor are read at each look;
        #: those sent meanwhile (id -> when) are not sent again
        self._notice_floor: int | None = None
        self._notices_sent: dict[int, float] = {}
        self._notices_new = False
        #: when the players of the open streams and feeds were last marked seen (presence)
        self._presence_at = time.monotonic()
        #: redis fan-out: changes when the channels to subscribe to may have (:meth:`_wanted`),
        #: and when everything of interest was last compared with the database
        self._channels_gen = 0
        self._caught_up_at = time.monotonic()

    # ---- subscribing (any thread; an event loop's, mostly) ----------------------------
    def _count_in(self, sub: GameStream | Feed, limit: int | None) -> None:
        """Count ``sub`` among its player's streams (under the lock), unless the player
        holds ``limit`` streams already (abandoned ones are removed first)."""
        for gone in [s for s in self._open.get(sub.player_id, ()) if s.abandoned]:
            self._remove(gone)  # (which drops the player's set once it is empty)
        held = self._open[sub.player_id]
        if limit is not None and sub.lease is None and len(held) >= limit:  # (a lease: counted in Redis)
            raise TooManyStreams(limit)
        held.add(sub)

    def abandon(self, sub: GameStream | Feed) -> None:
        """``sub``'s response is gone (any thread, a garbage collector's callback
        included: it takes no lock).  A stream that ran was removed when it ended; one
        that never ran is removed at the hub's next delivery or the player's next
        subscription."""
        if sub.closed:
            return
        sub.abandoned = True
        self._reap = True

    def subscribe_game(self, game_id: int, player_id: int, last: int | None,
                       limit: int | None = None, token_id: int | None = None,
                       lease: str | None = None) -> GameStream:
        """A stream of ``game_id`` for ``player_id``; :class:`TooManyStreams` when the
        player already holds ``limit`` streams in this process (unless ``lease``: the
        stream was counted across processes, :meth:`Leases.acquire`, and its lease is
        given back when it ends)."""
        sub = GameStream(asyncio.get_running_loop(), game_id, player_id, last, token_id)
        sub.lease = lease
        with self._lock:
            self._count_in(sub, limit)
            self._streams[game_id].add(sub)
            self._dirty.add(game_id)  # its catch-up (moves after ``last``) or its start
        self._kick()
        return sub

    def notices_from(self, floor: int) -> None:
        """A subscription is about to tell its client it is connected, having read the
        newest notice's id, ``floor``: if nothing is subscribed yet (no look since), the
        notices after ``floor`` are the first look's, so that one committed between the
        client's "connected" and the processor's first look is still sent (it was skipped:
        the first look took the newest id then as its floor)."""
        with self._lock:
            if self._notice_floor is None:
                self._notice_floor = floor

    def subscribe_player(self, player_id: int, limit: int | None = None, token_id: int | None = None,
                         lease: str | None = None) -> Feed:
        """``player_id``'s feed (:class:`TooManyStreams` and ``lease`` as for a game's stream)."""
        sub = Feed(asyncio.get_running_loop(), player_id, token_id)
        sub.lease = lease
        with self._lock:
            self._count_in(sub, limit)
            self._feeds[player_id].add(sub)
        self._kick()
        return sub

    def add_waiter(self, game_id: int, version: int, token_id: int | None = None) -> Waiter:
        loop = asyncio.get_running_loop()
        waiter = Waiter(loop, game_id, version, loop.create_future(), token_id)
        with self._lock:
            self._waiters[game_id].add(waiter)
        self._kick(wake=False)
        return waiter

    def unsubscribe(self, sub: GameStream | Feed | Waiter) -> None:
        with self._lock:
            self._remove(sub)

    def _remove(self, sub: GameStream | Feed | Waiter) -> None:
        """(Under the lock.)"""
        if isinstance(sub, GameStream):
            group, key = self._streams, sub.game_id
        elif isinstance(sub, Feed):
            group, key = self._feeds, sub.player_id
        else:
            group, key = self._waiters, sub.game_id
        members = group.get(key)
        if members is not None and sub in members:
            members.discard(sub)
            if not members:
                del group[key]
        if isinstance(sub, (GameStream, Feed)):
            held = self._open.get(sub.player_id)
            if held is not None:
                held.discard(sub)
                if not held:
                    del self._open[sub.player_id]
        if isinstance(sub, _Subscription):
            sub.closed = True
            if sub.lease is not None:
                leases().release(sub.player_id, sub.lease)
                sub.lease = None
        self._channels_gen += 1
        if not (self._streams or self._feeds or self._waiters):
            self._interest.clear()
            self._followed.clear()
            self._stamps.clear()
            self._notice_floor = None
            self._notices_sent.clear()

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                "streams": sum(len(s) for s in self._streams.values()),
                "feeds": sum(len(s) for s in self._feeds.values()),
                "waiters": sum(len(s) for s in self._waiters.values()),
            }

    def _kick(self, wake: bool = True) -> None:
        self._channels_gen += 1
        self._interest.set()
        self._start()
        if wake:
            self._wake.set()

    def _start(self) -> None:
        if self._started:
            return
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._process_forever, name="live-processor", daemon=True).start()
        listen = {"redis": self._listen_redis, "postgres": self._listen_postgresql,
                  "sqlite": self._listen_sqlite}[settings.LIVE_FANOUT]
        threading.Thread(target=listen, name="live-listener", daemon=True).start()

    # ---- what the listener says ---------------------------------------------------
    def changed(self, game_ids: Iterable[int] | None) -> None:
        """Games ``game_ids`` changed (None: some games, which unknown)."""
        with self._lock:
            if game_ids is None:
                self._unknown = True
            else:
                self._dirty.update(game_ids)
        self._wake.set()

    def noticed(self) -> None:
        """New notices were committed."""
        with self._lock:
            self._notices_new = True
        self._wake.set()

    def _listen_postgresql(self) -> None:
        import psycopg

        params = connection.settings_dict
        conninfo = psycopg.conninfo.make_conninfo(
            dbname=params["NAME"], user=params.get("USER") or None, password=params.get("PASSWORD") or None,
            host=params.get("HOST") or None, port=params.get("PORT") or None,
        )
        pause = 0.5
        while True:
            try:
                with psycopg.connect(conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    pause = 0.5
                    self.changed(None)  # whatever committed while not listening
                    for note in conn.notifies():
                        if note.payload == NOTICES:
                            self.noticed()
                            continue
                        try:
                            game_id = int(note.payload)
                        except ValueError:
                            continue
                        self.changed([game_id])
            except Exception:
                log.warning("live: listening on PostgreSQL failed; again in %.1f s", pause, exc_info=True)
                time.sleep(pause)
                pause = min(pause * 2, 5.0)

    def _wanted(self) -> set[str]:
        """The channels of what this process's subscribers watch: the games of its streams
        and long-polls, its feeds' players and the games they follow (none: nothing)."""
        with self._lock:
            games = set(self._streams) | set(self._waiters) | set(self._followed)
            players = set(self._feeds)
        if not (games or players):
            return set()
        return ({fanout.ALL} | {fanout.game_channel(g) for g in games}
                | {fanout.player_channel(p) for p in players})

    def _listen_redis(self) -> None:
        """Redis fan-out (``config.fanout``): subscribe to the channels of what the
        subscribers watch, and only to those, as they come and go.  Once a channel's
        subscription is confirmed, what it names is read again (a commit published
        before it was missed); once a connection's first is (a new connection: at the
        start, or after losing Redis), everything of interest is (:meth:`changed` with
        None): so no move is missed, and none is sent twice (what is sent is read by
        version)."""
        pause = 0.5
        while True:
            self._interest.wait()
            pubsub = None
            try:
                pubsub = fanout.client(health_check_interval=10).pubsub()
                subscribed: set[str] = set()
                confirmed: set[str] = set()
                gen = None
                while True:
                    if gen != self._channels_gen:
                        gen = self._channels_gen
                        wanted = self._wanted()
                        if wanted - subscribed:
                            pubsub.subscribe(*sorted(wanted - subscribed))
                        if subscribed - wanted:
                            pubsub.unsubscribe(*sorted(subscribed - wanted))
                        subscribed = wanted
                        if not subscribed:
                            break  # nobody watches anything: the connection closes
                    message = pubsub.get_message(timeout=0.05)
                    while message is not None:
                        pause = 0.5
                        self._heard(message, confirmed)
                        message = pubsub.get_message(timeout=0)
            except Exception:
                log.warning("live: listening on Redis failed; again in %.1f s", pause, exc_info=True)
                time.sleep(pause)
                pause = min(pause * 2, 5.0)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:
                        pass

    def _heard(self, message: dict, confirmed: set[str]) -> None:
        kind = message.get("type")
        channel = message.get("channel")
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        if kind == "subscribe":
            if not confirmed or channel in confirmed:  # a new connection (or resubscribed)
                self.changed(None)
                self.noticed()
            elif channel.startswith(fanout.PREFIX + "g:"):
                self.changed([int(channel.rsplit(":", 1)[1])])
            elif channel.startswith(fanout.PREFIX + "p:"):
                self.changed(None)  # the player's games, and their notices
                self.noticed()
            confirmed.add(channel)
        elif kind == "unsubscribe":
            confirmed.discard(channel)
        elif kind == "message":
            data = message.get("data")
            data = data.decode() if isinstance(data, bytes) else str(data)
            if data == fanout.NOTICE:
                self.noticed()
            elif data == fanout.EVERYTHING:
                self.changed(None)
                self.noticed()
            else:
                try:
                    self.changed([int(data)])
                except ValueError:
                    pass

    def _listen_sqlite(self) -> None:
        path = str(connection.settings_dict["NAME"])
        db: sqlite3.Connection | None = None
        seen = None
        while True:
            self._interest.wait()
            try:
                if db is None:
                    db = sqlite3.connect(path, check_same_thread=False)
                version = db.execute("PRAGMA data_version").fetchone()[0]
                if version != seen:
                    seen = version
                    self.changed(None)
            except sqlite3.Error:
                log.warning("live: reading the SQLite file's data_version failed", exc_info=True)
                db = None
            time.sleep(sqlite_check_seconds())

    # ---- the processor ----------------------------------------------------------------
    def _process_forever(self) -> None:
        while True:
            # while anything is subscribed, a pass at least every LIVE_CREDENTIALS_CHECK_SECONDS
            # (:meth:`_end_revoked`)
            self._wake.wait(credentials_check_seconds() if self._interest.is_set() else None)
            self._wake.clear()
            if settings.LIVE_FANOUT == "redis" and time.monotonic() - self._caught_up_at >= catchup_seconds():
                self._caught_up_at = time.monotonic()
                self.changed(None)  # (whatever a writer could not publish)
                self.noticed()
            try:
                self._process()
            except Exception:
                log.exception("live: delivering changes failed; retrying")
                close_old_connections()
                try:
                    connection.close()
                except Exception:
                    pass
                with self._lock:
                    self._unknown = True
                time.sleep(0.5)
                self._wake.set()

    def _process(self) -> None:
        with self._lock:
            if self._reap:
                self._reap = False
                for gone in [s for held in self._open.values() for s in held if s.abandoned]:
                    self._remove(gone)
            dirty, self._dirty = self._dirty, set()
            unknown, self._unknown = self._unknown, False
            noticed, self._notices_new = self._notices_new, False
        self._end_revoked()
        self._mark_present()
        with self._lock:
            fresh_feeds = [f for subs in self._feeds.values() for f in subs if f.fresh]
            interest = set(self._streams) | set(self._waiters) | set(self._followed)
            feed_players = set(self._feeds)
        for feed in fresh_feeds:
            feed.fresh = False
            self._catch_up_feed(feed)
        if unknown:  # SQLite's notification (or a reconnect) names no game
            dirty |= self._changed_among(interest, feed_players)
        relevant = dirty & interest
        if feed_players:  # a game a feed's player sits in, not followed yet (one just created)
            relevant |= self._games_of(feed_players, dirty - interest)
        for game_id in sorted(relevant):
            self._game_changed(game_id)
        if noticed or unknown or self._notice_floor is None:
            self._deliver_notices()

    def _end_revoked(self) -> None:
        """End every stream, feed and long-poll whose token ended (revoked, expired,
        its password changed, its player deactivated): one query for all of them, at
        every pass of the processor, so before anything more is delivered to them, and
        at least every LIVE_CREDENTIALS_CHECK_SECONDS while they are idle."""
        with self._lock:
            subs: list[Any] = [s for group in (self._streams, self._feeds, self._waiters)
                               for members in group.values() for s in members if s.token_id is not None]
        if not subs:
            return
        alive = live_token_ids({s.token_id for s in subs})
        for sub in subs:
            if sub.token_id in alive:
                continue
            if isinstance(sub, Waiter):
                sub.resolve()  # its view answers 401
            else:
                sub.revoke()
            self.unsubscribe(sub)

    def _mark_present(self) -> None:
        """Every LIVE_PRESENCE_TOUCH_SECONDS (60), mark the players with an open stream or feed in
        this process seen (``players.presence``: one UPDATE for all of them), so that a
        client that only listens stays ``online``.  (Opening one marked them: its
        authentication.)"""
        now = time.monotonic()
        if now - self._presence_at < presence_touch_seconds():
            return
        self._presence_at = now
        with self._lock:
            players = set(self._open)
        if players:
            presence.mark_seen_ids(players)

    def _changed_among(self, interest: set[int], feed_players: set[int]) -> set[int]:
        """The games of interest (and the feed players' open games) whose version or
        row changed since last read: SQLite's notification names no game."""
        ids = set(interest)
        if feed_players:
            ids |= set(Seat.objects.filter(player_id__in=feed_players)
                       .exclude(game__status=GameStatus.FINISHED).values_list("game_id", flat=True))
        changed = set()
        rows = Game.objects.filter(pk__in=ids).values_list("pk", "version", "updated_at")
        found = set()
        for pk, version, updated in rows:
            found.add(pk)
            if self._stamps.get(pk) != (version, updated):
                changed.add(pk)
        return changed | (ids - found)  # gone: their streams end

    def _games_of(self, players: set[int], candidates: set[int]) -> set[int]:
        if not candidates:
            return set()
        return set(Seat.objects.filter(game_id__in=candidates, player_id__in=players)
                   .values_list("game_id", flat=True))

    def _game_changed(self, game_id: int) -> None:
        with self._lock:
            streams = list(self._streams.get(game_id, ()))
            waiters = list(self._waiters.get(game_id, ()))
            feeds = {p: list(subs) for p, subs in self._feeds.items()}
        try:
            game = selectors.get_game(game_id)
        except ApiError:  # deleted (the last player left a waiting game): its streams end
            for sub in streams:
                sub.push([CLOSE])
                self.unsubscribe(sub)
            for w in waiters:
                w.resolve()
            self._followed.pop(game_id, None)
            self._stamps.pop(game_id, None)
            self._channels_gen += 1
            return
        self._stamps[game_id] = (game.version, game.updated_at)
        for w in waiters:
            if game.version > w.version:
                w.resolve()
        if streams:
            self._deliver_moves(game, streams)
        seated = {s.player_id for s in game.seat_list if s.player_id is not None}
        if feeds and (seated & set(feeds) or game_id in self._followed):
            self._tell_feeds(game, {p: subs for p, subs in feeds.items() if p in seated})

    # ---- a game's streams -----------------------------------------------------------
    def _deliver_moves(self, game: Game, streams: list[GameStream]) -> None:
        for sub in streams:
            if sub.last is None:  # a stream from now on
                sub.last = game.version
            if sub.seen is None:  # a new stream: changes from here on (a move after ``last``)
                sub.seen = (game.version, game.updated_at)
        views: dict[int | None, Any] = {}
        seats = game.seat_list

        def view_for(sub: GameStream) -> tuple[int | None, Any]:
            seat = selectors.viewer_seat(seats, _Viewer(sub.player_id))
            if seat not in views:
                views[seat] = selectors.game_view(game, _Viewer(sub.player_id), seats)
            return seat, views[seat]

        while True:
            floor = min((s.last for s in streams if not s.closed and s.last < game.version), default=None)
            if floor is None:
                break
            moves = list(Move.objects.filter(game_id=game.pk, seq__gt=floor).order_by("seq")[:BATCH])
            if not moves:
                break
            reveal = game.status == GameStatus.FINISHED
            frames: dict[tuple[int | None, int], bytes] = {}
            for sub in streams:
                if sub.closed:
                    continue
                seat, view = view_for(sub)
                out = []
                for m in moves:
                    if m.seq <= sub.last:
                        continue
                    key = (seat, m.seq)
                    if key not in frames:
                        data = selectors.move_for_viewer(m, seat, reveal)
                        data["version"] = m.seq
                        if m.seq == game.version:
                            data["game"] = view
                        frames[key] = sse(data, id=m.seq)
                    out.append(frames[key])
                if out:
                    sub.push(out)
                    sub.last = max(sub.last, moves[-1].seq)
                    sub.seen = (game.version, game.updated_at)
            if len(moves) < BATCH:
                break
        # a change without a move (a seat taken or left, a seat on autopilot): the view
        for sub in streams:
            if not sub.closed and sub.seen != (game.version, game.updated_at):
                sub.seen = (game.version, game.updated_at)
                seat, view = view_for(sub)
                sub.push([sse({"seq": game.version, "version": game.version, "game": view}, event="game")])

    # ---- notices (feeds' and streams' events beside the moves: ``notices``) ------------
    def _deliver_notices(self) -> None:
        """Send the notices committed since the last look to the feeds and game streams
        they are for.  A notice's id is taken before its transaction commits, so one may
        appear after a newer one: the notices of the last NOTICE_LOOKBACK_SECONDS are read
        again, and those already sent are skipped."""
        now = time.monotonic()
        if self._notice_floor is None:  # the first look: from now on
            self._notice_floor = notices.last_id()
            return
        with self._lock:
            players = set(self._feeds)
            games = set(self._streams)
        rows = notices.after(self._notice_floor, players=players, games=games) if players or games else []
        fresh = [n for n in rows if n.id not in self._notices_sent]
        for n in fresh:
            self._notices_sent[n.id] = now
        # the floor rises past what is old enough that nothing before it can still commit
        old = [i for i, t in self._notices_sent.items() if now - t > NOTICE_LOOKBACK_SECONDS]
        if old:
            self._notice_floor = max(self._notice_floor, max(old))
            for i in [i for i in self._notices_sent if i <= self._notice_floor]:
                del self._notices_sent[i]
        if not fresh:
            return
        game_ids = {n.game_id for n in fresh if n.game_id is not None}
        seated: dict[int, set[int]] = defaultdict(set)
        for game_id, player_id in Seat.objects.filter(game_id__in=game_ids, player__isnull=False).values_list(
                "game_id", "player_id"):
            seated[game_id].add(player_id)
        finished = set(Game.objects.filter(pk__in=game_ids, status=GameStatus.FINISHED).values_list("pk", flat=True))
        with self._lock:
            feeds = {p: list(self._feeds.get(p, ())) for p in players}
            streams = {g: list(self._streams.get(g, ())) for g in game_ids}
        # a notice with an author (a chat message) is not for viewers blocked either way with them
        authors = {n.author_id for n in fresh if n.author_id is not None and n.game_id is not None}
        blocked = blocks_among({s.player_id for subs in streams.values() for s in subs}, authors) if authors else set()
        for n in fresh:
            frame = sse({**n.data, "notice": n.id}, event=n.kind)
            if n.audience == Audience.PLAYER:
                for sub in feeds.get(n.player_id, ()):
                    sub.push([frame])
                continue
            for sub in streams.get(n.game_id, ()):
                if (notices.visible_on_stream(n, sub.player_id in seated[n.game_id], n.game_id in finished)
                        and (sub.player_id, n.author_id) not in blocked):
                    sub.push([frame])

    # ---- players' feeds -------------------------------------------------------------
    def _catch_up_feed(self, feed: Feed) -> None:
        """What awaits the player now: a ``your_turn`` for every decision it owes."""
        game_ids = (Seat.objects.filter(player_id=feed.player_id)
                    .exclude(game__status=GameStatus.FINISHED).values_list("game_id", flat=True))
        frames = []
        for game_id in sorted(game_ids):
            try:
                game = selectors.get_game(game_id)
            except ApiError:  # deleted meanwhile
                continue
            if game_id not in self._followed:
                self._followed[game_id] = _seen(game)
                self._channels_gen += 1
            seat = selectors.viewer_seat(game.seat_list, _Viewer(feed.player_id))
            frames += _your_turns(game, seat, since=None)
        feed.push(frames)

    def _tell_feeds(self, game: Game, feeds: dict[int, list[Feed]]) -> None:
        before = self._followed.get(game.pk)
        now = _seen(game)
        if game.status == GameStatus.FINISHED:
            self._followed.pop(game.pk, None)  # nothing more to tell of it
        else:
            self._followed[game.pk] = now
        if (before is None) != (game.status == GameStatus.FINISHED):
            self._channels_gen += 1  # followed from now on, or no more
        if before is None:  # a game a feed's player just created or joined: nothing to tell,
            # unless this very change started it
            before = _Seen(0, GameStatus.WAITING, now.seats) if game.version == 1 else now
        for player_id, subs in feeds.items():
            seat = next((s for s, p in now.seats.items() if p == player_id), None)
            frames = []
            if game.status == GameStatus.WAITING:
                for s, p in sorted(now.seats.items()):
                    if before.seats.get(s) != p and p is not None and p != player_id:
                        username = next(x.player.username for x in game.seat_list if x.seat == s)
                        frames.append(sse({"game": game.pk, "version": game.version, "seat": s,
                                           "username": username}, event="joined"))
            if before.status == GameStatus.WAITING and game.status != GameStatus.WAITING:
                frames.append(sse({"game": game.pk, "version": game.version, "seat": seat}, event="game_started"))
            if game.status == GameStatus.ACTIVE and game.version > before.version:
                frames += _your_turns(game, seat, since=before.version)
            if game.status == GameStatus.FINISHED and before.status != GameStatus.FINISHED:
                frames.append(sse({"game": game.pk, "version": game.version, "seat": seat,
                                   "winner_seat": game.winner_seat}, event="game_finished"))
            for sub in subs:
                sub.push(frames)


def _seen(game: Game) -> _Seen:
    return _Seen(game.version, game.status, {s.seat: s.player_id for s in game.seat_list})


def _your_turns(game: Game, seat: int | None, since: int | None) -> list[bytes]:
    """``your_turn`` frames for the decisions ``seat`` owes (begun after version
    ``since``; None: all it owes now), but on autopilot."""
    if seat is None or game.status != GameStatus.ACTIVE:
        return []
    if any(s.seat == seat and s.autopilot for s in game.seat_list):
        return []
    return [
        sse({"game": game.pk, "version": game.version, "seat": seat, "decision": o.decision,
             "deadline": o.deadline}, event="your_turn", id=f"{game.pk}.{game.version}")
        for o in obligations.current(game, game.seat_list)
        if o.seat == seat and (since is None or o.since > since)
    ]


# --------------------------------------------------------------------------------------
# Streams per player across processes (redis fan-out)
# --------------------------------------------------------------------------------------
#: a player's streams, in Redis: lease id -> when it lapses (Redis's clock, seconds)
LEASES_KEY = "uno:live:streams:{}"
#: take a lease unless the player holds ``limit`` unexpired ones (ARGV: limit, lease, lease seconds)
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[3])) + 1)
return 1
"""
#: renew the leases ARGV[2..] of one player for ARGV[1] seconds (written again if Redis lost
#: them: restarted empty)
_RENEW = """
local t = redis.call('TIME')
local until_ = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], until_, ARGV[i]) end
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])) + 1)
return 1
"""


class Leases:
    """The streams (game streams and feeds) each player holds, counted across every web
    process in Redis (with redis fan-out): a sorted set per player of lease ids scored
    by when each lapses, by Redis's clock.  A stream takes a lease when it opens
    (:meth:`acquire`, refused at ``LIVE_MAX_STREAMS_PER_PLAYER``) and gives it back when
    it ends (:meth:`release`); a thread renews this process's leases every third of
    ``LIVE_STREAM_LEASE_SECONDS``, so that a process that dies holds its players'
    streams no longer than that.  When Redis cannot be reached, a stream takes no lease
    and this process counts it alone (as without Redis)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}  # lease -> player
        self._released: list[tuple[int, str]] = []
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._scripts: tuple[Any, Any] | None = None

    def _script(self, which: int):
        if self._scripts is None:
            redis = fanout.client()
            self._scripts = (redis.register_script(_ACQUIRE), redis.register_script(_RENEW))
        return self._scripts[which]

    def acquire(self, player_id: int, limit: int) -> str | None:
        """A lease among ``player_id``'s streams (:class:`TooManyStreams` if they hold
        ``limit``); None without redis fan-out or when Redis fails (then this process
        counts the stream: :meth:`Hub._count_in`).  Blocking: call it off the event loop."""
        if not fanout.enabled():
            return None
        import redis

        lease = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}"
        try:
            taken = self._script(0)(keys=[LEASES_KEY.format(player_id)], args=[limit, lease, lease_seconds()])
        except redis.RedisError:
            log.warning("live: counting a stream in Redis failed; counted in this process only", exc_info=True)
            return None
        if not taken:
            raise TooManyStreams(limit)
        with self._lock:
            self._held[lease] = player_id
            if self._thread is None:
                self._thread = threading.Thread(target=self._renew_forever, name="live-leases", daemon=True)
                self._thread.start()
        return lease

    def release(self, player_id: int, lease: str) -> None:
        """Give ``lease`` back (any thread; without waiting for Redis)."""
        with self._lock:
            self._held.pop(lease, None)
            self._released.append((player_id, lease))
        self._wake.set()

    def _renew_forever(self) -> None:
        while True:
            self._wake.wait(lease_seconds() / 3)
            self._wake.clear()
            with self._lock:
                released, self._released = self._released, []
                held: dict[int, list[str]] = defaultdict(list)
                for lease, player_id in self._held.items():
                    held[player_id].append(lease)
            try:
                pipe = fanout.client().pipeline(transaction=False)
                for player_id, lease in released:
                    pipe.zrem(LEASES_KEY.format(player_id), lease)
                for player_id, mine in held.items():
                    self._script(1)(keys=[LEASES_KEY.format(player_id)], args=[lease_seconds(), *mine], client=pipe)
                pipe.execute()
            except Exception:
                log.warning("live: renewing or giving back stream leases in Redis failed", exc_info=True)
                with self._lock:  # given back at the next try (or they lapse)
                    self._released = released + self._released
                time.sleep(1.0)


def _per_process(make: Callable[[], Any]) -> Callable[[], Any]:
    """``make()``'s one instance in this process, made at the first call (a forked process
    makes its own)."""
    lock = threading.Lock()
    made: dict[int, Any] = {}  # pid -> the instance

    def get() -> Any:
        pid = os.getpid()
        found = made.get(pid)
        if found is None:
            with lock:
                found = made.get(pid)
                if found is None:
                    made.clear()  # (the parent's, copied by a fork)
                    found = made[pid] = make()
        return found
    return get


#: this process's leases (``leases() -> Leases``)
leases: Callable[[], Leases] = _per_process(Leases)
#: this process's hub (``hub() -> Hub``)
hub: Callable[[], Hub] = _per_process(Hub)
