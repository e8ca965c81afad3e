"""The shapes of reach's endpoints (typed in the OpenAPI schema)."""

from __future__ import annotations

import re
import zoneinfo
from datetime import time
from functools import lru_cache

from rest_framework import serializers

from players.serializers import StrictBooleanField, StrictCharField
from reach.models import KINDS, PLATFORMS

HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
B64URL = re.compile(r"^[A-Za-z0-9_-]+={0,2}$")


@lru_cache(maxsize=1)
def time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


class ChannelsSerializer(serializers.Serializer):
    email = StrictBooleanField(help_text="Sent by email (to the verified address).")
    push = StrictBooleanField(help_text="Sent by push (to every push subscription).")

    class Meta:
        ref_name = "NotificationChannels"


class ChannelsInputSerializer(serializers.Serializer):
    email = StrictBooleanField(required=False)
    push = StrictBooleanField(required=False)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - {"email", "push"})
            if unknown:
                raise serializers.ValidationError({name: ["unknown channel: email or push"] for name in unknown})
        return super().to_internal_value(data)

    class Meta:
        ref_name = "NotificationChannelsInput"


def _kinds_serializer(input: bool) -> type[serializers.Serializer]:
    field = ChannelsInputSerializer if input else ChannelsSerializer
    attrs = {kind: field(required=not input) for kind in KINDS}
    attrs["Meta"] = type("Meta", (), {"ref_name": "NotificationKindsInput" if input else "NotificationKinds"})
    return type("NotificationKindsInputSerializer" if input else "NotificationKindsSerializer",
                (serializers.Serializer,), attrs)


KindsSerializer = _kinds_serializer(False)
KindsInputSerializer = _kinds_serializer(True)


