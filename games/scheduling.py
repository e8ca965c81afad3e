"""Follow-up work after a move: bot steps and the timer's countdown tasks.

A listener of the "move committed" signal (``games.signals``, registered by
``GamesConfig.ready``): services never import this module.  Deadlines live in the
database (``Game.obligations``, the earliest in the indexed ``Game.deadline``): the
beat task ``sweep_deadlines`` (every ``UNO_SWEEP_SECONDS``, half a second by default)
enforces every overdue one, many games per transaction (``robots.sweep_deadlines``),
whatever happened to any queued task.  After every committed move :func:`after_move`
enqueues a bot step when the game has bot or autopilot seats (after the think time;
a step whose robots wait, a person's reaction time, comes back when the first is due:
``robots.bot_step``), each within its owner's share of the workers
(``games.botqueue``: a step past it is held back and handed a slot by :func:`hand_over`
or :func:`dispatch_deferred`), and, only when ``UNO_TIMER_FAST_PATH_SECONDS`` is set (off by default: the
sweeper's half-second tick is the timer), a countdown task for a human's short
deadline.  Tasks are sent by name (``games.tasks`` imports what they call); every
task re-checks the game's version and is harmless when run twice or late.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from games import botqueue, obligations
from games.models import DeferredBotStep, Game, GameStatus, Seat
from games.obligations import is_robot

log = logging.getLogger(__name__)


def _countdowns() -> bool:
    """Whether a human's short deadline also gets a countdown task (the fast path,
    ``UNO_TIMER_FAST_PATH_SECONDS`` > 0; the sweeper enforces it in any case)."""
    return settings.UNO_TIMER_FAST_PATH_SECONDS > 0


def _enqueue(task: str, args: tuple, countdown: float, expires: float | None = None, queue: str | None = None) -> bool:
    """Send the task named ``task`` (dropped unrun by the worker if it has not started
    within ``expires`` seconds, when given); a broker failure is logged, never raised
    (the move is committed already, and its deadlines in the database are enforced by
    the sweeper)."""
    try:
        current_app.send_task(task, args, countdown=countdown, expires=expires, queue=queue)
        return True
    except Exception:
        log.exception("could not enqueue %s%r: left to the deadline sweeper", task, args)
        return False


def wants(game: Game, seats: Sequence[Seat]) -> bool:
    """The listener's test (``signals.Listener.wants``): a running game with a robot
    seat (a bot step), or a deadline that gets a countdown task."""
    if game.status != GameStatus.ACTIVE:
        return False
    return (_countdowns() and game.deadline is not None) or any(is_robot(s) for s in seats)


def after_move(game: Game) -> None:
    """Enqueue what the move that brought ``game`` to its version calls for (after its
    commit; ``game`` as committed): a bot step after the think time when a robot plays
    a seat (it acts on whatever its seat owes, and on its out-of-turn chances), and a
    countdown task for a human's short deadline when the fast path is on."""
    if game.status != GameStatus.ACTIVE:
        return
    seats = {s.seat: s for s in game.seats.all()}
    if any(is_robot(s) for s in seats.values()):
        queue_bot(game.pk, game.version, game.creator_id, settings.UNO_BOT_THINK_SECONDS)
    if _countdowns() and game.deadline is not None:
        # a human's deadline (a robot's only revives a lost bot task: the sweeper's job)
        owed = obligations.current(game, list(seats.values()))
        human = [o.deadline for o in owed if o.deadline is not None and not is_robot(seats.get(o.seat))]
        if human:
            delay = (min(human) - timezone.now()).total_seconds()
            if delay <= settings.UNO_TIMER_FAST_PATH_SECONDS:
                _enqueue("games.tasks.expire_deadline", (game.pk, game.version), max(0.0, delay))


def queue_bot(game_id: int, version: int, owner: int, delay: float) -> bool:
    """The next bot step of ``game_id`` at ``version`` (a game of ``owner``'s), in
    ``delay`` seconds (the bots' think time): queued with a free slot of the owner's
    share of the workers, held through the think time, or, every slot of the owner's
    being held, held back in the database until one is free (``games.botqueue``).  True
    if queued now."""
    due = timezone.now() + timedelta(seconds=max(0.0, delay))
    lease = botqueue.acquire(owner, game_id)
    if lease is None:
        return hold_back(game_id, version, owner, due) > 0
    return _send_with(lease, game_id, version, due)


def hold_back(game_id: int, version: int, owner: int, due: datetime | None = None) -> int:
    """Hold the step of ``game_id`` at ``version`` back until a slot of ``owner``'s is
    free (``botqueue.defer``), then look again at once: the steps that held the slots may
    have ended between the failed ``acquire`` and the held-back row, and their hand-over
    found no row, so the slot they gave back is taken here rather than left to the
    sweeper.  How many held-back steps of the owner were queued (this one or others due
    before it)."""
    botqueue.defer(game_id, version, owner, due)
    return hand_over(owner)


