from django.conf import settings
from rest_framework import serializers

from chat.models import Room
from chat.services import REPORT_REASONS
from players.serializers import StrictCharField


class NewMessageSerializer(serializers.Serializer):
    text = StrictCharField(
        max_length=settings.UNO_CHAT_RAW_LENGTH, trim_whitespace=False, allow_blank=True,
        help_text=f"The message: at most {settings.UNO_CHAT_MAX_LENGTH} characters (code points) once cleaned "
        "(Unicode NFC; control and invisible characters removed; runs of white space, line breaks included, one "
        f"space; the ends trimmed); at most {settings.UNO_CHAT_RAW_LENGTH} as sent. Empty once cleaned: 400.",
    )
    room = serializers.ChoiceField(
        choices=Room.values, required=False,
        help_text="Optional: the caller's own room, `players` if seated in the game, else `spectators` "
        "(another: 403 `wrong_room`).",
    )

    class Meta:
        ref_name = "NewChatMessage"


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Grows with every message of the server (the cursors' order).")
    game = serializers.IntegerField()
    room = serializers.ChoiceField(choices=Room.values)
    username = serializers.CharField(help_text="Its author.")
    seat = serializers.IntegerField(allow_null=True, help_text="The author's seat (players' room); null: a spectator.")
    text = serializers.CharField(help_text="As cleaned by the server.")
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "ChatMessage"


class MessagePageSerializer(serializers.Serializer):
    results = MessageSerializer(many=True, help_text="Oldest first (the newest last).")
    next_cursor = serializers.IntegerField(
        allow_null=True, help_text="Send as `after` for the messages after this page; null: none yet.")
    previous_cursor = serializers.IntegerField(
        allow_null=True, help_text="Send as `before` for the messages before this page; null: none.")

    class Meta:
        ref_name = "ChatPage"


class NewReportSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=REPORT_REASONS, help_text="Why: " + ", ".join(
        f"`{r}`" for r in REPORT_REASONS) + ".")
    comment = StrictCharField(max_length=500, required=False, allow_blank=True,
                              help_text="Optional words for the staff (not shown to anyone else).")

    class Meta:
        ref_name = "NewChatReport"


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    message = serializers.IntegerField(source="message_id")
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "ChatReport"
