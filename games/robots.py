"""Services for the seats nobody is playing right now: bots, autopilot and the timer.

Each function locks the game row(s), re-checks the game's version or deadlines, and
does nothing when the game has moved on, so a task that runs twice or late is
harmless.  Both work from the game's obligations (``games.obligations``): a bot acts on
every decision its seat owes, in turn and in windows, when its time comes; the timer
enforces every overdue obligation with the engine's action for it.  The timer works in
batches (:func:`sweep_deadlines`): many overdue games per transaction, written back
with one statement per table.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from config import fanout
from config.problems import ApiError
from config.resilience import TRANSIENT_ERRORS
from games import botqueue, bots, engine, obligations, scheduling, selectors, signals
from games.models import DeferredBotStep, Game, GameStatus, MoveBy, Seat
from games.obligations import REVIVE, TIMEOUT, Obligation, is_robot
from games.services import RecordedMove, apply_and_record, prepare_action, update_rows, write_moves

log = logging.getLogger(__name__)
_rng = random.SystemRandom()


def _level(seat: Seat) -> str:
    return seat.bot_level or settings.UNO_AUTOPILOT_LEVEL


@dataclass
class Choice:
    """What the robots of a game want to do now (:func:`_decide`)."""

    #: the robot seat that acts now, and its action (None: the robot in turn has
    #: nothing, its policy failed); seat None: no robot acts now
    seat: int | None = None
    action: dict | None = None
    #: when the first robot that waits (a person would take a while: a buzz) acts
    later: datetime | None = None


def _decide(game: Game, seats: Sequence[Seat], owed: Sequence[Obligation], now: datetime) -> Choice:
    """What the robot seats of ``game`` (as read, not locked) want to do: the first
    robot in acting order with an action due now, or the robot whose turn it is with
    no action (its policy failed), or nobody.

    A robot acts on every decision it owes, in turn and in windows, and on its
    out-of-turn chances (call or catch UNO, jump in): the other robot seats are asked
    before the seat whose turn it is, which would close those chances.  An action its
    policy says a person takes after a while (``bots.reaction_delay``: a buzz) is due
    that long after the decision it answers began (:func:`_due`); until then the robot
    waits (``Choice.later``).  Runs with no lock and no transaction: the ``hard``
    search takes its whole budget, and on SQLite a transaction would hold the
    database's only write lock all that time.
    """
    state = engine.State.from_dict(game.state)
    actor = state.actor()
    robots = {s.seat: s for s in seats if is_robot(s)}
    out = Choice()
    for seat in bots.acting_order(actor, list(robots), _rng):
        level = _level(robots[seat])
        try:
            history = selectors.round_history(game, state.round, seat) if level == "hard" else None
            action = bots.decide(level, state, seat, random.Random(_rng.random()),
                                 budget_ms=settings.UNO_HARD_BUDGET_MS, history=history)
        except Exception:
            log.exception("game %s: the %s bot of seat %s failed", game.pk, level, seat)
            action = None
        if action is not None:
            due = _due(game, state, seat, level, action, owed)
            if due > now:
                out.later = due if out.later is None else min(out.later, due)
                continue
        if action is not None or seat == actor:
            out.seat, out.action = seat, action
            return out
    return out


def _due(game: Game, state: engine.State, seat: int, level: str, action: dict,
         owed: Sequence[Obligation]) -> datetime:
    """When a robot of ``level`` at ``seat`` posts ``action``: its policy's reaction
    time (``bots.reaction_delay``: 0 but for an action in a window, a buzz) after the
    decision it answers began: the latest window the seat owes (else its latest
    decision, else the game's last move).  The delay is drawn from a generator seeded by
    that decision, so that every step of the bot finds the same time."""
    mine = [o for o in owed if o.seat == seat]
    windows = [o for o in mine if o.kind != obligations.TURN]
    answers = max(windows or mine, key=lambda o: o.at, default=None)
    start = answers.at if answers is not None else game.updated_at
    seed = f"{game.pk}:{seat}:{answers.since if answers else game.version}:{answers.decision if answers else ''}"
    return start + timedelta(seconds=bots.reaction_delay(level, state, action, random.Random(seed)))


def _apply(game: Game, seat: int, action: dict | None) -> bool:
    """Apply a robot's decision to the locked ``game`` (at the version it was made for).
    The robot whose turn it is always acts: if its policy failed or picked a refused
    action, the server's ``timeout`` action is applied for it, so a bot bug cannot
    stall a game."""
    state = engine.State.from_dict(game.state)
    if action is not None:
        try:
            apply_and_record(game, state, seat, action, MoveBy.BOT)
            return True
        except ApiError as exc:  # the engine refused it and changed nothing
            log.error("game %s: seat %s's bot chose a refused action %r: %s", game.pk, seat, action, exc.detail)
    if seat == state.actor():
        apply_and_record(game, state, seat, obligations.SYSTEM_ACTIONS[TIMEOUT], MoveBy.TIMER)
        return True
    return False


def bot_step(game_id: int, version: int, lease: list | None = None) -> bool:
    """Let one bot or autopilot seat of ``game_id`` act if the game is still at
    ``version``; True if one did.  The step runs in a slot of its owner's share of the
    workers (``games.botqueue``: ``lease``, the one it was queued with, else a free
    one); when the owner has none free it is held back, at once, until one is, and does
    nothing now.  The decision is made from a plain read; the game row is locked only
    to check the version and record the move.  The move's follow-ups queue the next
    step (another robot may owe a decision too: each acts in turn, when it is due);
    when no robot acted because those with something to do wait (a person's reaction
    time), the step comes back when the first is due."""
    given = botqueue.Lease.from_json(lease)
    game = _running_at(Game.objects.all(), game_id, version)
    if game is None:  # the game moved on: its own next step may be held back, due; take it here
        taken = _own_held_back(game_id)
        if taken is None:
            _done(given)
            return False
        game, version = taken
    held = botqueue.take(game.creator_id, given, game_id)
    if held is None:
        scheduling.hold_back(game_id, version, game.creator_id)
        return False
    try:
        return _step(game, version)
    finally:
        _done(held)


def _own_held_back(game_id: int) -> tuple[Game, int] | None:
    """The step of ``game_id`` held back at the version the game is at now, if it is
    due, claimed (by exactly one taker), with the game; None if there is none.  A step
    that finds its game moved on runs it at once in its own slot, instead of handing the
    slot over through the queue (a worker whose pool process was killed after a move
    redelivers the killed step, and the game goes on in that very task)."""
    version = (botqueue.live().filter(game_id=game_id, since__lte=timezone.now())
               .values_list("version", flat=True).first())
    if version is None:
        return None
    game = _running_at(Game.objects.all(), game_id, version)
    if game is None or not botqueue.claim(game_id, version):
        return None
    return game, version


def _done(lease: botqueue.Lease | None) -> None:
    """A step ended: its slot goes back, and on to the owner's held-back steps due first
    (``scheduling.hand_over``).  Never raises: the step's work is done, and the sweeper
    hands free slots on too."""
    if lease is None:
        return
    botqueue.release(lease)
    try:
        scheduling.hand_over(lease.owner)
    except Exception:
        log.warning("bot steps of owner %s: could not hand the slot on (left to the sweeper)", lease.owner,
                    exc_info=True)


def _step(game: Game, version: int) -> bool:
    """:func:`bot_step`'s work, in its slot."""
    game_id = game.pk
    seats = list(game.seats.all())
    owed = obligations.current(game, seats)
    decided = _decide(game, seats, owed, timezone.now())
    seat, action = decided.seat, decided.action
    if seat is None:
        if decided.later is not None:  # a robot waits: come back then (a task runs in no
            # transaction: at once; a caller's transaction, once it commits)
            later = decided.later
            owner = game.creator_id
            transaction.on_commit(lambda: scheduling.queue_bot(
                game_id, version, owner, (later - timezone.now()).total_seconds()))
        return False
    with transaction.atomic():
        game = _running_at(Game.objects.select_for_update(), game_id, version)
        if game is None:
            return False  # moved on meanwhile: that move scheduled its own bot step
        return _apply(game, seat, action)


def _running_at(games, game_id: int, version: int) -> Game | None:
    """The game ``game_id`` from ``games`` if it is still running at ``version``."""
    game = games.filter(pk=game_id).first()
    if game is None or game.version != version or game.status != GameStatus.ACTIVE:
        return None
    return game


def dispatch_deferred() -> int:
    """Hand the free slots of the owners' shares to the held-back bot steps that are
    due, round robin across owners (``scheduling.dispatch_deferred``; the sweep task)."""
    return scheduling.dispatch_deferred()


def resume(game_id: int) -> None:
    """Queue again what the game's current version calls for (its follow-ups)."""
    version = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
    if version is not None:
        signals.committed(game_id, version)


# --------------------------------------------------------------------------------------
# Deadlines: the timer enforces the overdue obligations, many games at a time
# --------------------------------------------------------------------------------------
#: overdue games taken per transaction.  PostgreSQL locks just their rows (SKIP LOCKED:
#: concurrent sweeps take disjoint batches, and a game a request is moving is left to
#: the next one); SQLite has one write lock for the whole database, held by a batch from
#: its first statement to its commit.  50 on both: a batch's moves are inserted, and its
#: games' next deadlines set, when the whole batch is done, so the games of a batch of
#: 200 were all moved 0.2 s or more after the first of them came due, and stayed in step
#: ever after (their next deadlines alike); with 50, timer lateness p99 at 1,000 games
#: went from 1.26 s to 0.33 s (docs/contributors/benchmarks.md), for a few more
#: statements per move
BATCH_SIZE = {"postgresql": 50, "sqlite": 50}
DEFAULT_BATCH_SIZE = 100


def batch_size() -> int:
    """How many overdue games one transaction of the sweeper takes on this database
    (``UNO_SWEEP_BATCH_SIZE``, when set)."""
    return settings.UNO_SWEEP_BATCH_SIZE or BATCH_SIZE.get(connection.vendor, DEFAULT_BATCH_SIZE)


@dataclass
class Batch:
    """What one transaction of the sweeper found and did."""

    #: overdue games it locked (a full batch: more may be waiting)
    taken: int = 0
    #: the game id of each timer move it committed (a game whose obligations of several
    #: seats were overdue at once is listed once per move)
    timed_out: list[int] = field(default_factory=list)
    #: (id, version) of overdue games where only a robot's obligation is overdue (its bot
    #: task was lost): for :func:`bot_step`, after the commit
    robots: list[tuple[int, int]] = field(default_factory=list)
    #: ids of the games whose timeout could not be applied or written (logged)
    failed: list[int] = field(default_factory=list)


def _overdue(now, limit: int, game_id: int | None, exclude: Sequence[int], skip_locked: bool) -> list[Game]:
    """Up to ``limit`` running games whose deadline has passed, most overdue first
    (but none of ``exclude``), locked (``FOR UPDATE``, skipping the rows another
    transaction holds when ``skip_locked``; SQLite's transaction holds the whole
    database already)."""
    games = Game.objects.select_for_update(skip_locked=skip_locked).filter(
        status=GameStatus.ACTIVE, deadline__lte=now)
    if game_id is not None:
        games = games.filter(pk=game_id)
    if exclude:
        games = games.exclude(pk__in=exclude)
    return list(games.order_by("deadline")[:limit])


def _act_for(game: Game, owed: Obligation, seat: Seat | None, now: datetime) -> RecordedMove:
    """The timer's move for the overdue obligation ``owed`` of ``game`` (``seat``: its
    seat's row), with the engine's action for it, written by nobody yet:

    - ``timeout`` for a human's decision under the turn's deadline, one more timeout in a
      row for the seat (at ``UNO_MAX_TIMEOUTS`` it goes on autopilot until its player
      acts again);
    - ``expire`` for a decision whose own deadline passed (a buzz window), robot or
      human: not a timeout of the seat's."""
    if owed.enforce == TIMEOUT:
        assert seat is not None, f"no seat {owed.seat}"
        seat.timeouts += 1
        if seat.timeouts >= settings.UNO_MAX_TIMEOUTS:
            seat.autopilot = True  # (before the move: what the seat owes next is a robot's)
    state = engine.State.from_dict(game.state)
    recorded = prepare_action(game, state, owed.seat, obligations.SYSTEM_ACTIONS[owed.enforce], MoveBy.TIMER, now=now)
    if owed.enforce == TIMEOUT:
        recorded.seats.append(seat)  # type: ignore[arg-type]
    return recorded


def _enforce(game: Game, now: datetime) -> tuple[list[RecordedMove], bool]:
    """The timer's moves for every obligation of the locked ``game`` (taken because its
    ``deadline`` passed) overdue at ``now``, earliest first (each move may answer or
    change the others: they are read again after each), and whether a robot's
    obligation is overdue (its bot task was lost: :func:`bot_step` revives it).  A
    ``deadline`` column set before the obligations' earliest (by hand: an operator, a
    test) makes that earliest due.  A decision under the turn's deadline of a player who
    is away, in a correspondence game, is never timed out (``games.away``): its clock is
    kept paused until the away period ends (:func:`_keep_paused`), whatever its stored
    deadline says.  Writes nothing; raises if the engine cannot act."""
    seats = {s.seat: s for s in game.seat_list}
    away = obligations.away_seats(game, game.seat_list, now)
    if away:
        _keep_paused(game, away, now)
    moves: list[RecordedMove] = []
    for _ in range(4 * len(seats) + 4):  # each move answers an obligation: a bound, not a limit
        owed = obligations.current(game, game.seat_list)
        due = [o for o in owed if o.overdue(now)]
        if not due and not moves:
            first = obligations.earliest(owed)
            due = [o for o in owed if first is not None and o.deadline == first]
        enforced = sorted((o for o in due if o.enforce != REVIVE and not (o.enforce == TIMEOUT and o.seat in away)),
                          key=lambda o: o.deadline)  # type: ignore[arg-type,return-value]
        if not enforced:
            return moves, any(o.enforce == REVIVE for o in due)
        moves.append(_act_for(game, enforced[0], seats.get(enforced[0].seat), now))
    log.warning("game %s: overdue obligations left after %s timer moves", game.pk, len(moves))
    return moves, False


def _keep_paused(game: Game, away: dict[int, datetime], now: datetime) -> None:
    """Pause, in memory, the clocks of the away seats (``away``: seat -> until when) of
    the locked ``game`` that do not stand still until then (a seat taken, or a game
    started, while its player went away; a deadline moved by hand): each keeps the time
    it had left, from now at most (``obligations.pause``)."""
    owed = obligations.current(game, game.seat_list)
    kept = [obligations.pause(o, away[o.seat], now) if o.seat in away else o for o in owed]
    if kept != owed:
        log.warning("game %s: the clocks of away seats %s paused by the sweeper", game.pk, sorted(away))
        game.obligations = [o.to_json() for o in kept]


def _forget_ids(recorded: RecordedMove) -> None:
    """Rows of a write that was rolled back are written again as new rows."""
    for row in (recorded.move, *recorded.rounds_started):
        row.pk = None
        row._state.adding = True


def _write(recorded: list[RecordedMove]) -> list[RecordedMove]:
    """Write ``recorded`` in one go (a savepoint: a failure undoes these writes only);
    should that fail, each game's moves in a savepoint of their own, so that a game
    whose rows cannot be written (a bug, a hand-edited row) neither stops the others nor
    rolls back their moves.  A transient failure (a lock wait given up, a lost
    connection) is raised: the whole batch is rolled back and the next sweep takes it
    again.  Returns the moves written."""
    if not recorded:
        return []
    by_game: dict[int, list[RecordedMove]] = {}
    for one in recorded:
        by_game.setdefault(one.game.pk, []).append(one)
    try:
        with transaction.atomic():
            write_moves(recorded)
        return recorded
    except TRANSIENT_ERRORS:
        raise
    except Exception:
        if len(by_game) == 1:
            log.exception("game %s: its timer move could not be written", recorded[0].game.pk)
            return []
        log.warning("a batch of %s timer moves could not be written at once: writing them game by game",
                    len(recorded), exc_info=True)
    written = []
    for game_id, moves in by_game.items():
        for one in moves:
            _forget_ids(one)
        try:
            with transaction.atomic():
                write_moves(moves)
            written += moves
        except TRANSIENT_ERRORS:
            raise
        except Exception:
            log.exception("game %s: its timer move could not be written", game_id)
    return written


def enforce_batch(limit: int, *, game_id: int | None = None, version: int | None = None,
                  exclude: Sequence[int] = (), skip_locked: bool = True) -> Batch:
    """One transaction of the sweeper: take up to ``limit`` overdue games (only
    ``game_id``, at ``version``, when given; none of ``exclude``), read their seats in
    one query, enforce each game's overdue obligations (:func:`_enforce`: a human's
    ``timeout``, a window's ``expire``), and write every move, game row and seat in one
    statement per table.  The games where only a robot's obligation is overdue are
    returned for :func:`bot_step` (run them after the commit: a bot decides without a
    lock).  Follow-ups (the "move committed" signal) run after the commit, only for
    the games that call for any (bots, webhooks, countdowns).  Safe to run twice, late
    and concurrently: every game is locked and its obligations re-checked in the same
    transaction."""
    batch = Batch()
    with transaction.atomic():
        now = timezone.now()
        games = _overdue(now, limit, game_id, exclude, skip_locked)
        batch.taken = len(games)
        selectors.load_seats_of(games)
        recorded, stale = [], []
        for game in games:
            if version is not None and game.version != version:
                continue
            try:
                moves, revive = _enforce(game, now)
            except Exception:  # a broken game (or a bug) must not stop the others
                log.exception("game %s: the timer could not act on its overdue obligations", game.pk)
                batch.failed.append(game.pk)
                continue
            recorded += moves
            if revive and not moves:  # (a timer move queues its own bot step)
                batch.robots.append((game.pk, game.version))
            elif not moves:  # a deadline column before any obligation's (set by hand), or only
                # away players' paused clocks overdue: the obligations' earliest deadline
                game.deadline = obligations.earliest(obligations.current(game, game.seat_list))
                stale.append(game)
        if stale:
            update_rows(stale, ("obligations", "deadline"))
        written = _write(recorded)
        kept = {id(one) for one in written}
        batch.failed += list(dict.fromkeys(one.game.pk for one in recorded if id(one) not in kept))
        for one in written:
            batch.timed_out.append(one.game.pk)
            log.debug("game %s: the timer acted for seat %s (%s)", one.game.pk, one.move.seat, one.move.action["type"])
        for game in {id(one.game): one.game for one in written}.values():
            signals.on_commit(game)
    if batch.timed_out or batch.failed:  # players who ran out of time (a sweep that acts); WARNING: failures
        log.log(logging.WARNING if batch.failed else logging.INFO, "deadlines: %s timer moves, %s failed, %s owed "
                "by a bot", len(batch.timed_out), len(batch.failed), len(batch.robots))
    return batch


#: how long a bot step queued by the sweeper for a lost bot task is waited for before
#: the sweeper queues another (the broker may have lost that one too); the step is
#: dropped unrun by the worker after as long (Celery's ``expires``), so that a stack
#: falling behind never piles up copies of it in the queue ahead of the fresh moves
REQUEUE_SECONDS = 10.0
DEADLINES_QUEUE = scheduling.DEADLINES_QUEUE


def _revive(robots: list[tuple[int, int]], until: float | None = None) -> int:
    """Let the robots owing these overdue decisions act (their tasks were lost): the
    first game at once, here, whatever the broker's state; the others too while
    ``time.monotonic()`` is before ``until``; and a bot step is queued for each one
    left, so that every worker's pool takes a share of a crowd of them (a flushed
    broker) instead of this sweep alone.  A game whose step was queued in the last
    ``REQUEUE_SECONDS`` is not queued again (its step is on its way; if it is lost
    too, or not started within that time, it is dropped and a later sweep queues
    another).  Returns how many acted here."""
    done = 0
    for i, (game_id, version) in enumerate(robots):
        if i and until is not None and time.monotonic() >= until:
            _queue_revivals(robots[i:])
            break
        try:
            done += bot_step(game_id, version)
        except TRANSIENT_ERRORS:
            raise
        except Exception:  # one broken game must not stop the others
            log.exception("game %s: reviving its bot failed", game_id)
    return done


def _queue_revivals(robots: list[tuple[int, int]]) -> None:
    """Queue a bot step for each of these (id, version), once per ``REQUEUE_SECONDS``."""
    queued = 0
    for game_id, version in robots:
        try:
            fresh = cache.add(f"revive:{game_id}:{version}", 1, timeout=REQUEUE_SECONDS)
        except Exception:  # the cache is down (Redis restarting): queue it anyway
            fresh = True
        if fresh:
            # on the deadlines' queue: an overdue robot never waits behind the bot backlog
            queued += scheduling.queue_bot_step(game_id, version, 0, expires=REQUEUE_SECONDS, queue=DEADLINES_QUEUE)
    if queued:
        log.info("deadlines: %s bot steps queued for robots whose tasks were lost", queued)


def expire_deadline(game_id: int, version: int | None = None, *, skip_locked: bool = False) -> bool:
    """Enforce the deadline of ``game_id`` alone if it has passed (and the game is still
    at ``version``, when given); True if something was done.  ``skip_locked``: give up
    at once when another transaction holds the game; otherwise wait for its lock (a
    countdown task: a refused move holding it records nothing and schedules no new
    countdown)."""
    batch = enforce_batch(1, game_id=game_id, version=version, skip_locked=skip_locked)
    return bool(batch.timed_out) or _revive(batch.robots) > 0


def seconds_to_deadline(game_id: int, version: int) -> float | None:
    """Seconds until the deadline of ``game_id`` if it is still at ``version`` and the
    deadline is still ahead (a countdown task that fired early), else None."""
    game = Game.objects.filter(pk=game_id).only("status", "version", "deadline").first()
    if game is None or game.status != GameStatus.ACTIVE or game.version != version or game.deadline is None:
        return None
    left = (game.deadline - timezone.now()).total_seconds()
    return left if left > 0 else None


def _as_datetime(value) -> datetime | None:
    """A datetime read by raw SQL (SQLite's is naive, or text, in UTC)."""
    if value is None:
        return None
    parsed = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=dt_timezone.utc)


