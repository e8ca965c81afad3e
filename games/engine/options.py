"""Presets and options (RULES.md "Presets" and "Options").

A preset is a bundle of option values plus a deck and a seat range; any option can
be set on top of a preset.  Every option is declared once here, with its default
and its validator; the behaviour behind it lives in one module of
:mod:`games.engine.rules`.  Options that RULES.md names but the engine does not
play yet are refused with a clear error instead of being silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from .errors import InvalidOptions

if TYPE_CHECKING:
    from .rules import Rules


def _choice(*values: Any) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if not any(v == x and type(v) is type(x) for x in values):
            raise ValueError("must be one of " + ", ".join(repr(x) for x in values))
        return v

    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("must be true or false")
    return v


def _int(lo: int, hi: int, nullable: bool = False) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"must be an integer from {lo} to {hi}" + (" or null" if nullable else ""))
        return v

    return check


@dataclass(frozen=True)
class OptionSpec:
    name: str
    default: Any
    check: Callable[[Any], Any]
    doc: str


OPTIONS: dict[str, OptionSpec] = {
    o.name: o
    for o in [
        OptionSpec("target_score", 500, _int(1, 100_000), "points that end the game"),
        OptionSpec("rounds", None, _int(1, 1000, nullable=True), "a fixed number of rounds instead of a target"),
        OptionSpec("scoring", "winner_takes", _choice("winner_takes", "lowest_total"), "scoring method"),
        OptionSpec("penalty_skips_turn", True, _bool, "the victim of +2/+4 loses the turn after drawing"),
        OptionSpec("stacking", "off", _choice("off", "same", "plus4_on_plus2", "any"), "penalty stacking"),
        OptionSpec("draw_limit", 1, _int(1, 200, nullable=True), "cards a player may draw in one turn (null: until playable)"),
        OptionSpec("uno_penalty", 2, _int(1, 20), "cards drawn by a player caught without calling UNO"),
        OptionSpec("jump_in", "off", _choice("off", "exact", "super"), "out-of-turn play of an identical card"),
        OptionSpec("seven_zero", False, _bool, "0 rotates all hands, 7 swaps hands with a named player"),
        OptionSpec("two_player_replay", True, _bool, "with two players Reverse acts as Skip"),
        OptionSpec("wild_keeps_color", True, _bool, "a Wild may name the current colour (always allowed)"),
        OptionSpec("wild_draw_four", "official", _choice("official"), "Wild Draw Four rule"),
    ]
}

#: Named in RULES.md, not played yet: refused with "not supported yet".
PLANNED_OPTIONS = frozenset(
    {
        "hands_to_win", "jump_in_misplay_points", "straights", "continuations", "buzzer_cards",
        "buzzer_seconds", "teams", "partner_rotation", "replay_cards", "downpour_cards",
        "deflect_cards", "hand_pass_cards", "targeted_draw_cards", "swap_hands_card", "uno_card",
        "face_down", "decks",
    }
)
PLANNED_VALUES = {"scoring": ("elimination", "hands_won"), "wild_draw_four": ("bluff", "free")}


@dataclass(frozen=True)
class Preset:
    name: str
    deck: str
    min_seats: int
    max_seats: int
    options: Mapping[str, Any] = field(default_factory=dict)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("standard", "standard_108", 2, 10),
        Preset(
            "house",
            "standard_108",
            2,
            10,
            {"uno_penalty": 4, "penalty_skips_turn": False, "scoring": "lowest_total"},
        ),
    ]
}
PLANNED_PRESETS = frozenset({"standard_112", "play_uno_com", "duo", "decktet_uno"})


@dataclass(frozen=True)
class Config:
    """Everything that defines a game before its first move."""

    preset: str
    seats: int
    seed: str
    options: Mapping[str, Any]
    #: the game's :class:`~.rules.Rules`, built once by ``rules.build_rules``: a cache,
    #: not part of the config (never compared, hashed, shown or saved). Declared (the
    #: compiled engine's classes take no ad-hoc attributes) and left to its default.
    _rules: Rules | None = field(default=None, repr=False, compare=False, hash=False)

    @property
    def deck(self) -> str:
        return PRESETS[self.preset].deck

    def to_dict(self) -> dict:
        return {"preset": self.preset, "seats": self.seats, "seed": self.seed, "options": dict(self.options)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Config":
        return cls(d["preset"], d["seats"], d["seed"], dict(d["options"]))


def resolve_options(preset: Any, options: Any) -> dict[str, Any]:
    """Validate ``options`` on top of ``preset`` and return the complete option dict.

    Arguments from outside, checked here: ``Any``, or the compiled engine would refuse a
    wrong type with a TypeError instead of InvalidOptions (so in ``make_config``)."""
    if not isinstance(preset, str) or preset not in PRESETS:
        if preset in PLANNED_PRESETS:
            raise InvalidOptions("ruleset", f"preset {preset!r} is not supported yet")
        raise InvalidOptions("ruleset", f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise InvalidOptions("options", "must be an object")
    p = PRESETS[preset]
    resolved = {name: spec.default for name, spec in OPTIONS.items()}
    resolved.update(p.options)
    for name, value in options.items():
        spec = OPTIONS.get(name)
        if spec is None:
            if name in PLANNED_OPTIONS:
                raise InvalidOptions(name, "this option is not supported yet")
            raise InvalidOptions(name, "unknown option")
        if value in PLANNED_VALUES.get(name, ()):
            raise InvalidOptions(name, f"the value {value!r} is not supported yet")
        try:
            resolved[name] = spec.check(value)
        except ValueError as exc:
            raise InvalidOptions(name, str(exc)) from None
    if resolved["rounds"] is not None and "target_score" in options:
        raise InvalidOptions("rounds", "set either rounds or target_score, not both")
    return resolved


def make_config(preset: Any, options: Any, seats: Any, seed: Any) -> Config:
    resolved = resolve_options(preset, options)
    p = PRESETS[preset]
    if isinstance(seats, bool) or not isinstance(seats, int) or not p.min_seats <= seats <= p.max_seats:
        raise InvalidOptions("max_players", f"{preset} is played by {p.min_seats} to {p.max_seats} players")
    return Config(preset, seats, str(seed), resolved)
