"""Events: the registry of event types, each declared once with its fields' schema.

An event is a plain dict ``{"type": <name>, ...fields}`` that ``apply`` returns and the
server records with each move (``Move.events``).  A private event also carries
``"to": [seats]``: until the game is over only those seats are shown it, and the API
shows its audience as ``private_to`` (:func:`games.engine.game.public_event`).

Each event type is declared once as an :class:`EventType` (its fields' JSON schemas,
which of them may be absent, whether it is private, a doc) with :func:`register`;
the event types of the modules that existed before this registry are declared below,
and a module that emits a new type registers it next to the code that builds it (as
action types are, ``actions.register``).  The registry is documentation and a test
oracle only: the engine never validates an event at run time, and the fast path
(``push`` without an event list) builds none.  :func:`json_schemas` gives one typed
OpenAPI variant per event type, which games/schema.py makes the ``Event`` ``oneOf``
(discriminator ``type``) of the actions response's ``events`` and of each move's.

Schemas are OpenAPI 3.0's dialect of JSON Schema (``nullable``), like the rest of the
API schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .cards import COLORS

# -- field schemas shared by the declarations ----------------------------------------------
SEAT: dict = {"type": "integer", "minimum": 0}
SEATS: dict = {"type": "array", "items": SEAT}
COUNT: dict = {"type": "integer", "minimum": 0}
POINTS: dict = {"type": "array", "items": {"type": "integer"}, "description": "one number per seat"}
COLOR: dict = {"type": "string", "enum": list(COLORS)}
#: a card's public face (``Card.to_dict``): UNO ``{"id", "color", "rank"}`` (``color``
#: null for a colourless card); Decktet ``{"id", "name", "rank", "suits"}``
CARD: dict = {
    "type": "object",
    "description": "a card's public face",
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "color": {**COLOR, "enum": [*COLORS, None], "nullable": True},
        "rank": {"type": "string"},
        "name": {"type": "string"},
        "suits": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "rank"],
    "additionalProperties": False,
}
CARDS: dict = {"type": "array", "items": CARD}
#: the audience of a private event, as the API shows it (the engine's ``to``)
AUDIENCE: dict = {"type": "array", "items": SEAT, "description": "the seats this private event was shown to "
                  "(every event is shown to everyone once the game is finished)"}


def seat(doc: str) -> dict:
    return {**SEAT, "description": doc}


@dataclass(frozen=True)
class EventType:
    """One type of event: its fields (name -> JSON schema), those that may be absent
    (``optional``), whether it is private (always carries ``to``), and a doc."""

    name: str
    fields: Mapping[str, dict]
    doc: str = ""
    optional: tuple[str, ...] = ()
    private: bool = False

    def json_schema(self, audience: str = "private_to") -> dict:
        """A JSON schema of this event type's objects as shown by the API (``audience``:
        the name its audience goes by: ``private_to``, or the engine's ``to``)."""
        props: dict[str, Any] = {"type": {"type": "string", "enum": [self.name]}, **self.fields}
        required = ["type", *(f for f in self.fields if f not in self.optional)]
        if self.private:
            props[audience] = AUDIENCE
            required.append(audience)
        return {"type": "object", "title": self.name, "description": self.doc, "properties": props,
                "required": required, "additionalProperties": False}


#: every event type, in registration order
EVENT_TYPES: dict[str, EventType] = {}


def register(kind: EventType) -> EventType:
    """Declare an event type (once; the module that emits it does)."""
    unknown = [f for f in kind.optional if f not in kind.fields]
    if unknown or "type" in kind.fields or "to" in kind.fields or "private_to" in kind.fields:
        raise ValueError(f"event type {kind.name!r}: bad fields {sorted(kind.fields)} / optional {unknown}")
    if kind.name in EVENT_TYPES and EVENT_TYPES[kind.name] != kind:
        raise ValueError(f"event type {kind.name!r} declared twice")
    EVENT_TYPES[kind.name] = kind
    return kind


def json_schemas(audience: str = "private_to") -> dict[str, dict]:
    """One JSON schema per event type, in registration order."""
    return {name: kind.json_schema(audience) for name, kind in EVENT_TYPES.items()}


def private_types() -> frozenset[str]:
    """The event types that are always private (carry an audience)."""
    return frozenset(name for name, kind in EVENT_TYPES.items() if kind.private)


