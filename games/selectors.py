"""Reads: what a viewer may see of games, their moves and scores.

Hidden information is the security boundary: everything here goes through the
engine's ``view`` / ``visible_events`` for the viewer's seat (None: spectator),
and only a finished game reveals everything.  So with the seed, which every shuffle
derives from: a game shows its ``shuffle_commitment`` (the seed's SHA-256) from its
creation on, and the seed itself only once finished.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Exists, F, OuterRef, Prefetch, QuerySet
from django.utils import timezone

from games import botqueue, engine, obligations
from games.bots import RoundLog
from games.models import Game, GameStatus, Move, Round, Seat
from players.models import Player, Webhook
from players.presence import is_online


# The two reads below run on every request that shows or moves a game.  They are SQL
# whose rows become model instances as the ORM makes them (each field's conversion
# from the database, then ``Model.from_db``): building these statements and matching
# their columns through the ORM costs several times the CPU of running them (README,
# "where a move's time goes").
# (in the model's field order: ``Model.from_db`` takes the values in that order)
_SEAT_COLUMNS = ("id", "game_id", "seat", "player_id", "bot_level", "timeouts", "autopilot", "left", "won")
#: a seat's player as read with it (``online``: players.presence)
#: ``reachable``: the player has a channel that reaches them away (reach's outbox: its
#: move hook's ``wants`` reads it here, without a query); ``away_until``: the end of the
#: player's away period (``games.away``: a new decision's clock starts then)
_PLAYER_COLUMNS = ("id", "username", "last_seen_at", "reachable", "away_until")


def per_backend(build: Callable[..., str]) -> Callable[..., str]:
    """``build(*args)``, SQL text that depends on nothing but its arguments and the
    database backend (its quoting and features), built once per backend: the move
    path's statements, quoted column by column again on every request, took about
    0.15 ms of CPU per move (README, "where a move's time goes")."""
    cached = functools.lru_cache(maxsize=64)(lambda vendor, *args: build(*args))
    return functools.wraps(build)(lambda *args: cached(connection.vendor, *args))


@contextmanager
def sql_cursor() -> Iterator[CursorWrapper]:
    """A cursor for the move path's own SQL (the reads below, ``services.insert_rows``
    and ``update_rows``), wrapped as Django wraps its own (errors translated, statements
    logged when queries are), but on PostgreSQL one that binds parameters server-side,
    so that psycopg prepares a statement once it has run ``DB_PREPARE_THRESHOLD`` times
    on the connection: planning these statements cost PostgreSQL more than running them
    (README, "where a move's time goes").  Django's own cursors bind client-side, never
    prepared."""
    with connection.cursor() as cursor:  # (the connection made, and checked, as for any)
        if connection.vendor != "postgresql":
            yield cursor
            return
        from django.db.backends.postgresql.base import ServerBindingCursor

        bound = ServerBindingCursor(connection.connection)
        wrapped = _ServerBoundLog(bound, connection) if connection.queries_logged else connection.make_cursor(bound)
        with wrapped:
            yield wrapped


class _ServerBoundLog(CursorDebugWrapper):
    """Django's query log for a cursor binding server-side on a connection whose cursors
    bind client-side: each statement logged with its parameters composed in, as Django
    logs them when all its cursors bind server-side (``last_executed_query`` would read
    the client-side cursor's last query, which a prepared statement leaves unset)."""

    def execute(self, sql, params=None):
        with self.debug_sql(self.db.ops.compose_sql(sql, params)):
            return CursorWrapper.execute(self, sql, params)


@per_backend
def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@functools.lru_cache(maxsize=256)
def _conversions(model: type[models.Model], columns: tuple[str, ...], conn: BaseDatabaseWrapper) -> list:
    """Per column of ``model`` (named by attname): the conversions the ORM applies to
    a value read through ``conn`` (the backend's, then the field's), with the column."""
    fields = {f.attname: f for f in model._meta.concrete_fields}
    out = []
    for name in columns:
        col = fields[name].get_col(model._meta.db_table)
        out.append((conn.ops.get_db_converters(col) + col.get_db_converters(conn), col))
    return out


def _instance(model: type[models.Model], columns: tuple[str, ...], values: Sequence[Any]) -> Any:
    """A ``model`` from the ``values`` of ``columns`` (its fields' attnames; the fields
    not given load on access), as a queryset makes it."""
    conn = connections[DEFAULT_DB_ALIAS]  # this thread's (``connection`` is a proxy)
    converted = []
    for value, (converters, col) in zip(values, _conversions(model, columns, conn)):
        for convert in converters:
            value = convert(value, col, conn)
        converted.append(value)
    return model.from_db(DEFAULT_DB_ALIAS, columns, converted)


@per_backend
def _game_columns() -> str:
    return ", ".join(f"g.{connection.ops.quote_name(f.column)}" for f in Game._meta.concrete_fields)


@per_backend
def _seat_columns() -> str:
    # (scalar subqueries by primary and unique keys: PostgreSQL plans them in a third
    # of the time it takes to plan the same joins)
    return (
        f"{', '.join(f's.{c}' for c in _SEAT_COLUMNS)},"
        f" (SELECT p.username FROM {_table(Player)} p WHERE p.id = s.player_id),"
        f" (SELECT p.last_seen_at FROM {_table(Player)} p WHERE p.id = s.player_id),"
        f" (SELECT p.reachable FROM {_table(Player)} p WHERE p.id = s.player_id),"
        f" (SELECT p.away_until FROM {_table(Player)} p WHERE p.id = s.player_id),"
        f" (SELECT w.id FROM {_table(Webhook)} w WHERE w.player_id = s.player_id)"
    )


def _game_rows(game_id: int, sql: str) -> list[tuple]:
    """The rows of ``sql`` (a query for one game, ``%s`` its id): 404 ``not_found``
    when there are none."""
    from config.problems import ApiError

    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    rows: list[tuple] = []
    if low <= game_id <= high:  # out of range: no such row (as the ORM answers, without asking)
        with sql_cursor() as cursor:
            cursor.execute(sql, [game_id])
            rows = cursor.fetchall()
    if not rows:
        raise ApiError(404, "not_found", f"no game {game_id}")
    return rows


def _game(values: Sequence[Any]) -> Game:
    return _instance(Game, tuple(f.attname for f in Game._meta.concrete_fields), values)


def _seat(values: Sequence[Any]) -> Seat:
    """A seat from the columns of :func:`_seat_columns`, with its player (id, username
    and ``last_seen_at``, for ``online``; the rest of a player's row loads on access) and
    ``webhook_id`` (the player's webhook, None without one)."""
    seat = _instance(Seat, _SEAT_COLUMNS, values)
    username, last_seen, reachable, away, seat.webhook_id = values[len(_SEAT_COLUMNS):]
    if seat.player_id is not None:
        seat.player = _instance(Player, _PLAYER_COLUMNS, (seat.player_id, username, last_seen, reachable, away))
    return seat


def read_game(game_id: int, *, lock: bool = False) -> Game:
    """The game's row (404 ``not_found`` if none).  ``lock``: ``FOR UPDATE``, inside
    a transaction (SQLite has no row locks: its writers take turns anyway)."""
    sql = f"SELECT {_game_columns()} FROM {_table(Game)} g WHERE g.id = %s"
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return _game(_game_rows(game_id, sql)[0])


def load_seats(game: Game) -> Game:
    """``game`` with ``seat_list``: its seats in order (see :func:`_seat`), in one query."""
    load_seats_of([game])
    return game


def load_seats_of(games: Sequence[Game]) -> None:
    """Give each of ``games`` its ``seat_list`` (as :func:`load_seats`), all in one query
    (the deadline sweeper's batches)."""
    if not games:
        return
    by_id = {game.pk: game for game in games}
    for game in games:
        game.seat_list = []
    with sql_cursor() as cursor:
        sql = (f"SELECT {_seat_columns()} FROM {_table(Seat)} s WHERE s.game_id IN ({', '.join(['%s'] * len(by_id))})"
               " ORDER BY s.game_id, s.seat")
        cursor.execute(sql, list(by_id))
        for row in cursor.fetchall():
            seat = _seat(row)
            by_id[seat.game_id].seat_list.append(seat)


def get_game(game_id: int) -> Game:
    """The game with ``seat_list`` (as :func:`load_seats` reads it), in one query:
    the game's row joined to its seats' (one round trip, one snapshot)."""
    rows = _game_rows(
        game_id,
        f"SELECT {_game_columns()}, {_seat_columns()} FROM {_table(Game)} g"
        f" LEFT JOIN {_table(Seat)} s ON s.game_id = g.id WHERE g.id = %s ORDER BY s.seat",
    )
    game, width = _game(rows[0]), len(Game._meta.concrete_fields)
    game.seat_list = [_seat(row[width:]) for row in rows if row[width] is not None]
    return game


def seats_of(game: Game) -> list[Seat]:
    """The seats in order, with their players: the ``seat_list`` loaded with the game
    (:func:`load_seats`, :func:`list_games`), else one query."""
    seats = getattr(game, "seat_list", None)
    return list(game.seats.select_related("player").order_by("seat")) if seats is None else seats


def creator_name(game: Game, seats: list[Seat]) -> str:
    """The creator's username, read from their seat (a creator keeps one: leaving a
    waiting game passes the role on, leaving a running one keeps the seat), else
    from their row."""
    seat = next((s for s in seats if s.player_id is not None and s.player_id == game.creator_id), None)
    return game.creator.username if seat is None else seat.player.username


def viewer_seat(seats: list[Seat], player) -> int | None:
    for s in seats:
        if s.player_id == player.pk:
            return s.seat
    return None


def etag_for(game: Game, viewer: int | None) -> str:
    stamp = int(game.updated_at.timestamp() * 1_000_000)
    # (the seats' ``online``, which changes without the game: a bit per seat)
    online = "".join("1" if _online(s) else "0" for s in seats_of(game))
    return f'W/"g{game.pk}-v{game.version}-{stamp}-s{"x" if viewer is None else viewer}-o{online}"'


def _player_entry(seat: Seat, view_player: dict | None, deadline=None, time_left=None, away=None) -> dict:
    return {
        "seat": seat.seat,
        "username": seat.player.username if seat.player_id else None,
        "is_bot": seat.is_bot,
        "bot_level": seat.bot_level or None,
        "autopilot": seat.autopilot,
        # left the running game for good: the autopilot plays the seat to the end
        "left": seat.left,
        "hand_count": view_player["hand_count"] if view_player else 0,
        "score": view_player["score"] if view_player else 0,
        # team games: this round's team; ``scoring: elimination``: out of the game or not
        "team": view_player.get("team") if view_player else None,
        "status": view_player.get("status", "active") if view_player else "active",
        "deadline": deadline,
        "online": _online(seat),
        # its clock (``obligations.time_left``), and the end of its player's away period
        # where that stops the clock (a correspondence game)
        "time_left": time_left,
        "away_until": away,
    }


def _online(seat: Seat) -> bool | None:
    """A human seat's player is online (players.presence); None for a bot or a free seat."""
    if seat.player_id is None or seat.is_bot:
        return None
    return is_online(seat.player.last_seen_at)


@dataclass(frozen=True)
class ViewField:
    """A member of a game's view that another app adds (:func:`register_view_field`)."""

    name: str
    #: (game, seats) -> the member's value, the same for every viewer; called for every
    #: view rendered, so it should cost nothing where it has nothing to say (e.g. a game
    #: not finished yet: no query)
    value: Callable[[Game, list[Seat]], Any]
    #: () -> a new serializer field documenting it (``GameSerializer``, the OpenAPI schema)
    schema_field: Callable[[], Any]


#: the members other apps add to a game's view, by name (``games`` imports none of them)
VIEW_FIELDS: dict[str, ViewField] = {}


def register_view_field(name: str, value: Callable[[Game, list[Seat]], Any], schema_field: Callable[[], Any]) -> None:
    """Add ``name`` to every game's view (``GET /games/{id}``, the game stream's ``game``
    objects), its value ``value(game, seats)``, documented by ``schema_field()`` (a DRF
    serializer field): called from an app's ``AppConfig.ready``, so that ``games`` shows
    what the apps above it know of a game without importing them (the meeting app's
    ``rematch``)."""
    VIEW_FIELDS[name] = ViewField(name, value, schema_field)


def game_view(game: Game, player, seats: list[Seat] | None = None) -> dict[str, Any]:
    """The game as ``player`` may see it (GET /games/{id})."""
    seats = seats_of(game) if seats is None else seats
    seat = viewer_seat(seats, player)
    out: dict[str, Any] = {
        "id": game.pk,
        "ruleset": game.ruleset,
        "options": game.resolved_options,
        "requested_options": game.options,
        "status": game.status,
        "version": game.version,
        "round": game.round,
        "max_players": game.max_players,
        "turn_seconds": game.turn_seconds,
        "rated": game.rated,
        "start_when_full": game.start_when_full,
        "creator": creator_name(game, seats),
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "seat": seat,
        "deadline": game.deadline,
        "current_seat": None,
        "dealer": None,
        "direction": None,
        "top_card": None,
        "current_color": None,
        "draw_pile_count": 0,
        "discard_pile_count": 0,
        "pending": None,
        "uno_catchable_seat": None,
        "face_down": None,
        "obligations": [],
        "winner": None,
        "winners": [],
        "deck": None,
        # the seed itself only once the game is finished (below)
        "shuffle_commitment": engine.shuffle_commitment(game.seed),
        "legal_actions": [],
    }
    if game.state is None:
        out["players"] = [_player_entry(s, None) for s in seats]
        if seat is not None:
            out["hand"] = []
        return _with_view_fields(out, game, seats)
    state = engine.State.from_dict(game.state)
    v = engine.view(state, seat)
    owed = obligations.current(game, seats, state)
    deadlines = obligations.seat_deadlines(owed, len(v["players"]))
    now = timezone.now()
    clocks = obligations.time_left(game, seats, owed, now)
    away = obligations.away_seats(game, seats, now) if game.status == GameStatus.ACTIVE else {}
    out["players"] = [_player_entry(s, v["players"][s.seat], deadlines[s.seat], clocks[s.seat], away.get(s.seat))
                      for s in seats]
    out["obligations"] = obligations.public(owed)
    out["deck"] = engine.deck_of(state)
    for key in ("current_seat", "dealer", "direction", "top_card", "current_color", "draw_pile_count",
                "discard_pile_count", "pending", "uno_catchable_seat"):
        out[key] = v[key]
    out["face_down"] = v.get("face_down")  # Decktet-Uno's card set aside (``DecktetFamily.table_view``)
    if seat is not None:
        out["hand"] = v["hand"]
        # (a seat its player left has nothing to post: the autopilot plays it)
        if game.status == GameStatus.ACTIVE and not _left(seats, seat):
            out["legal_actions"] = engine.legal_actions(state, seat)
    if game.status == GameStatus.FINISHED:
        winner = next((s for s in seats if s.seat == game.winner_seat), None)
        out["winner"] = {
            "seat": game.winner_seat,
            "username": winner.player.username if winner and winner.player_id else None,
        }
        # every seat that won (a team's seats); games saved before it: the one winner
        out["winners"] = [{"seat": s.seat, "username": s.player.username if s.player_id else None}
                          for s in seats if s.seat in (state.winners or [game.winner_seat])]
        out["seed"] = game.seed
    return _with_view_fields(out, game, seats)


def _with_view_fields(out: dict[str, Any], game: Game, seats: list[Seat]) -> dict[str, Any]:
    for extra in VIEW_FIELDS.values():
        out[extra.name] = extra.value(game, seats)
    return out


def _left(seats: list[Seat], seat: int) -> bool:
    """Whether the player of ``seat`` left the game for good (``Seat.left``)."""
    return any(s.seat == seat and s.left for s in seats)


def list_games(player, *, status: str | None = None, mine: bool = False, my_turn: bool = False) -> QuerySet[Game]:
    # the seats of a whole page in one query: game_summary reads them from seat_list
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("seat"), to_attr="seat_list")
    qs = Game.objects.select_related("creator").prefetch_related(seats)
    if status:
        qs = qs.filter(status=status)
    if mine:
        qs = qs.filter(Exists(Seat.objects.filter(game=OuterRef("pk"), player=player)))
    if my_turn:
        # the games waiting for me, most urgent deadline first (no deadline last)
        # (not a seat the player left: the autopilot plays it)
        mine_to_act = Seat.objects.filter(game=OuterRef("pk"), player=player, seat=OuterRef("current_seat"),
                                          left=False)
        qs = qs.filter(Exists(mine_to_act), status=GameStatus.ACTIVE)
        return qs.order_by(F("deadline").asc(nulls_last=True), "id")
    return qs


