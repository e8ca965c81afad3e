"""OpenAPI links (a drf-spectacular postprocessing hook): from a game that was just
created to everything that can be done with it, so that generated clients and
stateful testers (schemathesis) can follow a game's life: create, join, start,
read, act, read the moves and scores.

``games_leave`` is left out on purpose: the creator leaving a waiting game they are
alone in deletes it (204), which a stateful tester following the link would take
for a created resource that went missing."""

from __future__ import annotations

from typing import Any

#: operation ids that take the game's id as ``game_id``
GAME_OPERATIONS = (
    "games_retrieve",
    "games_join",
    "games_start",
    "games_actions",
    "games_moves",
    "games_scores",
)


def _operations(schema: dict) -> dict[str, dict]:
    return {
        op["operationId"]: op
        for path in schema.get("paths", {}).values()
        for op in path.values()
        if isinstance(op, dict) and "operationId" in op
    }


def game_links_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    operations = _operations(result)
    created = operations.get("games_create", {}).get("responses", {}).get("201")
    if created is None:
        return result
    created["links"] = {
        op_id: {
            "operationId": op_id,
            "parameters": {"game_id": "$response.body#/id"},
            "description": f"`{op_id}` on the game just created (its `id`).",
        }
        for op_id in GAME_OPERATIONS
        if op_id in operations
    }
    return result
