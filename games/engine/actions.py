"""Actions: a value type with JSON in and out, and the registry of action types.

An action is an :class:`Action`, a named tuple ``(type, card, color, target_seat, uno)``
whose unused fields are None (``uno`` is True or None: ``"uno": false`` is the same
action as no ``uno``).  Being a tuple it hashes and compares like the plain tuple of its
fields, which is what the engine uses as the key of its legal-action tables.

Each action type is declared once, by the module of the decision (or window) that
accepts it, as an :class:`ActionType`: its fields (which are required), and the
explanation given when an action of that type is refused and no decision says more.
The registry (``ACTION_TYPES``, in registration order) is what ``ACTION_FIELDS`` (the
shape table games/serializers.py reads) and :func:`json_schemas` (one typed OpenAPI
variant per action type) are derived from.

``Action.from_json`` validates a client's object exactly as the REST API always has
(same checks in the same order, same messages and ``field``s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple

from .cards import COLORS
from .errors import InvalidAction

#: the field kinds an action may carry, in the order they are validated
CARD, SEAT, COLOR, FLAG = "card", "seat", "color", "flag"
#: field name -> its kind (every field any action type may use; an Action has them all)
FIELDS: dict[str, str] = {"card": CARD, "target_seat": SEAT, "color": COLOR, "uno": FLAG}


@dataclass(frozen=True)
class ActionType:
    """One type of action: its fields (name -> required) and its default refusal.

    ``refusal``: the explanation when an action of this type is refused for a reason
    no decision type explains (e.g. ``pass`` with nothing to pass on).
    ``system``: applied by the server only (``timeout``), never listed."""

    name: str
    fields: tuple[tuple[str, bool], ...] = ()
    refusal: str = ""
    system: bool = False
    doc: str = ""

    @property
    def allowed(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.fields) | {"type"}

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(name for name, required in self.fields if required)

    def json_schema(self) -> dict:
        """A JSON schema (OpenAPI 3.1) of this action type's objects."""
        props: dict[str, Any] = {"type": {"type": "string", "enum": [self.name]}}
        for name, _ in self.fields:
            props[name] = _FIELD_SCHEMAS[FIELDS[name]]
        return {"type": "object", "title": self.name, "description": self.doc, "properties": props,
                "required": ["type", *self.required], "additionalProperties": False}


_FIELD_SCHEMAS: dict[str, dict] = {
    CARD: {"type": "integer", "description": "a card id"},
    SEAT: {"type": "integer", "minimum": 0, "description": "a seat"},
    COLOR: {"type": "string", "enum": list(COLORS)},
    FLAG: {"type": "boolean"},
}

#: every action type, in registration order (modules register theirs at import)
ACTION_TYPES: dict[str, ActionType] = {}
#: per player action type: its fields and whether each is required (games/serializers.py)
ACTION_FIELDS: dict[str, dict[str, bool]] = {}
#: applied by the server when a deadline passes; never listed, never accepted from a player
SYSTEM_ACTIONS: set[str] = set()
#: the shape checks per list of known action types (see ``_shape``)
_shapes: dict[tuple[str, ...] | None, "_Shape"] = {}


def register(kind: ActionType) -> ActionType:
    """Declare an action type (once; the module that accepts it does)."""
    for name, _ in kind.fields:
        if name not in FIELDS:
            raise ValueError(f"{kind.name}: unknown field {name!r} (declare its kind in actions.FIELDS)")
    if kind.name in ACTION_TYPES and ACTION_TYPES[kind.name] != kind:
        raise ValueError(f"action type {kind.name!r} declared twice")
    ACTION_TYPES[kind.name] = kind
    if kind.system:
        SYSTEM_ACTIONS.add(kind.name)
    else:
        ACTION_FIELDS[kind.name] = dict(kind.fields)
    _shapes.clear()
    return kind


TIMEOUT = register(ActionType("timeout", system=True,
                              doc="the server's action for a seat whose deadline passed (RULES.md \"Time\")"))
EXPIRE = register(ActionType("expire", system=True,
                             doc="the server's action for a seat that owes a window whose own deadline passed"
                                 " (a buzz window's buzzer_seconds): the window expires for it (core.expire_own)"))