def game_summary(game: Game, player) -> dict[str, Any]:
    """One row of :func:`list_games` (its ``seat_list`` prefetch holds the seats)."""
    seats = game.seat_list
    seat = viewer_seat(seats, player)
    return {
        "id": game.pk,
        "ruleset": game.ruleset,
        "status": game.status,
        "version": game.version,
        "round": game.round,
        "max_players": game.max_players,
        "seated": len(seats),
        "players": [
            {"seat": s.seat, "username": s.player.username if s.player_id else None, "is_bot": s.is_bot,
             "bot_level": s.bot_level or None}
            for s in seats
        ],
        "creator": game.creator.username,
        "turn_seconds": game.turn_seconds,
        "rated": game.rated,
        "start_when_full": game.start_when_full,
        "current_seat": game.current_seat,
        "seat": seat,
        "my_turn": seat is not None and game.status == GameStatus.ACTIVE and seat == game.current_seat
        and not _left(seats, seat),
        "deadline": game.deadline,
        "winner_seat": game.winner_seat,
        "created_at": game.created_at,
    }


def moves_for_viewer(game: Game, seat: int | None, after: int, limit: int) -> list[dict[str, Any]]:
    """Moves with ``seq > after``, each redacted to what ``seat`` was allowed to see."""
    reveal = game.status == GameStatus.FINISHED
    rows = Move.objects.filter(game=game, seq__gt=after).order_by("seq")[:limit]
    return [move_for_viewer(m, seat, reveal) for m in rows]


