"""Every write to a game, one function each, inside ``transaction.atomic`` with the
game row locked.  A rejected request raises :class:`ApiError` and changes nothing.

Recording a move (:func:`prepare_move`, :func:`write_moves`) brings the game row to the
new state, its obligations and deadlines included (``games.obligations``), and emits
the "move committed" signal (``games.signals.on_commit``); what follows a move (bots,
countdowns, notifications) listens to it.  This module never imports the scheduler or
the tasks.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Mapping, Sequence

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, models, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from config import fanout
from config.problems import ApiError
from games import engine, obligations, selectors, signals
from games.engine import EngineError, InvalidOptions
from games.models import Game, GameStatus, IdempotencyRecord, Move, MoveBy, Round, Score, Seat

log = logging.getLogger(__name__)

BOT_LEVELS = ("random", "easy", "normal", "hard")
MAX_TURN_SECONDS = 14 * 24 * 3600
#: secret random bits of a new game's seed (its decimal digits fit ``Game.seed``)
SEED_BITS = 128

#: HTTP status and problem code for each engine error
ENGINE_ERRORS: dict[str, int] = {
    "invalid": 400,
    "unknown_card": 400,
    "not_your_card": 400,
    "illegal_move": 400,
    "not_your_turn": 409,
    "game_over": 409,
}


def engine_problem(exc: EngineError) -> ApiError:
    extra: dict[str, Any] = {}
    field = exc.extra.get("field")
    if field is not None:
        extra["fields"] = {field: [exc.detail]}
    return ApiError(ENGINE_ERRORS.get(exc.code, 400), exc.code, exc.detail, **extra)


def _lock(game_id: int) -> Game:
    return selectors.read_game(game_id, lock=True)


def _lock_for_action(game_id: int) -> Game:
    """The game locked, then its seats read (after the lock, so that no move or seat
    change can come in between): an action then validates, records, renders its
    answer and decides its follow-ups without another query."""
    return selectors.load_seats(_lock(game_id))


def _seat_of(game: Game, player) -> Seat:
    seat = next((s for s in selectors.seats_of(game) if s.player_id == player.pk), None)
    if seat is None:
        raise ApiError(403, "not_seated", "you are not seated in this game")
    return seat


def _explicit_options(game: Game) -> dict:
    return dict(game.options or {})


# --------------------------------------------------------------------------------------
# One player's share: how many games and bots a player may hold at once
# --------------------------------------------------------------------------------------
_UNFINISHED = (GameStatus.WAITING, GameStatus.ACTIVE)


def _refuse_past(code: str, limit: int, count: int, detail: str) -> None:
    """409 ``code`` when ``count`` (what the player would hold) passes ``limit`` (0: none)."""
    if limit and count > limit:
        raise ApiError(409, code, f"{detail}: {count - 1} already, at most {limit}", limit=limit)


def _check_share(player, *, creating: bool, bots: int = 0) -> None:
    """Refuse (409, with the ``limit``) a new seat of ``player`` past their share: the
    unfinished games they are seated in (``UNO_MAX_GAMES``) and, ``creating`` a game, the
    waiting games they created (``UNO_MAX_WAITING_GAMES``) and the bot seats of their
    unfinished games (``UNO_MAX_BOT_SEATS``, ``bots`` more).  Inside the caller's
    transaction, with the player's row locked first, so that two requests of one player
    cannot both pass (PostgreSQL: ``FOR UPDATE``, held to the commit; SQLite's
    transactions take the write lock up front).  Starting a game changes none of these
    counts, so creating and joining are the only doors."""
    # (NO KEY UPDATE where there is one: it queues concurrent checks of this player, not
    # the inserts that merely reference the player, a move's or a seat's)
    no_key = connection.features.has_select_for_no_key_update
    list(type(player).objects.select_for_update(no_key=no_key).filter(pk=player.pk).values_list("pk", flat=True))
    seated = Seat.objects.filter(player=player, game__status__in=_UNFINISHED).count()
    _refuse_past("too_many_games", settings.UNO_MAX_GAMES, seated + 1,
                 "too many unfinished games (waiting or running, left ones included)")
    if not creating:
        return
    waiting = Game.objects.filter(creator=player, status=GameStatus.WAITING).count()
    _refuse_past("too_many_waiting_games", settings.UNO_MAX_WAITING_GAMES, waiting + 1,
                 "too many waiting games created")
    if bots:
        held = Seat.objects.filter(player__isnull=True, game__creator=player, game__status__in=_UNFINISHED).count()
        limit = settings.UNO_MAX_BOT_SEATS
        if limit and held + bots > limit:
            raise ApiError(409, "too_many_bots", f"too many bot seats in your unfinished games: {held} already, "
                           f"{bots} more asked, at most {limit}", limit=limit)


# --------------------------------------------------------------------------------------
# Creating, joining, leaving, starting
# --------------------------------------------------------------------------------------
def _config(ruleset: str, options: Mapping[str, Any] | None, max_players: int, seed: str) -> engine.Config:
    """The engine's configuration of a new game; 400 ``invalid_options`` naming the field."""
    try:
        return engine.make_config(ruleset, options or {}, max_players, seed)
    except InvalidOptions as exc:
        field = exc.option if exc.option in ("ruleset", "max_players") else f"options.{exc.option}"
        raise ApiError(400, "invalid_options", exc.detail, fields={field: [exc.detail]}) from None


