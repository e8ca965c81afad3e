"""Thin HTTP views over matchmaking.services (writes) and matchmaking.selectors (reads)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import PROBLEM_CONTENT_TYPE, problem_responses
from games import services as games_services
from matchmaking import selectors, services, tasks
from matchmaking.models import Status
from matchmaking.serializers import QuickPlayConflictSerializer, QuickPlayInputSerializer, QuickPlaySerializer

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255}, OpenApiParameter.HEADER,
    description="A retry with the same key and body returns the first response (status and body, a refusal "
    "included) and creates nothing new; the same key with another body answers 422 `idempotency_key_reused`, a "
    "retry while the first request runs 409 `idempotency_in_progress`. Keys are per player, 1 to 255 characters "
    "without control characters (else 400 `invalid` naming `Idempotency-Key`), and remembered for "
    "UNO_IDEMPOTENCY_TTL_HOURS (24 by default).",
)


class QuickPlayView(APIView):
    @extend_schema(
        operation_id="quickplay_create",
        summary="Ask for quick play: a table of compatible players (and bots, if allowed, after a wait)",
        description="What the caller will accept: presets, seat counts and speed classes (each in order of "
        "preference), rated or not, and whether bots may fill the table after a wait. The request is matched at "
        "once if it completes a table with requests that wait (the answer is then already `matched`, with "
        "`game`), else it waits: poll `GET /quickplay/{id}` or watch the feed (`GET /players/me/events`) for "
        "`quickplay_matched`. One waiting request per player. See docs/players/quick-play.md.",
        tags=["quickplay"],
        request=QuickPlayInputSerializer,
        parameters=[
            IDEMPOTENCY_KEY,
            OpenApiParameter("Location", str, OpenApiParameter.HEADER, response=[202], required=True,
                             description="The request's URL."),
        ],
        responses={
            202: QuickPlaySerializer,
            **problem_responses(
                (400, "`invalid` (with `fields`): an unknown preset, an empty list, a seat count out of every "
                 "preset's bounds, a wrong type, `bots` with `rated`, a bad `Idempotency-Key`; `malformed_json`"),
                401, 415,
                (422, "`idempotency_key_reused`: the same Idempotency-Key with another body"),
                429,
            ),
            (409, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                QuickPlayConflictSerializer,
                description="`already_waiting`: the caller has a waiting request (its id in `quickplay`: cancel it "
                "first); `idempotency_in_progress`",
            ),
        },
    )
    def post(self, request):
        body = request.data
        ser = QuickPlayInputSerializer(data=body)
        ser.is_valid(raise_exception=True)
        data = ser.validated_data

        def run():
            req = services.request_quickplay(
                player=request.user, rulesets=data["rulesets"], seats=data["seats"], speeds=data["speed"],
                rated=data["rated"], bots=data["bots"],
            )
            return 202, selectors.quickplay_view(req)

        key = request.headers.get("Idempotency-Key")
        if key is None:
            status, payload = run()
        else:
            status, payload = games_services.idempotent(
                player=request.user, idempotency_key=key,
                request_hash=games_services.fingerprint("POST", request.path, body), run=run,
            )
        if status >= 400:
            return Response(payload, status=status, content_type=PROBLEM_CONTENT_TYPE)
        if payload["status"] == Status.WAITING and payload["bots"] is not None:
            tasks.schedule_bots(payload["id"], payload["bots"]["after_seconds"])
        location = request.build_absolute_uri(reverse("matchmaking:quickplay-detail", kwargs={"request_id": payload["id"]}))
        return Response(payload, status=status, headers={"Location": location})


class QuickPlayDetailView(APIView):
    @extend_schema(
        operation_id="quickplay_retrieve",
        summary="A quick-play request of the caller's: waiting, matched (with its game), cancelled or expired",
        tags=["quickplay"],
        responses={200: QuickPlaySerializer,
                   **problem_responses(401, (404, "`not_found`: no such request of the caller's"), 429)},
    )
    def get(self, request, request_id: int):
        return Response(selectors.quickplay_view(selectors.request_of(request.user, request_id)))

    @extend_schema(
        operation_id="quickplay_cancel",
        summary="Cancel a waiting quick-play request (again: unchanged)",
        tags=["quickplay"],
        responses={
            200: QuickPlaySerializer,
            **problem_responses(401, (404, "`not_found`: no such request of the caller's"), 429),
            (409, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                QuickPlayConflictSerializer,
                description="`already_matched` (the game has started: its id in `game`; leave it with "
                "`POST /games/{id}/leave`), `quickplay_expired`",
            ),
        },
    )
    def delete(self, request, request_id: int):
        return Response(selectors.quickplay_view(services.cancel(player=request.user, request_id=request_id)))
