"""Services for the seats nobody is playing right now: bots, autopilot and the timer.

Each function locks the game row(s), re-checks the game's version or deadline, and
does nothing when the game has moved on, so a task that runs twice or late is
harmless.  The timer works in batches (:func:`sweep_deadlines`): many overdue games
per transaction, written back with one statement per table.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from config.problems import ApiError
from config.resilience import TRANSIENT_ERRORS
from games import bots, engine, scheduling, selectors
from games.models import Game, GameStatus, MoveBy, Seat
from games.services import RecordedMove, after_commit, apply_and_record, prepare_action, write_moves

log = logging.getLogger(__name__)
_rng = random.SystemRandom()
TIMEOUT = {"type": "timeout"}


def _level(seat: Seat) -> str:
    return seat.bot_level or settings.UNO_AUTOPILOT_LEVEL


def _decide(game: Game) -> tuple[int | None, dict | None]:
    """What the robot seats of ``game`` (as read, not locked) want to do: the first
    (seat, action) in acting order, or (actor, None) when the robot whose turn it is
    has nothing (its policy failed), or (None, None) when no robot acts.

    The other robot seats get their out-of-turn chance (call or catch UNO, jump in)
    before the seat whose turn it is moves and closes it.  Runs with no lock and no
    transaction: the ``hard`` search takes its whole budget, and on SQLite a
    transaction would hold the database's only write lock all that time.
    """
    state = engine.State.from_dict(game.state)
    actor = state.actor()
    robots = {s.seat: s for s in game.seats.all() if s.is_bot or s.autopilot}
    for seat in bots.acting_order(actor, list(robots), _rng):
        rng = random.Random(_rng.random())
        try:
            action = bots.decide(_level(robots[seat]), state, seat, rng, budget_ms=settings.UNO_HARD_BUDGET_MS)
        except Exception:
            log.exception("game %s: the %s bot of seat %s failed", game.pk, _level(robots[seat]), seat)
            action = None
        if action is not None or seat == actor:
            return seat, action
    return None, None


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
        apply_and_record(game, state, seat, TIMEOUT, MoveBy.TIMER)
        return True
    return False


def bot_step(game_id: int, version: int) -> bool:
    """Let one bot or autopilot seat of ``game_id`` act if the game is still at
    ``version``; True if one did.  The decision is made from a plain read; the game
    row is locked only to check the version and record the move."""
    game = _running_at(Game.objects.all(), game_id, version)
    if game is None:
        return False
    seat, action = _decide(game)
    if seat is None:
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


def resume(game_id: int) -> None:
    """Queue again what the game's current version calls for (scheduling.after_move)."""
    version = Game.objects.filter(pk=game_id).values_list("version", flat=True).first()
    if version is not None:
        scheduling.after_move(game_id, version)


# --------------------------------------------------------------------------------------
# Deadlines: the timer acts for a human seat whose time is up, many games at a time
# --------------------------------------------------------------------------------------
#: overdue games taken per transaction.  PostgreSQL locks just their rows (SKIP LOCKED:
#: concurrent sweeps take disjoint batches, and a game a request is moving is left to
#: the next one); SQLite has one write lock for the whole database, held by a batch from
#: its first statement to its commit, so its batches are smaller (README, "Timers")
BATCH_SIZE = {"postgresql": 200, "sqlite": 50}
DEFAULT_BATCH_SIZE = 100


def batch_size() -> int:
    """How many overdue games one transaction of the sweeper takes on this database."""
    return BATCH_SIZE.get(connection.vendor, DEFAULT_BATCH_SIZE)


@dataclass
class Batch:
    """What one transaction of the sweeper found and did."""

    #: overdue games it locked (a full batch: more may be waiting)
    taken: int = 0
    #: ids of the games it gave a timer move, committed
    timed_out: list[int] = field(default_factory=list)
    #: (id, version) of overdue games whose decision a robot owes (its bot task was lost):
    #: for :func:`bot_step`, after the commit
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


def _time_out(game: Game, seat: Seat, now) -> RecordedMove:
    """The timer's move for the human ``seat`` that owes ``game``'s decision: one more
    timeout in a row (at ``UNO_MAX_TIMEOUTS`` the seat goes on autopilot until its
    player acts again), then the engine's ``timeout`` for it.  Writes nothing."""
    seat.timeouts += 1
    if seat.timeouts >= settings.UNO_MAX_TIMEOUTS:
        seat.autopilot = True  # (before the move: the next deadline, if the seat owes it, is a robot's)
    recorded = prepare_action(game, engine.State.from_dict(game.state), seat.seat, TIMEOUT, MoveBy.TIMER, now=now)
    recorded.seats.append(seat)
    return recorded


def _forget_ids(recorded: RecordedMove) -> None:
    """Rows of a write that was rolled back are written again as new rows."""
    for row in (recorded.move, *recorded.rounds_started):
        row.pk = None
        row._state.adding = True