def create_game(
    *,
    creator,
    ruleset: str,
    options: Mapping[str, Any] | None = None,
    max_players: int | None = None,
    bots: list[dict] | None = None,
    turn_seconds: int | None = None,
    rated: bool = False,
    start_when_full: bool = False,
) -> Game:
    """A waiting game, its creator in seat 0 and ``bots`` after; ``start_when_full``: it
    starts by itself once every seat is taken (at once when the bots fill it)."""
    bots = list(bots or [])
    if max_players is None:
        max_players = max(2, 1 + len(bots)) if bots else 4
    if 1 + len(bots) > max_players:
        raise ApiError(400, "invalid", "more bots than free seats", fields={"bots": ["more bots than free seats"]})
    # every shuffle derives from the seed: the game shows it only once finished, and its
    # ``shuffle_commitment`` before (games stored earlier keep their 64-bit seeds)
    seed = str(secrets.randbits(SEED_BITS))
    config = _config(ruleset, options, max_players, seed)
    with transaction.atomic():
        _check_share(creator, creating=True, bots=len(bots))
        game = Game.objects.create(
            creator=creator,
            ruleset=ruleset,
            options=dict(options or {}),
            resolved_options=dict(config.options),
            max_players=max_players,
            turn_seconds=turn_seconds,
            seed=seed,
            rated=rated,
            start_when_full=start_when_full,
        )
        Seat.objects.create(game=game, seat=0, player=creator)
        Seat.objects.bulk_create(Seat(game=game, seat=i + 1, bot_level=b["level"]) for i, b in enumerate(bots))
        fanout.seats_written([(game.pk, None)])
        _start_if_full(game, 1 + len(bots))
    return game


def _start_if_full(game: Game, seated: int) -> None:
    """Start the waiting ``game`` (locked, or just created) when it asked to start by
    itself (``start_when_full``) and its ``seated`` players fill every seat: as its
    creator's ``POST /start`` would (:func:`_start`), in the caller's transaction."""
    if game.start_when_full and seated >= game.max_players:
        _start(game, game.creator)


def join_game(*, player, game_id: int) -> Game:
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != GameStatus.WAITING:
            raise ApiError(409, "game_not_waiting", f"the game is {game.status}; only waiting games can be joined")
        taken = set(game.seats.values_list("seat", flat=True))
        if game.seats.filter(player=player).exists():
            raise ApiError(409, "already_seated", "you are already seated in this game")
        if len(taken) >= game.max_players:
            raise ApiError(409, "game_full", "every seat is taken")
        _check_share(player, creating=False)  # (after the game's lock: always in that order)
        free = min(set(range(game.max_players)) - taken)
        Seat.objects.create(game=game, seat=free, player=player)
        game.save(update_fields=["updated_at"])
        _start_if_full(game, len(taken) + 1)
    return game


def leave_game(*, player, game_id: int) -> Game | None:
    """Leave a game: a waiting one frees the seat (returns None when the game was deleted
    as empty); a running one is left for good (:func:`_leave_running`)."""
    with transaction.atomic():
        game = _lock(game_id)
        seat = _seat_of(game, player)
        if game.status != GameStatus.WAITING:
            return _leave_running(game, seat)
        seat.delete()
        if game.creator_id == player.id:
            heir = game.seats.filter(player__isnull=False).order_by("seat").first()
            if heir is None:
                game.delete()
                return None
            game.creator_id = heir.player_id
        game.save(update_fields=["creator", "updated_at"])
    return game


