"""The presets and their options in a player's words (``GET /api/v1/rulesets``).

The engine (``games.engine``) knows the rules; this module knows how to explain them to
a player choosing a game: each preset's title and description, each option's label,
description, group, whether it is folded away as advanced, and its values in words.
Every preset and every option of the engine must have its text here
(tests/test_rulesets.py fails on a missing one, so a new option cannot be forgotten).

An option a preset does not let a player change (``wild_keeps_color``, always true;
Duo's ``dealer``; ``swap_hands_card`` on a deck without a Shuffle Hands card...) is left
out of that preset's list: :func:`changeable` tries each of its other values on the
preset, as a create request would (``catalog.make_config``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from games.engine import catalog
from games.engine.errors import InvalidOptions


@dataclass(frozen=True)
class PresetText:
    title: str
    description: str


@dataclass(frozen=True)
class OptionText:
    label: str
    description: str
    group: str
    advanced: bool = False
    #: the values of an enum option, in words (value -> words)
    choices: Mapping[Any, str] = field(default_factory=dict)
    #: the other options' values under which this one applies (``hands_to_win``: scoring
    #: ``hands_won``): a client offers it only then
    requires: Mapping[str, Any] = field(default_factory=dict)


#: the groups, in the order a client shows them
LENGTH = "Length of the game"
TEAMS = "Teams"
PENALTIES = "Penalties and calls"
SPECIAL = "Special cards"
HOUSE = "House rules"
GROUPS = (LENGTH, TEAMS, PENALTIES, SPECIAL, HOUSE)

PRESET_TEXTS: dict[str, PresetText] = {
    "standard": PresetText(
        "Standard UNO",
        "The official game with its 108 cards. Match the top card by colour, number or symbol; a Skip, a Reverse "
        "or a Draw Two acts on the next player, and a Wild or a Wild Draw Four lets you name the colour. Call UNO "
        "when you are down to one card, or draw 2 if someone catches you first. The first to empty their hand wins "
        "the round and scores the cards left in the other hands; the first to 500 points wins the game.",
    ),
    "house": PresetText(
        "House rules",
        "Standard UNO as many families play it: a missed UNO call costs 4 cards instead of 2, a player hit by a "
        "Draw Two or a Wild Draw Four draws the cards and still plays their turn, and each player is charged the "
        "points left in their own hand at the end of a round: when someone reaches 500, the lowest total wins.",
    ),
    "standard_112": PresetText(
        "UNO with Shuffle Hands (112 cards)",
        "The 2018 edition of UNO: the 108 standard cards plus a Wild Shuffle Hands, which gathers every hand, "
        "shuffles them and deals them out again, and three Wild Customizable cards, played as ordinary Wilds. "
        "The four new cards are worth 40 points each; everything else is standard UNO.",
    ),
    "duo": PresetText(
        "Duo",
        "UNO Duo, for exactly two players. Instead of a deal, each player drafts a hand of 7, keeping or "
        "discarding the cards they draw one by one. The second player starts; a Reverse lets you also play every "
        "other card of its colour from your hand; a Draw Two may be answered with another Draw Two. At the end "
        "of a round the loser is charged the points left in their hand: when someone reaches 500, the lowest "
        "total wins.",
    ),
    "play_uno_com": PresetText(
        "play-uno.com",
        "UNO as the online game play-uno.com plays it, with 120 cards: a second 0 in every colour and two Replay "
        "cards per colour, after which you play again at once. A Wild Draw Four may be played on anything and "
        "cannot be challenged; a Wild Draw Four turned up first lets the first player name the colour; the dealer "
        "is drawn at random every round.",
    ),
    "decktet_uno": PresetText(
        "Decktet-Uno",
        "A game of its own, played with the 44 cards of the Decktet, each carrying one to three of six suits "
        "(moons, suns, waves, leaves, wyrms and knots). You hold 3 cards and may play any of them: each play "
        "scores at once, the number of suits on the top card times the number of those suits your card shares "
        "(a card sharing no suit scores nothing), then you draw while the deck lasts. When every hand is empty, "
        "the most points win. For 2 to 4 players.",
    ),
}

OPTION_TEXTS: dict[str, OptionText] = {
    # -- UNO and Duo ----------------------------------------------------------------------
    "target_score": OptionText(
        "Points to win", "The game ends when a player (or a team) reaches this many points.", LENGTH),
    "rounds": OptionText(
        "Number of rounds", "Play exactly this many rounds instead of playing up to a points target: the best "
        "total then wins. Leave it empty to play up to the points target.", LENGTH),
    "scoring": OptionText(
        "Scoring", "How a round's points are counted, and who wins the game.", LENGTH,
        choices={"winner_takes": "The winner of a round scores the cards left in the other hands",
                 "lowest_total": "Each player is charged the cards left in their own hand; the lowest total wins",
                 "elimination": "Each player is charged their own cards; whoever reaches the target is out, the "
                                "last one left wins",
                 "hands_won": "One point per round won; the first to win enough rounds wins"}),
    "hands_to_win": OptionText(
        "Rounds to win", "With one point per round won: the first player to win this many rounds wins the game.",
        LENGTH, advanced=True, requires={"scoring": "hands_won"}),
    "teams": OptionText(
        "Play in teams", "Partners sit opposite each other (4, 6, 8 or 10 players). A team scores the cards left in "
        "the other teams' hands, and the first team to the target wins together.", TEAMS),
    "partner_rotation": OptionText(
        "Changing partners", "For 4 players: exactly three rounds, with a different partner each round; each "
        "player keeps their own score and the best total wins.", TEAMS, advanced=True),
    "penalty_skips_turn": OptionText(
        "Draw cards cost the turn", "A player hit by a Draw Two or a Wild Draw Four draws the cards and loses their "
        "turn, as the official rules say. Unticked: they draw, then play.", PENALTIES),
    "stacking": OptionText(
        "Stacking draw cards", "Answer a Draw Two or a Wild Draw Four with another draw card to pass the penalty "
        "on: the next player who cannot answer draws the whole sum.", PENALTIES,
        choices={"off": "Off (official)", "same": "The same card only (+2 on +2, +4 on +4)",
                 "plus4_on_plus2": "The same card, or a +4 on a +2", "any": "Any draw card on any draw card"}),
    "draw_limit": OptionText(
        "Cards drawn in a turn", "How many cards a player who does not play may draw in one turn: 1 in the official "
        "rules, more, or leave it empty to draw until a playable card turns up.", PENALTIES, advanced=True),
    "uno_penalty": OptionText(
        "Penalty for a missed UNO", "Cards drawn by a player caught with one card who did not call UNO.",
        PENALTIES),
    "wild_draw_four": OptionText(
        "Wild Draw Four", "When a Wild Draw Four may be played, and whether it can be challenged.", PENALTIES,
        advanced=True,
        choices={"official": "Only without a card of the current colour; the next player may challenge it",
                 "bluff": "Only when nothing else can be played; a caught bluffer, or a wrong challenger, draws 6",
                 "free": "On anything, and it cannot be challenged"}),
    "jump_in": OptionText(
        "Jump-in", "Play a card identical to the top card out of turn, even when it is not your turn: play "
        "then goes on from you.", HOUSE,
        choices={"off": "Off (official)", "exact": "The same card: same colour and same number or symbol",
                 "super": "The same number or symbol, in any colour"}),
    "jump_in_misplay_points": OptionText(
        "Cost of a wrong jump-in", "With jump-in: a card played out of turn that does not qualify costs this many "
        "points instead of being refused. Leave it empty to refuse it.", HOUSE, advanced=True,
        requires={"jump_in": "exact"}),
    "seven_zero": OptionText(
        "Sevens and zeros", "Playing a 0 passes every hand on to the next player; playing a 7 swaps your hand with a "
        "player of your choice.", HOUSE),
    "two_player_replay": OptionText(
        "Reverse skips with two players", "With two players, a Reverse acts as a Skip: its player plays again "
        "(the official rule).", HOUSE, advanced=True),
    "wild_keeps_color": OptionText(
        "A Wild may name the current colour", "Playing a Wild, you may name the colour already in play (always "
        "allowed).", HOUSE, advanced=True),
    "straights": OptionText(
        "Straights", "After a number card, keep playing the next higher or lower number of the same colour, in one "
        "direction, then end your turn; the next player may cut in.", HOUSE, advanced=True),
    "continuations": OptionText(
        "Continuations", "Like straights, but after a number card you may also play the same number in any colour, "
        "going up or down as you like. Not together with straights.", HOUSE, advanced=True),
    "first_wild_draw_four": OptionText(
        "A Wild Draw Four turned up first", "What happens when the first card turned up is a Wild Draw Four.",
        HOUSE, advanced=True,
        choices={"redraw": "It goes back into the deck and another card is turned (official)",
                 "name_color": "The first player names the colour, then plays"}),
    "dealer": OptionText(
        "Dealer", "Who deals each round; the player on the dealer's left starts.", HOUSE, advanced=True,
        choices={"rotates": "Drawn at random for the first round, then the deal passes to the left",
                 "random": "Drawn at random every round"}),
    "deflect_cards": OptionText(
        "Renvoi cards", "Adds four Renvoi cards, one per colour (20 points): hit by a Draw Two, a Wild Draw Four or "
        "a Skip, play it to send the attack back.", SPECIAL),
    "buzzer_cards": OptionText(
        "Buzzer cards", "Adds eight colourless Buzzer cards (20 points), playable on anything: every player must "
        "press Buzz; the last to buzz, and anyone who did not, draws 2.", SPECIAL),
    "buzzer_seconds": OptionText(
        "Seconds to buzz", "How long the players have to buzz after a Buzzer card.", SPECIAL, advanced=True,
        requires={"buzzer_cards": True}),
    "replay_cards": OptionText(
        "Replay cards", "Adds two Replay cards per colour (20 points): after playing one, play again at once a card "
        "of its colour, another Replay or a Wild, or end your turn.", SPECIAL),
    "downpour_cards": OptionText(
        "Downpour cards", "Adds two Downpour +1 and two Downpour +2 Wilds (50 points): every other player draws 1 "
        "or 2 cards at once, and nobody is skipped.", SPECIAL),
    "targeted_draw_cards": OptionText(
        "Targeted draw cards", "Adds a +2? in each colour and two +4? Wilds: like a Draw Two or a Wild Draw Four, but "
        "you choose who draws.", SPECIAL, advanced=True),
    "hand_pass_cards": OptionText(
        "Change de jeu cards", "Adds two colourless Change de jeu cards (20 points), playable on anything: every "
        "hand passes to the next player in the direction of play.", SPECIAL, advanced=True),
    "uno_card": OptionText(
        "The UNO card", "Adds one colourless UNO card (100 points), playable on anything: every hand passes the "
        "other way round. Played as your last card, you receive a hand and do not win.", SPECIAL, advanced=True),
    "swap_hands_card": OptionText(
        "Wild Swap Hands", "Replaces the Wild Shuffle Hands with the 2015 edition's Wild Swap Hands: swap your hand "
        "with a player of your choice, then name the colour.", SPECIAL, advanced=True),
    # -- Decktet-Uno -----------------------------------------------------------------------
    "face_down": OptionText(
        "Face-down plays", "A player none of whose cards would score may play one face down instead. It is turned "
        "up on the next player's card at the end of their turn and scores then, or costs 2 points if it shares "
        "no suit with it.", HOUSE),
    "decks": OptionText(
        "Passes through the deck", "With 3 or 4 players, 2: when the deck runs out the first time, the played "
        "cards (all but the top one) are shuffled into a new deck, once.", LENGTH),
}


def _candidates(schema: Mapping[str, Any]) -> list[Any]:
    """Values of an option's schema worth trying to tell whether a player can change it."""
    if "enum" in schema:
        return list(schema["enum"])
    if schema.get("type") == "boolean":
        return [True, False]
    out: list[Any] = []
    if schema.get("type") == "integer":
        lo, hi = schema["minimum"], schema["maximum"]
        out = [lo, min(lo + 1, hi), hi]
    if schema.get("nullable"):
        out.append(None)
    return out


