from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.problems import ApiError, problem_responses
from players import lockout
from players.selectors import blocks_of, player_profile, player_tokens
from players.serializers import (
    ApiTokenSerializer,
    BlockInputSerializer,
    BlockSerializer,
    CredentialsInputSerializer,
    NewApiTokenSerializer,
    PasswordChangeInputSerializer,
    PlayerProfileSerializer,
    RegisterInputSerializer,
    RegisterOutputSerializer,
    TokenInputSerializer,
    TokenOutputSerializer,
    WebhookInputSerializer,
    WebhookSerializer,
)
from players.services import (
    block_player,
    password_change,
    player_register,
    token_obtain,
    unblock_player,
    webhook_delete,
    webhook_set,
)
from players.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle
from players.tokens import token_issue, token_revoke


LOGIN_THROTTLED = (
    "`throttled`, with `Retry-After` (and `retry_after`): too many requests from this client IP "
    "(THROTTLE_AUTH), or too many log-in attempts at this account (UNO_LOGIN_LOCKOUT), refused before "
    "the password is checked, the same whether the account exists or not. A client that sends the "
    "device cookie of an earlier successful log-in to this account is counted on its own."
)


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
        data = RegisterOutputSerializer({"token": token.key, "player": player}).data  # shown once
        return Response(data, status=status.HTTP_201_CREATED)


class TokenView(AuthEndpoint):
    """Issues a new token, named "login", on every call (keys are stored hashed, so an
    earlier one cannot be handed out again); the earlier ones keep working until revoked
    (`DELETE /api/v1/auth/tokens/{id}`), they expire, or the password changes. A player
    holds at most UNO_TOKENS_PER_PLAYER tokens: past that, the least recently used one is
    revoked. Any Authorization header is ignored.

    Failed log-ins are limited per account as well as per client IP: attempts at one
    account's password (wrong or right, from anywhere, the account existing or not) are
    counted in the tiers of UNO_LOGIN_LOCKOUT (default 5 a minute, 10 a quarter of an hour,
    20 an hour, 50 a day); past one, the answer is 429 `throttled` with Retry-After, before
    the password is checked. A successful log-in sets a device cookie (`uno_device_...`,
    HttpOnly, Path=/api/v1/auth/, valid UNO_LOGIN_DEVICE_DAYS): a client that sends it back
    is counted on its own, so guesses from elsewhere never lock the owner out."""

    @extend_schema(
        operation_id="auth_token",
        summary="Exchange username and password for a new API token",
        tags=["auth"],
        auth=[],
        request=CredentialsInputSerializer,
        responses={
            200: OpenApiResponse(
                TokenOutputSerializer,
                description="A new token: its key, shown this once. Sets (or renews) the account's "
                "device cookie, `uno_device_...`: send it back on later log-ins.",
            ),
            **problem_responses(
                (400, "`invalid_credentials`, `invalid` (with `fields`) or `malformed_json`."),
                415,
                (429, LOGIN_THROTTLED),
            ),
        },
    )
    def post(self, request):
        serializer = CredentialsInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_obtain(**serializer.validated_data, request=request)
        response = Response(TokenOutputSerializer({"token": token.key}).data)
        # this client proved the password: the account's lock-out no longer applies to it
        lockout.remember_device(request, response, lockout.account_ref(serializer.validated_data["username"]))
        return response


class AuthenticatedAuthEndpoint(APIView):
    """Token management: throttled per player, and by scope "auth" like log-in."""

    throttle_classes = [UserRateThrottle, ScopedRateThrottle]
    throttle_scope = "auth"


class PasswordView(AuthenticatedAuthEndpoint):
    """Changes the caller's password. Every token of the player is revoked at once, the one
    used for this request included, and a fresh token, with the same name as that one, is
    returned in its place. (A password set any other way, e.g. in the admin, revokes them too.)"""

    @extend_schema(
        operation_id="auth_password",
        summary="Change the password (revokes every token; returns a fresh one)",
        tags=["auth"],
        request=PasswordChangeInputSerializer,
        responses={
            200: OpenApiResponse(TokenOutputSerializer,
                                 description="The password is changed; the caller's new token, shown this once."),
            **problem_responses(
                (400, "`invalid`: `fields.old_password` (not the current password) or "
                 "`fields.new_password` (too short, too common, ...); or `malformed_json`."),
                401,
                415,
                (429, "`throttled`, with `Retry-After`: too many requests from this player "
                 "(THROTTLE_USER, THROTTLE_AUTH), or too many attempts at the account's password, "
                 "counted with its log-ins (UNO_LOGIN_LOCKOUT; see `auth_token`)."),
            ),
        },
    )
    def post(self, request):
        serializer = PasswordChangeInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = password_change(player=request.user, token_name=request.auth.name, request=request,
                                **serializer.validated_data)
        return Response(TokenOutputSerializer({"token": token.key}).data)