def _leave_running(game: Game, seat: Seat) -> Game:
    """Leaving a running game is for good (an abandoned seat, as a resignation is on
    Lichess, except that the table plays on): the autopilot plays the seat to the end,
    and the player can no longer act in the game (:func:`act`: 403 ``left_game``) nor
    take the seat back; the game still lists them (``players[i].left``), and the seat's
    result is what the autopilot makes of it.  Leaving again changes nothing."""
    if game.status == GameStatus.FINISHED:
        raise ApiError(409, "game_finished", "the game is over")
    if seat.left:
        return game
    # What the seat owes becomes a robot's (its bot's time, and a deadline that revives
    # it if its task is lost; a window's own deadline stays).
    seats = selectors.load_seats(game).seat_list
    previous = obligations.current(game, seats)
    seat = next(s for s in seats if s.pk == seat.pk)
    seat.autopilot = seat.left = True
    seat.save(update_fields=["autopilot", "left"])
    obligations.record(game, engine.State.from_dict(game.state), seats, timezone.now(), acted=None,
                       previous=previous)
    game.save(update_fields=["updated_at", "obligations", "deadline", "bot_due", "current_seat"])
    signals.on_commit(game)
    return game


def create_table(
    *,
    seats: Sequence[Any],
    ruleset: str,
    options: Mapping[str, Any] | None = None,
    max_players: int | None = None,
    turn_seconds: int | None = None,
    rated: bool = False,
) -> Game:
    """A game created and started at once, for the meeting layer (a challenge accepted, a
    quick-play match, a rematch): ``seats`` in seat order, each a player or a bot
    (``{"level": ...}``); the first player is its creator.  Every player's share is
    checked (``UNO_MAX_ACTIVE_GAMES_PER_PLAYER``...).  Runs in the caller's transaction
    when there is one (what decided the table commits with the game, or neither)."""
    humans = [s for s in seats if not isinstance(s, Mapping)]
    if not humans:
        raise ValueError("a table needs a player")
    if len({h.pk for h in humans}) != len(humans):
        raise ApiError(409, "already_seated", "a player would sit twice at the table")
    max_players = len(seats) if max_players is None else max_players
    if len(seats) > max_players:
        raise ApiError(400, "invalid", "more seats than the game has")
    seed = str(secrets.randbits(SEED_BITS))
    config = _config(ruleset, options, max_players, seed)
    creator = humans[0]
    with transaction.atomic():
        game = Game.objects.create(
            creator=creator, ruleset=ruleset, options=dict(options or {}), resolved_options=dict(config.options),
            max_players=max_players, turn_seconds=turn_seconds, seed=seed, rated=rated,
        )
        for player in humans:  # (after the game's row, as join_game: always in that order)
            _check_share(player, creating=player is creator,
                         bots=sum(isinstance(s, Mapping) for s in seats) if player is creator else 0)
        created = Seat.objects.bulk_create(
            Seat(game=game, seat=i, bot_level=s["level"]) if isinstance(s, Mapping) else Seat(game=game, seat=i, player=s)
            for i, s in enumerate(seats)
        )
        fanout.seats_written((game.pk, s.player_id) for s in created)
        _start(game, creator)
    return game


def touch(game_id: int) -> None:
    """Mark game ``game_id`` changed without a move (its ``updated_at``), inside the
    caller's transaction: its ``ETag`` changes, and its open streams get a ``game``
    event with the new view (the live hub), e.g. when a member another app adds to
    its view changed (``selectors.register_view_field``: a rematch offer)."""
    fanout.games_written([game_id])
    Game.objects.filter(pk=game_id).update(updated_at=timezone.now())


def start_game(*, player, game_id: int) -> Game:
    with transaction.atomic():
        game = _lock(game_id)
        if game.creator_id != player.id:
            raise ApiError(403, "not_creator", "only the creator can start the game")
        if game.status != GameStatus.WAITING:
            raise ApiError(409, "game_not_waiting", f"the game is already {game.status}")
        _start(game, player)
    return game


