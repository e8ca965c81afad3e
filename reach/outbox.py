"""The outbox's writers: what to send is decided inside the transaction of the change it
tells of, and written there as :class:`reach.models.Message` rows (nothing is sent here).

- :func:`after_move` (a ``games.signals.in_move`` hook, in the move's transaction, in a
  savepoint): ``game_started`` (the move that dealt the first round), ``game_finished``
  (with the result), ``your_turn`` (a decision newly owed by a human seat, in a game whose
  turn lasts at least ``UNO_REACH_MIN_TURN_SECONDS`` or has no limit, due
  ``UNO_REACH_YOUR_TURN_DELAY_SECONDS`` after it began) and the reminders before that
  decision's deadline (when a quarter of the turn is left, ``UNO_REACH_REMIND_FRACTION``,
  and one hour before, ``UNO_REACH_REMIND_SECONDS``);
- :func:`after_notices` (a ``notices.services`` listener, in the meeting layer's
  transaction): ``challenge`` (a challenge received) and ``rematch`` (a rematch offered).

Only players whose ``reachable`` flag is set (a channel that can carry something:
``reach.services.refresh_reachable``) get rows: a game without them costs its moves
nothing (``wants``, judged from the seats the move read).  Each row's ``key`` makes it
once per player, kind, game and obligation (a hook run twice writes nothing more).  Once
the transaction commits, the rows due at once get a delivery task; the beat sweeper
queues one at the due time of each row that comes due before its next run, and delivers
every due row anyway (``reach.delivery.sweep``): a move that writes only rows due later
(a "your turn" after its delay, reminders) queues nothing.

Bodies are built from public facts only (names, the preset's title, the game's link, the
deadline, a finished game's scores): never a card, never a hand.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import obligations, rulesets
from games import services as games
from games.models import Game, GameStatus, MoveBy, Seat
from reach.models import Message

log = logging.getLogger(__name__)


def setting(name: str) -> Any:
    return getattr(settings, name)


def preset_title(ruleset: str) -> str:
    text = rulesets.PRESET_TEXTS.get(ruleset)
    return text.title if text is not None else ruleset


def seat_name(seat: Seat) -> str:
    if seat.player_id is None:
        return f"a bot ({seat.bot_level or 'normal'})"
    return seat.player.username


def _reachable(seat: Seat) -> bool:
    return seat.player_id is not None and bool(getattr(seat.player, "reachable", False))


def wants(game: Game, seats: Sequence[Seat]) -> bool:
    """The move hook's test: a seated player is reachable (read with the seats)."""
    return any(_reachable(s) for s in seats)


def correspondence(game: Game) -> bool:
    """A game slow enough that its players are told of their turn away from it."""
    return game.turn_seconds is None or game.turn_seconds >= setting("UNO_REACH_MIN_TURN_SECONDS")


def _facts(game: Game, seats: Sequence[Seat], seat: Seat) -> dict[str, Any]:
    return {
        "game": game.pk,
        "ruleset": game.ruleset,
        "title": preset_title(game.ruleset),
        "seat": seat.seat,
        "opponents": [seat_name(s) for s in seats if s.seat != seat.seat],
        "turn_seconds": game.turn_seconds,
    }


def after_move(game: Game, seats: Sequence[Seat], move: Any) -> None:
    """The rows the move ``move`` that brought ``game`` to its version calls for (see the
    module docstring); only the last move of a game in a batch counts (the game as it is).
    ``move`` None: the game's clocks moved without a move (an away period,
    ``games.away``): only the reminders of the new deadlines are written
    (:func:`after_clocks_moved`; those of the old ones are skipped when due)."""
    if move is None:
        after_clocks_moved(game, seats)
        return
    if move.seq != game.version:
        return
    now = game.updated_at or timezone.now()
    reachable = {s.seat: s for s in seats if _reachable(s)}
    rows: list[Message] = []

    def add(seat: Seat, kind: str, key: str, due: datetime, **data: Any) -> None:
        rows.append(Message(player_id=seat.player_id, kind=kind, key=key, game_id=game.pk, due_at=due,
                            data={**_facts(game, seats, seat), **data}))

    if game.version == 1:
        for s in reachable.values():
            add(s, "game_started", f"game_started:{game.pk}", now)
    if game.status == GameStatus.FINISHED:
        scores = list((game.state or {}).get("scores") or [])
        winners = sorted({game.winner_seat} if game.winner_seat is not None else set())
        state_winners = (game.state or {}).get("winners")
        if state_winners:
            winners = sorted(state_winners)
        result = [{"name": seat_name(s), "score": scores[s.seat] if s.seat < len(scores) else None,
                   "won": s.seat in winners} for s in seats]
        for s in reachable.values():
            add(s, "game_finished", f"game_finished:{game.pk}", now, result=result,
                won=s.seat in winners)
    if game.status == GameStatus.ACTIVE and correspondence(game):
        by_player = move is not None and move.by == MoveBy.PLAYER and game.version > 1 and move.round == game.round
        for o in obligations.current(game, seats):
            seat = reachable.get(o.seat)
            if seat is None or o.enforce != obligations.TIMEOUT or seat.autopilot or seat.left:
                continue
            ident = f"{game.pk}:{o.seat}:{o.decision}:{o.since}"
            fresh = o.at == now  # its clock started with this move (a new decision, or a new player's)
            about = {"decision": o.decision, "since": o.since, "at": o.at.isoformat(),
                     "deadline": o.deadline.isoformat() if o.deadline else None}
            if o.since == game.version and not (by_player and o.seat == move.seat):
                delay = timedelta(seconds=setting("UNO_REACH_YOUR_TURN_DELAY_SECONDS"))
                add(seat, "your_turn", f"your_turn:{ident}", o.at + delay, **about)
            if o.deadline is not None and fresh:
                for which, at in reminder_times(o.at, o.deadline):
                    add(seat, "reminder", f"reminder:{ident}:{int(o.deadline.timestamp())}:{which}", at, **about)
    if rows:
        write(rows)


