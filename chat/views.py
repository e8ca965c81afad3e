"""Table talk over the API: thin views over chat.services and chat.selectors."""

from __future__ import annotations


from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from chat import selectors, services
from chat.models import Room
from chat.serializers import (
    MessagePageSerializer,
    MessageSerializer,
    NewMessageSerializer,
    NewReportSerializer,
    ReportSerializer,
)
from chat.throttling import ChatThrottle
from config.problems import PROBLEM_CONTENT_TYPE, ApiError, problem_responses
from games import services as games
from games.pagination import int_param

PAGE_DEFAULT, PAGE_MAX = 50, 200
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255}, OpenApiParameter.HEADER,
    description="As on `POST /games/{id}/actions`: a retry with the same key and body returns the first response "
    "(a refusal included) and writes nothing new; the same key with another body 422 `idempotency_key_reused`.",
)


def _idempotent(request, run) -> Response:
    """``run()`` -> (status, body), once per ``Idempotency-Key``, as the actions' endpoint
    (games.services: the key's record, its row lock, the stored first answer)."""
    key = request.headers.get("Idempotency-Key")
    status, body = run() if key is None else games.idempotent(
        player=request.user, idempotency_key=key, request_hash=games.fingerprint("POST", request.path, request.data),
        run=run)
    if status >= 400:
        return Response(body, status=status, content_type=PROBLEM_CONTENT_TYPE)
    return Response(body, status=status)


def _cursor(request, name: str) -> int | None:
    return int_param(request, name, 0, 0, 2**63 - 1) if name in request.query_params else None


class ChatView(APIView):
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, ChatThrottle]

    @extend_schema(
        operation_id="games_chat_list",
        summary="The game's table talk the caller is shown, oldest first (cursor-paged)",
        description="Seated players are shown the players' room, everyone else the spectators' room; once the game "
        "is finished, both to everyone (the table talk is part of the game's record). Messages the staff hid, and "
        "those of players blocked either way with the caller, are left out. Without a cursor: the newest `limit` "
        "messages; `before=<previous_cursor>` pages back, `after=<next_cursor>` (or the last id seen) forward.",
        tags=["chat"],
        parameters=[
            OpenApiParameter("room", str, enum=Room.values,
                             description="Only this room (one the caller is shown, else 403 `room_hidden`)."),
            OpenApiParameter("after", {"type": "integer", "minimum": 0},
                             description="Messages with an id greater than this, oldest first."),
            OpenApiParameter("before", {"type": "integer", "minimum": 0},
                             description="The newest `limit` messages with an id less than this (not with `after`)."),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": PAGE_MAX},
                             description=f"Messages per page, 1 to {PAGE_MAX} (default {PAGE_DEFAULT})."),
        ],
        responses={200: MessagePageSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): `room`, `after`, `before`, `limit`, or `after` with `before`"), 401,
            (403, "`room_hidden`: a spectator asking for the players' room, or a player for the spectators' room "
             "of a game not finished"), 404, 429)},
    )
    def get(self, request, game_id: int):
        room = request.query_params.get("room")
        if room is not None and room not in Room.values:
            raise ApiError(400, "invalid", "room must be players or spectators", fields={"room": ["players or spectators"]})
        after, before = _cursor(request, "after"), _cursor(request, "before")
        if after is not None and before is not None:
            raise ApiError(400, "invalid", "after and before cannot be combined",
                           fields={"before": ["not with after"]})
        limit = int_param(request, "limit", PAGE_DEFAULT, 1, PAGE_MAX)
        return Response(selectors.chat_page(game_id, request.user.pk, room=room, after=after, before=before,
                                            limit=limit))

    @extend_schema(
        operation_id="games_chat_post",
        summary="Write to the game's table talk",
        description="A seated player writes to the players' room (not after leaving a running game), anyone else "
        "to the spectators' room, which the players are not shown until the game is finished. The message goes "
        "live to the game's stream as an `event: chat` (to the room's readers, except those blocked either way with "
        f"the author). Rate limited per player: UNO_CHAT_RATE (`{settings.UNO_CHAT_RATE}`: at most 5 messages in "
        "10 seconds and 30 a minute), 429 with `Retry-After`. Bots never write, and the server adds nothing to the "
        "table talk.",
        tags=["chat"],
        parameters=[IDEMPOTENCY_KEY],
        request=NewMessageSerializer,
        responses={201: MessageSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): `text` missing, not a string, empty or too long once cleaned, too long "
             "as sent; `room` not a room; `malformed_json`"), 401,
            (403, "`muted` (the staff muted the caller, with `until`), `wrong_room` (with the caller's `room`), "
             "`left_game` (the caller left this running game)"),
            404, 415, (422, "`idempotency_key_reused`"), 429)},
    )
    def post(self, request, game_id: int):
        ser = NewMessageSerializer(data=request.data)
        ser.is_valid(raise_exception=True)

        def run():
            message = services.post_message(player=request.user, game_id=game_id, **ser.validated_data)
            return 201, selectors.message_data(message, request.user.username)

        return _idempotent(request, run)


class ReportView(APIView):
    @extend_schema(
        operation_id="games_chat_report",
        summary="Report a message to the staff",
        description="A message the caller is shown, not their own, once. The staff see it in the admin, where they "
        "may hide the message (it is no longer shown; the room's readers get an `event: chat_hidden`) and mute its "
        "author until a date (their messages answer 403 `muted`).",
        tags=["chat"],
        parameters=[IDEMPOTENCY_KEY],
        request=NewReportSerializer,
        responses={201: ReportSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): `reason` not one of the list, `comment` too long"), 401,
            (403, "`own_message`"), (404, "`not_found`: no such game, or no such message shown to the caller"),
            (409, "`already_reported`"), 415, (422, "`idempotency_key_reused`"), 429)},
    )
    def post(self, request, game_id: int, message_id: int):
        ser = NewReportSerializer(data=request.data)
        ser.is_valid(raise_exception=True)

        def run():
            report = services.report_message(player=request.user, game_id=game_id, message_id=message_id,
                                             **ser.validated_data)
            return 201, ReportSerializer(report).data

        return _idempotent(request, run)