def next_times(after: datetime | None = None) -> tuple[datetime | None, datetime | None]:
    """The earliest deadline of the running games, and the earliest ``bot_due`` of those
    whose bot step is not held back by its owner's share (``games.botqueue``: not lost,
    it waits for a slot), in one statement of two index probes; with ``after``, only
    those later than ``after`` (a deadline), or whose step is due later than ``after``
    minus ``UNO_BOT_REVIVE_SECONDS`` (a bot step)."""
    game, held = Game._meta.db_table, DeferredBotStep._meta.db_table
    q = connection.ops.quote_name
    ops = connection.ops
    after_deadline = after_due = ""
    params: list = [GameStatus.ACTIVE]
    if after is not None:
        after_deadline = " AND g.deadline > %s"
        params.append(ops.adapt_datetimefield_value(after))
    params.append(GameStatus.ACTIVE)
    if after is not None:
        after_due = " AND g.bot_due > %s"
        params.append(ops.adapt_datetimefield_value(after - timedelta(seconds=settings.UNO_BOT_REVIVE_SECONDS)))
    sql = (f"SELECT (SELECT g.deadline FROM {q(game)} g WHERE g.status = %s AND g.deadline IS NOT NULL"
           f"{after_deadline} ORDER BY g.deadline LIMIT 1), "
           f"(SELECT g.bot_due FROM {q(game)} g WHERE g.status = %s AND g.bot_due IS NOT NULL{after_due}"
           f" AND NOT EXISTS (SELECT 1 FROM {q(held)} d WHERE d.game_id = g.id AND d.version = g.version)"
           f" ORDER BY g.bot_due LIMIT 1)")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        deadline, due = cursor.fetchone()
    return _as_datetime(deadline), _as_datetime(due)