class Action(NamedTuple):
    """An action as a value: ``Action("play", card=17, color="red")``."""

    type: str
    card: int | None = None
    color: str | None = None
    target_seat: int | None = None
    uno: bool | None = None

    @classmethod
    def from_json(cls, obj: Any, types: Iterable[str] | None = None) -> "Action":
        """Validate a client's action object (raises :class:`InvalidAction`).
        ``types``: the action types the game knows (default: every registered one)."""
        return cls(*action_key(obj, types))

    def to_json(self) -> dict:
        """The ready-to-post object: ``type`` then the fields that are set."""
        out: dict[str, Any] = {"type": self.type}
        if self.card is not None:
            out["card"] = self.card
        if self.color is not None:
            out["color"] = self.color
        if self.target_seat is not None:
            out["target_seat"] = self.target_seat
        if self.uno:
            out["uno"] = True
        return out


Key = tuple  # (type, card, color, target_seat, uno): an Action's fields as a plain tuple


def _is_int(value: Any) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


class _Shape:
    """The shape checks of one list of known action types (built once per list)."""

    def __init__(self, types: tuple[str, ...]):
        self.known = ", ".join(types)
        self.types = {t: ACTION_TYPES[t] for t in types}
        self.allowed = {t: k.allowed for t, k in self.types.items()}
        self.required = {t: k.required for t, k in self.types.items()}


def _shape(types: Iterable[str] | None) -> _Shape:
    key = tuple(types) if types is not None else None
    shape = _shapes.get(key)
    if shape is None:
        names = key if key is not None else tuple(t for t in ACTION_TYPES if t not in SYSTEM_ACTIONS)
        shape = _shapes[key] = _Shape(names)
    return shape


def action_key(action: Any, types: Iterable[str] | None = None) -> Key:
    """Validate an action object's shape and return its key (raises InvalidAction).

    ``types``: the player action types the game knows, in the order error messages list
    them (default: every registered one).  The checks and their order are the API's
    since its first version."""
    return checked_key(action, _shape(types))


def shape_of(types: Iterable[str] | None) -> _Shape:
    """The shape checks of a list of action types (built once; ``Rules.shape``)."""
    return _shape(types)


def checked_key(action: Any, shape: _Shape) -> Key:
    """``action_key`` with the game's shape checks at hand (the validated path's)."""
    # ``type(...) is dict`` first: the usual case, and much cheaper than an ABC check.
    if type(action) is not dict and not isinstance(action, Mapping):
        raise InvalidAction("an action must be an object")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise InvalidAction(f"'type' must be a string, one of {shape.known}", field="type")
    if kind in SYSTEM_ACTIONS:
        if len(action) != 1:
            raise InvalidAction(f"{kind!r} takes no other field", field=next(k for k in action if k != "type"))
        return (kind, None, None, None, None)
    allowed = shape.allowed.get(kind)
    if allowed is None:
        raise InvalidAction(f"unknown action type {kind!r}; known: {shape.known}", field="type")
    if not action.keys() <= allowed:
        name = next(name for name in action if name not in allowed)
        raise InvalidAction(f"{kind!r} takes no field {name!r}", field=name)
    for name in shape.required[kind]:
        if action.get(name) is None:
            raise InvalidAction(f"{kind!r} needs {name!r}", field=name)
    if len(action) == 1:  # only its type (e.g. a draw): no field left to check
        return (kind, None, None, None, None)
    card, color, target, uno = action.get("card"), action.get("color"), action.get("target_seat"), action.get("uno")
    if card is not None and type(card) is not int and not _is_int(card):
        raise InvalidAction("'card' must be an integer", field="card")
    if target is not None and type(target) is not int and not _is_int(target):
        raise InvalidAction("'target_seat' must be an integer", field="target_seat")
    if color is not None and color not in COLORS:
        raise InvalidAction(f"'color' must be one of {', '.join(COLORS)}", field="color")
    if uno is not None and not isinstance(uno, bool):
        raise InvalidAction("'uno' must be true or false", field="uno")
    return (kind, card, color, target, True if uno else None)


def json_schemas() -> dict[str, dict]:
    """One JSON schema per player action type (the typed variants of the actions
    endpoint's body), in registration order."""
    return {name: kind.json_schema() for name, kind in ACTION_TYPES.items() if not kind.system}


#: each move's ready-to-post object, built once (moves repeat; callers copy it)
JSON: dict[Key, dict] = {}


def json_of(move: Key) -> dict:
    """A move's ready-to-post object, shared: copy it before handing it out."""
    out = JSON.get(move)
    if out is None:
        out = JSON[move] = Action(*move).to_json()
    return out


def to_json(move: Key) -> dict:
    """A move's ready-to-post object, a fresh dict."""
    return json_of(move).copy()
