"""OpenAPI links (a drf-spectacular postprocessing hook): from a game that was just
created to everything that can be done with it, so that generated clients and
stateful testers (schemathesis) can follow a game's life: create, join, start,
read, act, read the moves and scores.

``games_leave`` is left out on purpose: the creator leaving a waiting game they are
alone in deletes it (204), which a stateful tester following the link would take
for a created resource that went missing."""

from __future__ import annotations

import json
from typing import Any

from games import engine
from notices import kinds

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


# --------------------------------------------------------------------------------------
# Actions: one typed variant per action type, generated from the engine's registry
# --------------------------------------------------------------------------------------
#: posted beside an action's own fields (games.views.ActionsView), never in legal_actions
EXPECTED_VERSION = {
    "type": "integer",
    "minimum": 0,
    "description": "Refuse with 409 `stale_version` unless the game is still at this version "
    "(posting only; `legal_actions` entries never carry it).",
}


def _variant_name(action_type: str) -> str:
    return "".join(part.capitalize() for part in action_type.split("_")) + "Action"


def action_variants() -> dict[str, dict]:
    """Component name -> schema of each player action type the engine registers (so an
    option that adds an action type is typed without touching the server)."""
    variants = {}
    for name, schema in engine.json_schemas().items():
        schema = {**schema, "properties": {**schema["properties"], "expected_version": EXPECTED_VERSION}}
        schema.pop("title", None)
        variants[_variant_name(name)] = schema
    return variants


def typed_actions_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """``Action`` becomes a ``oneOf`` of one typed variant per action type, with ``type``
    as its discriminator, and it is both the actions endpoint's body and the type of
    ``legal_actions`` items: an entry is posted verbatim (plus ``expected_version``)."""
    schemas = result.get("components", {}).get("schemas", {})
    if "Action" not in schemas:
        return result
    variants = action_variants()
    schemas.update(variants)
    refs = {name: f"#/components/schemas/{name}" for name in variants}
    schemas["Action"] = {
        "description": "One action: a `legal_actions` entry, posted verbatim (optionally with `expected_version`).",
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {
            "propertyName": "type",
            "mapping": {schema["properties"]["type"]["enum"][0]: refs[name] for name, schema in variants.items()},
        },
    }
    for path in result.get("paths", {}).values():
        for op in path.values():
            if not isinstance(op, dict):
                continue
            for content in op.get("requestBody", {}).get("content", {}).values():
                if content.get("schema") == {"$ref": "#/components/schemas/ActionRequest"}:
                    content["schema"] = {"$ref": "#/components/schemas/Action"}
    schemas.pop("ActionRequest", None)
    _type_recorded_actions(schemas, refs, variants)
    _type_pending(schemas)
    _unions_kept_whole(schemas)
    if not _references(result, "#/components/schemas/ActionTypeEnum"):
        schemas.pop("ActionTypeEnum", None)
    return result


#: what a move records beside the players' actions: the server's own (never posted)
RECORDED_ONLY = {
    "StartAction": ("start", "the game was started (by its creator): the deal"),
    "TimeoutAction": ("timeout", "the server acted for a seat whose deadline passed (RULES.md \"Time\")"),
    "MisplayAction": ("misplay", "a play out of turn that was no jump-in (`jump_in_misplay_points`), as the other "
                                 "players see it until the game is over: its card stays hidden in its player's hand"),
}