def _start(game: Game, player) -> None:
    """Deal the first round of the waiting ``game`` (locked), started by ``player``."""
    seats = list(game.seats.order_by("seat"))
    preset = engine.PRESETS[game.ruleset]
    if len(seats) < preset.min_seats:
        raise ApiError(
            409, "not_enough_players", f"{game.ruleset} needs at least {preset.min_seats} seated players"
        )
    # Seats are numbered 0..n-1 in the order they were taken.
    for i, s in enumerate(seats):
        if s.seat != i:
            fanout.seats_written([(game.pk, s.player_id)])
            Seat.objects.filter(pk=s.pk).update(seat=i)
    events: list[dict] = []
    try:
        state = engine.new_game(game.ruleset, _explicit_options(game), len(seats), game.seed, events)
    except InvalidOptions as exc:  # options that need another count of players (teams: an even one)
        raise ApiError(409, "wrong_player_count", f"{exc.detail} ({len(seats)} seated)") from None
    game.status = GameStatus.ACTIVE
    game.started_at = timezone.now()
    creator_seat = next(i for i, s in enumerate(seats) if s.player_id == player.id)
    _record(prepare_move(game, state, 0, creator_seat, {"type": "start"}, events, MoveBy.PLAYER, player,
                         acting_seat=None, now=timezone.now()))


# --------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------
def act(
    *,
    game_id: int,
    player,
    action: Mapping[str, Any],
    expected_version: int | None = None,
) -> tuple[Game, int, list[dict]]:
    """A seated player's action; returns (game, seat, events)."""
    with transaction.atomic():
        game = _lock_for_action(game_id)
        seat_row = _seat_of(game, player)
        if game.status != GameStatus.ACTIVE:
            code = "game_not_started" if game.status == GameStatus.WAITING else "game_finished"
            raise ApiError(409, code, f"the game is {game.status}")
        if seat_row.left:
            raise ApiError(403, "left_game", "you left this game: the autopilot plays your seat to the end")
        if expected_version is not None and expected_version != game.version:
            raise ApiError(409, "stale_version", f"the game is at version {game.version}", version=game.version)
        state = engine.State.from_dict(game.state)
        back = bool(seat_row.timeouts or seat_row.autopilot)
        # acting again takes a seat off the autopilot of timeouts: its obligations are a
        # human's again (a seat left for good never comes back: refused above)
        # (set before the move, which gives them their deadlines; a refused action
        # writes nothing)
        seat_row.timeouts, seat_row.autopilot = 0, False  # the loaded seat the answer shows
        events = apply_and_record(game, state, seat_row.seat, action, MoveBy.PLAYER, player)
        if back:
            fanout.seats_written([(game.pk, seat_row.player_id)])
            Seat.objects.filter(pk=seat_row.pk).update(timeouts=0, autopilot=False)
    return game, seat_row.seat, events


def apply_and_record(game: Game, state: engine.State, seat: int, action: Mapping[str, Any], by: str, player=None):
    """Apply ``action`` to the locked ``game`` (whose state is ``state``) and record it."""
    recorded = prepare_action(game, state, seat, action, by, player)
    _record(recorded)
    return recorded.move.events


def prepare_action(
    game: Game, state: engine.State, seat: int, action: Mapping[str, Any], by: str, player=None, now=None
) -> RecordedMove:
    """Apply ``action`` of ``seat`` to ``state`` (the locked ``game``'s) and return what
    recording it changes (:func:`prepare_move`), written by nobody yet.  A refused
    action raises :class:`ApiError` and changes nothing.  The timer's ``timeout`` is
    a system action (the engine accepts it for the seat that owes the decision), and so
    is ``expire``, for a seat owing a window whose own deadline passed: that seat did not
    act in its turn (its turn's clock runs on)."""
    round_before = state.round
    try:
        events = engine.apply(state, seat, action, system=by == MoveBy.TIMER)
    except EngineError as exc:
        raise engine_problem(exc) from None
    acted = None if action.get("type") == "expire" else seat
    return prepare_move(game, state, round_before, seat, dict(action), events, by, player, acted,
                        timezone.now() if now is None else now)


#: the columns of the game row that a recorded move changes (start_game sets the
#: first two before its move); the others are left out of the UPDATE
_RECORDED_FIELDS = (
    "status", "started_at", "version", "state", "round", "current_seat", "winner_seat", "finished_at",
    "obligations", "deadline", "bot_due", "updated_at",
)


@dataclass
class RoundEnd:
    """A round that a move ended: its winner, when, and every seat's points."""

    number: int
    winner: int
    ended_at: datetime
    points: list[int]
    hand_points: list[int]


