"""Thin HTTP views over meeting.services (writes) and meeting.selectors (reads)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import PROBLEM_CONTENT_TYPE, ApiError, problem_responses
from games import services as games
from meeting import selectors, services
from meeting.models import ChallengeStatus
from meeting.serializers import (
    ChallengeListSerializer,
    ChallengeSerializer,
    CreateChallengeSerializer,
    DeclineSerializer,
    PreferencesSerializer,
    RematchSerializer,
)

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255}, OpenApiParameter.HEADER,
    description="As for `POST /games/{id}/actions`: a retry with the same key and body returns the first response "
    "(a refusal included) and changes nothing; the same key with another body 422 `idempotency_key_reused`, a retry "
    "while the first runs 409 `idempotency_in_progress`.",
)
BAD_KEY = (400, "`invalid`: a bad `Idempotency-Key` (with `fields`)")
CLOSED = ("`challenge_expired`, `challenge_cancelled`, `challenge_declined`, `challenge_accepted` (the challenge is "
          "no longer pending: `challenge_status`, and `game`)")


def _idempotent(request, run, status: int = 200, headers=None) -> Response:
    """``run()`` (-> the answer's body) once per ``Idempotency-Key`` when one is given."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return Response(run(), status=status, headers=headers)
    code, body = games.idempotent(player=request.user, idempotency_key=key,
                                  request_hash=games.fingerprint("POST", request.path, request.data),
                                  run=lambda: (status, run()))
    if code >= 400:
        return Response(body, status=code, content_type=PROBLEM_CONTENT_TYPE)
    return Response(body, status=code, headers=headers)


class ChallengesView(APIView):
    @extend_schema(
        operation_id="challenges_list", summary="The caller's challenges, incoming and outgoing", tags=["challenges"],
        description=f"Newest first, at most {selectors.LIST_LIMIT}.",
        parameters=[
            OpenApiParameter("direction", str, enum=["incoming", "outgoing"],
                             description="`incoming`: named in or joined by link; `outgoing`: sent by the caller."),
            OpenApiParameter("status", str, enum=ChallengeStatus.values),
        ],
        responses={200: ChallengeListSerializer, **problem_responses((400, "`invalid` (with `fields`)"), 401, 429)},
    )
    def get(self, request):
        direction = request.query_params.get("direction")
        status = request.query_params.get("status")
        if direction not in (None, "incoming", "outgoing"):
            raise ApiError(400, "invalid", "direction must be incoming or outgoing",
                           fields={"direction": ["incoming or outgoing"]})
        if status is not None and status not in ChallengeStatus.values:
            raise ApiError(400, "invalid", f"status must be one of {', '.join(ChallengeStatus.values)}",
                           fields={"status": [", ".join(ChallengeStatus.values)]})
        found = selectors.challenges_of(request.user, direction=direction, status=status)
        return Response({"results": [selectors.challenge_view(c, request.user, request) for c in found]})

    @extend_schema(
        operation_id="challenges_create", summary="Challenge players by name, or open a challenge to anyone with "
        "its link", tags=["challenges"], request=CreateChallengeSerializer,
        description="The game's settings as `POST /games` takes them, plus `to` and `rated`. The named players get "
        "a `challenge` event on their feed (and webhook). The game is created and started once every named player "
        "accepted, or once every free seat of an open challenge was taken. A challenge expires unanswered after "
        "a day (a week when `turn_seconds` is a day or more).",
        parameters=[IDEMPOTENCY_KEY, OpenApiParameter("Location", str, OpenApiParameter.HEADER, response=[201],
                                                      required=True, description="The challenge's URL.")],
        responses={
            201: ChallengeSerializer,
            **problem_responses(
                (400, "`invalid` or `invalid_options` (with `fields`), `malformed_json`, `unknown_player`, "
                 "`cannot_challenge_self`, `cannot_challenge_bot`"),
                401,
                (403, "`not_accepting_challenges`: a named player takes no challenges (from anyone, or from the "
                 "caller), with `username`"),
                (409, f"`too_many_challenges`: the caller has `UNO_MAX_PENDING_CHALLENGES` "
                 f"({services.MAX_PENDING_CHALLENGES}) pending challenges already, with the `limit`; "
                 "`idempotency_in_progress`"),
                415, (422, "`idempotency_key_reused`"), 429,
            ),
        },
    )
    def post(self, request):
        ser = CreateChallengeSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        data = dict(ser.validated_data)
        holder = {}

        def run():
            challenge = services.create_challenge(challenger=request.user, **data)
            holder["id"] = challenge.pk
            return selectors.challenge_view(challenge, request.user, request)

        response = _idempotent(request, run, status=201)
        if response.status_code == 201:
            response["Location"] = request.build_absolute_uri(
                reverse("meeting:challenge-detail", kwargs={"challenge_id": response.data["id"]}))
        return response


class ChallengeDetailView(APIView):
    @extend_schema(operation_id="challenges_retrieve", summary="A challenge (its challenger's and its players' "
                   "only)", tags=["challenges"],
                   responses={200: ChallengeSerializer, **problem_responses(401, 404, 429)})
    def get(self, request, challenge_id: int):
        return Response(selectors.challenge_view(selectors.challenge_for(request.user, challenge_id), request.user,
                                                 request))


class AcceptView(APIView):
    @extend_schema(
        operation_id="challenges_accept", summary="Accept a challenge (a named player)", tags=["challenges"],
        request=None, parameters=[IDEMPOTENCY_KEY],
        description="Once every named player accepted, the game starts (`game`; each player gets `game_started` on "
        "their feed).",
        responses={200: ChallengeSerializer, **problem_responses(
            BAD_KEY, 401, (404, "`not_found`: no such challenge, or not one the caller is named in"),
            (409, f"`own_challenge`, `already_accepted`, {CLOSED}; the game's refusals (`too_many_games`...)"),
            (422, "`idempotency_key_reused`"), 429)},
    )
    def post(self, request, challenge_id: int):
        return _idempotent(request, lambda: selectors.challenge_view(
            services.accept_challenge(player=request.user, challenge_id=challenge_id), request.user, request))


class DeclineView(APIView):
    @extend_schema(
        operation_id="challenges_decline", summary="Decline a challenge, with a reason shown to the challenger",
        tags=["challenges"], request=DeclineSerializer,
        description="The challenge ends (`declined`); the challenger and the other named players get "
        "`challenge_declined` with the reason.",
        responses={200: ChallengeSerializer, **problem_responses(
            (400, "`invalid` (an unknown `reason`)"), 401, 404,
            (409, f"`own_challenge` (cancel it instead), `already_accepted`, {CLOSED}"), 429)},
    )
    def post(self, request, challenge_id: int):
        ser = DeclineSerializer(data=request.data if isinstance(request.data, dict) else {})
        ser.is_valid(raise_exception=True)
        challenge = services.decline_challenge(player=request.user, challenge_id=challenge_id,
                                               reason=ser.validated_data["reason"])
        return Response(selectors.challenge_view(challenge, request.user, request))


class CancelView(APIView):
    @extend_schema(
        operation_id="challenges_cancel", summary="Cancel a pending challenge (the challenger)", tags=["challenges"],
        request=None,
        responses={200: ChallengeSerializer, **problem_responses(
            401, (403, "`not_challenger`"), 404, (409, CLOSED), 429)},
    )
    def post(self, request, challenge_id: int):
        challenge = services.cancel_challenge(player=request.user, challenge_id=challenge_id)
        return Response(selectors.challenge_view(challenge, request.user, request))


class OpenChallengeView(APIView):
    @extend_schema(operation_id="challenges_open_retrieve", summary="An open challenge, by its link",
                   tags=["challenges"], responses={200: ChallengeSerializer, **problem_responses(401, 404, 429)})
    def get(self, request, token: str):
        return Response(selectors.challenge_view(selectors.open_challenge(token), request.user, request))


class OpenAcceptView(APIView):
    @extend_schema(
        operation_id="challenges_open_accept", summary="Take a seat of an open challenge, by its link",
        tags=["challenges"], request=None, parameters=[IDEMPOTENCY_KEY],
        description="The last free seat starts the game (`game`).",
        responses={200: ChallengeSerializer, **problem_responses(
            BAD_KEY, 401, (403, "`not_accepting_challenges` (the challenger's blocks), `cannot_challenge_bot` (a bot "
                  "account)"), 404,
            (409, f"`own_challenge`, `already_accepted`, `challenge_full`, {CLOSED}; the game's refusals "
             "(`too_many_games`...)"), (422, "`idempotency_key_reused`"), 429)},
    )
    def post(self, request, token: str):
        return _idempotent(request, lambda: selectors.challenge_view(
            services.take_open_seat(player=request.user, token=token), request.user, request))


class PreferencesView(APIView):
    @extend_schema(operation_id="players_me_preferences_retrieve", summary="The caller's preferences (challenges)",
                   tags=["players"], responses={200: PreferencesSerializer, **problem_responses(401, 429)})
    def get(self, request):
        return Response(selectors.preferences_of(request.user))

    @extend_schema(operation_id="players_me_preferences_update", summary="Change the caller's preferences",
                   tags=["players"], request=PreferencesSerializer,
                   responses={200: PreferencesSerializer, **problem_responses(
                       (400, "`invalid` (with `fields`)"), 401, 415, 429)})
    def patch(self, request):
        ser = PreferencesSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        services.set_preferences(player=request.user, **ser.validated_data)
        return Response(selectors.preferences_of(request.user))


REMATCH_REFUSALS = (
    "`game_not_finished`, `already_accepted`, `player_left` (a player left the game: no rematch with its table), "
    "`rematch_started` (with `game`), `rematch_declined`, `rematch_expired`; the game's refusals (`too_many_games`...)"
)


class RematchView(APIView):
    @extend_schema(
        operation_id="games_rematch", summary="Offer a rematch of a finished game, or accept the offer",
        tags=["games"], request=None, parameters=[IDEMPOTENCY_KEY],
        description="The first seated human's call offers (the other humans get `rematch_offer` on their feed), the "
        "others' accept; bots accept at once. Once every human accepted, a new game with the same settings "
        "(preset, options, seats, turn time, `rated`, the bots and their levels) starts with the seats rotated by "
        "one: the player of seat 1 takes seat 0, seat i + 1 seat i, seat 0 the last one. Every change is a `rematch` "
        "event on the old game's stream and its view's `rematch`. An offer expires after 15 minutes (3 days after a "
        "game whose `turn_seconds` is a day or more).",
        responses={200: RematchSerializer, **problem_responses(
            BAD_KEY, 401, (403, "`not_seated`, `left_game` (the caller left the game)"), 404,
            (409, REMATCH_REFUSALS), (422, "`idempotency_key_reused`"), 429)},
    )
    def post(self, request, game_id: int):
        return _idempotent(request, lambda: selectors.rematch_view(
            services.rematch(player=request.user, game_id=game_id)))

    @extend_schema(
        operation_id="games_rematch_destroy", summary="Decline the rematch offer (it ends)", tags=["games"],
        responses={200: RematchSerializer, **problem_responses(
            401, (403, "`not_seated`, `left_game`"), 404,
            (409, "`game_not_finished`, `no_rematch_offer`, `rematch_started`, `rematch_declined`, `rematch_expired`"),
            429)},
    )
    def delete(self, request, game_id: int):
        return Response(selectors.rematch_view(services.decline_rematch(player=request.user, game_id=game_id)))


class RematchDeclineView(APIView):
    @extend_schema(
        operation_id="games_rematch_decline", summary="Decline the rematch offer (as DELETE .../rematch)",
        tags=["games"], request=None,
        responses={200: RematchSerializer, **problem_responses(
            401, (403, "`not_seated`, `left_game`"), 404,
            (409, "`game_not_finished`, `no_rematch_offer`, `rematch_started`, `rematch_declined`, `rematch_expired`"),
            429)},
    )
    def post(self, request, game_id: int):
        return Response(selectors.rematch_view(services.decline_rematch(player=request.user, game_id=game_id)))
