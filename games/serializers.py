"""Request validation and the documented shapes of responses (OpenAPI)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.problems import ProblemSerializer
from games import engine
from games.models import GameStatus
from games.services import BOT_LEVELS, MAX_TURN_SECONDS
from players.serializers import StrictBooleanField, StrictCharField, StrictIntegerField

# -- requests -----------------------------------------------------------------------------
@extend_schema_field({"type": "string", "enum": list(engine.PRESETS)})
class RulesetField(StrictCharField):
    """A preset name: documented as the list of presets this server plays (an unknown
    one is refused by the engine with 400 ``invalid_options``, ``fields.ruleset``)."""


class BotSpecSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=BOT_LEVELS, help_text="Bot strength.")


class CreateGameSerializer(serializers.Serializer):
    ruleset = RulesetField(help_text=f"A preset: {', '.join(engine.PRESETS)}.")
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text="Rule options on top of the preset (see README 'Rules supported'), e.g. "
        '`{"stacking": "same", "target_score": 200}`. Unknown or unsupported options are refused.',
    )
    max_players = StrictIntegerField(
        required=False, min_value=2, max_value=10,
        help_text="Seats. Default: 1 + number of bots when bots are given, otherwise 4.",
    )
    bots = BotSpecSerializer(many=True, required=False, default=list, help_text="AI seats filled at creation.")
    turn_seconds = StrictIntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=MAX_TURN_SECONDS,
        help_text="Per-decision time limit (1 s to 14 days); null for none.",
    )
    # (no schema default: a generated client would have to send it; absent, create_game's false)
    rated = StrictBooleanField(
        required=False,
        help_text="Whether the result counts towards the players' ratings (and the bots' of each level) in this "
        "preset's leaderboard (docs: Standing). Default false: a casual game.",
    )
    start_when_full = StrictBooleanField(
        required=False,
        help_text="Start the game by itself when its last free seat is taken (a join; or at once, when the bots "
        "given fill every seat), exactly as the creator's `POST /games/{id}/start` would. Default false: the game "
        "waits for the creator's start.",
    )


class ActionSerializer(serializers.Serializer):
    """One action, e.g. a `legal_actions` entry posted verbatim.  Only its name counts:
    the schema's ``Action`` is generated from the engine's registry of action types
    (games.schema.typed_actions_hook), one typed variant per type; the view hands the
    body to the engine, which validates it."""

    type = serializers.CharField()


# -- responses ----------------------------------------------------------------------------
class CardSerializer(serializers.Serializer):
    """A card's public face: UNO ``{"id", "color", "rank"}``, Decktet-Uno ``{"id",
    "name", "rank", "suits"}`` (API.md "Cards")."""

    id = serializers.IntegerField()
    color = serializers.ChoiceField(choices=engine.COLORS, allow_null=True, required=False,
                                    help_text="UNO: the colour, null for wild cards")
    rank = serializers.CharField(help_text="UNO: 0-9, skip, reverse, draw_two, wild, wild_draw_four and the options' "
                                 "cards; Decktet-Uno: ace, 2-9, pawn, court, crown")
    name = serializers.CharField(required=False, help_text="Decktet-Uno: the card's name (e.g. Island)")
    suits = serializers.ListField(child=serializers.ChoiceField(choices=list(engine.SUITS)), required=False,
                                  help_text="Decktet-Uno: its one to three suits")


class TimeLeftSerializer(serializers.Serializer):
    """A seat's clock: the time it has for the decision it owes under the turn's deadline
    (docs: Time and correspondence games, "Time left")."""

    seconds = serializers.FloatField(
        min_value=0,
        help_text="Seconds left on the seat's clock: as of this response while it runs (`deadline` is what counts); "
        "while paused, what it will have when the clock runs again; for a seat owing no decision under the turn's "
        "deadline, the full `turn_seconds` its next one gets.",
    )
    deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="When the timer acts for the seat (the decision's deadline; while paused, the end of the away "
        "period plus `seconds`); null when the seat owes no decision under the turn's deadline.",
    )
    running = serializers.BooleanField(help_text="The seat owes a decision and its clock runs now.")
    paused = serializers.BooleanField(
        help_text="Its player is away (`away_until`, a correspondence game): the clock stands still until then "
        "(a decision that comes meanwhile starts its clock then)."
    )


class SeatInGameSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    is_bot = serializers.BooleanField()
    bot_level = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True, help_text="A bot seat's strength.")
    autopilot = serializers.BooleanField(
        help_text="A bot plays this human seat: after UNO_MAX_TIMEOUTS timeouts in a row (until its player acts "
        "again), or for good once its player left the running game (`left`)."
    )
    left = serializers.BooleanField(
        help_text="Its player left the running game (`POST /games/{id}/leave`): for good, the autopilot plays the "
        "seat to the end (`autopilot` stays true), the seat's result is what the autopilot makes of it, and the "
        "player can no longer act in the game (403 `left_game`; `legal_actions` empty) but still sees it as seated."
    )
    hand_count = serializers.IntegerField()
    score = serializers.IntegerField()
    team = serializers.IntegerField(
        allow_null=True, help_text="Team games (`teams`, `partner_rotation`): this round's team; partners share it."
    )
    status = serializers.ChoiceField(
        choices=["active", "eliminated"], help_text="`eliminated`: out of the game (`scoring: elimination`)."
    )
    deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="The earliest deadline of the decisions this seat owes (see `obligations`); null when it owes "
        "none with a deadline.",
    )
    online = serializers.BooleanField(
        allow_null=True,
        help_text="A human seat's player was seen in the last UNO_PRESENCE_SECONDS (120 by default: a request, or "
        "an open stream or feed); null for a bot seat. As of this view: it changes the `ETag`, but no event is sent "
        "when it changes.",
    )
    time_left = TimeLeftSerializer(
        allow_null=True,
        help_text="The seat's clock; null in a game without a turn limit (`turn_seconds` null), a game not running "
        "(waiting or finished), and for a seat a bot or the autopilot plays.",
    )
    away_until = serializers.DateTimeField(
        allow_null=True,
        help_text="In a correspondence game (`turn_seconds` at least UNO_CORRESPONDENCE_SECONDS, a day by default) "
        "whose player is away (`PUT /players/me/away`): until when; the seat's clock stands still until then. "
        "Null otherwise (always null in real-time games, which away does not affect).",
    )


#: a decision's type as ``engine.owed`` names it: ``turn`` (either family's ordinary turn)
#: or a decision type of the engine's registry (``engine.DECISIONS``: what ``pending``
#: shows, and stored windows such as a buzz); the schema's ``DecisionEnum``
DECISION_TYPES = ("turn", *engine.DECISIONS)


@extend_schema_field({"type": "string", "enum": list(DECISION_TYPES)})
class DecisionField(serializers.CharField):
    """An obligation's ``type``, the feed's ``your_turn`` ``decision``: ``DECISION_TYPES``."""


class ObligationSerializer(serializers.Serializer):
    """One decision owed now: a game may owe several at once (the turn, and a window such
    as a buzz that several seats owe), each with its own deadline."""

    seat = serializers.IntegerField(help_text="The seat that owes it.")
    type = DecisionField(
        help_text="The decision's type: `turn`, or `pending`'s type (`penalty`, `choose_color`, `play_drawn`...) "
        "for the decision on top, or a window's (e.g. a buzz)."
    )
    kind = serializers.CharField(
        help_text="Its deadline's kind: `turn` (the game's `turn_seconds`), or a window's own (its length set by an "
        "option, e.g. `buzzer_seconds`)."
    )
    deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="When the server acts on it if the seat has not: the timer acts for a late human, a window closes "
        "on the seats still owing it, a bot that has not acted is woken; null: never by itself.",
    )


class PendingSerializer(serializers.Serializer):
    """What the game waits for.  Only its name counts: the schema's ``Pending`` is
    generated from the engine's decision types (games.schema.typed_actions_hook), one
    typed variant per type (``Decision.public_schema``)."""

    type = serializers.CharField()
    seat = serializers.IntegerField()


class FaceDownSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="Who set it aside (the previous player).")
    card = CardSerializer(allow_null=True, help_text="The card, for its owner only (null for everyone else).")


class WinnerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)


class DeckSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The preset's base deck and the parts its options add, `+`-joined.")
    size = serializers.IntegerField(help_text="Cards in the whole deck.")
    ranks = serializers.DictField(child=serializers.IntegerField(), help_text="How many cards of each rank it holds.")


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = RulesetField()
    options = serializers.DictField(help_text="Every option in force.")
    requested_options = serializers.DictField(help_text="The options given at creation.")
    status = serializers.ChoiceField(choices=GameStatus.values)
    version = serializers.IntegerField(help_text="Grows with every recorded move.")
    round = serializers.IntegerField()
    max_players = serializers.IntegerField()
    turn_seconds = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField(help_text="Its result counts towards the ratings (docs: Standing).")
    start_when_full = serializers.BooleanField(
        help_text="It starts by itself when its last free seat is taken (asked at creation)."
    )
    creator = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True, help_text="The caller's seat; null for a spectator.")
    players = SeatInGameSerializer(many=True)
    current_seat = serializers.IntegerField(allow_null=True, help_text="The seat that owes the next decision.")
    dealer = serializers.IntegerField(allow_null=True)
    direction = serializers.ChoiceField(choices=["clockwise", "counterclockwise"], allow_null=True)
    top_card = CardSerializer(allow_null=True)
    current_color = serializers.ChoiceField(
        choices=engine.COLORS, allow_null=True, help_text="UNO: the colour to match (null in Decktet-Uno games and "
        "before the deal)."
    )
    draw_pile_count = serializers.IntegerField()
    discard_pile_count = serializers.IntegerField()
    pending = PendingSerializer(allow_null=True, help_text="What the game waits for, if anything special.")
    uno_catchable_seat = serializers.IntegerField(
        allow_null=True, help_text="A seat that played its next-to-last card without calling UNO."
    )
    face_down = FaceDownSerializer(
        allow_null=True, help_text="Decktet-Uno with `face_down`: the card the previous player set aside face down, "
        "placed on the pile and scored at the end of this turn (null: none; always null in UNO games)."
    )
    obligations = ObligationSerializer(
        many=True, help_text="Every decision owed now, by whom and until when (empty unless the game is active)."
    )
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="The earliest deadline of `obligations`: when the server next acts by itself."
    )
    winner = WinnerSerializer(allow_null=True, help_text="One seat of `winners` (UNO: the one that went out last; "
                              "Decktet-Uno: the first in seat order).")
    winners = WinnerSerializer(
        many=True, help_text="Every seat that won the finished game (a team's seats; Decktet-Uno: every seat with the "
        "top score); empty until it is over."
    )
    deck = DeckSerializer(allow_null=True, help_text="The game's deck (null until it starts): what its options added.")
    shuffle_commitment = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        help_text="Fair play: the lowercase hex SHA-256 of the UTF-8 bytes of the game's `seed`, which every shuffle "
        "and deal derives from; shown from the game's creation on, so that once the seed is revealed anyone can check "
        "that it is the one the game was committed to (README \"Fair play: verifying a game\": "
        "`python -m games.engine.verify`).",
    )
    seed = serializers.CharField(
        required=False,
        help_text="Present only once the game is finished (never while it runs): the game's secret seed (128 bits of "
        "randomness; 64 in games created before issue 12), whose SHA-256 is `shuffle_commitment`. With the "
        "finished game's moves, every shuffle and deal re-derives from it.",
    )
    hand = CardSerializer(many=True, required=False, help_text="The caller's own cards (absent for spectators).")
    legal_actions = ActionSerializer(many=True, help_text="Ready-to-post action objects.")

    def get_fields(self):
        """The declared fields and those other apps add to the view
        (``selectors.register_view_field``: the meeting app's ``rematch``)."""
        from games.selectors import VIEW_FIELDS

        fields = super().get_fields()
        for extra in VIEW_FIELDS.values():
            fields[extra.name] = extra.schema_field()
        return fields


class EventSerializer(serializers.Serializer):
    type = serializers.CharField()
    private_to = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Seats this event was shown to."
    )

    class Meta:
        ref_name = "Event"