@dataclass
class RecordedMove:
    """Everything one recorded move writes, decided without a query
    (:func:`prepare_move`) and written by :func:`write_moves`, alone (a request, a bot
    step) or together with many others (the deadline sweeper's batches)."""

    game: Game
    move: Move
    rounds_started: list[Round]
    rounds_ended: list[RoundEnd]
    #: seat rows the caller changed with this move (the timer's timeout count and
    #: autopilot switch; the winners' ``won`` when it ended the game): written with it, so that a move that fails to be written
    #: leaves its seats as they were too
    seats: list[Seat]
    #: the game started or finished with this move: what is logged once it commits
    #: (:func:`_announce`; its id, ruleset and seats, never a card)
    news: dict[str, Any] | None = None
    #: the engine's state when this move finished the game (``signals.game_finished``)
    ended: engine.State | None = None
    #: every seat of the game, with its player, as the move read them (``signals.move_recorded``)
    all_seats: Sequence[Seat] = ()


def prepare_move(
    game: Game,
    state: engine.State,
    round_no: int,
    seat: int | None,
    action: dict,
    events: list[dict],
    by: str,
    player,
    acting_seat: int | None,
    now: datetime,
) -> RecordedMove:
    """What recording a move changes, each rule once: the move appended at the next
    version, the rounds it started and ended, and the game row brought to ``state``
    (its new snapshot, whose turn it is, the result, every decision now owed with its
    deadline: ``games.obligations``, ``acting_seat`` being the seat that acted, None
    for nobody's turn).  Changes ``game`` in memory only; reads nothing but ``game``'s
    seats (``seat_list`` when loaded)."""
    seats = selectors.seats_of(game)
    previous = obligations.current(game, seats) if state.round == round_no else []
    game.version += 1
    move = Move(
        game=game,
        seq=game.version,
        round=max(round_no, 1),
        seat=seat,
        action=action,
        events=events,
        by=by,
        player=player if by == MoveBy.PLAYER else None,
    )
    started, ended = [], []
    for e in events:
        if e["type"] == "round_started":
            started.append(Round(game=game, number=e["round"], dealer=e["dealer"]))
        elif e["type"] == "round_ended":
            ended.append(RoundEnd(e["round"], e["winner"], now, list(e["points"]), list(e["hand_points"])))
    obligations.record(game, state, seats, now, acted=acting_seat, previous=previous)
    game.state = state.to_dict()
    game.round = state.round
    game.updated_at = now  # (a bulk update does not set auto_now fields itself)
    won: list[Seat] = []
    if state.status == engine.FINISHED:
        game.status = GameStatus.FINISHED
        game.winner_seat = state.winner  # one seat of the winners (API.md's ``winner``)
        game.finished_at = now
        for s in seats:  # every winner (a team's seats) counts the game won
            if s.seat in state.winners:
                s.won = True
                won.append(s)
    news = None
    if action.get("type") == "start" or game.status == GameStatus.FINISHED:
        news = {"game": game.pk, "ruleset": game.ruleset, "seats": len(seats),
                "bots": sum(s.is_bot for s in seats)}
        if game.status == GameStatus.FINISHED:
            news.update(winner_seats=sorted(state.winners), rounds=game.round, moves=game.version)
    return RecordedMove(game, move, started, ended, won, news,
                        state if game.status == GameStatus.FINISHED else None, seats)


def write_moves(recorded: list[RecordedMove]) -> None:
    """Write ``recorded`` (each game locked by the caller; a game may have several moves,
    in order, all prepared on the same ``Game`` instance, e.g. the deadlines of several
    seats expiring at once): one statement per table whatever their number (the game
    rows in one UPDATE), so that a batch of moves costs about what one does."""
    if not recorded:
        return
    insert_rows([r.move for r in recorded])
    started = [rnd for r in recorded for rnd in r.rounds_started]
    if started:
        Round.objects.bulk_create(started)
    ended = {(r.game.pk, end.number): end for r in recorded for end in r.rounds_ended}
    if ended:  # rare (a round's last card): its rows are read back, then written
        _end_rounds(ended)
    games = list({id(r.game): r.game for r in recorded}.values())  # each row once, as last changed
    update_rows(games, _RECORDED_FIELDS)
    update_rows(list({id(s): s for r in recorded for s in r.seats}.values()), ("timeouts", "autopilot", "won"))
    for r in recorded:
        if r.ended is not None:  # what commits with the result (the ratings), each in a savepoint
            signals.game_finished(r.game, selectors.seats_of(r.game), r.ended)
    for r in recorded:  # what commits with each move (reach's outbox), each in a savepoint
        signals.move_recorded(r.game, r.all_seats or selectors.seats_of(r.game), r.move)
    for r in recorded:
        if r.news is not None:
            transaction.on_commit(lambda news=r.news: _announce(news))


