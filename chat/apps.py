"""Table talk: a game's chat (players' and spectators' rooms), reports and moderation."""
from django.apps import AppConfig

MESSAGE_PROPERTIES = {
    "id": {"type": "integer", "description": "The message's id (the chat's cursors)."},
    "game": {"type": "integer"},
    "room": {"type": "string", "enum": ["players", "spectators"]},
    "username": {"type": "string", "description": "Its author."},
    "seat": {"type": "integer", "nullable": True, "description": "The author's seat (players' room); null: a spectator."},
    "text": {"type": "string", "description": "As cleaned by the server."},
    "created_at": {"type": "string", "format": "date-time"},
}


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        from notices import kinds

        kinds.register(
            "chat", stream="game", schema="StreamChat",
            description="a message of the table talk (`POST /games/{id}/chat`), as `GET /games/{id}/chat` shows it: "
            "the players' room to the seated players, the spectators' room to the others (to everyone once the game "
            "is finished); not sent to a viewer blocked either way with its author.",
            properties=MESSAGE_PROPERTIES,
        )
        kinds.register(
            "chat_hidden", stream="game", schema="StreamChatHidden",
            description="the staff hid a message of the table talk: remove it (to the readers of its room).",
            properties={"id": {"type": "integer", "description": "The hidden message's id."},
                        "room": {"type": "string", "enum": ["players", "spectators"]}},
        )