def round_history(game: Game, round_no: int, seat: int) -> list[dict[str, Any]]:
    """The events of round ``round_no`` of ``game`` that ``seat`` was shown, in order,
    from its ``round_started`` on (what a ``hard`` bot infers the hidden hands from:
    ``games.bots.beliefs``).  The move that dealt a round is recorded with the round
    before it, so the moves of both are read.  Only the moves up to ``game.version``
    (the game as read): a move that commits in between would not be in that state."""
    log = RoundLog()
    moves = Move.objects.filter(game=game, round__gte=round_no - 1, seq__lte=game.version)
    for events in moves.order_by("seq").values_list("events", flat=True):
        log.add(events)
    return log.shown_to(seat)


def move_for_viewer(move: Move, seat: int | None, reveal: bool) -> dict[str, Any]:
    """``move`` as ``seat`` may see it (``reveal``: the game is finished), as ``/moves``
    and the game's event stream (``games.live``) show it."""
    return {
        "seq": move.seq,
        "round": move.round,
        "seat": move.seat,
        "action": shown_action(move, seat, reveal),
        "events": [strip_audience(e) for e in engine.visible_events(move.events, seat, reveal_all=reveal)],
        "by": move.by,
        "created_at": move.created_at,
    }


def shown_action(move: Move, seat: int | None, reveal: bool) -> dict:
    """``move``'s action as ``seat`` may see it: a misplay (``jump_in_misplay_points``: a
    play out of turn that is no jump-in) leaves its card in its player's hand, so the
    others see ``{"type": "misplay"}`` (no card, colour or target) until the game is
    over; a card played face down (Decktet-Uno's ``face_down``) is shown to the others
    as ``{"type": "play_face_down"}`` until the game is over (its ``face_down_placed``
    event tells which card it was once it is placed)."""
    action = move.action
    if reveal or seat == move.seat or "card" not in action:
        return action
    if action.get("type") == "play_face_down":
        return {"type": "play_face_down"}
    if any(e.get("type") == "misplay" for e in move.events):
        return {"type": "misplay"}
    return action


