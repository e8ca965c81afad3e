"""Thin HTTP views over games.services (writes) and games.selectors (reads)."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from django.urls import reverse
from django.utils.http import parse_etags
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config import db_router
from config.problems import PROBLEM_CONTENT_TYPE, ApiError, problem_responses
from games import away, engine, rulesets, selectors, services, streams
from games.models import GameStatus
from games.pagination import AFTER, LIMIT, MOST_URGENT, NEWEST, GamePagination, int_param
from games.serializers import (
    ActionConflictSerializer,
    ActionResultSerializer,
    ActionSerializer,
    AwayInputSerializer,
    AwayRefusalSerializer,
    AwaySerializer,
    CreateGameSerializer,
    GamePageSerializer,
    GameSerializer,
    MovePageSerializer,
    RulesetsSerializer,
    ScoresSerializer,
    ShareLimitSerializer,
)

MOVES_PAGE_MAX = 500
#: one player's share (games.services._check_share): documented on create and join
TOO_MANY_GAMES = (
    "`too_many_games`: the caller is seated in `UNO_MAX_GAMES` (50) unfinished games already (waiting or running, "
    "left ones included), with the `limit`"
)
TOO_MANY_CREATED = (
    "`too_many_waiting_games`: the caller created `UNO_MAX_WAITING_GAMES` (20) games that still wait; "
    "`too_many_bots`: the game's bots would take the bot seats of the caller's unfinished games past "
    "`UNO_MAX_BOT_SEATS` (30). Each with the `limit`; nothing is created. Finish, leave or start games first."
)
ACTION_ERRORS = (
    "`invalid` (malformed action, or a bad `Idempotency-Key`, with `fields`), `malformed_json`, `unknown_card`, "
    "`not_your_card`, `illegal_move`"
)


def _bool_param(request, name: str) -> bool:
    raw = request.query_params.get(name)
    if raw is None:
        return False
    if raw.lower() in ("true", "1", "yes"):
        return True
    if raw.lower() in ("false", "0", "no"):
        return False
    raise ApiError(400, "invalid", f"{name} must be true or false", fields={name: ["must be true or false"]})


class GamesView(APIView):
    @extend_schema(
        operation_id="games_list",
        summary="List games",
        description="Newest first (with `my_turn`, the most urgent deadline first), paged by number "
        "(`page`, `page_size`) or by cursor as `/moves` is (`after`, `limit`: either gives cursor paging, "
        "which takes neither `page` nor `page_size`). Every answer carries `next_cursor`, so a client may "
        "start with a page and go on with the cursor.",
        tags=["games"],
        parameters=[
            OpenApiParameter("status", str, enum=["waiting", "active", "finished"]),
            OpenApiParameter("mine", bool, description="Only games I am seated in."),
            OpenApiParameter("my_turn", bool, description="Only games waiting for my decision, most urgent deadline first."),
            # no schema defaults: a generated client would send them, and they take no cursor
            OpenApiParameter("page", {"type": "integer", "minimum": 1},
                             description="Page number (default 1); past the last page: 404 `not_found`."),
            OpenApiParameter("page_size", {"type": "integer", "minimum": 1, "maximum": GamePagination.max_page_size},
                             description=f"Games per page, 1 to {GamePagination.max_page_size} "
                             f"(default {GamePagination.page_size})."),
            OpenApiParameter(AFTER, str,
                             description="Cursor: the `next_cursor` of an earlier answer of this list (opaque); "
                             "the games after that one, in the list's order."),
            OpenApiParameter(LIMIT, {"type": "integer", "minimum": 1, "maximum": GamePagination.max_page_size},
                             description=f"Cursor paging: games per answer, 1 to {GamePagination.max_page_size} "
                             f"(default {GamePagination.page_size})."),
        ],
        responses={
            200: GamePageSerializer,
            **problem_responses(
                (400, "`invalid` with `fields`: `status`, `mine`, `my_turn`, `page` / `page_size` not positive "
                 "integers (`page_size` at most 100), `limit` not from 1 to 100, `after` not a `next_cursor` of "
                 "this list, or `page` / `page_size` with `after` / `limit`."),
                401, (404, "`not_found`: no such page"), 429,
            ),
        },
    )
    def get(self, request):
        status = request.query_params.get("status")
        if status not in (None, "waiting", "active", "finished"):
            raise ApiError(400, "invalid", "status must be waiting, active or finished",
                           fields={"status": ["waiting, active or finished"]})
        my_turn = _bool_param(request, "my_turn")
        mine = _bool_param(request, "mine")

        def listed():
            qs = selectors.list_games(request.user, status=status, mine=mine, my_turn=my_turn)
            paginator = GamePagination(MOST_URGENT if my_turn else NEWEST)
            page = paginator.paginate_queryset(qs, request, view=self)
            return paginator.get_paginated_response([selectors.game_summary(g, request.user) for g in page])

        # a list may lag (the read replica's, config/db_router.py), except the games waiting
        # for the caller's decision: what they poll to play
        return listed() if my_turn else db_router.on_replica(listed, request.user)

    @extend_schema(
        operation_id="games_create",
        summary="Create a game (the creator takes seat 0)",
        tags=["games"],
        request=CreateGameSerializer,
        parameters=[
            OpenApiParameter("Location", str, OpenApiParameter.HEADER, response=[201], required=True,
                             description="The new game's URL."),
        ],
        responses={
            201: GameSerializer,
            **problem_responses((400, "`invalid` or `invalid_options` (with `fields`), `malformed_json`"), 401, 415, 429),
            (409, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                ShareLimitSerializer, description=f"One player's share (README \"Limits\"): {TOO_MANY_GAMES}; "
                f"{TOO_MANY_CREATED}",
            ),
        },
    )
    def post(self, request):
        ser = CreateGameSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        game = services.create_game(creator=request.user, **ser.validated_data)
        location = request.build_absolute_uri(reverse("game-detail", kwargs={"game_id": game.pk}))
        return Response(selectors.game_view(game, request.user), status=201, headers={"Location": location})


#: how long a client or a cache may keep ``GET /rulesets`` without asking again (it changes
#: only with the server's code)
RULESETS_MAX_AGE = 3600


class RulesetsView(APIView):
    """The presets and their options in words: public, the same for everyone (any
    Authorization header is ignored; the anonymous throttle applies)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="rulesets_list",
        summary="The presets and their options, in a player's words",
        description="Every preset (`ruleset` in `POST /games`) with its title, a description for a player choosing a "
        "game, its seat range and the options a player may change in it (its family's only, grouped, each with a "
        "label, a description, whether it is advanced, this preset's default and its values' schema). Readable "
        "without credentials (any `Authorization` header is ignored); cacheable (`Cache-Control: public, max-age=3600` and a strong `ETag`: "
        "`If-None-Match` answers 304).",
        tags=["games"],
        auth=[],
        parameters=[
            OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER,
                             description="The `ETag` of an earlier answer: 304 without a body while it is unchanged."),
            OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[200, 304], required=True,
                             description="A strong validator of the answer (it changes only with the server's code)."),
            OpenApiParameter("Cache-Control", str, OpenApiParameter.HEADER, response=[200, 304], required=True,
                             description=f"`public, max-age={RULESETS_MAX_AGE}`."),
        ],
        responses={
            200: RulesetsSerializer,
            304: OpenApiResponse(description="Not modified since the ETag given in If-None-Match (no body)."),
            **problem_responses(429),
        },
    )
    def get(self, request):
        headers = {"ETag": rulesets.etag(), "Cache-Control": f"public, max-age={RULESETS_MAX_AGE}"}
        if _none_match_fails(request.headers.get("If-None-Match"), headers["ETag"]):
            return Response(status=304, headers=headers)
        return Response(rulesets.rulesets(), headers=headers)