# -- the event types of the engine's core and of the UNO modules of issue 9 ----------------
for _kind in (
    # the server's own (core.py)
    EventType("timeout", {"seat": seat("the seat whose deadline passed")},
              "the server acted for a seat whose turn deadline passed (RULES.md \"Time\"); what it did follows"),
    EventType("expired", {"seat": seat("the seat whose window deadline passed")},
              "a window's own deadline passed for a seat (e.g. a buzz): it did not act in it"),
    # rounds (uno/rounds.py)
    EventType("dealer_chosen", {"seat": seat("the first dealer")}, "the first round's dealer, chosen at random"),
    EventType("round_started", {"round": {"type": "integer", "minimum": 1}, "dealer": SEAT},
              "a round is dealt (the card ids of the events after it belong to this round)"),
    EventType("first_card_returned", {"rank": {"type": "string"}},
              "the card turned up first was put back (Wild Draw Four) and the deck reshuffled"),
    EventType("first_card", {"card": CARD}, "the card turned up to start the discard pile"),
    EventType("round_ended", {
        "round": {"type": "integer", "minimum": 1},
        "winner": seat("who won the round"),
        "blocked": {"type": "boolean", "description": "both piles exhausted and nobody could play"},
        "hand_points": {**POINTS, "description": "points left in each hand"},
        "points": {**POINTS, "description": "points each seat scored this round"},
        "scores": {**POINTS, "description": "each seat's total after this round"},
    }, "a round ended: its scoring"),
    EventType("game_ended", {"winner": seat("who won the game (teams: a seat of the winning team)"),
                             "scores": {**POINTS, "description": "final totals"},
                             "winners": {**SEATS, "description": "every seat that won (games with teams, and "
                                                              "Decktet-Uno: equal top scores share the win)"}},
              "the game is over", optional=("winners",)),
    # piles (uno/piles.py)
    EventType("reshuffled", {"count": {**COUNT, "description": "cards in the new draw pile"}},
              "the discard pile, less its top card, was shuffled into a new draw pile"),
    EventType("draw", {"seat": seat("who drew"), "count": COUNT,
                       "reason": {"type": "string", "description": "why: draw, draw_two, wild_draw_four, "
                                  "uno_penalty, challenge_lost, buzz, ... (the effect that made the seat draw)"}},
              "a seat drew cards (how many: everyone sees it)"),
    EventType("cards_drawn", {"seat": seat("who drew"), "cards": CARDS},
              "the cards a seat drew, shown to that seat only", private=True),
    EventType("hand", {"seat": seat("whose hand"), "cards": CARDS},
              "a seat's whole hand, shown to that seat only (after the deal, or after hands changed owners)",
              private=True),
    # turns (uno/turn.py, uno/calls.py, uno/wild_draw_four.py)
    EventType("play", {"seat": seat("who played"), "card": CARD,
                       "color": {**COLOR, "enum": [*COLORS, None], "nullable": True,
                                 "description": "the colour in force after it (null: a colourless card)"},
                       "target_seat": seat("the seat the card names (a 7 with seven_zero...)"),
                       "points": {"type": "integer", "description": "Decktet-Uno: what the play scored"}},
              "a card played (in turn, jumped in, cut in, or answering a penalty); UNO games give its `color`, "
              "Decktet-Uno its `points`", optional=("color", "target_seat", "points")),
    EventType("uno", {"seat": seat("who called")}, "a seat called UNO"),
    EventType("uno_caught", {"seat": seat("who caught"), "target_seat": seat("who was caught")},
              "a seat that had not called UNO was caught: it draws uno_penalty cards"),
    EventType("jump_in", {"seat": seat("who jumped in")}, "a card played out of turn follows (jump_in)"),
    EventType("pass", {"seat": seat("who passed"),
                       "auto": {"type": "boolean", "enum": [True],
                                "description": "the turn passed by itself (nothing left to do after a draw)"}},
              "a seat's turn passed", optional=("auto",)),
    EventType("color_chosen", {"seat": seat("who named it"), "color": COLOR}, "a colour was named"),
    EventType("challenge", {"seat": seat("the challenger"), "target_seat": seat("who played the Wild Draw Four"),
                            "guilty": {"type": "boolean"}},
              "a Wild Draw Four was challenged"),
    EventType("hand_revealed", {"seat": seat("whose hand"), "cards": CARDS},
              "a challenged hand, shown to the challenger only", private=True),
    # seven_zero (uno/seven_zero.py)
    EventType("hands_rotated", {"seat": seat("who played the card (a 0, a Change de jeu, the UNO card)"),
                                "direction": {"type": "string", "enum": ["clockwise", "counterclockwise"],
                                              "description": "the way the hands went"}},
              "every hand passed to the next active seat that way: in the direction of play (a 0 with seven_zero, "
              "a Change de jeu with hand_pass_cards) or against it (the UNO card, uno_card); uno/hand_moves.py"),
    EventType("hands_swapped", {"seat": seat("who played the 7 or the Wild Swap Hands"),
                                "target_seat": seat("the other hand's owner")},
              "two seats swapped hands (a 7 with seven_zero, a Wild Swap Hands with swap_hands_card)"),
    # deflect_cards (uno/deflect.py)
    EventType("skipped", {"seat": seat("who was skipped")}, "a seat accepted a Skip aimed at it (deflect_cards)"),
    EventType("deflected", {"seat": seat("who played the Renvoi"), "target_seat": seat("who gets the effect back"),
                            "kind": {"type": "string", "description": "the effect sent back (its card's rank)"},
                            "amount": {**COUNT, "description": "cards it makes draw (0: a Skip)"}},
              "a Renvoi sent an effect back (deflect_cards)"),
    # straights / continuations (uno/straights.py)
    EventType("end_turn", {"seat": seat("whose sequence ended")}, "a turn of several cards ended"),
    EventType("cut_in", {"seat": seat("who cut in"), "target_seat": seat("whose sequence it ended")},
              "the next player cut into a sequence (a card played on the top card follows)"),
    # buzzer_cards (uno/buzzer.py)
    EventType("buzz_window", {"seat": seat("who played the Buzzer"),
                              "seconds": {"type": "number", "description": "the window's length (buzzer_seconds)"},
                              "owed_by": SEATS},
              "a Buzzer opened a buzz window every seat owes"),
    EventType("buzz", {"seat": seat("who buzzed")}, "a seat buzzed"),
    EventType("buzz_closed", {"seat": seat("who played the Buzzer"), "buzzed": SEATS, "not_buzzed": SEATS,
                              "last": {**SEAT, "nullable": True, "description": "the last to buzz (null: nobody)"},
                              "draws": SEATS},
              "a buzz window closed: the seats in draws draw 2 each"),
    # -- issue 10 (declared here for the modules that emit them) --
    # scoring: elimination (uno/scoring.py)
    EventType("seats_eliminated", {"seats": {**SEATS, "description": "the seats eliminated now"},
                                   "scores": {**POINTS, "description": "each seat's total"}},
              "seats reached the target and are out of the game (scoring: elimination)"),
):
    register(_kind)
del _kind
