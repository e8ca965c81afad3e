"""Deadlines and follow-up work after a move.

Deadlines live in the database (``Game.deadline``).  The beat task
``sweep_deadlines`` (every ``UNO_SWEEP_SECONDS``, half a second by default)
enforces every overdue deadline, many games per transaction
(``robots.sweep_deadlines``), whatever happened to any queued task.  After every
committed move ``after_move`` enqueues a bot step when the game has bot or
autopilot seats, the move's webhook notifications, and, only when
``UNO_TIMER_FAST_PATH_SECONDS`` is set (off by default: the sweeper's half-second
tick is the timer), a countdown task for a human's short deadline.  Every task
re-checks the game's version and is harmless when run twice or late.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.utils import timezone

from games import notifications, selectors
from games.models import Game, GameStatus, Seat

log = logging.getLogger(__name__)


def is_robot(seat: Seat | None) -> bool:
    """Whether a bot plays ``seat`` (a bot seat, or a human's on autopilot)."""
    return seat is not None and (seat.is_bot or seat.autopilot)


def _countdowns() -> bool:
    """Whether a human's short deadline also gets a countdown task (the fast path,
    ``UNO_TIMER_FAST_PATH_SECONDS`` > 0; the sweeper enforces it in any case)."""
    return settings.UNO_TIMER_FAST_PATH_SECONDS > 0


def deadline_for(game: Game, now):
    """When the decision now owed in ``game`` is overdue (None: no limit)."""
    if game.status != GameStatus.ACTIVE or game.current_seat is None:
        return None
    seat = next((s for s in selectors.seats_of(game) if s.seat == game.current_seat), None)
    if is_robot(seat):
        # A bot acts by itself; this deadline only revives a bot whose task was lost.
        return now + timedelta(seconds=settings.UNO_BOT_THINK_SECONDS + settings.UNO_BOT_STALL_SECONDS)
    if game.turn_seconds:
        return now + timedelta(seconds=game.turn_seconds)
    return None


def _enqueue(task: str, args: tuple, countdown: float) -> bool:
    """Send the task named ``task`` (by name: games.tasks imports what schedules it);
    a broker failure is logged, never raised (the move is committed already, and its
    deadline in the database is enforced by the sweeper)."""
    try:
        current_app.send_task(task, args, countdown=countdown)
        return True
    except Exception:
        log.exception("could not enqueue %s%r: left to the deadline sweeper", task, args)
        return False


def has_follow_ups(game: Game, seats: list[Seat]) -> bool:
    """Whether :func:`after_move` may have work after the move that brought ``game``
    to its version, judged without a query from ``game`` and its ``seats`` as read in
    that move's transaction (by ``selectors.load_seats``, with ``webhook_id``).  False
    when no seated player has a webhook and the game is over or has neither a robot
    seat nor a deadline that gets a countdown task: the move then skips ``after_move``
    and its queries (whatever changes the game after the move commits schedules its
    own follow-ups; the sweeper enforces deadlines).  Keep in step with
    ``after_move`` and ``notifications.after_move``."""
    if any(s.webhook_id is not None for s in seats):  # notifications.after_move's subscribers
        return True
    if game.status != GameStatus.ACTIVE:
        return False
    return (_countdowns() and game.deadline is not None) or any(is_robot(s) for s in seats)


def after_move(game_id: int, version: int) -> None:
    """Enqueue what a committed move calls for (runs in ``transaction.on_commit``).

    Never raises: the move it follows is committed, and the request or task that
    made it must not fail because the broker (or a notification) did.
    """
    try:
        game = Game.objects.filter(pk=game_id).first()
        if game is None or game.version != version:
            return  # a newer move has scheduled its own follow-ups
        try:
            notifications.after_move(game)
        except Exception:
            log.exception("game %s: notifications for version %s failed", game_id, version)
        if game.status != GameStatus.ACTIVE:
            return
        seats = {s.seat: s for s in game.seats.all()}  # one query for both checks below
        if any(is_robot(s) for s in seats.values()):
            _enqueue("games.tasks.bot_step", (game_id, version), settings.UNO_BOT_THINK_SECONDS)
        if (_countdowns() and game.deadline is not None and game.turn_seconds
                and not is_robot(seats.get(game.current_seat))):
            # (a robot's deadline only revives a lost bot task: the sweeper's job)
            delay = (game.deadline - timezone.now()).total_seconds()
            if delay <= settings.UNO_TIMER_FAST_PATH_SECONDS:
                _enqueue("games.tasks.expire_deadline", (game_id, version), max(0.0, delay))
    except Exception:
        log.exception("game %s: scheduling after version %s failed", game_id, version)
