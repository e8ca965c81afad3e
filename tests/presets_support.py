"""Every preset and option of the catalogue, for tests that must cover each one the
moment it exists (issue 10 "Everywhere"): nothing here names a preset, and the
options it names are only looked up in ``catalog.OPTIONS`` (an option not there yet
is skipped, so the tests grow as options land).

Pure Python (no Django): the engine tests may use it too.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, Iterator

from games.engine import OPTIONS, PRESETS, InvalidOptions, OptionSpec, build_rules, make_config, resolve_options
from games.engine.catalog import FAMILY_OPTIONS

#: RULES.md's options that move cards between hands (a 0/7, a hand pass, a swap, the
#: UNO card; the 112-card deck's Wild Shuffle Hands comes with its preset): those of
#: them in the catalogue
HAND_MOVING = ("seven_zero", "hand_pass_cards", "swap_hands_card", "uno_card")


def presets() -> list[str]:
    return list(PRESETS)


def options_of(preset: str) -> dict[str, OptionSpec]:
    """The options ``preset``'s family has (another family's are refused by name)."""
    return FAMILY_OPTIONS[PRESETS[preset].family]


def seat_counts(preset: str, most: int = 4) -> list[int]:
    """The seat counts to play ``preset`` with: its least, and ``most`` (or its most,
    if fewer) when that differs."""
    p = PRESETS[preset]
    return sorted({p.min_seats, max(p.min_seats, min(p.max_seats, most))})


def accepted(preset: str, options: dict) -> bool:
    try:
        resolve_options(preset, options)
    except InvalidOptions:
        return False
    return True


def short(preset: str, options: dict | None = None) -> dict:
    """``options`` plus one round (``rounds: 1``) where the preset takes it: short games."""
    options = dict(options or {})
    if "rounds" in OPTIONS and "target_score" not in options and accepted(preset, {**options, "rounds": 1}):
        options["rounds"] = 1
    return options


def seats_for(preset: str, options: dict, prefer: int) -> int | None:
    """A seat count ``preset`` with ``options`` is played by (``teams``: an even one):
    ``prefer`` if it can, else the nearest above, else below; None if none."""
    p = PRESETS[preset]
    up = range(max(prefer, p.min_seats), p.max_seats + 1)
    down = range(min(prefer - 1, p.max_seats), p.min_seats - 1, -1)
    for n in [*up, *down]:
        try:
            make_config(preset, options, n, "probe")
        except InvalidOptions:
            continue
        return n
    return None


@lru_cache(maxsize=None)
def deck_size(preset: str, options: tuple = ()) -> int:
    n = seats_for(preset, dict(options), PRESETS[preset].min_seats)
    assert n is not None, (preset, options)
    return len(build_rules(make_config(preset, dict(options), n, "deck-size")).deck)


def extra_card_options(preset: str = "standard") -> list[str]:
    """The boolean options that add cards to ``preset``'s deck (read off the deck each
    builds: no list of names)."""
    if preset not in PRESETS:
        return []
    base = deck_size(preset)
    out = []
    for name, spec in OPTIONS.items():
        if spec.json_schema().get("type") != "boolean" or spec.default is not False:
            continue
        if accepted(preset, {name: True}) and deck_size(preset, ((name, True),)) > base:
            out.append(name)
    return out


def hand_moving_options(preset: str = "standard") -> list[str]:
    """The hand-moving options of the catalogue that ``preset`` takes."""
    return [n for n in HAND_MOVING if n in OPTIONS and accepted(preset, {n: True})]


def values(schema: dict) -> list[Any]:
    """A few values an option's schema admits (every one of an enum or a boolean; the
    bounds and a middle of an integer range, and null when nullable)."""
    if "enum" in schema:
        return list(schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return [False, True]
    if kind == "integer":
        lo, hi = schema["minimum"], schema["maximum"]
        out = sorted({lo, hi, (lo + hi) // 2, min(hi, lo + 1)})
        return out + ([None] if schema.get("nullable") else [])
    return []


def single_option_variants(preset: str) -> Iterator[tuple[str, Any]]:
    """(option, value) for every value other than the preset's of every option of the
    catalogue (integers: their bounds only) that ``preset`` takes alone."""
    resolved = resolve_options(preset, {})
    for name, spec in options_of(preset).items():
        schema = spec.json_schema()
        vals = values(schema)
        if schema.get("type") == "integer":
            vals = [v for v in vals if v is None or v in (schema["minimum"], schema["maximum"])]
        for v in vals:
            if v != resolved.get(name) and accepted(preset, {name: v}):
                yield name, v


def random_options(rng: random.Random, preset: str, k: int = 4, tries: int = 50) -> dict:
    """A random options dict ``preset`` accepts: up to ``k`` options at random values
    (small integers, so that games stay short), each kept if still accepted."""
    out: dict = {}
    specs = options_of(preset)
    names = list(specs)
    for _ in range(tries):
        if len(out) >= k:
            break
        name = rng.choice(names)
        if name in out or name in ("target_score", "rounds"):
            continue
        vals = values(specs[name].json_schema())
        if specs[name].json_schema().get("type") == "integer":
            vals = [v for v in vals if v is None or v <= 10] or vals[:1]
        if vals:
            candidate = {**out, name: rng.choice(vals)}
            if accepted(preset, candidate):
                out = candidate
    return out