def after_clocks_moved(game: Game, seats: Sequence[Seat]) -> None:
    """The reminders of each reachable player's decisions whose deadline an away period
    moved: when a quarter of the turn is left and an hour before the new deadline, as a
    fresh clock's would be (``turn_seconds`` before that deadline), those still ahead; one
    that would fall while the clock stands still (the player away) comes at their return.
    No "your turn": the decision is the same one, already told of."""
    if game.status != GameStatus.ACTIVE or not correspondence(game) or not game.turn_seconds:
        return
    now = timezone.now()
    reachable = {s.seat: s for s in seats if _reachable(s)}
    rows: list[Message] = []
    for o in obligations.current(game, seats):
        seat = reachable.get(o.seat)
        if seat is None or o.enforce != obligations.TIMEOUT or o.deadline is None or seat.autopilot or seat.left:
            continue
        ident = f"{game.pk}:{o.seat}:{o.decision}:{o.since}"
        about = {"decision": o.decision, "since": o.since, "at": o.at.isoformat(), "deadline": o.deadline.isoformat()}
        start = o.deadline - timedelta(seconds=game.turn_seconds)
        back = o.paused_until or now  # none while the clock stands still: at the player's return at the soonest
        for which, at in reminder_times(start, o.deadline):
            at = max(at, back)
            if now < at < o.deadline:
                rows.append(Message(player_id=seat.player_id, kind="reminder", game_id=game.pk, due_at=at,
                                    key=f"reminder:{ident}:{int(o.deadline.timestamp())}:{which}",
                                    data={**_facts(game, seats, seat), **about}))
    if rows:
        write(rows)


def reminder_times(start: datetime, deadline: datetime) -> list[tuple[str, datetime]]:
    """When to remind a player of a decision owed from ``start`` until ``deadline``: when
    ``UNO_REACH_REMIND_FRACTION`` of the time is left, and ``UNO_REACH_REMIND_SECONDS``
    before the deadline; only those after ``start`` (a one-hour turn gets no "one hour
    left"), and one of two that fall within a minute of each other."""
    total = (deadline - start).total_seconds()
    out: list[tuple[str, datetime]] = []
    fraction = setting("UNO_REACH_REMIND_FRACTION")
    if fraction and 0 < fraction < 1:
        out.append(("fraction", deadline - timedelta(seconds=total * fraction)))
    before = setting("UNO_REACH_REMIND_SECONDS")
    if before and before < total:
        at = deadline - timedelta(seconds=before)
        if not any(abs((at - other).total_seconds()) < 60 for _, other in out):
            out.append(("before", at))
    return [(which, at) for which, at in out if at > start]


#: the notices of the meeting layer that reach tells of, and the kind each is
NOTICE_KINDS = {"challenge": "challenge", "rematch_offer": "rematch"}


def after_notices(notices: list) -> None:
    """Rows for the player notices that reach tells of (a ``notices.services`` listener,
    in the writer's transaction): a challenge received, a rematch offered."""
    wanted = [n for n in notices if n.kind in NOTICE_KINDS]
    if not wanted:
        return
    from players.models import Player

    reachable = set(Player.objects.filter(pk__in={n.player_id for n in wanted}, reachable=True)
                    .values_list("pk", flat=True))
    now = timezone.now()
    rows = []
    for n in wanted:
        if n.player_id not in reachable:
            continue
        data = dict(n.data)
        kind = NOTICE_KINDS[n.kind]
        if kind == "challenge":
            ident = data.get("challenge")
            facts = {"challenge": ident, "from": data.get("from"), "ruleset": data.get("ruleset"),
                     "title": preset_title(str(data.get("ruleset"))), "turn_seconds": data.get("turn_seconds"),
                     "expires_at": data.get("expires_at"), "rated": data.get("rated")}
            game_id = None
        else:
            ident = data.get("game")
            facts = {"game": ident, "from": data.get("by"), "expires_at": data.get("expires_at")}
            game_id = ident
        rows.append(Message(player_id=n.player_id, kind=kind, key=f"{kind}:{ident}", game_id=game_id,
                            due_at=now, data=facts))
    if rows:
        write(rows)


def write(rows: list[Message]) -> None:
    """Insert ``rows`` (a row already written for its player and key is left as it is),
    and queue a delivery task after the commit for each player's rows due at once (one
    task), and each due time within ``UNO_REACH_FAST_PATH_SECONDS`` (0 by default: none;
    the sweeper queues a task for each message before it comes due)."""
    games.insert_rows(rows, ignore_conflicts=True)  # (the move path's prepared INSERT)
    now = timezone.now()
    soon: dict[int, set[datetime]] = {}
    horizon = now + timedelta(seconds=setting("UNO_REACH_FAST_PATH_SECONDS"))
    for row in rows:
        if row.due_at <= horizon:
            soon.setdefault(row.player_id, set()).add(max(row.due_at, now))
    if soon:
        transaction.on_commit(lambda: queue(soon))


def queue(due: dict[int, datetime | set[datetime]]) -> None:
    """Send a delivery task per player and due time (never raises: the sweeper
    delivers what a lost task would have)."""
    now = timezone.now()
    for player_id, times in due.items():
        for at in sorted(times) if isinstance(times, set) else [times]:
            try:
                current_app.send_task("reach.tasks.deliver", (player_id,),
                                      countdown=max(0.0, (at - now).total_seconds()))
            except Exception:
                log.warning("could not queue the notifications of player %s (the sweeper delivers them)",
                            player_id, exc_info=True)
                return
