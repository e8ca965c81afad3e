from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A CharField that takes only JSON strings (DRF's also turns numbers into text)."""

    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


# --- Input ------------------------------------------------------------------


class CredentialsInputSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(
        max_length=128, trim_whitespace=False, write_only=True, style={"input_type": "password"}
    )

    class Meta:
        ref_name = "Credentials"


class RegisterInputSerializer(CredentialsInputSerializer):
    username = StrictCharField(
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        help_text="150 characters or fewer: letters, digits and @/./+/-/_ only. "
        "Unique, ignoring case.",
    )
    password = StrictCharField(
        max_length=128,
        trim_whitespace=False,
        write_only=True,
        style={"input_type": "password"},
        help_text="At least 8 characters, not too common, not entirely numeric.",
    )

    class Meta:
        ref_name = "NewPlayer"


# --- Output -----------------------------------------------------------------


class PlayerSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class RegisterOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")
    player = PlayerSummarySerializer()

    class Meta:
        ref_name = "Registration"


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")

    class Meta:
        ref_name = "AuthToken"


class PlayerProfileSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    games_played = serializers.IntegerField(help_text="Games the player took part in.")
    games_won = serializers.IntegerField(help_text="Games the player won.")
    date_joined = serializers.DateTimeField()


class WebhookInputSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500, help_text="http(s) URL that receives the notifications.")

    def validate_url(self, value: str) -> str:
        if not value.lower().startswith(("http://", "https://")):
            raise serializers.ValidationError("Only http and https URLs.")
        return value

    class Meta:
        ref_name = "WebhookInput"


class WebhookSerializer(serializers.Serializer):
    url = serializers.URLField()
    created_at = serializers.DateTimeField()
    secret = serializers.CharField(
        required=False,
        help_text="Only in the answer to PUT: the HMAC-SHA256 key of the X-Uno-Signature header. Shown once.",
    )

    class Meta:
        ref_name = "Webhook"