#: an event as the API shows it (its audience ``to`` as ``private_to``; the engine's,
#: which the standalone verifier ``games.engine.verify`` compares moves with)
strip_audience = engine.public_event


def score_table(game: Game) -> dict[str, Any]:
    seats = seats_of(game)
    rounds = Round.objects.filter(game=game).prefetch_related("scores").order_by("number")
    totals = [0] * len(seats)
    rows = []
    for r in rounds:
        if r.ended_at is None:
            continue
        points = [0] * len(seats)
        hand_points = [0] * len(seats)
        for sc in r.scores.all():
            if sc.seat < len(points):
                points[sc.seat] = sc.points
                hand_points[sc.seat] = sc.hand_points
                totals[sc.seat] += sc.points
        rows.append({"round": r.number, "dealer": r.dealer, "winner_seat": r.winner_seat,
                     "points": points, "hand_points": hand_points})
    plays = scored_plays(game) if engine.PRESETS[game.ruleset].family == "decktet" else []
    if plays:  # Decktet-Uno scores as it plays: the totals so far
        totals = [0] * len(seats)
        for p in plays:
            totals[p["seat"]] += p["points"]
    return {
        "game": game.pk,
        "status": game.status,
        "scoring": game.resolved_options.get("scoring", "per_play"),
        "target_score": None if game.resolved_options.get("rounds") else game.resolved_options.get("target_score"),
        "rounds_to_play": game.resolved_options.get("rounds"),
        "players": [{"seat": s.seat, "username": s.player.username if s.player_id else None, "is_bot": s.is_bot,
                     "bot_level": s.bot_level or None} for s in seats],
        "rounds": rows,
        "totals": totals,
        "plays": plays,
        "winner_seat": game.winner_seat,
        "winner_seats": [s.seat for s in seats if s.won],
    }