class ActionResultSerializer(serializers.Serializer):
    game = GameSerializer()
    events = serializers.ListField(child=serializers.DictField(), help_text="What the action caused, as the caller may see it.")


class SeatSummarySerializer(serializers.Serializer):
    """A seat of the games list (``GameSummary.players``)."""

    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True, help_text="Null for a bot seat.")
    is_bot = serializers.BooleanField()
    bot_level = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True, help_text="A bot seat's strength.")


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = RulesetField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    version = serializers.IntegerField()
    round = serializers.IntegerField()
    max_players = serializers.IntegerField()
    seated = serializers.IntegerField()
    players = SeatSummarySerializer(many=True)
    creator = serializers.CharField()
    turn_seconds = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()
    start_when_full = serializers.BooleanField(help_text="It starts by itself when its last free seat is taken.")
    current_seat = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    my_turn = serializers.BooleanField()
    deadline = serializers.DateTimeField(allow_null=True)
    winner_seat = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class ActionConflictSerializer(ProblemSerializer):
    """A 409 answer to an action: a problem document, with the game's version when stale."""

    version = serializers.IntegerField(
        required=False, help_text="`stale_version` only: the version the game is at now."
    )

    class Meta:
        ref_name = "ActionConflict"


class ShareLimitSerializer(ProblemSerializer):
    """A 409 answer to creating or joining a game: a problem document, with the limit of
    one player's share that the request would pass (README "Limits")."""

    limit = serializers.IntegerField(
        required=False, help_text="`too_many_games`, `too_many_waiting_games`, `too_many_bots`: the limit (the "
        "server's `UNO_MAX_GAMES`, `UNO_MAX_WAITING_GAMES`, `UNO_MAX_BOT_SEATS`)."
    )

    class Meta:
        ref_name = "ShareLimitConflict"