def _send_with(lease: botqueue.Lease, game_id: int, version: int, due: datetime) -> bool:
    """Queue the step of ``game_id`` at ``version`` for ``due`` holding ``lease``; if the
    broker refuses it, the slot goes back and the step is held back (the sweeper sends
    it again)."""
    delay = (due - timezone.now()).total_seconds()
    if queue_bot_step(game_id, version, delay, lease=None if lease.slot is None else lease.to_json()):
        return True
    botqueue.release(lease)
    if lease.slot is not None:
        botqueue.defer(game_id, version, lease.owner, due)
    return False


def _send_held(owner: int, game_id: int, version: int, due: datetime) -> bool | None:
    """Queue the held-back step of ``game_id`` at ``version`` with a free slot of
    ``owner``'s.  True: queued; False: the owner has no free slot; None: not queued
    (another taker had it, or the broker refused it: held back again)."""
    lease = botqueue.acquire(owner, game_id)
    if lease is None:
        return False
    if not botqueue.claim(game_id, version):
        botqueue.release(lease)
        return None
    return _send_with(lease, game_id, version, due) or None


def hand_over(owner: int) -> int:
    """One of ``owner``'s steps ended: its free slots go to the owner's held-back steps
    due first, each queued at once (or when due) with one.  How many were queued."""
    if not botqueue.per_owner():
        return 0
    queued = 0
    rows = botqueue.live().filter(owner_id=owner).values_list("game_id", "version", "since")
    for game_id, version, due in rows[:botqueue.per_owner()]:
        sent = _send_held(owner, game_id, version, due)
        if sent is False:
            break
        queued += bool(sent)
    return queued


def dispatch_deferred(limit: int = botqueue.SWEEP_LIMIT) -> int:
    """The sweeper's share (every ``UNO_SWEEP_SECONDS``): the held-back steps that are
    due (``limit`` looked at, due first) go to their owners' free slots, round robin
    across owners (``botqueue.round_robin``); the rows of games that moved on or ended
    are dropped.  Covers hand-overs that were lost and slots whose holders died.  How
    many were queued."""
    if not botqueue.per_owner() or not DeferredBotStep.objects.exists():
        return 0
    botqueue.drop_stale()
    rows = list(botqueue.live().filter(since__lte=timezone.now())
                .values_list("owner_id", "game_id", "version", "since")[:limit])
    full: set[int] = set()
    queued = 0
    for owner, game_id, version, due in botqueue.round_robin(rows):
        if owner in full:
            continue
        sent = _send_held(owner, game_id, version, due)
        if sent is False:
            full.add(owner)
        queued += bool(sent)
    if queued:
        log.debug("bot steps: %s held-back steps handed a free slot by the sweeper", queued)
    return queued


def queue_bot_step(game_id: int, version: int, delay: float, expires: float | None = None,
                   queue: str | None = None, lease: list | None = None) -> bool:
    """Send a bot step for ``game_id`` at ``version`` in ``delay`` seconds (at once if
    negative), dropped unrun if no worker has started it ``expires`` seconds after it
    was due (None: never dropped), on ``queue`` (None: the default queue), holding
    ``lease`` (a slot of its owner's share, ``games.botqueue.Lease.to_json``; None: the
    step takes one when it starts)."""
    delay = max(0.0, delay)
    args = (game_id, version) if lease is None else (game_id, version, lease)
    return _enqueue("games.tasks.bot_step", args, delay, None if expires is None else delay + expires, queue)


#: the queue of the timer's tasks (config/settings.py CELERY_TASK_ROUTES)
DEADLINES_QUEUE = "deadlines"


def queue_sweep(at: datetime | None) -> bool:
    """Queue a sweep of the deadlines for ``at`` (the next deadline, or lost bot step,
    a sweep saw ahead; in the past: at once) if that is before beat's next sweep could
    take it (``UNO_SWEEP_SECONDS``).  Times are rounded up to the next multiple of
    ``UNO_TIMER_RESOLUTION_SECONDS`` (0: never queued), and one sweep is queued per such
    slot across every worker and beat (a key in the cache), so that the deadlines falling
    within one slot are taken in one sweep and sweeps never multiply.  The sweep is on
    the timer's queue, dropped unrun if no worker has started it a beat period after its
    time (beat's own sweeps go on meanwhile).  True if queued."""
    step = settings.UNO_TIMER_RESOLUTION_SECONDS
    if at is None or step <= 0:
        return False
    now = time.time()
    target = max(at.timestamp(), now)
    if target - now > settings.UNO_SWEEP_SECONDS:
        return False  # beat's next sweep sees it first
    slot = math.ceil(target / step)
    # (an absolute time, not a countdown: the cache and the broker's round trips before
    # the message is stamped must not delay it)
    eta = datetime.fromtimestamp(slot * step, tz=dt_timezone.utc)
    try:
        fresh = cache.add(f"sweep-at:{slot}", 1, timeout=int(slot * step - now) + 2)
    except Exception:  # the cache is down (Redis restarting): beat's sweeps go on
        return False
    if not fresh:
        return False
    try:
        current_app.send_task("games.tasks.sweep_deadlines", (), {"woken": True}, eta=eta,
                              expires=eta + timedelta(seconds=max(settings.UNO_SWEEP_SECONDS, 2.0)),
                              queue=DEADLINES_QUEUE)
        return True
    except Exception:
        log.warning("could not queue a sweep for %s: left to beat's next", at, exc_info=True)
        return False
