"""reach's endpoints: notification settings, the email address, push subscriptions, and
the two links that work without signing in (verification, one-click unsubscribe)."""

from __future__ import annotations

from html import escape

from django.core import signing

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import parsers, renderers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.parsers import JSONParser
from config.problems import ApiError, problem_responses
from reach import selectors, services
from reach.messages import ALL, read_unsubscribe_token
from reach.serializers import (
    EmailInputSerializer,
    EmailStateSerializer,
    NotificationsInputSerializer,
    NotificationsSerializer,
    SubscriptionInputSerializer,
    SubscriptionSerializer,
    UnsubscribedSerializer,
    VerifiedSerializer,
)

TAGS = ["notifications"]


class PageRenderer(renderers.BaseRenderer):
    """A small HTML page for the links opened from an email in a browser (which asks for
    ``text/html``); the same data as the JSON answer."""

    media_type = "text/html"
    format = "html"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        data = data or {}
        title = data.get("title") or ("Done" if data.get("status") is None else "This link does not work")
        text = data.get("detail") or ""
        form = ""
        if data.get("unsubscribed") is False and renderer_context:
            form = ('<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">'
                    '<button type="submit">Unsubscribe</button></form>')
        elif data.get("verified"):
            text = f"{data.get('address')} is verified: your UNO notifications will be sent to it."
        page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
                '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
                f"<body><main><h1>{escape(title)}</h1><p>{escape(text)}</p>{form}</main></body></html>")
        return page.encode()


class NotificationsView(APIView):
    @extend_schema(
        operation_id="players_me_notifications_retrieve", summary="The caller's notification settings", tags=TAGS,
        description="What is sent where (email, push) per kind, quiet hours, digest, the email address and the push "
        "subscriptions. Defaults: every kind on both channels, no quiet hours, UTC, digest on. The feed and webhooks "
        "are not set here (they carry everything, as before).",
        responses={200: NotificationsSerializer, **problem_responses(401, 429)},
    )
    def get(self, request):
        return Response(NotificationsSerializer(selectors.notifications_of(request.user)).data)

    @extend_schema(
        operation_id="players_me_notifications_update", summary="Change the caller's notification settings",
        tags=TAGS, request=NotificationsInputSerializer,
        description="Only what is given changes: `kinds` per kind and channel (`{\"reminder\": {\"email\": false}}`), "
        "`quiet_hours` (`null`: none), `timezone` (IANA), `digest`.",
        responses={200: NotificationsSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): an unknown kind or channel, not a boolean, a bad time (\"HH:MM\"), "
                  "quiet hours starting when they end, an unknown time zone"), 401, 415, 429)},
    )
    def patch(self, request):
        ser = NotificationsInputSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        data = ser.validated_data
        services.update_preferences(player=request.user, kinds=data.get("kinds"),
                                    quiet_hours=data["quiet_hours"] if "quiet_hours" in data else ...,
                                    timezone=data.get("timezone"), digest=data.get("digest"))
        return Response(NotificationsSerializer(selectors.notifications_of(request.user)).data)


class EmailView(APIView):
    @extend_schema(
        operation_id="players_me_email_set", summary="Set the caller's email address (sends a verification link)",
        tags=TAGS, request=EmailInputSerializer,
        description="The address is saved unverified and a link is emailed to it (`GET /email/verify/{token}`, "
        "valid UNO_REACH_VERIFY_HOURS); nothing else is sent to it until that link is opened.",
        responses={202: EmailStateSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): not an email address"), 401, 415, 429)},
    )
    def post(self, request):
        ser = EmailInputSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        prefs = services.set_email(player=request.user, address=ser.validated_data["address"])
        return Response(EmailStateSerializer({"address": prefs.email, "verified": False}).data, status=202)

    @extend_schema(
        operation_id="players_me_email_delete", summary="Remove the caller's email address", tags=TAGS,
        responses={204: None, **problem_responses(401, (404, "`not_found`: no address set"), 429)},
    )
    def delete(self, request):
        if not services.delete_email(player=request.user):
            raise ApiError(404, "not_found", "no email address is set")
        return Response(status=204)