def _wake(deadline: datetime | None, due: datetime | None) -> datetime | None:
    """When the sweeper has something to do next: the deadline, or the bot step's due
    time plus ``UNO_BOT_REVIVE_SECONDS``, whichever is first."""
    times = [t for t in (deadline, None if due is None else due + timedelta(seconds=settings.UNO_BOT_REVIVE_SECONDS))
             if t is not None]
    return min(times, default=None)


def revive_lost_steps(now: datetime, limit: int = 500) -> int:
    """Queue again the bot steps that were due ``UNO_BOT_REVIVE_SECONDS`` ago or more and
    have not run (``Game.bot_due``: the robot still owes the decision the step was for;
    its task was lost with the broker's queue, or is that late), due first, up to
    ``limit``; a step held back by its owner's share is not lost and is left to its slot.
    Each goes on the timer's queue (``_queue_revivals``: a worker's pool takes it at
    once, in a slot of its owner's share, or holds it back), and its game's ``bot_due``
    moves ``REQUEUE_SECONDS`` on (only if the game is still at that version), so that it
    is queued again then if it is lost too.  Twice is harmless: every step re-checks the
    game's version.  How many were queued."""
    cut = now - timedelta(seconds=settings.UNO_BOT_REVIVE_SECONDS)
    held = DeferredBotStep.objects.filter(game_id=OuterRef("pk"), version=OuterRef("version"))
    lost = list(Game.objects.filter(status=GameStatus.ACTIVE, bot_due__lte=cut).filter(~Exists(held))
                .order_by("bot_due").values_list("pk", "version")[:limit])
    if not lost:
        return 0
    log.info("bot steps: %s not run %.1f s after they were due (lost?): queued again", len(lost),
             settings.UNO_BOT_REVIVE_SECONDS)
    _queue_revivals(lost)
    at_version = Q()
    for game_id, version in lost:
        at_version |= Q(pk=game_id, version=version)
    # (``bot_due`` is the workers' own bookkeeping, which no view shows: named, so that the
    # fan-out publishes nothing, rather than making every hub read every game again)
    fanout.games_written(())
    Game.objects.filter(at_version).update(bot_due=now + timedelta(seconds=REQUEUE_SECONDS))
    return len(lost)