def scored_plays(game: Game) -> list[dict[str, Any]]:
    """Decktet-Uno's scoring, play by play, from the move log's public events: each card
    played face up (``play``) and each face-down card once placed (``face_down_placed``)."""
    out = []
    for seq, events in Move.objects.filter(game=game).order_by("seq").values_list("seq", "events"):
        for e in events:
            if e["type"] in ("play", "face_down_placed") and "points" in e:
                out.append({"seq": seq, "seat": e["seat"], "card": e["card"], "points": e["points"],
                            "face_down": e["type"] == "face_down_placed"})
    return out


def bot_backlog(older_than: timedelta, *, now: datetime | None = None, limit: int = 1000) -> int:
    """How many running games have a bot decision overdue by more than ``older_than``
    (the health check's ``bot_backlog``), from the database: a robot's decision whose
    deadline (its think time + ``UNO_BOT_STALL_SECONDS`` after it began, when the
    sweeper revives a lost step) passed more than ``older_than`` ago, or a bot step held
    back by its owner's share of the workers (``games.botqueue``) and due more than
    ``older_than`` ago.  At most ``limit`` games of each kind are looked at (indexed:
    ``Game.deadline`` of running games, ``DeferredBotStep.since``).  A game stored
    before obligations existed counts when its deadline is that late."""
    cut = (timezone.now() if now is None else now) - older_than
    late: set[int] = set()
    overdue = (Game.objects.filter(status=GameStatus.ACTIVE, deadline__lt=cut).order_by("deadline")
               .values_list("pk", "obligations")[:limit])
    for game_id, owed in overdue:
        if owed is None or any(o.enforce == obligations.REVIVE and o.deadline is not None and o.deadline < cut
                               for o in map(obligations.Obligation.from_json, owed)):
            late.add(game_id)
    late.update(botqueue.live().filter(since__lt=cut).values_list("game_id", flat=True)[:limit])
    return len(late)