class SubscriptionsView(APIView):
    @extend_schema(
        operation_id="players_me_push_subscriptions_create", summary="Register a push subscription", tags=TAGS,
        request=SubscriptionInputSerializer,
        description="A browser's Web Push subscription (`endpoint`, `keys`), or a phone's FCM or APNs token. The same "
        "endpoint or token again answers 200 with the same subscription (its keys and label brought up to date). "
        "A subscription the push service reports gone (404/410) is deleted.",
        responses={201: SubscriptionSerializer, 200: SubscriptionSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): an unknown platform, a missing or malformed endpoint, keys or token"),
            401, (409, "`too_many_subscriptions`"), 415, 429)},
    )
    def post(self, request):
        ser = SubscriptionInputSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        data = ser.validated_data
        sub, created = services.add_subscription(
            player=request.user, platform=data["platform"], endpoint=data.get("endpoint", ""),
            keys=data.get("keys"), token=data.get("token", ""), label=data.get("label", ""))
        body = SubscriptionSerializer({"id": sub.pk, "platform": sub.platform, "created_at": sub.created_at,
                                       "label": sub.label}).data
        return Response(body, status=201 if created else 200)


class SubscriptionView(APIView):
    @extend_schema(
        operation_id="players_me_push_subscriptions_delete", summary="Delete a push subscription", tags=TAGS,
        responses={204: None, **problem_responses(401, (404, "`not_found`: no such subscription of the caller's"),
                                                  429)},
    )
    def delete(self, request, subscription_id: int):
        if not services.delete_subscription(player=request.user, subscription_id=subscription_id):
            raise ApiError(404, "not_found", f"no push subscription {subscription_id}")
        return Response(status=204)


class VerifyEmailView(APIView):
    """The link of a verification email: opened in a browser, without signing in."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    renderer_classes = [renderers.JSONRenderer, PageRenderer]

    @extend_schema(
        operation_id="email_verify", summary="Verify an email address (the link of the verification email)",
        tags=TAGS, auth=[],
        description="No credentials: the signed token is the proof. A browser (`Accept: text/html`) gets a page.",
        responses={200: OpenApiResponse(VerifiedSerializer), **problem_responses(
            (404, "`not_found`: a bad or expired link, or one for an address no longer set"), 429)},
    )
    def get(self, request, token: str):
        prefs = services.verify_email(token)
        return _answer(request, {"address": prefs.email, "verified": True}, "Email address verified")


def _answer(request, data: dict, title: str) -> Response:
    """``data`` (JSON), or with its page's ``title`` for a browser."""
    if getattr(request, "accepted_renderer", None) is not None and request.accepted_renderer.format == "html":
        return Response({**data, "title": title})
    return Response(data)


def _what(kind: str) -> str:
    return "every notification email" if kind == ALL else f"the {kind.replace('_', ' ')} emails"


class UnsubscribeView(APIView):
    """The link in every email (RFC 8058 one-click: ``List-Unsubscribe`` and
    ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``), without signing in."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    renderer_classes = [renderers.JSONRenderer, PageRenderer]
    parser_classes = [parsers.FormParser, JSONParser]

    @extend_schema(
        operation_id="unsubscribe_retrieve", summary="What an unsubscribe link does (changes nothing)", tags=TAGS,
        auth=[], description="A browser (`Accept: text/html`) gets a page with the button that POSTs.",
        responses={200: UnsubscribedSerializer, **problem_responses((404, "`not_found`: a bad link"), 429)},
    )
    def get(self, request, token: str):
        try:
            _, kind = read_unsubscribe_token(token)
        except signing.BadSignature:
            raise ApiError(404, "not_found", "this unsubscribe link is not valid") from None
        return _answer(request, {"kind": kind, "unsubscribed": False,
                                 "detail": f"Unsubscribing turns off {_what(kind)} of your UNO games. Other kinds, push "
                                   "messages and the notification settings stay as they are."}, "Unsubscribe")

    @extend_schema(
        operation_id="unsubscribe", summary="Unsubscribe in one click (RFC 8058)", tags=TAGS, auth=[],
        request={"application/x-www-form-urlencoded": {"type": "object", "properties": {
            "List-Unsubscribe": {"type": "string", "enum": ["One-Click"]}}}},
        description="Turns off that kind's email (a digest's link: every kind's). The body (`List-Unsubscribe="
        "One-Click`, as mail clients send it) is not required. Safe to repeat.",
        responses={200: UnsubscribedSerializer, **problem_responses((404, "`not_found`: a bad link"), 429)},
    )
    def post(self, request, token: str):
        _, kind = services.unsubscribe(token)
        return _answer(request, {"kind": kind, "unsubscribed": True,
                                 "detail": f"Done: {_what(kind)} of your UNO games are off. Turn them on again in the "
                                   "notification settings."}, "Unsubscribed")