def _write(recorded: list[RecordedMove]) -> list[RecordedMove]:
    """Write ``recorded`` in one go (a savepoint: a failure undoes these writes only);
    should that fail, each move in a savepoint of its own, so that a game whose rows
    cannot be written (a bug, a hand-edited row) neither stops the others nor rolls
    back their moves.  A transient failure (a lock wait given up, a lost connection)
    is raised: the whole batch is rolled back and the next sweep takes it again.
    Returns the moves written."""
    if not recorded:
        return []
    try:
        with transaction.atomic():
            write_moves(recorded)
        return recorded
    except TRANSIENT_ERRORS:
        raise
    except Exception:
        if len(recorded) == 1:
            log.exception("game %s: its timer move could not be written", recorded[0].game.pk)
            return []
        log.warning("a batch of %s timer moves could not be written at once: writing them one by one", len(recorded),
                    exc_info=True)
    written = []
    for one in recorded:
        _forget_ids(one)
        try:
            with transaction.atomic():
                write_moves([one])
            written.append(one)
        except TRANSIENT_ERRORS:
            raise
        except Exception:
            log.exception("game %s: its timer move could not be written", one.game.pk)
    return written


def enforce_batch(limit: int, *, game_id: int | None = None, version: int | None = None,
                  exclude: Sequence[int] = (), skip_locked: bool = True) -> Batch:
    """One transaction of the sweeper: take up to ``limit`` overdue games (only
    ``game_id``, at ``version``, when given; none of ``exclude``), read their seats in
    one query, apply the timer's ``timeout`` for each game whose decision a human seat
    owes, and write every move, game row and seat in one statement per table.  The games whose
    decision a robot owes are returned for :func:`bot_step` (run them after the
    commit: a bot decides without a lock).  Follow-ups (``after_move``) are queued,
    after the commit, only for the games that call for any (bots, webhooks,
    countdowns).  Safe to run twice, late and concurrently: every game is locked and
    its deadline re-checked in the same transaction."""
    batch = Batch()
    with transaction.atomic():
        now = timezone.now()
        games = _overdue(now, limit, game_id, exclude, skip_locked)
        batch.taken = len(games)
        selectors.load_seats_of(games)
        recorded = []
        for game in games:
            if version is not None and game.version != version:
                continue
            seat = next((s for s in game.seat_list if s.seat == game.current_seat), None)
            if scheduling.is_robot(seat):
                batch.robots.append((game.pk, game.version))
                continue
            try:
                recorded.append(_time_out(game, seat, now))
            except Exception:  # a broken game (or a bug) must not stop the others
                log.exception("game %s: the timer could not act for seat %s", game.pk, game.current_seat)
                batch.failed.append(game.pk)
        written = _write(recorded)
        kept = {id(one) for one in written}
        batch.failed += [one.game.pk for one in recorded if id(one) not in kept]
        for one in written:
            after_commit(one.game)
            batch.timed_out.append(one.game.pk)
            log.debug("game %s: seat %s timed out (%s in a row)", one.game.pk, one.move.seat, one.seats[0].timeouts)
    if batch.timed_out or batch.failed:
        log.info("deadlines: %s timer moves, %s failed, %s owed by a bot", len(batch.timed_out), len(batch.failed),
                 len(batch.robots))
    return batch


def _revive(robots: list[tuple[int, int]], until: float | None = None) -> int:
    """Let the robots owing these overdue decisions act (their tasks were lost), one
    game at a time: the first in any case, the others until ``time.monotonic()``
    reaches ``until`` (those left stay overdue: the next sweep takes them).  Returns
    how many acted."""
    done = 0
    for i, (game_id, version) in enumerate(robots):
        if i and until is not None and time.monotonic() >= until:
            break
        try:
            done += bot_step(game_id, version)
        except TRANSIENT_ERRORS:
            raise
        except Exception:  # one broken game must not stop the others
            log.exception("game %s: reviving its bot failed", game_id)
    return done


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


def sweep_deadlines(budget: float | None = None) -> int:
    """Enforce overdue deadlines, a batch (:func:`enforce_batch`) per transaction, as
    long as full batches come back (deadlines keep passing meanwhile) and for at most
    ``budget`` seconds (default: ``UNO_SWEEP_SECONDS``, the period at which beat sends
    the next sweep; the pool process is then free for other tasks).  The decisions
    owed by robots whose tasks were lost are left out of the following batches and
    taken after them, so that a crowd of them (a flushed broker) never holds up the
    humans' timeouts.  Returns how many deadlines were acted on."""
    if not Game.objects.filter(status=GameStatus.ACTIVE, deadline__lte=timezone.now()).exists():
        return 0  # (on SQLite: no write lock taken when there is nothing to do)
    limit = batch_size()
    ends = time.monotonic() + (settings.UNO_SWEEP_SECONDS if budget is None else budget)
    done, robots = 0, []
    while True:
        batch = enforce_batch(limit, exclude=[game_id for game_id, _ in robots])
        done += len(batch.timed_out)
        robots += batch.robots
        if batch.taken < limit or not (batch.timed_out or batch.robots) or time.monotonic() >= ends:
            return done + _revive(robots, until=ends)
