import unicodedata

from rest_framework import serializers

from players import outbound
from players.usernames import UsernameValidator
from players.tokens import MAX_EXPIRES_IN_DAYS

NEW_PASSWORD_HELP = "At least 8 characters, not too common, not entirely numeric."


class StrictCharField(serializers.CharField):
    """A CharField that takes only JSON strings (DRF's also turns numbers into text)."""

    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """Only JSON integers (DRF's IntegerField also takes "4" and 4.0)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """Only JSON true and false (DRF's also takes "yes", 1...)."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


# --- Input ------------------------------------------------------------------


class PasswordField(StrictCharField):
    """A password as typed: kept whole (spaces included), never echoed back."""

    def __init__(self, **kwargs):
        super().__init__(max_length=128, trim_whitespace=False, write_only=True,
                         style={"input_type": "password"}, **kwargs)


class CredentialsInputSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = PasswordField()

    class Meta:
        ref_name = "Credentials"


class UsernameField(StrictCharField):
    """A new username, NFKC-normalised before it is validated and stored (so a name typed
    with combining accents, as some keyboards send it, is checked as the letters it shows)."""

    def to_internal_value(self, data):
        return unicodedata.normalize("NFKC", super().to_internal_value(data))


class RegisterInputSerializer(CredentialsInputSerializer):
    username = UsernameField(
        max_length=150,
        validators=[UsernameValidator()],
        help_text="150 characters or fewer: letters, digits and @/./+/-/_ only, no invisible "
        "characters. Unique, ignoring case and Unicode forms, and must not look like an existing "
        "player's name (Unicode confusables, UTS #39).",
    )
    password = PasswordField(help_text=NEW_PASSWORD_HELP)

    class Meta:
        ref_name = "NewPlayer"


class PasswordChangeInputSerializer(serializers.Serializer):
    old_password = PasswordField(help_text="The current password.")
    new_password = PasswordField(help_text=NEW_PASSWORD_HELP)

    class Meta:
        ref_name = "PasswordChange"


class TokenInputSerializer(serializers.Serializer):
    name = StrictCharField(max_length=50, help_text='What the token is for, e.g. "phone", "bot", "script".')
    expires_in_days = StrictIntegerField(
        min_value=1,
        max_value=MAX_EXPIRES_IN_DAYS,
        required=False,
        allow_null=True,
        help_text="Days until the token stops working. Absent or null: the server's default "
        "lifetime (none unless configured: the token works until revoked).",
    )

    class Meta:
        ref_name = "NewApiTokenRequest"


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


class ApiTokenSerializer(serializers.Serializer):
    """A token as its owner sees it: never its key."""

    id = serializers.IntegerField(help_text="`DELETE /api/v1/auth/tokens/{id}` revokes it.")
    name = serializers.CharField()
    prefix = serializers.CharField(
        source="token_key", help_text="The key's first characters, to tell keys apart (not enough to use it)."
    )
    created_at = serializers.DateTimeField(source="created")
    expires_at = serializers.DateTimeField(source="expiry", allow_null=True, help_text="Null: never expires.")
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="When it last authenticated a request, to the minute; null: never."
    )

    class Meta:
        ref_name = "ApiToken"


class NewApiTokenSerializer(ApiTokenSerializer):
    """A token just created, with its key: the one answer that ever shows it."""

    token = serializers.CharField(
        source="key", help_text="The key: send as `Authorization: Token <token>`. Shown this once, never again."
    )

    class Meta:
        ref_name = "NewApiToken"


class PlayerProfileSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    games_played = serializers.IntegerField(help_text="Games the player took part in.")
    games_won = serializers.IntegerField(help_text="Games the player won.")
    date_joined = serializers.DateTimeField()
    online = serializers.BooleanField(
        help_text="Seen in the last UNO_PRESENCE_SECONDS (120 by default): a request, or an open stream or feed."
    )


class WebhookInputSerializer(serializers.Serializer):
    url = serializers.URLField(
        max_length=500,
        help_text="http(s) URL that receives the notifications, without a user name or password. "
        "Its host must resolve to public addresses only: one that resolves to a loopback, private, "
        "link-local, multicast or reserved address is refused (400 `invalid`, `fields.url` says why).",
    )

    def validate_url(self, value: str) -> str:
        """The URL's form (scheme, no user name or password, host, port); where it leads
        is the service's check (webhook_set), which resolves the host."""
        try:
            outbound.parse(value)
        except outbound.Refused as exc:
            raise serializers.ValidationError(f"The URL {exc.reason}.") from None
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


class BlockInputSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150, help_text="The player to block.")

    class Meta:
        ref_name = "NewBlock"


class BlockSerializer(serializers.Serializer):
    username = serializers.CharField(source="blocked.username", help_text="The blocked player.")
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Block"
