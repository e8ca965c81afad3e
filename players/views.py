from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import ApiError, problem_responses
from players.selectors import player_profile
from players.serializers import (
    CredentialsInputSerializer,
    PlayerProfileSerializer,
    RegisterInputSerializer,
    RegisterOutputSerializer,
    TokenOutputSerializer,
    WebhookInputSerializer,
    WebhookSerializer,
)
from players.services import player_register, token_obtain, webhook_delete, webhook_set
from players.throttling import AnonRateThrottle, ScopedRateThrottle


class AuthEndpoint(APIView):
    """Anonymous endpoints: ignore any Authorization header, throttle by scope "auth"."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle, ScopedRateThrottle]
    throttle_scope = "auth"


class RegisterView(AuthEndpoint):
    """Usernames are unique ignoring case. Any Authorization header is ignored."""

    @extend_schema(
        operation_id="auth_register",
        summary="Create a player account and get its API token",
        tags=["auth"],
        auth=[],
        request=RegisterInputSerializer,
        responses={
            201: OpenApiResponse(RegisterOutputSerializer, description="Player created."),
            **problem_responses(
                (400, "`invalid` (`fields.username`: taken or not valid; "
                 "`fields.password`: too short or common) or `malformed_json`."),
                415,
                429,
            ),
        },
    )
    def post(self, request):
        serializer = RegisterInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        player, token = player_register(**serializer.validated_data)
        data = RegisterOutputSerializer({"token": token.key, "player": player}).data
        return Response(data, status=status.HTTP_201_CREATED)


class TokenView(AuthEndpoint):
    """Returns the same token every time until it is revoked. Any Authorization header is ignored."""

    @extend_schema(
        operation_id="auth_token",
        summary="Exchange username and password for the player's API token",
        tags=["auth"],
        auth=[],
        request=CredentialsInputSerializer,
        responses={
            200: OpenApiResponse(TokenOutputSerializer, description="The player's token."),
            **problem_responses(
                (400, "`invalid_credentials`, `invalid` (with `fields`) or `malformed_json`."),
                415,
                429,
            ),
        },
    )
    def post(self, request):
        serializer = CredentialsInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_obtain(**serializer.validated_data, request=request)
        return Response(TokenOutputSerializer({"token": token.key}).data)


class MeView(APIView):
    """Profile of the authenticated player."""

    @extend_schema(
        operation_id="players_me",
        summary="The caller's profile, with games played and won",
        tags=["players"],
        responses={
            200: OpenApiResponse(PlayerProfileSerializer, description="The caller's profile."),
            **problem_responses(401, 429),
        },
    )
    def get(self, request):
        return Response(PlayerProfileSerializer(player_profile(request.user)).data)


class WebhookView(APIView):
    """Notifications for correspondence play: "your_turn", "game_started" and
    "game_finished" are POSTed as JSON to the URL, signed with HMAC-SHA256 of the
    raw body in the header ``X-Uno-Signature: sha256=<hex>`` (key: the secret shown
    once by PUT), with ``X-Uno-Event`` and ``X-Uno-Delivery`` headers.  Delivery is
    retried with exponential backoff and never delays a move."""

    @extend_schema(
        operation_id="players_webhook_get", summary="The caller's webhook", tags=["players"],
        responses={200: WebhookSerializer, **problem_responses(401, (404, "`not_found`: no webhook set"), 429)},
    )
    def get(self, request):
        hook = getattr(request.user, "webhook", None)
        if hook is None:
            raise ApiError(404, "not_found", "no webhook is set")
        return Response(WebhookSerializer({"url": hook.url, "created_at": hook.created_at}).data)

    @extend_schema(
        operation_id="players_webhook_set", summary="Set the caller's webhook (returns its secret, once)",
        tags=["players"], request=WebhookInputSerializer,
        responses={200: WebhookSerializer, **problem_responses(400, 401, 415, 429)},
    )
    def put(self, request):
        ser = WebhookInputSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        hook = webhook_set(player=request.user, **ser.validated_data)
        return Response(WebhookSerializer({"url": hook.url, "created_at": hook.created_at, "secret": hook.secret}).data)

    @extend_schema(
        operation_id="players_webhook_delete", summary="Remove the caller's webhook", tags=["players"],
        responses={204: None, **problem_responses(401, (404, "`not_found`: no webhook set"), 429)},
    )
    def delete(self, request):
        if not webhook_delete(player=request.user):
            raise ApiError(404, "not_found", "no webhook is set")
        return Response(status=204)
