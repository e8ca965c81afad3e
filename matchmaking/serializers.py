"""Quick play's request body and the documented shapes of its answers (OpenAPI)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.problems import ProblemSerializer
from games import engine
from games.serializers import RulesetField
from games.services import BOT_LEVELS
from matchmaking.models import Status
from matchmaking.speeds import SPEEDS
from players.serializers import StrictBooleanField, StrictIntegerField

MAX_BOTS_AFTER_SECONDS = 3600


@extend_schema_field({
    "oneOf": [
        {"type": "string", "enum": list(SPEEDS)},
        {"type": "array", "items": {"type": "string", "enum": list(SPEEDS)}, "minItems": 1, "uniqueItems": True},
    ],
})
class SpeedField(serializers.Field):
    """``realtime``, ``correspondence``, or a list of them: read as a list."""

    default_error_messages = {
        "invalid": f"one of {', '.join(SPEEDS)}, or a non-empty list of them",
    }

    def to_internal_value(self, data):
        items = [data] if isinstance(data, str) else data
        if not isinstance(items, list) or not items or any(not isinstance(s, str) or s not in SPEEDS for s in items):
            self.fail("invalid")
        return list(dict.fromkeys(items))

    def to_representation(self, value):
        return value


class QuickPlayBotsSerializer(serializers.Serializer):
    after_seconds = StrictIntegerField(
        min_value=0, max_value=MAX_BOTS_AFTER_SECONDS,
        help_text=f"Bots may fill the table once the request waited this long (0 to {MAX_BOTS_AFTER_SECONDS} s; "
        "0: at once, if no table of people is ready).",
    )
    level = serializers.ChoiceField(choices=BOT_LEVELS, help_text="The bots' strength.")

    class Meta:
        ref_name = "QuickPlayBots"


class QuickPlayInputSerializer(serializers.Serializer):
    rulesets = serializers.ListField(
        child=RulesetField(), min_length=1, max_length=len(engine.PRESETS),
        help_text="The presets the caller will play, in order of preference (repeats ignored).",
    )
    seats = serializers.ListField(
        child=StrictIntegerField(min_value=2, max_value=10), min_length=1, max_length=9,
        help_text="The table sizes (seats, bots included) the caller will play at, in order of preference; "
        "each must be within the bounds of at least one of `rulesets` (a pair out of a preset's bounds is "
        "simply never formed, e.g. `duo` at 4).",
    )
    speed = SpeedField(
        required=False, default=["realtime"],
        help_text="The turn-time class, or several: `realtime` (tables with `turn_seconds` 30) or "
        "`correspondence` (86400: a day per decision). Default `realtime`.",
    )
    rated = StrictBooleanField(
        required=False, default=False,
        help_text="Rated tables only (true) or unrated only (false, the default). Rated requests take no bots.",
    )
    bots = QuickPlayBotsSerializer(
        required=False, allow_null=True, default=None,
        help_text="Whether bots may fill the table after a wait, and of which level; null (the default): people only.",
    )

    def validate_rulesets(self, value):
        unknown = [r for r in value if r not in engine.PRESETS]
        if unknown:
            raise serializers.ValidationError(f"unknown preset: {unknown[0]} (one of {', '.join(engine.PRESETS)})")
        return list(dict.fromkeys(value))

    def validate(self, attrs):
        rulesets, seats = attrs["rulesets"], list(dict.fromkeys(attrs["seats"]))
        for n in seats:
            if not any(engine.PRESETS[r].min_seats <= n <= engine.PRESETS[r].max_seats for r in rulesets):
                bounds = ", ".join(f"{r} {engine.PRESETS[r].min_seats}-{engine.PRESETS[r].max_seats}" for r in rulesets)
                raise serializers.ValidationError({"seats": [f"{n} seats is out of every preset's bounds ({bounds})"]})
        if attrs["rated"] and attrs["bots"] is not None:
            raise serializers.ValidationError({"bots": ["a rated request takes no bots: bots null, or rated false"]})
        return {**attrs, "seats": seats}


class QuickPlayTableSerializer(serializers.Serializer):
    ruleset = RulesetField()
    seats = serializers.IntegerField(help_text="The table's seats, bots included.")
    speed = serializers.ChoiceField(choices=list(SPEEDS))
    turn_seconds = serializers.IntegerField(help_text="The game's turn time (from the speed class).")
    bots = serializers.IntegerField(help_text="How many of the seats bots fill.")

    class Meta:
        ref_name = "QuickPlayTable"


class QuickPlaySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=Status.choices,
        help_text="`waiting`; then `matched` (seated in `game`), `cancelled` (by the caller) or `expired` "
        "(waited past `expires_at`).",
    )
    rulesets = serializers.ListField(child=RulesetField())
    seats = serializers.ListField(child=serializers.IntegerField())
    speed = serializers.ListField(child=serializers.ChoiceField(choices=list(SPEEDS)))
    rated = serializers.BooleanField()
    bots = QuickPlayBotsSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    bots_at = serializers.DateTimeField(allow_null=True, help_text="When bots may fill the table (null: no bots).")
    expires_at = serializers.DateTimeField(help_text="When the request expires if still waiting.")
    ended_at = serializers.DateTimeField(allow_null=True, help_text="When it was matched, cancelled or expired.")
    game = serializers.IntegerField(allow_null=True, help_text="`matched`: the started game (`GET /games/{id}`).")
    table = QuickPlayTableSerializer(allow_null=True, help_text="`matched`: the table it was seated at.")

    class Meta:
        ref_name = "QuickPlay"


class QuickPlayConflictSerializer(ProblemSerializer):
    """A 409 answer of quick play: a problem document, with the request or game it names."""

    quickplay = serializers.IntegerField(required=False, help_text="`already_waiting`: the caller's waiting request.")
    game = serializers.IntegerField(required=False, help_text="`already_matched`: the request's game.")

    class Meta:
        ref_name = "QuickPlayConflict"