def _announce(news: dict[str, Any]) -> None:
    """A game started or finished (committed): one INFO line, its facts as fields too."""
    if "winner_seats" in news:
        log.info("game %s finished: %s, %s seats (%s bots), won by seat %s; %s moves, %s round(s)",
                 news["game"], news["ruleset"], news["seats"], news["bots"],
                 " and ".join(map(str, news["winner_seats"])), news["moves"], news["rounds"], extra=news)
    else:
        log.info("game %s started: %s, %s seats (%s bots)", news["game"], news["ruleset"], news["seats"],
                 news["bots"], extra=news)


def _end_rounds(ended: dict[tuple[int, int], RoundEnd]) -> None:
    """Close the rounds ``ended`` (keyed by game id and round number) and add their scores."""
    wanted = Q()
    for game_id, number in ended:
        wanted |= Q(game_id=game_id, number=number)
    rounds = list(Round.objects.filter(wanted))
    if len(rounds) != len(ended):
        missing = sorted(set(ended) - {(r.game_id, r.number) for r in rounds})
        raise Round.DoesNotExist(f"ended rounds not found (game, round): {missing}")
    scores = []
    for rnd in rounds:
        end = ended[(rnd.game_id, rnd.number)]
        rnd.winner_seat, rnd.ended_at = end.winner, end.ended_at
        scores += [Score(round=rnd, seat=s, points=p, hand_points=end.hand_points[s]) for s, p in enumerate(end.points)]
    update_rows(rounds, ("winner_seat", "ended_at"))
    Score.objects.bulk_create(scores)


def insert_rows(rows: Sequence[models.Model], ignore_conflicts: bool = False) -> None:
    """Insert ``rows`` (new instances of one model) as ``bulk_create`` does: every
    field but the automatic primary key, as ``save`` would write it (``pre_save``:
    ``auto_now_add``), as many rows per statement as the backend takes parameters; the
    new primary keys are set on the rows where the backend returns them (inside the
    caller's transaction).  ``ignore_conflicts``: a row that would break a unique
    constraint is left out (``ON CONFLICT DO NOTHING``, as ``bulk_create(...,
    ignore_conflicts=True)``), and no primary key is set.  Its statement is built once per model, row count and
    backend (:func:`_insert_sql`), where ``bulk_create`` builds it through the ORM every
    time, and it runs prepared on PostgreSQL (``selectors.sql_cursor``): README, "where
    a move's time goes"."""
    if not rows:
        return
    model = type(rows[0])
    _name_for_fanout(model, rows)
    fields = [f for f in model._meta.concrete_fields if f is not model._meta.pk]
    returning = connection.features.can_return_rows_from_bulk_insert and not ignore_conflicts  # (as _insert_sql)
    with selectors.sql_cursor() as cursor:
        for chunk in _chunks(rows, len(fields)):
            cursor.execute(
                _insert_sql(model, len(chunk), ignore_conflicts),
                [f.get_db_prep_save(f.pre_save(row, True), connection) for row in chunk for f in fields],
            )
            if returning:
                for row, (pk,) in zip(chunk, cursor.fetchall()):
                    row.pk = pk
            for row in chunk:
                row._state.adding, row._state.db = False, connection.alias