class GameDetailView(APIView):
    @extend_schema(
        operation_id="games_retrieve",
        summary="The game as the caller may see it",
        tags=["games"],
        parameters=[
            OpenApiParameter(
                "wait_for_version", {"type": "integer", "minimum": 0},
                description="Long-poll: answer once the game's `version` exceeds this (at once if it does "
                "already), or after `timeout` seconds with the game as it is. The wait holds no server "
                "thread; for every change as it happens, see `/events`.",
            ),
            OpenApiParameter(
                "timeout", {"type": "integer", "minimum": 0, "maximum": streams.MAX_WAIT_SECONDS},
                description=f"With `wait_for_version`: seconds to wait at most, 0 to {streams.MAX_WAIT_SECONDS} "
                f"(default {streams.DEFAULT_WAIT_SECONDS}).",
            ),
            OpenApiParameter(
                "If-None-Match", str, OpenApiParameter.HEADER,
                description="The `ETag` of an earlier answer (or several, comma-separated, or `*`): "
                "304 without a body while this view of the game is unchanged (weak comparison).",
            ),
            OpenApiParameter(
                "ETag", str, OpenApiParameter.HEADER, response=[200, 304], required=True,
                description="A weak validator of this view of the game (it changes with the game's `version` "
                "and any other change, and differs per seat and for spectators), e.g. `W/\"g7-v12-...-s0\"`: "
                "send it back in `If-None-Match`.",
            ),
        ],
        responses={
            200: GameSerializer,
            304: OpenApiResponse(description="Not modified since the ETag given in If-None-Match (no body)."),
            **problem_responses((400, "`invalid` (with `fields`): `wait_for_version` or `timeout` out of "
                                 "range, or `timeout` without `wait_for_version`."), 401, 404, 429),
        },
    )
    def get(self, request, game_id: int):
        wait = streams.wait_params(request.query_params)
        if wait is not None and not streams.waited(request._request):
            # (served, the front door waits on its event loop first: config.front_door)
            async_to_sync(streams.wait_for_version)(game_id, *wait, token_id=getattr(request.auth, "pk", None))
        game = selectors.get_game(game_id)
        etag = selectors.etag_for(game, selectors.viewer_seat(game.seat_list, request.user))
        if _none_match_fails(request.headers.get("If-None-Match"), etag):
            return Response(status=304, headers={"ETag": etag})
        return Response(selectors.game_view(game, request.user), headers={"ETag": etag})