def _type_recorded_actions(schemas: dict, refs: dict[str, str], variants: dict[str, dict]) -> None:
    """``Move.action``: a player's action as posted (without ``expected_version``) or
    the server's ``start`` / ``timeout``."""
    move = schemas.get("Move", {}).get("properties", {})
    if "action" not in move:
        return
    mapping = {schema["properties"]["type"]["enum"][0]: refs[name] for name, schema in variants.items()}
    for name, (kind, doc) in RECORDED_ONLY.items():
        schemas[name] = {"type": "object", "description": doc, "properties": {"type": {"type": "string", "enum": [kind]}},
                         "required": ["type"], "additionalProperties": False}
        mapping[kind] = f"#/components/schemas/{name}"
    schemas["RecordedAction"] = {
        "description": "What a move recorded: a player's action, or the server's `start` or `timeout`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    move["action"] = {"$ref": "#/components/schemas/RecordedAction"}


def _type_pending(schemas: dict) -> None:
    """``pending``: a ``oneOf`` of one variant per decision type the engine shows
    (``Decision.public_schema``: the fields its ``public`` adds to ``type`` and ``seat``)."""
    if "Pending" not in schemas:
        return
    mapping = {}
    for name, decision in engine.DECISIONS.items():
        if not decision.shown:
            continue
        component = "".join(part.capitalize() for part in name.split("_")) + "Pending"
        schemas[component] = {
            "type": "object",
            "description": (decision.__doc__ or "").strip().split("\n\n")[0],
            "properties": {"type": {"type": "string", "enum": [name]},
                           "seat": {"type": "integer", "description": "the seat that owes it"},
                           **decision.public_schema},
            "required": ["type", "seat", *decision.public_schema],
            "additionalProperties": False,
        }
        mapping[name] = f"#/components/schemas/{component}"
    schemas["Pending"] = {
        "description": "What the game waits for, if anything special: one variant per decision type.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def _unions_kept_whole(schemas: dict) -> None:
    """A property that is a discriminated union (``Pending``...) as ``oneOf`` of its one
    ``$ref``, not drf-spectacular's ``allOf`` (its way of putting ``nullable`` or a
    description beside a ``$ref`` in OpenAPI 3.0): generators read an ``allOf`` as a
    subtype of the union and drop its discriminator (openapi-typescript made ``pending``
    an ``Omit<Pending, "type">``)."""
    unions = {f"#/components/schemas/{name}" for name, schema in schemas.items() if "discriminator" in schema}
    for schema in schemas.values():
        for name, prop in schema.get("properties", {}).items():
            wrapped = prop.get("allOf")
            if isinstance(wrapped, list) and len(wrapped) == 1 and wrapped[0].get("$ref") in unions:
                schema["properties"][name] = {"oneOf": wrapped, **{k: v for k, v in prop.items() if k != "allOf"}}


def _references(node: Any, ref: str) -> bool:
    if isinstance(node, dict):
        return node.get("$ref") == ref or any(_references(v, ref) for v in node.values())
    if isinstance(node, list):
        return any(_references(v, ref) for v in node)
    return False


# --------------------------------------------------------------------------------------
# Options: one typed property per option, generated from the engine's option specs
# --------------------------------------------------------------------------------------
#: (component, property) pairs that carry an options object
OPTION_PROPERTIES = (
    ("CreateGameRequest", "options"),
    ("CreateGame", "options"),
    ("Game", "options"),
    ("Game", "requested_options"),
)


def option_property(spec: engine.OptionSpec) -> dict:
    """An option's property: ``OptionSpec.json_schema`` (its values, default and doc)
    with the default said in the description, not as a ``default`` keyword: in a request
    an option left out takes the preset's value first, and a generated client would send
    every default (openapi-python-client does), overriding the preset's values and
    naming the options of other families, which the server refuses."""
    prop = spec.json_schema()
    default = prop.pop("default")
    return {**prop, "description": f"{prop['description']} (default: {json.dumps(default)}, unless the preset sets it)"}


def options_schema() -> dict:
    """The ``Options`` object: one property per option of the engine's catalogue
    (``option_property``), nothing else."""
    return {
        "type": "object",
        "description": "Rule options (RULES.md). In a request: the options set on top of the preset (an option "
        "left out takes the preset's value, else its default); in a game: the options in force.",
        "properties": {name: option_property(spec) for name, spec in engine.OPTIONS.items()},
        "additionalProperties": False,
    }


def typed_options_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """The create request's ``options`` and a game's ``options`` / ``requested_options``
    become the typed ``Options`` object (so an option a module adds is typed without
    touching the server)."""
    schemas = result.get("components", {}).get("schemas", {})
    found = [(c, p) for c, p in OPTION_PROPERTIES if p in schemas.get(c, {}).get("properties", {})]
    if not found:
        return result
    schemas["Options"] = options_schema()
    for component, prop in found:
        old = schemas[component]["properties"][prop]
        new: dict = {"allOf": [{"$ref": "#/components/schemas/Options"}]}
        if "description" in old:
            new["description"] = old["description"]
        schemas[component]["properties"][prop] = new
    return result


# --------------------------------------------------------------------------------------
# Events: one typed variant per event type, generated from the engine's registry
# --------------------------------------------------------------------------------------
#: (component, property) pairs that are lists of events
EVENT_LISTS = (("ActionResult", "events"), ("Move", "events"))


def _event_variant_name(event_type: str) -> str:
    return "".join(part.capitalize() for part in event_type.split("_")) + "Event"


def event_variants() -> dict[str, dict]:
    """Component name -> schema of each event type the engine registers
    (``games.engine.events``), as the API shows it (a private one with ``private_to``)."""
    variants = {}
    for name, kind in engine.EVENT_TYPES.items():
        schema = kind.json_schema("private_to")
        schema.pop("title", None)
        variants[_event_variant_name(name)] = schema
    return variants


def typed_events_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """``Event`` becomes a ``oneOf`` of one typed variant per event type, with ``type``
    as its discriminator: the items of the actions response's ``events`` and of each
    move's ``events``."""
    schemas = result.get("components", {}).get("schemas", {})
    found = [(c, p) for c, p in EVENT_LISTS if p in schemas.get(c, {}).get("properties", {})]
    if not found:
        return result
    variants = event_variants()
    schemas.update(variants)
    refs = {schema["properties"]["type"]["enum"][0]: f"#/components/schemas/{name}" for name, schema in variants.items()}
    schemas["Event"] = {
        "description": "One event: what an action caused, as the caller may see it (a private event, with "
        "`private_to`, only by those seats until the game is finished).",
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "type", "mapping": refs},
    }
    for component, prop in found:
        schemas[component]["properties"][prop]["items"] = {"$ref": "#/components/schemas/Event"}
    return result


# --------------------------------------------------------------------------------------
# Live events (games.streams): plain async views, which drf-spectacular does not see
# --------------------------------------------------------------------------------------
STREAM_DESCRIPTION = """\
Server-Sent Events (`text/event-stream`), as they commit, from any process (web requests, bots and
timers on the workers): a client needs no polling. Frames:

- each recorded move: an unnamed event (`onmessage`), `id:` the move's `seq`, `data:` one line of
  JSON, a `GameStreamMove`: the move exactly as `/moves` shows it to this viewer (the same
  redaction: no other hand, no deck order, until the game is finished), its `version` (the game's
  version after it) and, on the newest move of each delivery, `game`: the viewer's whole game as
  `GET /games/{id}` shows it;
- `event: game` (no `id`): the game changed without a move (a seat taken or left, a seat handed
  to the autopilot): data a `GameStreamChange`;
- `event: <kind>` (no `id`): what happens at the table beside the moves (table talk, rematch
  offers...), each kind's data its own component (its `notice` id included); the players' channel
  goes to the seated players, the spectators' channel to the other viewers, both to everyone once
  the game is finished. Missed ones are not replayed by `Last-Event-ID`: their own endpoints list
  them;
- `: keepalive` comment lines while idle (every `LIVE_HEARTBEAT_SECONDS`, 15), and `retry: 3000`.

Resuming: `Last-Event-ID` (sent by `EventSource` when it reconnects) or `after`: every move after
that `seq`, then the live ones. Without either the stream starts with the next move: read the game
(version V) and open `events?after=V` to miss nothing. A client that reads too slowly is
disconnected and resumes the same way. Authentication: `Authorization: Token <key>`, or
`?token=<key>` for browsers' `EventSource`, which cannot send headers (access logs show
`token=***`). Anyone signed in may watch (spectators see no hand)."""

FEED_DESCRIPTION = """\
The caller's own feed, Server-Sent Events of every game they are seated in, so that an app needs one
connection: `event: your_turn` (a decision is now owed: `decision`, `deadline`; on connecting, one
for every decision owed right now; a decision already answered by the time the server looks, as
when the player acted within the same moment, gets none), `event: game_started`,
`event: game_finished` (`winner_seat`), `event: joined` (someone took a seat in a waiting game of the caller's); data a `FeedEvent`
of the event's own variant (`FeedYourTurn`, `FeedGameStarted`, `FeedGameFinished`, `FeedJoined`).
The meeting layer adds its own events (challenges, quick-play matches, rematch offers: their `FeedEvent`
variants below), without an `id`; missed ones are not replayed, their own endpoints list them.
`: keepalive` comments while idle. Authentication as for a game's stream (`?token=` allowed)."""


def _stream_operation(op_id: str, summary: str, description: str, params: list[dict], errors: dict,
                      events: dict) -> dict:
    return {
        "operationId": op_id,
        "summary": summary,
        "description": description,
        "tags": ["games"],
        "security": [{"tokenAuth": []}],
        "parameters": params + [{
            "in": "query", "name": "token", "schema": {"type": "string"},
            "description": "The API key, for clients that cannot send `Authorization` (browsers' `EventSource`).",
        }],
        "responses": {
            "200": {
                "description": "The stream (open until the client closes it). Its schema is one event's, as a "
                "Server-Sent Events parser reads it (`event`, `id`, `retry`, `data`); each event's `data` is one "
                "line of JSON, of the schema named in its `x-contentSchema`.",
                "content": {"text/event-stream": {"schema": events}},
            },
            **errors,
            "405": {
                "description": "`method_not_allowed`: a stream is read with `GET` only (`Allow: GET`).",
                "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            },
        },
    }


PROBLEM = "application/problem+json"

#: the ``id`` of a game stream's events: a move's ``seq`` (``Last-Event-ID`` resumes after it)
MOVE_ID = {"pattern": r"^[0-9]+$", "description": "The move's `seq` (an `event: game` frame has none of its own)."}
#: the ``id`` of the feed's events: ``your_turn``'s ``<game>.<version>`` (the others have none)
FEED_ID = {"pattern": r"^[0-9]+\.[0-9]+$",
           "description": "`your_turn`: `<game>.<version>`, the decision's game and version (the other events have "
           "none of their own)."}
_SEAT = {"type": "integer", "minimum": 0}
#: the feed's events: SSE ``event`` -> (its data's component, what it says, its fields
#: besides ``game`` and ``version``), as games.live sends them
FEED_EVENTS = {
    "your_turn": ("FeedYourTurn", "the caller's seat now owes a decision (on connecting: one for each decision it "
                  "owes right now).", {
                      "seat": {**_SEAT, "description": "The caller's seat."},
                      "decision": {"allOf": [{"$ref": "#/components/schemas/DecisionEnum"}],
                                   "description": "What it owes: `turn`, or the type of the game's `pending` or of a "
                                   "window (as the game's `obligations` list it)."},
                      "deadline": {"type": "string", "format": "date-time", "nullable": True,
                                   "description": "When the server acts for the seat (null: never by itself)."},
                  }),
    "game_started": ("FeedGameStarted", "the game started.", {
        "seat": {**_SEAT, "nullable": True, "description": "The caller's seat."},
    }),
    "game_finished": ("FeedGameFinished", "the game is over.", {
        "seat": {**_SEAT, "nullable": True, "description": "The caller's seat."},
        "winner_seat": {**_SEAT, "nullable": True, "description": "The winner's seat (`Game.winner`)."},
    }),
    "joined": ("FeedJoined", "someone else took a seat in a waiting game of the caller's.", {
        "seat": {**_SEAT, "description": "The newcomer's seat."},
        "username": {"type": "string", "description": "The newcomer's username."},
    }),
}


def sse_event(names: list[str], data: str, event_id: dict) -> dict:
    """One Server-Sent Event as parsed (what schemathesis checks each event against): its
    ``event`` one of ``names``, its ``id`` of schema ``event_id`` (a parser gives an event
    sent without one the last one received), its ``data`` a line of JSON of schema
    ``data``."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "enum": names},
            "id": {"type": "string", **event_id},
            "retry": {"type": "integer"},
            "data": {"type": "string", "description": f"JSON: a `{data}`.",
                     "x-contentMediaType": "application/json",
                     "x-contentSchema": {"$ref": f"#/components/schemas/{data}"}},
        },
    }


def live_events_hook(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """Document the event streams (``GET /games/{id}/events``, ``GET /players/me/events``)
    and their data, with the problems of ``/moves`` (the same parameters go wrong the
    same ways)."""
    operations = _operations(result)
    moves = operations.get("games_moves")
    if moves is None:
        return result
    errors = {code: json.loads(json.dumps(answer)) for code, answer in moves["responses"].items() if code != "200"}
    errors["400"]["description"] = "`invalid` (with `fields`): `after` or `Last-Event-ID` not a non-negative integer."
    if "429" in errors:
        errors["429"]["description"] = (
            "`too_many_streams` (and its `limit`): the caller already holds that many streams, game streams "
            "and feeds together (`LIVE_MAX_STREAMS_PER_PLAYER`, 20 by default: across every web process of a "
            "server running with Redis, else on this web process); or "
            "`throttled`. Retry after `Retry-After` seconds, or close a stream first.")
    game_id = next(p for p in moves["parameters"] if p["name"] == "game_id")
    result["paths"]["/api/v1/games/{game_id}/events"] = {"get": _stream_operation(
        "games_events", "The game's moves as they commit (Server-Sent Events)", STREAM_DESCRIPTION,
        [
            game_id,
            {"in": "query", "name": "after", "schema": {"type": "integer", "minimum": 0},
             "description": "Resume: every move with a greater `seq` first (as `Last-Event-ID`)."},
            {"in": "header", "name": "Last-Event-ID", "schema": {"type": "string"},
             "description": "The `id` of the last event received (a move's `seq`): resume after it."},
        ],
        errors,
        {"oneOf": [sse_event(["message"], "GameStreamMove", MOVE_ID), sse_event(["game"], "GameStreamChange", MOVE_ID),
                   *(sse_event([k.name], k.schema, MOVE_ID) for k in kinds.registered("game"))]},
    )}
    feed_errors = {code: answer for code, answer in errors.items() if code not in ("400", "404")}
    result["paths"]["/api/v1/players/me/events"] = {"get": _stream_operation(
        "players_events", "The caller's feed: your turn, started, finished, joined (Server-Sent Events)",
        FEED_DESCRIPTION, [], feed_errors,
        {"oneOf": [*(sse_event([name], component, FEED_ID) for name, (component, _, _) in FEED_EVENTS.items()),
                   *(sse_event([k.name], k.schema, FEED_ID) for k in kinds.registered("feed"))]},
    )}
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    version = {"type": "integer", "minimum": 0, "description": "The game's version after the change."}
    game_ref = {"$ref": "#/components/schemas/Game"}
    schemas["GameStreamMove"] = {
        "description": "The data of a move's event on a game's stream.",
        "allOf": [
            {"$ref": "#/components/schemas/Move"},
            {"type": "object", "properties": {
                "version": version,
                "game": {**game_ref, "description": "On the newest move of a delivery: the viewer's game."},
            }, "required": ["version"]},
        ],
    }
    schemas["GameStreamChange"] = {
        "type": "object",
        "description": "The data of an `event: game` frame: the game changed without a move.",
        "properties": {"seq": {"type": "integer", "description": "The last move's `seq` (the version)."},
                       "version": version, "game": game_ref},
        "required": ["seq", "version", "game"],
    }
    for name, (component, doc, fields) in FEED_EVENTS.items():
        props = {"game": {"type": "integer", "description": "The game's id."}, "version": version, **fields}
        schemas[component] = {"type": "object", "description": f"The data of an `event: {name}` frame of the feed: {doc}",
                              "properties": props, "required": list(props), "additionalProperties": False}
    feed_kinds = kinds.registered("feed")
    for kind in [*feed_kinds, *kinds.registered("game")]:
        schemas[kind.schema] = kind.component()
    variants = [f"`{name}`: `{component}`" for name, (component, _, _) in FEED_EVENTS.items()]
    variants += [f"`{k.name}`: `{k.schema}`" for k in feed_kinds]
    schemas["FeedEvent"] = {
        "description": f"The data of a feed event: the variant of its SSE `event:` ({', '.join(variants)}).",
        "oneOf": [{"$ref": f"#/components/schemas/{component}"} for component, _, _ in FEED_EVENTS.values()]
        + [{"$ref": f"#/components/schemas/{k.schema}"} for k in feed_kinds],
    }
    return result