def update_rows(rows: Sequence[models.Model], fields: Sequence[str]) -> None:
    """Write ``fields`` of ``rows`` (instances of one model, saved before): one row with
    ``UPDATE t SET f = %s, ... WHERE t.id = %s``, as ``save(update_fields=...)`` writes
    it; several in one statement, ``UPDATE t SET f = v.column2, ... FROM (VALUES (id,
    ...), ...) AS v WHERE t.id = v.column1`` (PostgreSQL and SQLite name a VALUES
    list's columns alike; PostgreSQL gets each column cast to its field's type).
    Django's ``bulk_update`` writes a CASE per column with a WHEN per row instead, whose
    building cost about 4 ms of CPU per game row of the sweeper's batches, and ``save``
    builds its statement through the ORM every time; these are built once per model,
    fields, row count and backend (:func:`_update_sql`) and run prepared on PostgreSQL
    (``selectors.sql_cursor``).  Values are written as they are (``auto_now`` fields are
    not refreshed)."""
    if not rows:
        return
    model = type(rows[0])
    _name_for_fanout(model, rows)
    columns = [model._meta.pk, *(model._meta.get_field(name) for name in fields)]
    with selectors.sql_cursor() as cursor:
        for chunk in _chunks(rows, len(columns)):
            if len(chunk) == 1:  # the fields, then the id
                order = [*columns[1:], columns[0]]
            else:  # each row's id, then its fields
                order = columns
            cursor.execute(
                _update_sql(model, tuple(fields), len(chunk)),
                [f.get_db_prep_save(getattr(row, f.attname), connection) for row in chunk for f in order],
            )


def _name_for_fanout(model: type[models.Model], rows: Sequence[models.Model]) -> None:
    """Name the games (and seats' players) ``rows`` write, for the live fan-out
    (``config.fanout``: published after the commit)."""
    if model is Game:
        fanout.games_written(r.pk for r in rows)
    elif model is Seat:
        fanout.seats_written((r.game_id, r.player_id) for r in rows)


def _chunks(rows: Sequence[models.Model], width: int) -> list[Sequence[models.Model]]:
    """``rows`` cut into the most that one statement may take with ``width``
    parameters each (the backend's ``max_query_params``)."""
    size = max(1, (connection.features.max_query_params or len(rows) * width) // width)
    return [rows[start:start + size] for start in range(0, len(rows), size)]


@selectors.per_backend
def _insert_sql(model: type[models.Model], count: int, ignore_conflicts: bool = False) -> str:
    """The INSERT of :func:`insert_rows` for ``count`` rows."""
    quote = connection.ops.quote_name
    fields = [f for f in model._meta.concrete_fields if f is not model._meta.pk]
    row_sql = f"({', '.join(['%s'] * len(fields))})"
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
           f" VALUES {', '.join([row_sql] * count)}")
    if ignore_conflicts:  # (PostgreSQL and SQLite 3.24+ alike)
        return sql + " ON CONFLICT DO NOTHING"
    if connection.features.can_return_rows_from_bulk_insert:
        sql += f" RETURNING {quote(model._meta.pk.column)}"
    return sql


@selectors.per_backend
def _update_sql(model: type[models.Model], fields: tuple[str, ...], count: int) -> str:
    """The UPDATE of :func:`update_rows` for ``count`` rows."""
    quote = connection.ops.quote_name
    meta = model._meta
    table, pk = quote(meta.db_table), quote(meta.pk.column)
    columns = [meta.get_field(name) for name in fields]
    if count == 1:
        return f"UPDATE {table} SET {', '.join(f'{quote(f.column)} = %s' for f in columns)} WHERE {table}.{pk} = %s"
    cast = connection.vendor == "postgresql"
    sets = ", ".join(
        f"{quote(f.column)} = " + (f"CAST(v.column{i} AS {f.db_type(connection)})" if cast else f"v.column{i}")
        for i, f in enumerate(columns, start=2)
    )
    row_sql = f"({', '.join(['%s'] * (len(columns) + 1))})"
    return (f"UPDATE {table} SET {sets} FROM (VALUES {', '.join([row_sql] * count)}) AS v"
            f" WHERE {table}.{pk} = v.column1")


def _record(recorded: RecordedMove) -> None:
    """Write one move; its follow-ups run after the commit (the "move committed" signal)."""
    write_moves([recorded])
    signals.on_commit(recorded.game)


# --------------------------------------------------------------------------------------
# Idempotency-Key
# --------------------------------------------------------------------------------------
# A key's record is committed first (response NULL), then the request runs in a
# transaction that holds the record's row lock until the move and the response are
# committed together.  "Still running" means "the row is locked": a retry meanwhile
# gets 409; a first request that died released its lock with nothing applied, so a
# retry simply takes over.  Nothing depends on clocks.


@dataclass
class Replay:
    status: int
    body: Any


def json_safe(body: Any) -> Any:
    """``body`` as plain JSON data, encoded exactly as the API renders it (datetimes as
    DRF writes them), so that a stored first response replays identically."""
    return json.loads(json.dumps(body, cls=JSONEncoder))


def fingerprint(method: str, path: str, body: Any) -> str:
    raw = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