def sweep_deadlines(budget: float | None = None) -> int:
    """Enforce overdue deadlines, a batch (:func:`enforce_batch`) per transaction, as
    long as full batches come back (deadlines keep passing meanwhile) and for at most
    ``budget`` seconds (default: ``UNO_SWEEP_SECONDS``, the period at which beat sends
    the next sweep; the pool process is then free for other tasks).  The decisions
    owed by robots whose tasks were lost are left out of the following batches and
    taken after them, so that a crowd of them (a flushed broker) never holds up the
    humans' timeouts; those the budget leaves are queued as bot steps for every
    worker (:func:`_revive`).  Then the bot steps lost before their robots' deadlines
    are queued again (:func:`revive_lost_steps`), and, if the next deadline (or lost
    step) falls due before beat's next sweep, a sweep is queued for that moment
    (``scheduling.queue_sweep``; at once if the budget ran out with games still
    overdue).  When nothing is due, one statement.  Returns how many deadlines were
    acted on here."""
    started = timezone.now()
    deadline, due = next_times()
    if (deadline is None or deadline > started) and (due is None or _wake(None, due) > started):
        scheduling.queue_sweep(_wake(deadline, due))
        return 0  # (on SQLite: no write lock taken when there is nothing to do)
    budget = settings.UNO_SWEEP_SECONDS if budget is None else budget
    lease = _lease(budget)
    if lease is None:
        return 0  # another sweep is at work: it queues the next one as it ends
    try:
        done, wake = _sweep(started, due, budget)
    finally:
        _release(lease)
    scheduling.queue_sweep(wake)  # (once the lease is free: that sweep may start at once)
    return done


