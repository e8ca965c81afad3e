"""What defines a game before its first move: option specs, presets, the config.

An option is declared once, by the module that plays it, as an :class:`OptionSpec`
(name, default, validator, doc); a preset (:class:`Preset`) names its family and base
deck, its seat range and a bundle of option values.  The catalogue of every module,
option and preset is :mod:`games.engine.catalog`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


def choice(*values: Any) -> Callable[[Any], Any]:
    """A validator: one of ``values`` (same type too: ``1`` is not ``True``)."""

    def check(v: Any) -> Any:
        if not any(v == x and type(v) is type(x) for x in values):
            raise ValueError("must be one of " + ", ".join(repr(x) for x in values))
        return v

    check.json_schema = _enum_schema(values)  # type: ignore[attr-defined]
    return check


def _enum_schema(values: tuple) -> dict:
    """The JSON schema (OpenAPI 3.0: ``nullable``) of a :func:`choice` of ``values``."""
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
    types = {kinds.get(type(v), "object") for v in values if v is not None}
    out: dict[str, Any] = {"type": types.pop()} if len(types) == 1 else {}
    out["enum"] = list(values)
    if None in values:
        out["nullable"] = True
    return out


def boolean(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("must be true or false")
    return v


boolean.json_schema = {"type": "boolean"}  # type: ignore[attr-defined]


def integer(lo: int, hi: int, nullable: bool = False) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"must be an integer from {lo} to {hi}" + (" or null" if nullable else ""))
        return v

    check.json_schema = {"type": "integer", "minimum": lo, "maximum": hi,  # type: ignore[attr-defined]
                         **({"nullable": True} if nullable else {})}
    return check


@dataclass(frozen=True)
class OptionSpec:
    name: str
    default: Any
    check: Callable[[Any], Any]
    doc: str

    def json_schema(self) -> dict:
        """The JSON schema (OpenAPI 3.0) of this option's values, derived from its
        validator (``choice``, ``integer``, ``boolean`` carry theirs: a validator
        without one gives ``{}``, which tests/test_schema_options.py refuses), with the
        default and the doc (games/schema.py's ``Options``)."""
        return {**getattr(self.check, "json_schema", {}), "default": self.default, "description": self.doc}


@dataclass(frozen=True)
class Preset:
    """A preset: a family, a base deck, a seat range and option values on top of the
    options' defaults (RULES.md "Presets")."""

    name: str
    family: str
    deck: str
    min_seats: int
    max_seats: int
    options: Mapping[str, Any] = field(default_factory=dict)


#: per preset, its family's options' defaults, in declaration order (filled by the
#: catalogue): an option added since a game was stored takes its default, the game as
#: it was played, when the game is loaded (``Config.from_dict``)
OPTION_DEFAULTS: dict[str, dict[str, Any]] = {}


def with_defaults(preset: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` completed with the defaults of ``preset``'s options it lacks, in
    declaration order (the order ``catalog.resolve_options`` gives a new game's)."""
    defaults = OPTION_DEFAULTS.get(preset, {})
    if options.keys() == defaults.keys():
        return dict(options)
    out = {name: options[name] if name in options else default for name, default in defaults.items()}
    out.update((k, v) for k, v in options.items() if k not in out)
    return out


@dataclass(frozen=True)
class Config:
    """Everything that defines a game before its first move."""

    preset: str
    seats: int
    seed: str
    options: Mapping[str, Any]
    #: the game's :class:`~.rules.Rules`, built once by ``catalog.build_rules``: a
    #: cache, not part of the config (never compared, hashed, shown or saved); typed
    #: loosely, the rules being a layer above the config
    _rules: Any = field(default=None, repr=False, compare=False, hash=False)

    def to_dict(self) -> dict:
        return {"preset": self.preset, "seats": self.seats, "seed": self.seed, "options": dict(self.options)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Config":
        return cls(d["preset"], d["seats"], d["seed"], with_defaults(d["preset"], d["options"]))

    def reseeded(self, seed: str) -> "Config":
        """The same game with another seed (a different future; shares the rules)."""
        return Config(self.preset, self.seats, seed, self.options, self._rules)


def shuffle_commitment(seed: str) -> str:
    """What a game commits to before its first shuffle: the lowercase hex SHA-256 of the
    UTF-8 bytes of its ``seed`` (shown while it runs, the seed itself once it is over:
    ``games.engine.verify`` checks one against the other)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