def stats_for_player(player) -> dict[str, int]:
    finished = Game.objects.filter(status=GameStatus.FINISHED)
    played = finished.filter(Exists(Seat.objects.filter(game=OuterRef("pk"), player=player)))
    won = finished.filter(Exists(Seat.objects.filter(game=OuterRef("pk"), player=player, won=True)))
    return {"games_played": played.count(), "games_won": won.count()}


#: the columns of a game that a list of games shows (not its state, options or seed)
_LISTED_GAME_FIELDS = ("game__id", "game__ruleset", "game__status", "game__rated", "game__created_at",
                       "game__finished_at")


def seated_games(*, player_id: int | None = None, bot_level: str = "", statuses: Sequence[str] | None = None,
                 ruleset: str | None = None, rated: bool | None = None, won: bool | None = None,
                 opponent_id: int | None = None, opponent_level: str = "", shared_with: int | None = None,
                 since: datetime | None = None, until: datetime | None = None,
                 before_game: int | None = None) -> QuerySet[Seat]:
    """The games a player (``player_id``) or a bot level (``bot_level``) sat in, newest
    first (by creation: the game's id), as their seat in each (a bot level's first seat
    of the game), its ``game`` loaded with the columns a list shows.

    A player's are a range of ``seat_player_game`` and a level's of
    ``seat_bot_level_game``, read from the newest down and stopped at the page's end:
    a page costs the same with ten games or ten thousand (the other filters are checked
    on the way, each an index probe per game).  Filters: ``statuses``, ``ruleset``,
    ``rated``; ``won`` (the seat won, or any of the level's: finished games only);
    ``opponent_id`` / ``opponent_level`` (that player, or a seat of that level, also
    sat at the table); ``shared_with`` (that player sat at the table too); ``since``
    <= creation < ``until``; ``before_game`` (only games of lower id: the keyset of
    the previous page)."""
    if player_id is not None:
        qs = Seat.objects.filter(player_id=player_id)
    else:
        first_of_level = Seat.objects.filter(game_id=OuterRef("game_id"), player__isnull=True, bot_level=bot_level,
                                             seat__lt=OuterRef("seat"))
        qs = Seat.objects.filter(~Exists(first_of_level), player__isnull=True, bot_level=bot_level)
    if statuses is not None:
        qs = qs.filter(game__status__in=list(statuses))
    if ruleset is not None:
        qs = qs.filter(game__ruleset=ruleset)
    if rated is not None:
        qs = qs.filter(game__rated=rated)
    if won is not None:
        qs = qs.filter(game__status=GameStatus.FINISHED)
        if player_id is not None:
            qs = qs.filter(won=won)
        else:
            level_won = Exists(Seat.objects.filter(game_id=OuterRef("game_id"), player__isnull=True,
                                                   bot_level=bot_level, won=True))
            qs = qs.filter(level_won if won else ~level_won)
    if opponent_id is not None:
        qs = qs.filter(Exists(Seat.objects.filter(game_id=OuterRef("game_id"), player_id=opponent_id)
                              .exclude(pk=OuterRef("pk"))))
    if opponent_level:
        qs = qs.filter(Exists(Seat.objects.filter(game_id=OuterRef("game_id"), player__isnull=True,
                                                  bot_level=opponent_level).exclude(pk=OuterRef("pk"))))
    if shared_with is not None:
        qs = qs.filter(Exists(Seat.objects.filter(game_id=OuterRef("game_id"), player_id=shared_with)))
    if since is not None:
        qs = qs.filter(game__created_at__gte=since)
    if until is not None:
        qs = qs.filter(game__created_at__lt=until)
    if before_game is not None:
        qs = qs.filter(game_id__lt=before_game)
    return qs.select_related("game").only("id", "game_id", "seat", "player_id", "bot_level", "won",
                                          *_LISTED_GAME_FIELDS).order_by("-game_id")


def finished_by_ruleset(player_id: int) -> list[tuple[str, int, int]]:
    """(ruleset, finished games played, won) of a player, by ruleset: one aggregate over
    their seats (``seat_player_game``), however many."""
    rows = (Seat.objects.filter(player_id=player_id, game__status=GameStatus.FINISHED)
            .values_list("game__ruleset").annotate(played=models.Count("id"),
                                                   won=models.Count("id", filter=models.Q(won=True)))
            .order_by("game__ruleset"))
    return [(ruleset, played, won) for ruleset, played, won in rows]
