"""Follow-up work after a move: bot steps and the timer's countdown tasks.

A listener of the "move committed" signal (``games.signals``, registered by
``GamesConfig.ready``): services never import this module.  Deadlines live in the
database (``Game.obligations``, the earliest in the indexed ``Game.deadline``): the
beat task ``sweep_deadlines`` (every ``UNO_SWEEP_SECONDS``, half a second by default)
enforces every overdue one, many games per transaction (``robots.sweep_deadlines``),
whatever happened to any queued task.  After every committed move :func:`after_move`
enqueues a bot step when the game has bot or autopilot seats (after the think time;
a step whose robots wait, a person's reaction time, comes back when the first is due:
``robots.bot_step``), and, only when ``UNO_TIMER_FAST_PATH_SECONDS`` is set (off by default: the
sweeper's half-second tick is the timer), a countdown task for a human's short
deadline.  Tasks are sent by name (``games.tasks`` imports what they call); every
task re-checks the game's version and is harmless when run twice or late.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from celery import current_app
from django.conf import settings
from django.utils import timezone

from games import obligations
from games.models import Game, GameStatus, Seat
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
        queue_bot_step(game.pk, game.version, settings.UNO_BOT_THINK_SECONDS)
    if _countdowns() and game.deadline is not None:
        # a human's deadline (a robot's only revives a lost bot task: the sweeper's job)
        owed = obligations.current(game, list(seats.values()))
        human = [o.deadline for o in owed if o.deadline is not None and not is_robot(seats.get(o.seat))]
        if human:
            delay = (min(human) - timezone.now()).total_seconds()
            if delay <= settings.UNO_TIMER_FAST_PATH_SECONDS:
                _enqueue("games.tasks.expire_deadline", (game.pk, game.version), max(0.0, delay))


def queue_bot_step(game_id: int, version: int, delay: float, expires: float | None = None,
                   queue: str | None = None) -> bool:
    """Send a bot step for ``game_id`` at ``version`` in ``delay`` seconds (at once if
    negative), dropped unrun if no worker has started it ``expires`` seconds after it
    was due (None: never dropped), on ``queue`` (None: the default queue)."""
    delay = max(0.0, delay)
    return _enqueue("games.tasks.bot_step", (game_id, version), delay, None if expires is None else delay + expires,
                    queue)