#: the cache key of the sweeping lease (:func:`_lease`)
SWEEP_LEASE = "sweeper:lease"


def _lease(budget: float) -> str | bool | None:
    """One sweep at work at a time across every worker (on PostgreSQL; on SQLite the
    database's one write lock serializes them already): a lease in the cache for the
    sweep's budget and a little more (a sweep killed midway frees it by then).  Two
    sweeps at once would be correct (``SKIP LOCKED``: disjoint batches) but each
    slower, sharing the CPU and the overhead, so the other gives way.  It lasts the
    budget rounded up and one second more: a sweep killed midway (its worker gone)
    holds the timer back at most that long.  The lease's token; True: no lease needed,
    or the cache cannot be reached (sweep anyway); None: another sweep holds it."""
    if connection.vendor == "sqlite":
        return True
    token = f"{time.monotonic()}:{_rng.random()}"
    try:
        return token if cache.add(SWEEP_LEASE, token, timeout=math.ceil(budget) + 1) else None
    except Exception:
        return True


def _release(lease: str | bool) -> None:
    if lease is True:
        return
    try:
        if cache.get(SWEEP_LEASE) == lease:
            cache.delete(SWEEP_LEASE)
    except Exception:  # it expires by itself
        pass


def _sweep(started: datetime, due: datetime | None, budget: float) -> tuple[int, datetime | None]:
    """:func:`sweep_deadlines`' work once something is due (``due``: the earliest bot step
    not held back, as read at ``started``): how many deadlines it acted on, and when the
    next sweep is wanted."""
    limit = batch_size()
    ends = time.monotonic() + budget
    done, robots = 0, []
    while True:
        batch = enforce_batch(limit, exclude=[game_id for game_id, _ in robots])
        done += len(batch.timed_out)
        robots += batch.robots
        behind = time.monotonic() >= ends
        if batch.taken < limit or not (batch.timed_out or batch.robots) or behind:
            done += _revive(robots, until=ends)
            break
    now = timezone.now()
    if due is not None and _wake(None, due) <= now:  # (a bot step seen lost as the sweep began)
        revive_lost_steps(now)
    # the next sweep: at once if the budget ran out with games overdue, else when the
    # first deadline (or lost bot step) after this sweep began falls due, at once if it
    # has (an overdue game that this sweep could not move, locked by a request or
    # broken, waits for beat's next sweep)
    return done, now if behind and batch.taken == limit else _wake(*next_times(after=started))