class GamePageSerializer(serializers.Serializer):
    """One answer of the games list, paged by number or by cursor (games.pagination)."""

    count = serializers.IntegerField(help_text="Games matching the filters.")
    next = serializers.CharField(allow_null=True, help_text="URL of the next page (or, paging by cursor, of the "
                                 "answer after this one), null on the last.")
    previous = serializers.CharField(allow_null=True, help_text="URL of the previous page, null on the first "
                                     "(and always null paging by cursor).")
    results = GameSummarySerializer(many=True)
    next_cursor = serializers.CharField(allow_null=True, help_text="Send as `after` for the games after these "
                                        "(opaque), whichever way this answer was paged; null on the last.")


class MoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    round = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    action = serializers.DictField()
    events = serializers.ListField(child=serializers.DictField())
    by = serializers.ChoiceField(choices=["player", "bot", "timer"])
    created_at = serializers.DateTimeField()


class MovePageSerializer(serializers.Serializer):
    results = MoveSerializer(many=True)
    next = serializers.CharField(allow_null=True, help_text="URL of the next page, null at the end.")
    next_cursor = serializers.IntegerField(allow_null=True)


class ScoreRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    dealer = serializers.IntegerField()
    winner_seat = serializers.IntegerField(allow_null=True)
    points = serializers.ListField(child=serializers.IntegerField(), help_text="Points scored per seat.")
    hand_points = serializers.ListField(child=serializers.IntegerField(), help_text="Points left in each hand.")


class ScoredPlaySerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The move (`/moves`' `seq`).")
    seat = serializers.IntegerField(help_text="Who scored.")
    card = CardSerializer(help_text="The card played (a face-down card: once placed).")
    points = serializers.IntegerField(help_text="What it scored (a face-down card sharing no suit: -2).")
    face_down = serializers.BooleanField(help_text="A face-down card, placed at the end of the next turn.")


class ScoresSeatSerializer(serializers.Serializer):
    """A seat of the score table (``Scores.players``)."""

    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True, help_text="Null for a bot seat.")
    is_bot = serializers.BooleanField()
    bot_level = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True, help_text="A bot seat's strength.")


class ScoresSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    scoring = serializers.ChoiceField(
        choices=[*engine.OPTIONS["scoring"].json_schema()["enum"], "per_play"],
        help_text="The `scoring` option in force; `per_play` for Decktet-Uno.",
    )
    target_score = serializers.IntegerField(allow_null=True)
    rounds_to_play = serializers.IntegerField(allow_null=True)
    players = ScoresSeatSerializer(many=True)
    rounds = ScoreRoundSerializer(many=True)
    totals = serializers.ListField(child=serializers.IntegerField(),
                                   help_text="Each seat's total (Decktet-Uno: so far, while it runs).")
    plays = ScoredPlaySerializer(many=True, help_text="Decktet-Uno: every play and placed face-down card with its "
                                 "points, in order (empty in UNO games).")
    winner_seat = serializers.IntegerField(allow_null=True)
    winner_seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="Every seat that won (a team's seats); empty until it is over."
    )