class ApiTokensView(AuthenticatedAuthEndpoint):
    """The caller's API tokens: several at once, each with a name ("phone", "bot"), an
    optional expiry and the time it was last used (to the minute). A key is shown only
    when its token is created; the list never shows one."""

    @extend_schema(
        operation_id="auth_tokens_list",
        summary="The caller's tokens (never their keys)",
        tags=["auth"],
        responses={
            200: OpenApiResponse(ApiTokenSerializer(many=True),
                                 description="The caller's tokens that have not expired, newest first."),
            **problem_responses(401, 429),
        },
    )
    def get(self, request):
        return Response(ApiTokenSerializer(player_tokens(request.user), many=True).data)

    @extend_schema(
        operation_id="auth_tokens_create",
        summary="Create a named token (its key is shown this once)",
        tags=["auth"],
        request=TokenInputSerializer,
        responses={
            201: OpenApiResponse(NewApiTokenSerializer,
                                 description="The token, with its key in `token`: shown this once, never again. "
                                 "Past UNO_TOKENS_PER_PLAYER tokens, the least recently used one was revoked."),
            **problem_responses(
                (400, "`invalid` (`fields.name`, `fields.expires_in_days`) or `malformed_json`."),
                401,
                415,
                429,
            ),
        },
    )
    def post(self, request):
        serializer = TokenInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_issue(player=request.user, **serializer.validated_data)
        return Response(NewApiTokenSerializer(token).data, status=status.HTTP_201_CREATED)


class ApiTokenView(AuthenticatedAuthEndpoint):
    """One of the caller's tokens, by the `id` the list gives."""

    @extend_schema(
        operation_id="auth_tokens_delete",
        summary="Revoke a token: it answers 401 from now on",
        tags=["auth"],
        responses={
            204: OpenApiResponse(description="Revoked (it may be the very token of this request)."),
            **problem_responses(401, (404, "`not_found`: the caller has no token with that id."), 429),
        },
    )
    def delete(self, request, token_id: int):
        token_revoke(player=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


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


class BlocksView(APIView):
    """The players the caller blocked."""

    @extend_schema(
        operation_id="players_blocks_list", summary="The players the caller blocked, newest first", tags=["players"],
        responses={200: BlockSerializer(many=True), **problem_responses(401, 429)},
    )
    def get(self, request):
        return Response(BlockSerializer(blocks_of(request.user.pk), many=True).data)

    @extend_schema(
        operation_id="players_blocks_create",
        summary="Block a player",
        description="Neither player is shown the other's table talk (`GET /games/{id}/chat` and the streams' "
        "`chat` events), and the blocked player cannot challenge the caller. The blocked player is not told. "
        "Blocking again changes nothing (200). At most 1,000 blocks.",
        tags=["players"], request=BlockInputSerializer,
        responses={201: BlockSerializer, 200: BlockSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): `username` missing or not a string, or the caller's own"), 401,
            (404, "`not_found`: no such player"), (409, "`too_many_blocks`"), 415, 429)},
    )
    def post(self, request):
        ser = BlockInputSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        block, created = block_player(blocker=request.user, username=ser.validated_data["username"])
        return Response(BlockSerializer(block).data, status=201 if created else 200)


class BlockView(APIView):
    @extend_schema(
        operation_id="players_blocks_delete", summary="Unblock a player", tags=["players"], request=None,
        responses={204: None, **problem_responses(401, (404, "`not_found`: no such player, or not blocked"), 429)},
    )
    def delete(self, request, username: str):
        unblock_player(blocker=request.user, username=username)
        return Response(status=204)