def _none_match_fails(header: str | None, etag: str) -> bool:
    """If-None-Match (RFC 9110 13.1.2): "*" or any tag equal to ``etag`` under the weak
    comparison (``W/"x"`` matches ``"x"``) means "not modified"."""
    if not header:
        return False
    tags = parse_etags(header)
    if "*" in tags:
        return True

    def opaque(tag: str) -> str:
        return tag[2:] if tag.startswith("W/") else tag

    return opaque(etag) in {opaque(t) for t in tags}


class _GameCommand(APIView):
    operation = ""

    def post(self, request, game_id: int):
        game = self.run(request.user, game_id)
        if game is None:
            return Response(status=204)
        return Response(selectors.game_view(game, request.user))


def _command_schema(op: str, summary: str, conflicts: str, extra: dict | None = None, description: str | None = None):
    return extend_schema(
        operation_id=f"games_{op}",
        summary=summary,
        description=description,
        tags=["games"],
        request=None,
        responses={200: GameSerializer, **problem_responses(401, 403, 404, (409, conflicts), 429), **(extra or {})},
    )


class JoinView(_GameCommand):
    @_command_schema(
        "join", "Take a free seat in a waiting game", "",
        extra={(409, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            ShareLimitSerializer,
            description=f"`game_not_waiting`, `already_seated`, `game_full`; one player's share (README \"Limits\"): "
            f"{TOO_MANY_GAMES} (nothing is joined).",
        )},
    )
    def post(self, request, game_id: int):
        return super().post(request, game_id)

    def run(self, player, game_id):
        return services.join_game(player=player, game_id=game_id)


class LeaveView(_GameCommand):
    @_command_schema(
        "leave",
        "Leave a game: a waiting game frees the seat; a running game is left for good (the autopilot plays the "
        "seat to the end)",
        "`game_finished`",
        extra={204: OpenApiResponse(description="The last human left a waiting game, which was deleted.")},
        description="A waiting game: the seat is freed (the creator's role passes to the next human; the last human "
        "leaving deletes the game: 204). A running game: leaving is for good, like resigning: the autopilot "
        "(`UNO_AUTOPILOT_LEVEL`) plays the seat to the end and its result is the seat's; the game still lists the "
        "player (`players[i].left` and `autopilot` true) and shows them their hand, but they can no longer act in it "
        "(`POST /actions` answers 403 `left_game`, `legal_actions` is empty). Leaving it again changes nothing (200). "
        "Unlike the autopilot after `UNO_MAX_TIMEOUTS` timeouts, which the player's next action ends.",
    )
    def post(self, request, game_id: int):
        return super().post(request, game_id)

    def run(self, player, game_id):
        return services.leave_game(player=player, game_id=game_id)