def changeable(preset: str, name: str) -> bool:
    """Whether a player can create ``preset`` with another value of option ``name``
    than the preset's (with the options it ``requires``), at some seat count the
    preset allows."""
    p = catalog.PRESETS[preset]
    spec = catalog.FAMILY_OPTIONS[p.family][name]
    default = catalog.resolve_options(preset, {})[name]
    requires = dict(OPTION_TEXTS[name].requires)
    for value in _candidates(spec.json_schema()):
        if value == default and type(value) is type(default):
            continue
        for seats in range(p.min_seats, p.max_seats + 1):
            try:
                catalog.make_config(preset, {**requires, name: value}, seats, "0")
            except InvalidOptions:
                continue
            return True
    return False


def _option_entry(preset: str, name: str, default: Any) -> dict[str, Any]:
    text = OPTION_TEXTS[name]
    spec = catalog.OPTIONS[name]
    schema = {k: v for k, v in spec.json_schema().items() if k not in ("default", "description")}
    return {
        "name": name,
        "label": text.label,
        "description": text.description,
        "group": text.group,
        "advanced": text.advanced,
        "default": default,
        "schema": schema,
        "choices": [{"value": v, "label": text.choices.get(v, str(v))} for v in schema["enum"]]
        if "enum" in schema else [],
        "requires": dict(text.requires),
    }


@lru_cache(maxsize=1)
def rulesets() -> dict[str, Any]:
    """``GET /rulesets``' answer (built once: it depends on the code only)."""
    presets = []
    for name, p in catalog.PRESETS.items():
        text = PRESET_TEXTS[name]
        defaults = catalog.resolve_options(name, {})
        presets.append({
            "name": name,
            "title": text.title,
            "description": text.description,
            "min_players": p.min_seats,
            "max_players": p.max_seats,
            "options": [_option_entry(name, option, defaults[option]) for option in catalog.FAMILY_OPTIONS[p.family]
                        if changeable(name, option)],
        })
    return {"groups": list(GROUPS), "results": presets}


@lru_cache(maxsize=1)
def etag() -> str:
    """A strong validator of :func:`rulesets`' answer."""
    raw = json.dumps(rulesets(), sort_keys=True, separators=(",", ":")).encode()
    return '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'
