"""The catalogue: every family, rule module, option and preset the engine plays, and
building a game's config and rules from them.

Options are declared by their modules (``Module.options``), so each family has its own
(a game's resolved options are its family's; another family's option is refused by
name); a preset is configuration of a family.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from .cards import build_deck
from .config import OPTION_DEFAULTS, Config, OptionSpec, Preset
from .decktet.family import DecktetFamily
from .errors import InvalidOptions
from .rules import Family, Rules
from .uno.duo import DuoFamily
from .uno.family import UnoFamily

FAMILIES: dict[str, Family] = {f.name: f for f in (UnoFamily(), DuoFamily(), DecktetFamily())}

#: each family's options, in the order its modules declare them (a game's resolved
#: options are its family's)
FAMILY_OPTIONS: dict[str, dict[str, OptionSpec]] = {
    name: {spec.name: spec for module in family.modules for spec in module.options}
    for name, family in FAMILIES.items()
}
#: every option of every family (the API schema's ``Options``)
OPTIONS: dict[str, OptionSpec] = {name: spec for specs in FAMILY_OPTIONS.values() for name, spec in specs.items()}

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("standard", "uno", "standard_108", 2, 10),
        Preset("house", "uno", "standard_108", 2, 10,
               {"uno_penalty": 4, "penalty_skips_turn": False, "scoring": "lowest_total"}),
        Preset("standard_112", "uno", "standard_112", 2, 10),  # Mattel 2018: uno/hand_moves.py
        Preset("duo", "duo", "standard_112", 2, 2, {"scoring": "lowest_total", "stacking": "same"}),  # uno/duo.py
        Preset("play_uno_com", "uno", "play_uno_com_112", 2, 10,  # seed 002: uno/play_uno_com.py, uno/replay.py
               {"replay_cards": True, "wild_draw_four": "free", "first_wild_draw_four": "name_color",
                "dealer": "random"}),
        Preset("decktet_uno", "decktet", "decktet_44", 2, 4),  # seed 000: decktet/family.py
    ]
}
#: each preset's option defaults (``Config.from_dict``: an option added since a game was
#: stored takes its default)
OPTION_DEFAULTS.update(
    (p.name, {name: spec.default for name, spec in FAMILY_OPTIONS[p.family].items()}) for p in PRESETS.values())


def resolve_options(preset: Any, options: Any) -> dict[str, Any]:
    """Validate ``options`` on top of ``preset`` and return the complete option dict
    (raises InvalidOptions naming the option)."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidOptions("ruleset", f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise InvalidOptions("options", "must be an object")
    p = PRESETS[preset]
    specs = FAMILY_OPTIONS[p.family]
    resolved = {name: spec.default for name, spec in specs.items()}
    resolved.update(p.options)
    for name, value in options.items():
        spec = specs.get(name)
        if spec is None:
            if name in OPTIONS:
                title = FAMILIES[p.family].title
                raise InvalidOptions(name, f"this option is not one of {preset}'s ({title} options only)")
            raise InvalidOptions(name, "unknown option")
        try:
            resolved[name] = spec.check(value)
        except ValueError as exc:
            raise InvalidOptions(name, str(exc)) from None
    if resolved.get("rounds") is not None and "target_score" in options:
        raise InvalidOptions("rounds", "set either rounds or target_score, not both")
    for module in FAMILIES[p.family].modules:
        module.validate(resolved, options)
    FAMILIES[p.family].base_deck(p.deck, resolved)  # an option that replaces a card the deck lacks
    return resolved


def make_config(preset: Any, options: Any, seats: Any, seed: Any) -> Config:
    """A game's config from the outside's arguments (raises InvalidOptions)."""
    resolved = resolve_options(preset, options)
    p = PRESETS[preset]
    if isinstance(seats, bool) or not isinstance(seats, int) or not p.min_seats <= seats <= p.max_seats:
        count = f"exactly {p.min_seats}" if p.min_seats == p.max_seats else f"{p.min_seats} to {p.max_seats}"
        raise InvalidOptions("max_players", f"{preset} is played by {count} players")
    for module in FAMILIES[p.family].modules:
        module.validate_seats(resolved, seats)  # teams: an even count
    return Config(preset, seats, str(seed), resolved)


@lru_cache(maxsize=256)
def _build(preset_name: str, seats: int, opts: tuple) -> Rules:
    preset = PRESETS[preset_name]
    family = FAMILIES[preset.family]
    options = dict(opts)
    deck = build_deck(family.base_deck(preset.deck, options), family.deck_parts(options))
    rules = Rules(family=family, deck=deck, seats=seats, opts=options)
    family.install(rules)
    for module in family.modules:
        module.install(rules)
    rules.finish()
    return rules


def build_rules(config: Config) -> Rules:
    """The rules of ``config``'s game (built once per preset, seat count and options)."""
    rules = config._rules
    if rules is None:
        rules = _build(config.preset, config.seats, tuple(sorted(config.options.items())))
        object.__setattr__(config, "_rules", rules)  # a cache on the frozen config (a declared field)
    return rules
