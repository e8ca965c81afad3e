"""The "move committed" signal: what runs after a move of a game commits.

Recording a move (``games.services``) and what follows it (bots, timers' countdowns,
webhooks) are separate: services call :func:`on_commit` inside the transaction that
recorded the move, and know nothing of its listeners.  The listeners are registered
once, at start-up (``GamesConfig.ready``): ``games.scheduling`` (bot steps, countdown
tasks) and ``games.notifications`` (webhooks).  So services never import the
scheduler or the tasks, and tasks call services, never the reverse.

A listener is two functions:

- ``wants(game, seats)``: whether it may have work after the move that brought
  ``game`` to its version, judged without a query from the game and its seats as read
  in that move's transaction (``selectors.load_seats``, with ``webhook_id``).  A move
  none wants runs nothing after its commit (a request's move path then costs no
  query more);
- ``run(game)``: the work, after the commit, with the game as committed at that
  version (read once for all listeners; nothing runs when a newer move committed
  meanwhile: that move has its own follow-ups).

Nothing here may fail a move: a listener's exception is logged, never raised.

A game's end also has hooks that run *inside* the transaction that records it
(:func:`on_finish`, :func:`game_finished`): what must commit with the result or not
at all (the ratings: ``standing``).  Each runs in a savepoint; its exception is logged
and rolled back to the savepoint, never the move (the hook's owner must catch up
later: ``standing.tasks.rate_missed``).

Every recorded move has hooks of that kind too (:func:`in_move`, :func:`move_recorded`):
what must commit with the move or not at all, e.g. the outbox of the notifications that
reach players who are away (``reach``: "your turn", reminders, game started, finished).
Each runs in a savepoint when its ``wants(game, seats)``, judged without a query (a flag
read with the seats), says it has work: a game that no hook wants costs its moves nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from typing import Any

from django.db import transaction

from games.models import Game, Seat

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Listener:
    name: str
    wants: Callable[[Game, Sequence[Seat]], bool]
    run: Callable[[Game], None]


_listeners: dict[str, Listener] = {}


def listen(name: str, *, wants: Callable[[Game, Sequence[Seat]], bool], run: Callable[[Game], None]) -> None:
    """Register (or replace) the listener ``name``; listeners run in registration order."""
    _listeners[name] = Listener(name, wants, run)


def has_follow_ups(game: Game, seats: Sequence[Seat]) -> bool:
    """Whether any listener may have work after the move that brought ``game`` to its
    version (see ``Listener.wants``)."""
    return any(listener.wants(game, seats) for listener in _listeners.values())


def on_commit(game: Game) -> None:
    """Have the listeners run once the transaction that brought ``game`` to its version
    commits, unless its seats (``seat_list``, loaded in that transaction) show that
    none would find anything to do."""
    seats = getattr(game, "seat_list", None)
    if seats is not None and not has_follow_ups(game, seats):
        return  # spares the request the listeners' queries, which would find nothing to do
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: committed(game_id, version))


def committed(game_id: int, version: int) -> None:
    """Run every listener for ``game_id`` at ``version`` if it is still at that version
    (after the commit; again, harmlessly, to re-queue a version's follow-ups).  Never
    raises: the move is committed, and whatever made it must not fail because a
    listener (or the broker behind it) did."""
    try:
        game = Game.objects.filter(pk=game_id).first()
    except Exception:
        log.exception("game %s: reading it after version %s failed", game_id, version)
        return
    if game is None or game.version != version:
        return  # a newer move has its own follow-ups
    for listener in _listeners.values():
        try:
            listener.run(game)
        except Exception:
            log.exception("game %s: %s after version %s failed", game_id, listener.name, version)


@dataclass(frozen=True)
class FinishHook:
    name: str
    #: (game) -> whether it has work for this game (judged without a query): a game none
    #: wants costs its last move nothing more (not even a savepoint)
    wants: Callable[[Game], bool]
    run: Callable[[Game, Sequence[Seat], Any], None]


_finish_hooks: dict[str, FinishHook] = {}


def on_finish(name: str, run: Callable[[Game, Sequence[Seat], Any], None],
              wants: Callable[[Game], bool] = lambda game: True) -> None:
    """Register (or replace) ``run(game, seats, state)``: called inside the transaction
    of the move that finished ``game`` (its row locked, the move written; ``state`` the
    engine's finished state), in a savepoint of its own, when ``wants(game)``."""
    _finish_hooks[name] = FinishHook(name, wants, run)


def game_finished(game: Game, seats: Sequence[Seat], state: Any) -> None:
    """Run every finish hook for ``game`` (see :func:`on_finish`); never raises."""
    for hook in _finish_hooks.values():
        if not hook.wants(game):
            continue
        try:
            with transaction.atomic():
                hook.run(game, seats, state)
        except Exception:
            log.exception("game %s: %s at its end failed", game.pk, hook.name)


@dataclass(frozen=True)
class MoveHook:
    name: str
    #: (game, seats) -> whether it has work after this move, judged without a query from
    #: the game and its seats as the move read them (their players' columns included)
    wants: Callable[[Game, Sequence[Seat]], bool]
    run: Callable[[Game, Sequence[Seat], Any], None]


_move_hooks: dict[str, MoveHook] = {}


def in_move(name: str, run: Callable[[Game, Sequence[Seat], Any], None],
            wants: Callable[[Game, Sequence[Seat]], bool] = lambda game, seats: True) -> None:
    """Register (or replace) ``run(game, seats, move)``: called inside the transaction of
    every recorded move (the game row locked and written at its new version; ``move`` the
    ``Move`` just written, ``seats`` the game's seats with their players), in a savepoint
    of its own, when ``wants(game, seats)``.  ``move`` is None when the game's clocks
    moved without a move (a player's away period began, ended or changed: ``games.away``):
    the deadlines in ``game.obligations`` are new, nothing else is.  Its exception is logged and rolled back to
    the savepoint, never the move."""
    _move_hooks[name] = MoveHook(name, wants, run)


def move_recorded(game: Game, seats: Sequence[Seat], move: Any) -> None:
    """Run every move hook for ``move`` of ``game`` (see :func:`in_move`); never raises."""
    for hook in _move_hooks.values():
        try:
            if not hook.wants(game, seats):
                continue
            with transaction.atomic():
                hook.run(game, seats, move)
        except Exception:
            log.exception("game %s: %s after version %s failed", game.pk, hook.name, game.version)