class StartView(_GameCommand):
    @_command_schema("start", "Start the game (creator only)", "`game_not_waiting`, `not_enough_players`, "
                     "`wrong_player_count` (the options need another count, e.g. `teams` an even one)")
    def post(self, request, game_id: int):
        return super().post(request, game_id)

    def run(self, player, game_id):
        return services.start_game(player=player, game_id=game_id)


class ActionsView(APIView):
    @extend_schema(
        operation_id="games_actions",
        summary="Take an action (in turn or out of turn)",
        tags=["games"],
        parameters=[
            OpenApiParameter(
                "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255}, OpenApiParameter.HEADER,
                description=(
                    "A retry with the same key and body returns the first response (status and body, a refusal "
                    "included) and records nothing new; the same key with another body answers 422 "
                    "`idempotency_key_reused`, a retry while the first request runs 409 `idempotency_in_progress`. "
                    "Keys are per player, 1 to 255 characters without control characters (else 400 `invalid` "
                    "naming `Idempotency-Key`), and remembered for UNO_IDEMPOTENCY_TTL_HOURS (24 by default)."
                ),
            )
        ],
        request=ActionSerializer,
        responses={
            200: ActionResultSerializer,
            **problem_responses(
                (400, ACTION_ERRORS),
                401,
                (403, "`not_seated`, `left_game` (the caller left this running game: the autopilot plays their seat "
                 "to the end)"),
                404,
                415,
                (422, "`idempotency_key_reused`: the same Idempotency-Key with another body"),
                429,
            ),
            (409, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                ActionConflictSerializer,
                description="`stale_version` (with the game's `version`), `not_your_turn`, `game_not_started`, "
                "`game_finished`, `idempotency_in_progress`",
            ),
        },
    )
    def post(self, request, game_id: int):
        body = request.data
        if not isinstance(body, dict):
            raise ApiError(400, "invalid", "the body must be a JSON object", fields={"non_field_errors": ["object expected"]})
        action = dict(body)
        expected = action.pop("expected_version", None)
        if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
            raise ApiError(400, "invalid", "expected_version must be a non-negative integer",
                           fields={"expected_version": ["a non-negative integer"]})
        key = request.headers.get("Idempotency-Key")

        def render(game, seat, events):
            return {
                "game": selectors.game_view(game, request.user),
                "events": [selectors.strip_audience(e) for e in services.engine.visible_events(events, seat)],
            }

        status, payload = services.perform_action(
            player=request.user,
            game_id=game_id,
            action=action,
            expected_version=expected,
            idempotency_key=key,
            request_hash=services.fingerprint("POST", request.path, body),
            render=render,
        )
        if status >= 400:
            return Response(payload, status=status, content_type=PROBLEM_CONTENT_TYPE)
        return Response(payload, status=status)


def _finished_moves(game, seat: int | None, after: int, limit: int, user) -> list[dict]:
    """``selectors.moves_for_viewer``: a finished game's moves no longer change, so they
    are read from the replica (config/db_router.py) when it has every one asked for
    (seqs 1 to the game's version, as the primary's row says); else from the primary."""
    if game.status != GameStatus.FINISHED:
        return selectors.moves_for_viewer(game, seat, after, limit)
    moves = db_router.on_replica(lambda: selectors.moves_for_viewer(game, seat, after, limit), user)
    if len(moves) != max(0, min(limit, game.version - after)):
        moves = selectors.moves_for_viewer(game, seat, after, limit)  # the replica is behind the game's end
    return moves


