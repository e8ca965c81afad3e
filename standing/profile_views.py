"""Profiles, a player's games and rating history: thin views over
standing.profile_selectors (reads) and standing.services (the caller's settings).

The profiles, game lists and rating histories are readable without credentials (the
anonymous rate limit applies, as everywhere); ``me`` in a path is the caller (401
without credentials).  ``/players/me`` itself is the players app's (routed first)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.db_router import lagging_reads
from config.problems import ApiError, problem_responses
from games import engine
from games.models import GameStatus
from games.pagination import int_param
from standing import profile_selectors as selectors, services
from standing.profile_serializers import (
    RESULTS,
    PlayerGamePageSerializer,
    PublicProfileSerializer,
    ProfileSettingsSerializer,
    ProfileSettingsUpdateSerializer,
    RatingHistorySerializer,
)

LIMIT_DEFAULT, LIMIT_MAX = 20, 100
#: a longer date is no date
WHEN_MAX_LENGTH = 40

USERNAME = OpenApiParameter("username", str, OpenApiParameter.PATH,
                            description="A username (found as log-in finds it: ignoring case and Unicode forms), "
                            "`bot:<level>` for a server bot level, or `me` (the caller).")
AFTER = OpenApiParameter("after", {"type": "string", "maxLength": selectors.CURSOR_MAX_LENGTH},
                         description="The `next_cursor` of an earlier answer of this list (opaque).")
LIMIT = OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX},
                         description=f"Entries per answer, 1 to {LIMIT_MAX} (default {LIMIT_DEFAULT}).")
BAD_TOKEN = (401, "`authentication_failed`: a bad token (the endpoint needs none); `not_authenticated`: `me` "
             "without credentials")


def _invalid(name: str, expected: str) -> ApiError:
    return ApiError(400, "invalid", f"{name} must be {expected}", fields={name: [expected]})


def _choice(request, name: str, choices) -> str | None:
    raw = request.query_params.get(name)
    if raw is not None and raw not in choices:
        raise _invalid(name, f"one of {', '.join(choices)}")
    return raw


def _bool(request, name: str) -> bool | None:
    raw = _choice(request, name, ("true", "false"))
    return None if raw is None else raw == "true"


def _when(request, name: str, *, end: bool) -> datetime | None:
    """An ISO 8601 date or date-time (UTC when it names no offset).  A date is that day's
    start, or for the ``end`` of a range the next day's (so that the day is included)."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        if len(raw) > WHEN_MAX_LENGTH:
            raise ValueError
        try:
            day = date.fromisoformat(raw)
        except ValueError:
            when = datetime.fromisoformat(raw)
            return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
        return datetime.combine(day + timedelta(days=1) if end else day, time(), tzinfo=UTC)
    except (ValueError, OverflowError):
        raise _invalid(name, "an ISO 8601 date or date-time (e.g. 2026-01-31 or 2026-01-31T18:00:00Z)") from None


def _limit(request) -> int:
    return int_param(request, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)


def _after(request, kind: str) -> int | None:
    raw = request.query_params.get("after")
    return None if raw is None else selectors.position_of(kind, raw)


class PlayerProfileView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_profile_retrieve", summary="A player's public profile (or a bot level's)",
        tags=["standing"],
        description="Readable without credentials. Games played and won (finished games; a bot level's: its rated "
        "games), each rating with its rank, and the last 10 finished games (null when the player hides their games "
        "from the caller: `games_public`). Bot levels have profiles as `bot:<level>`. The caller's own profile "
        "settings: `/players/me/profile`.",
        parameters=[OpenApiParameter("username", str, OpenApiParameter.PATH,
                                     description="A username (found as log-in finds it: ignoring case and Unicode "
                                     "forms), or `bot:<level>` for a server bot level. (`/players/me` is the "
                                     "caller's account.)")],
        responses={200: PublicProfileSerializer, **problem_responses(
            (401, "`authentication_failed`: a bad token (the endpoint needs none)"),
            (404, "`not_found`: no such player or bot level"), 429)},
    )
    @lagging_reads  # (a read replica's, config/db_router.py)
    def get(self, request, username: str):
        subject = selectors.subject_named(username, request.user, me=False)
        return Response(selectors.profile(subject, request.user))


class PlayerGamesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_games_list", summary="A player's games, newest first (cursor-paged)",
        tags=["standing"],
        description="Newest first (by creation). The caller's own list (`me`, or their name) has every game they "
        "sat in; another player's, their finished games, and when that player hides their games (`games_public` "
        "false) only the finished games the caller played with them (none without credentials); a bot level's "
        "(`bot:<level>`), its finished games. Each game's full history: `/games/{id}/moves`.",
        parameters=[
            USERNAME,
            OpenApiParameter("ruleset", str, enum=list(engine.PRESETS), description="Only games of this preset."),
            OpenApiParameter("status", str, enum=GameStatus.values,
                             description="Only games in this status (others' lists hold finished games only)."),
            OpenApiParameter("rated", str, enum=["true", "false"], description="Only rated (or unrated) games."),
            OpenApiParameter("result", str, enum=list(RESULTS),
                             description="Only finished games the listed player won (or lost)."),
            OpenApiParameter("opponent", str, description="Only games where this player (a username, or "
                             "`bot:<level>`: a seat of that level) also sat."),
            OpenApiParameter("since", str, description="Only games created at or after this ISO 8601 date "
                             "(that day's start, UTC) or date-time (UTC unless it says; encode `+` as `%2B`)."),
            OpenApiParameter("until", str, description="Only games created before this ISO 8601 date-time, or up to "
                             "the end of this date (UTC)."),
            AFTER, LIMIT,
        ],
        responses={200: PlayerGamePageSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): a bad `ruleset`, `status`, `rated`, `result`, `opponent` (nobody of "
             "that name), `since` / `until` (not ISO 8601, or `since` after `until`), `limit` or `after`"),
            BAD_TOKEN, (404, "`not_found`: no such player or bot level"), 429)},
    )
    @lagging_reads  # (a read replica's, config/db_router.py)
    def get(self, request, username: str):
        subject = selectors.subject_named(username, request.user)
        result = _choice(request, "result", RESULTS)
        opponent = None
        if (name := request.query_params.get("opponent")) is not None:
            opponent = selectors.opponent_named(name)
            if opponent is None:
                raise ApiError(400, "invalid", f"opponent: no player called {name!r}",
                               fields={"opponent": ["a username, or bot:<level>"]})
        since, until = _when(request, "since", end=False), _when(request, "until", end=True)
        if since is not None and until is not None and since > until:
            raise ApiError(400, "invalid", "since must not be after until", fields={"since": ["not after until"]})
        filters = selectors.GameFilters(
            ruleset=_choice(request, "ruleset", list(engine.PRESETS)),
            status=_choice(request, "status", GameStatus.values),
            rated=_bool(request, "rated"),
            won=None if result is None else result == "won",
            opponent=opponent, since=since, until=until)
        limit, after = _limit(request), _after(request, selectors.GAMES_CURSOR)
        return Response(selectors.game_page(subject, selectors.visible_to(subject, request.user), filters,
                                            after=after, limit=limit))


class RatingHistoryView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_rating_history", summary="A player's rating in a preset, and its history "
        "(cursor-paged)", tags=["standing"],
        description="The rating as the profile lists it, and each rated game's change, newest first. An entry's "
        "`game` is null when the player hides their games from the caller.",
        parameters=[
            USERNAME,
            OpenApiParameter("ruleset", str, OpenApiParameter.PATH, enum=list(engine.PRESETS),
                             description="The preset."),
            AFTER, LIMIT,
        ],
        responses={200: RatingHistorySerializer, **problem_responses(
            (400, "`invalid` (with `fields`): a bad `limit` or `after`"), BAD_TOKEN,
            (404, "`not_found`: no such player or bot level, or no rating of theirs in this preset; "
             "`unknown_ruleset`"), 429)},
    )
    @lagging_reads  # (a read replica's, config/db_router.py)
    def get(self, request, username: str, ruleset: str):
        subject = selectors.subject_named(username, request.user)
        if ruleset not in engine.PRESETS:
            raise ApiError(404, "unknown_ruleset", f"no preset {ruleset!r}; known: {', '.join(engine.PRESETS)}")
        limit, after = _limit(request), _after(request, selectors.HISTORY_CURSOR)
        rating = selectors.subject_rating(subject, ruleset)
        if rating is None:
            raise ApiError(404, "not_found", f"{subject.name} has no rating in {ruleset}")
        page = selectors.history_page(rating, after=after, limit=limit)
        if selectors.visible_to(subject, request.user).hidden:
            for entry in page["results"]:
                entry["game"] = None
        return Response({"username": subject.name, "rating": selectors.rating_summary(rating), **page})


class MyProfileView(APIView):
    @extend_schema(operation_id="players_me_profile_retrieve", summary="The caller's profile settings",
                   tags=["standing"], responses={200: ProfileSettingsSerializer, **problem_responses(401, 429)})
    def get(self, request):
        return Response({"games_public": selectors.games_public(request.user)})

    @extend_schema(operation_id="players_me_profile_update", summary="Show or hide the caller's game list",
                   tags=["standing"], request=ProfileSettingsUpdateSerializer,
                   responses={200: ProfileSettingsSerializer, **problem_responses(
                       (400, "`invalid` (with `fields`): `games_public` missing or not a JSON boolean; "
                        "`malformed_json`"), 401, 415, 429)})
    def patch(self, request):
        ser = ProfileSettingsUpdateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        profile = services.set_games_public(request.user, ser.validated_data["games_public"])
        return Response({"games_public": profile.games_public})