# -- the presets in words (GET /rulesets) --------------------------------------------------
class OptionChoiceSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="The option's value, as `options` takes it.")
    label = serializers.CharField(help_text="The value in words.")


class RulesetOptionSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The option's name in `options` (e.g. `stacking`).")
    label = serializers.CharField(help_text="Its name in words (e.g. \"Stacking draw cards\").")
    description = serializers.CharField(help_text="What it does, in a sentence or two for a player.")
    group = serializers.CharField(help_text="The heading it goes under (one of the answer's `groups`).")
    advanced = serializers.BooleanField(help_text="Folded away by default: most players leave it as it is.")
    default = serializers.JSONField(allow_null=True, help_text="This preset's value when the request leaves it out.")
    schema = serializers.DictField(help_text="The JSON schema (OpenAPI 3.0) of its values: `type`, `enum`, "
                                   "`minimum`, `maximum`, `nullable` (the schema's `Options` without default and "
                                   "description).")
    choices = OptionChoiceSerializer(many=True, help_text="An enum option's values in words, in the schema's "
                                     "order (empty for the others).")
    requires = serializers.DictField(help_text="Other options' values it applies under (e.g. `hands_to_win`: "
                                     "`{\"scoring\": \"hands_won\"}`); a client offers it only then. Empty: always.")


class RulesetSerializer(serializers.Serializer):
    name = RulesetField(help_text="The preset's name: `ruleset` in `POST /games`.")
    title = serializers.CharField(help_text="Its name in words (e.g. \"Standard UNO\").")
    description = serializers.CharField(help_text="One paragraph for a player choosing a game.")
    min_players = serializers.IntegerField(help_text="Fewest seats (`max_players`) it is played by.")
    max_players = serializers.IntegerField(help_text="Most seats it is played by.")
    options = RulesetOptionSerializer(
        many=True, help_text="The options a player may change in this preset, its family's only, in the engine's "
        "order; options it does not let change (e.g. `wild_keeps_color`, always true) are left out."
    )


class RulesetsSerializer(serializers.Serializer):
    groups = serializers.ListField(child=serializers.CharField(), help_text="The options' groups, in the order to "
                                   "show them.")
    results = RulesetSerializer(many=True, help_text="Every preset, in the order of the schema's `RulesetEnum`.")


# -- away (games.away) -------------------------------------------------------------------
class AwayInputSerializer(serializers.Serializer):
    until = serializers.DateTimeField(
        help_text="When the away period ends: an ISO 8601 date and time in the future (without an offset: UTC), at "
        "most UNO_AWAY_DAYS_PER_MONTH days after the period's start (now, or the start of the period the player is "
        "in, which this extends or shortens).",
    )


class AwaySerializer(serializers.Serializer):
    away_until = serializers.DateTimeField(
        allow_null=True, help_text="The end of the caller's away period; null when not away."
    )
    days_used_this_month = serializers.FloatField(
        min_value=0,
        help_text="Days (24 h each, fractions counted) of this calendar month (UTC) in the caller's away periods: past, "
        "current and planned to its end.",
    )
    days_allowed_per_month = serializers.IntegerField(
        min_value=0, help_text="UNO_AWAY_DAYS_PER_MONTH: the most days a player may be away in one calendar month."
    )


class AwayRefusalSerializer(ProblemSerializer):
    """A refused ``PUT /players/me/away``: a problem document saying how many days are left."""

    days_left = serializers.FloatField(
        required=False, min_value=0,
        help_text="`away_days_exhausted`: the days still free in that `month`; `invalid` for a period too long: the "
        "days this period may still last from its start.",
    )
    days_allowed_per_month = serializers.IntegerField(
        required=False, min_value=0, help_text="UNO_AWAY_DAYS_PER_MONTH (with `days_left`)."
    )
    month = serializers.RegexField(
        r"^\d{4}-\d{2}$", required=False,
        help_text="`away_days_exhausted`: the calendar month (UTC, `YYYY-MM`) that would count too many days.",
    )

    class Meta:
        ref_name = "AwayRefusal"
