"""The kinds of notices, with the schema of their data, for the OpenAPI schema.

An app that writes notices registers each kind once, in its ``AppConfig.ready()``::

    kinds.register("challenge", stream="feed", schema="FeedChallenge",
                   description="someone challenged the caller.",
                   properties={"challenge": {"type": "integer"}, ...})

``games.schema`` documents every registered kind among the events of the player's feed
(``stream="feed"``: ``GET /players/me/events``) or of a game's stream (``stream="game"``:
``GET /games/{id}/events``), as ``event: <kind>`` frames whose data is the component
``schema``: ``properties`` plus ``notice`` (every notice's id, added by the hub).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STREAMS = ("feed", "game")

#: the property every notice's data carries (games.live adds it)
NOTICE_PROPERTY = {
    "type": "integer",
    "description": "The notice's id: it grows, and one notice is sent once per stream; a client that "
    "reconnected may see one again and skip it by this id.",
}


@dataclass(frozen=True)
class Kind:
    name: str
    stream: str
    schema: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...] = field(default=())

    def component(self) -> dict[str, Any]:
        """The OpenAPI component of this kind's data."""
        where = "the feed" if self.stream == "feed" else "a game's stream"
        props = {**self.properties, "notice": NOTICE_PROPERTY}
        return {
            "type": "object",
            "description": f"The data of an `event: {self.name}` frame of {where}: {self.description}",
            "properties": props,
            "required": [*self.required, "notice"],
        }


_kinds: dict[str, Kind] = {}


def register(name: str, *, stream: str, schema: str, description: str, properties: dict[str, Any],
             required: list[str] | tuple[str, ...] | None = None) -> Kind:
    """Declare the notice kind ``name`` (again: replaced).  ``required``: the properties
    always present (default: all of them)."""
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {STREAMS}")
    kind = Kind(name, stream, schema, description, dict(properties),
                tuple(properties if required is None else required))
    _kinds[name] = kind
    return kind


def registered(stream: str) -> list[Kind]:
    """The kinds of ``stream`` ("feed" or "game"), in the order they were registered."""
    return [k for k in _kinds.values() if k.stream == stream]