def _idempotency_record(*, player, key: str, request_hash: str) -> IdempotencyRecord:
    """The record of ``key`` (created, and committed, on first use)."""
    if not key or len(key) > 255 or any(c < " " and c != "\t" or c == "\x7f" for c in key):
        raise ApiError(400, "invalid", "Idempotency-Key must be 1 to 255 characters, without control characters",
                       fields={"Idempotency-Key": ["1 to 255 characters, without control characters"]})
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(player=player, key=key, request_hash=request_hash)
    except IntegrityError:
        record = IdempotencyRecord.objects.get(player=player, key=key)
    if record.request_hash != request_hash:
        raise ApiError(422, "idempotency_key_reused", "this Idempotency-Key was used with another request")
    return record


def prune_idempotency_records(*, older_than: timedelta | None = None, batch: int = 5000) -> int:
    """Delete the ``Idempotency-Key`` records older than ``older_than`` (default
    ``UNO_IDEMPOTENCY_TTL_HOURS``); returns how many.  A retry after that is a new
    request: its ``expected_version`` (if any) is then what keeps it from acting twice.
    Deleted in batches so that no long transaction holds the table."""
    if older_than is None:
        older_than = timedelta(hours=settings.UNO_IDEMPOTENCY_TTL_HOURS)
    cutoff = timezone.now() - older_than
    total = 0
    while True:
        ids = list(IdempotencyRecord.objects.filter(created_at__lt=cutoff).values_list("pk", flat=True)[:batch])
        if not ids:
            return total
        total += IdempotencyRecord.objects.filter(pk__in=ids).delete()[0]


def _lock_idempotency_record(pk: int) -> IdempotencyRecord:
    try:
        return IdempotencyRecord.objects.select_for_update(nowait=True).get(pk=pk)
    except DatabaseError:
        raise ApiError(
            409, "idempotency_in_progress", "the first request with this Idempotency-Key is still running"
        ) from None


def perform_action(
    *,
    player,
    game_id: int,
    action: Mapping[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
    request_hash: str,
    render: Callable[[Game, int, list[dict]], Any],
) -> tuple[int, Any]:
    """An action through the API: idempotent when a key is given.  Returns (status, body)."""
    if idempotency_key is None:
        # The move is act's own transaction.  Its answer is rendered from what act
        # loaded and saved (no query), and DRF encodes it exactly as json_safe would.
        game, seat, events = act(game_id=game_id, player=player, action=action, expected_version=expected_version)
        return 200, render(game, seat, events)

    def run() -> tuple[int, Any]:
        game, seat, events = act(game_id=game_id, player=player, action=action, expected_version=expected_version)
        return 200, render(game, seat, events)

    return idempotent(player=player, idempotency_key=idempotency_key, request_hash=request_hash, run=run)


def idempotent(
    *,
    player,
    idempotency_key: str,
    request_hash: str,
    run: Callable[[], tuple[int, Any]],
) -> tuple[int, Any]:
    """Run ``run`` (a write that returns its answer, (status, body)) once per
    ``Idempotency-Key`` of ``player``: a retry with the same key and request
    (``request_hash``: :func:`fingerprint`) gets the first answer, a refusal included;
    another request with the key 422 ``idempotency_key_reused``; a retry while the first
    runs 409 ``idempotency_in_progress``.  ``run`` runs inside the transaction that
    stores its answer (the actions' endpoint, and the meeting layer's POSTs that create)."""
    record = _idempotency_record(player=player, key=idempotency_key, request_hash=request_hash)
    if record.response_status is not None:
        return record.response_status, record.response_body
    try:
        with transaction.atomic():
            # the record's row lock, the write and its stored answer commit together
            record = _lock_idempotency_record(record.pk)
            if record.response_status is not None:  # the first request finished meanwhile
                return record.response_status, record.response_body
            status, body = run()
            body = json_safe(body)
            record.response_status, record.response_body = status, body
            record.save(update_fields=["response_status", "response_body"])
        return status, body
    except ApiError as exc:
        if exc.code != "idempotency_in_progress":
            # the refusal is the first response too (it changed nothing)
            from config.problems import problem_body

            body = problem_body(status=exc.status_code, code=exc.code, detail=str(exc.detail), **exc.extra)
            IdempotencyRecord.objects.filter(pk=record.pk, response_status=None).update(
                response_status=exc.status_code, response_body=body
            )
        raise