class MovesView(APIView):
    @extend_schema(
        operation_id="games_moves",
        summary="Move history, oldest first; redacted to what the caller could see until the game is finished",
        tags=["games"],
        parameters=[
            OpenApiParameter("after", {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                             description="Cursor: return moves with seq greater than this (default 0)."),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": MOVES_PAGE_MAX},
                             description=f"Page size, 1 to {MOVES_PAGE_MAX} (default 100)."),
        ],
        responses={200: MovePageSerializer, **problem_responses(400, 401, 404, 429)},
    )
    def get(self, request, game_id: int):
        game = selectors.get_game(game_id)
        seat = selectors.viewer_seat(game.seat_list, request.user)
        after = int_param(request, "after", 0, 0, 2**31 - 1)
        limit = int_param(request, "limit", 100, 1, MOVES_PAGE_MAX)
        moves = _finished_moves(game, seat, after, limit + 1, request.user)
        more = len(moves) > limit
        moves = moves[:limit]
        cursor = moves[-1]["seq"] if more else None
        next_url = None
        if cursor is not None:
            next_url = request.build_absolute_uri(f"{request.path}?after={cursor}&limit={limit}")
        return Response({"results": moves, "next": next_url, "next_cursor": cursor})


class ScoresView(APIView):
    @extend_schema(
        operation_id="games_scores",
        summary="The score table: points per seat per round, and totals",
        tags=["games"],
        responses={200: ScoresSerializer, **problem_responses(401, 404, 429)},
    )
    def get(self, request, game_id: int):
        game = selectors.get_game(game_id)
        if game.status != GameStatus.FINISHED or engine.PRESETS[game.ruleset].family == "decktet":
            return Response(selectors.score_table(game))  # (Decktet-Uno's scores come from its moves)
        # a finished game's rounds no longer change: the replica's, if it has them all
        table = db_router.on_replica(lambda: selectors.score_table(game), request.user)
        if len(table["rounds"]) != game.round:
            table = selectors.score_table(game)  # the replica is behind the game's end
        return Response(table)


AWAY_DESCRIPTION = (
    "While the caller is away, the clocks of their decisions in running correspondence games (`turn_seconds` at least "
    "UNO_CORRESPONDENCE_SECONDS, a day by default) stand still: each deadline moves past the away period by the time it "
    "had left, a decision that comes meanwhile starts its clock at the period's end, and the sweeper never times them "
    "out. Real-time games, windows with their own deadline (a buzz) and seats on autopilot are not affected. The game "
    "view shows `players[i].away_until` and `time_left.paused`. At most UNO_AWAY_DAYS_PER_MONTH days (14 by default) "
    "per calendar month (UTC; a period crossing months counts its days in each) and per period."
)


class AwayView(APIView):
    """The caller's away period (docs: Time and correspondence games, "Away")."""

    @extend_schema(
        operation_id="players_away_get", summary="The caller's away period and this month's count", tags=["players"],
        description=AWAY_DESCRIPTION, responses={200: AwaySerializer, **problem_responses(401, 429)},
    )
    def get(self, request):
        return Response(AwaySerializer(away.away_status(request.user)).data)

    @extend_schema(
        operation_id="players_away_set", summary="Be away until a time (starts now, or moves the current end)",
        tags=["players"], description=AWAY_DESCRIPTION, request=AwayInputSerializer,
        responses={
            200: AwaySerializer,
            **problem_responses(401, (403, "`bot_account`: a bot is never away"), 415, 429),
            (400, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                AwayRefusalSerializer,
                description="`invalid` (with `fields.until`): missing, not a date and time, not in the future, or a "
                "period longer than UNO_AWAY_DAYS_PER_MONTH days (then with `days_left` and `days_allowed_per_month`); "
                "`malformed_json`. Nothing changed."),
            (409, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                AwayRefusalSerializer,
                description="`away_days_exhausted`: a calendar month the period touches would count more than "
                "UNO_AWAY_DAYS_PER_MONTH days, with that `month` (`YYYY-MM`), the `days_left` in it and "
                "`days_allowed_per_month`. Nothing changed."),
        },
    )
    def put(self, request):
        ser = AwayInputSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        return Response(AwaySerializer(away.set_away(player=request.user, until=ser.validated_data["until"])).data)

    @extend_schema(
        operation_id="players_away_end", summary="End the caller's away period now", tags=["players"],
        description="The unused days are given back, and the caller's correspondence clocks run again, each with the "
        "time it had left. Not away: nothing changes (200).",
        responses={200: AwaySerializer, **problem_responses(401, (403, "`bot_account`: a bot is never away"), 429)},
    )
    def delete(self, request):
        return Response(AwaySerializer(away.end_away(player=request.user)).data)