class HourField(StrictCharField):
    """A time of day, "HH:MM" (24 hours)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not HHMM.match(value):
            raise serializers.ValidationError('a time of day as "HH:MM", 00:00 to 23:59')
        return time.fromisoformat(value)

    def to_representation(self, value):
        return value.strftime("%H:%M") if isinstance(value, time) else value


class QuietHoursSerializer(serializers.Serializer):
    start = HourField(help_text='When quiet hours begin, "HH:MM" in the player\'s time zone.')
    end = HourField(help_text='When they end, "HH:MM" (earlier than start: the next day).')

    class Meta:
        ref_name = "QuietHours"


class EmailStateSerializer(serializers.Serializer):
    address = serializers.EmailField(allow_null=True, help_text="The address set (null: none).")
    verified = serializers.BooleanField(help_text="Its owner opened the verification link: emails go to it.")

    class Meta:
        ref_name = "NotificationEmail"


class PushConfigSerializer(serializers.Serializer):
    webpush_public_key = serializers.CharField(
        allow_null=True, help_text="The VAPID application server key (urlsafe base64 without padding) a browser "
        "subscribes with; null when Web Push is not configured.")
    platforms = serializers.ListField(child=serializers.ChoiceField(choices=PLATFORMS),
                                      help_text="The push platforms this server can send to.")

    class Meta:
        ref_name = "PushConfig"


class SubscriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    platform = serializers.ChoiceField(choices=PLATFORMS)
    created_at = serializers.DateTimeField()
    label = serializers.CharField(help_text="What the device is, as its client named it.")

    class Meta:
        ref_name = "PushSubscription"


class NotificationsSerializer(serializers.Serializer):
    email = EmailStateSerializer()
    kinds = KindsSerializer(help_text="Per kind of message, the channels it is sent on.")
    quiet_hours = QuietHoursSerializer(allow_null=True, help_text="Nothing but reminders of a deadline that would "
                                       "pass inside them is sent during quiet hours (held to their end); null: none.")
    timezone = serializers.CharField(help_text="The IANA time zone of the quiet hours (default UTC).")
    digest = serializers.BooleanField(help_text="Several messages due at once on one channel go as one.")
    push = PushConfigSerializer()
    push_subscriptions = SubscriptionSerializer(many=True)

    class Meta:
        ref_name = "Notifications"


class NotificationsInputSerializer(serializers.Serializer):
    kinds = KindsInputSerializer(required=False, help_text="The kinds and channels to change (the others stay).")
    quiet_hours = QuietHoursSerializer(required=False, allow_null=True, help_text="null turns them off.")
    timezone = StrictCharField(required=False, max_length=64, help_text="An IANA time zone, e.g. Europe/Paris.")
    digest = StrictBooleanField(required=False)

    def validate_timezone(self, value: str) -> str:
        if value not in time_zones():
            raise serializers.ValidationError("not an IANA time zone name (e.g. Europe/Paris)")
        return value

    def validate(self, attrs):
        if isinstance(self.initial_data, dict):
            kinds = self.initial_data.get("kinds")
            if isinstance(kinds, dict):
                unknown = sorted(set(kinds) - set(KINDS))
                if unknown:
                    raise serializers.ValidationError(
                        {"kinds": [f"unknown kind {name!r}: one of {', '.join(KINDS)}" for name in unknown]})
            unknown = sorted(set(self.initial_data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["unknown member"] for name in unknown})
        return attrs

    class Meta:
        ref_name = "NotificationsInput"


class EmailInputSerializer(serializers.Serializer):
    address = serializers.EmailField(max_length=254, help_text="Where to send the notifications: a verification "
                                     "link is sent to it first.")

    def to_internal_value(self, data):
        if isinstance(data, dict) and not isinstance(data.get("address", ""), str):
            raise serializers.ValidationError({"address": ["Not a valid string."]})
        return super().to_internal_value(data)

    class Meta:
        ref_name = "NotificationEmailInput"


class WebPushKeysSerializer(serializers.Serializer):
    p256dh = StrictCharField(max_length=200, help_text="The subscription's P-256 public key (urlsafe base64).")
    auth = StrictCharField(max_length=100, help_text="The subscription's authentication secret (urlsafe base64).")

    def validate_p256dh(self, value):
        if not B64URL.match(value):
            raise serializers.ValidationError("urlsafe base64")
        return value.rstrip("=")

    def validate_auth(self, value):
        if not B64URL.match(value):
            raise serializers.ValidationError("urlsafe base64")
        return value.rstrip("=")

    class Meta:
        ref_name = "WebPushKeys"


class SubscriptionInputSerializer(serializers.Serializer):
    platform = serializers.ChoiceField(choices=PLATFORMS)
    endpoint = serializers.URLField(required=False, max_length=2000, help_text="webpush: the subscription's "
                                    "endpoint (https).")
    keys = WebPushKeysSerializer(required=False, help_text="webpush: the subscription's keys.")
    token = StrictCharField(required=False, max_length=4096, help_text="fcm, apns: the device's token.")
    label = StrictCharField(required=False, max_length=100, allow_blank=True,
                            help_text="What the device is (e.g. \"phone\").")

    def validate(self, attrs):
        platform = attrs["platform"]
        if platform == "webpush":
            errors = {}
            if not attrs.get("endpoint"):
                errors["endpoint"] = ["required for webpush"]
            elif not attrs["endpoint"].startswith("https://"):
                errors["endpoint"] = ["an https URL"]
            if not attrs.get("keys"):
                errors["keys"] = ["required for webpush"]
            if "token" in attrs:
                errors["token"] = ["only for fcm and apns"]
            if errors:
                raise serializers.ValidationError(errors)
        else:
            errors = {}
            if not attrs.get("token"):
                errors["token"] = [f"required for {platform}"]
            for name in ("endpoint", "keys"):
                if name in attrs:
                    errors[name] = ["only for webpush"]
            if errors:
                raise serializers.ValidationError(errors)
        return attrs

    class Meta:
        ref_name = "PushSubscriptionInput"


class VerifiedSerializer(serializers.Serializer):
    address = serializers.EmailField()
    verified = serializers.BooleanField()

    class Meta:
        ref_name = "EmailVerified"


class UnsubscribedSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="The kind whose email is (or would be) turned off; `all`: every kind's.")
    unsubscribed = serializers.BooleanField(help_text="true once done (POST); false on GET, which changes nothing.")
    detail = serializers.CharField(help_text="What it does, in words.")

    class Meta:
        ref_name = "Unsubscribed"
