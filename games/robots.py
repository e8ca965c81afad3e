"""Services for the seats nobody is playing right now: bots, autopilot and the timer.

Each function locks the game row, re-checks the game's version or deadline, and
does nothing when the game has moved on, so a task that runs twice or late is
harmless.
"""

from __future__ import annotations

import logging
import random

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.problems import ApiError
from games import bots, engine, scheduling
from games.models import Game, GameStatus, MoveBy, Seat
from games.services import apply_and_record

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


def expire_deadline(game_id: int, version: int | None = None, *, skip_locked: bool = False) -> bool:
    """Act for the seat whose deadline has passed; True if something was done.

    ``version`` None: whatever the version (the sweeper).  ``skip_locked``: give up
    at once when another transaction holds the game (the sweeper comes back); the
    countdown task waits for the lock instead, since a refused move holding it
    records nothing and schedules no new countdown.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update(skip_locked=skip_locked).filter(pk=game_id).first()
        if game is None or game.status != GameStatus.ACTIVE or game.deadline is None:
            return False
        if game.deadline > timezone.now() or (version is not None and game.version != version):
            return False
        seat = game.seats.get(seat=game.current_seat)
        if seat.is_bot or seat.autopilot:
            robot_version = game.version  # its bot task was lost: it decides below, unlocked
        else:
            seat.timeouts += 1
            if seat.timeouts >= settings.UNO_MAX_TIMEOUTS:
                seat.autopilot = True  # until its player acts again
            seat.save(update_fields=["timeouts", "autopilot"])
            state = engine.State.from_dict(game.state)
            apply_and_record(game, state, seat.seat, TIMEOUT, MoveBy.TIMER)
            log.info("game %s: seat %s timed out (%s in a row)", game.pk, seat.seat, seat.timeouts)
            return True
    return bot_step(game_id, robot_version)


def seconds_to_deadline(game_id: int, version: int) -> float | None:
    """Seconds until the deadline of ``game_id`` if it is still at ``version`` and the
    deadline is still ahead (a countdown task that fired early), else None."""
    game = Game.objects.filter(pk=game_id).only("status", "version", "deadline").first()
    if game is None or game.status != GameStatus.ACTIVE or game.version != version or game.deadline is None:
        return None
    left = (game.deadline - timezone.now()).total_seconds()
    return left if left > 0 else None


def sweep_deadlines(limit: int = 500) -> int:
    """Enforce overdue deadlines found in the database; returns how many were acted on."""
    overdue = (
        Game.objects.filter(status=GameStatus.ACTIVE, deadline__lte=timezone.now())
        .order_by("deadline")
        .values_list("id", flat=True)[:limit]
    )
    done = 0
    for game_id in list(overdue):
        try:
            done += expire_deadline(game_id, skip_locked=True)
        except Exception:  # one broken game must not stop the sweep of the others
            log.exception("game %s: enforcing its deadline failed", game_id)
    return done
