"""Verify a finished game from its public record alone (the fair-play check)::

    python -m games.engine.verify FILE      # or - : the JSON on standard input

While a game runs, its view carries ``shuffle_commitment``, the lowercase hex SHA-256
of the UTF-8 bytes of its ``seed``; the finished game reveals the seed.  Every random
event of a game derives from it (shuffle number ``k`` uses
``random.Random(f"{seed}:{k}")``, :mod:`.state`), and everything else from the
actions, so a finished game's public JSON is enough to deal it again and replay it
card by card.  This needs the engine only (the standard library: no Django, no
database, no network).

Input: one JSON object, the finished game as any viewer (a seat or a spectator) reads
it from the API::

    {"game": <GET /api/v1/games/{id}>,
     "moves": [<every item of "results" of GET /api/v1/games/{id}/moves, all pages
                (follow "next"), in order>]}

Of ``game`` it reads ``status`` (``finished``), ``seed``, ``shuffle_commitment``,
``ruleset``, ``requested_options`` (the options given at creation: the server dealt
from these), ``options`` (every option in force), ``players`` (one per seat), ``version``
and the table (``round``, ``winner``, ``winners``, ``current_seat``, ``dealer``,
``direction``, ``top_card``, ``current_color``, ``draw_pile_count``,
``discard_pile_count``, ``pending``, ``uno_catchable_seat``, ``deck``, and ``hand``
when the viewer has a seat); of each move ``seq``, ``round``, ``seat``, ``action``,
``events`` and ``by`` (``player``, ``bot`` or ``timer``).  Other fields are ignored.

Checked, in order, up to the first mismatch:

1. the input's shape (each field, as it is read, of the JSON type the API gives it):
   the moves numbered from 1, in order;
2. the game is finished, and ``sha256(seed) == shuffle_commitment``;
3. there are as many moves as the game's ``version``, the first ``{"type": "start"}``
   (the deal);
4. the game's config: the engine accepts ``ruleset`` with ``requested_options`` for as
   many seats as ``players`` lists, and resolves them to ``options`` (an option added to
   the engine since the game was played counting at its default);
5. the deal, from the seed, emits exactly move 1's events; then every later move, in
   the round the replay is in, is accepted by the engine for its seat (a ``timer``
   move as the server's own action, ``timeout`` or ``expire``: ``system=True``, as the
   server applied it) and emits exactly the move's events: every card dealt, drawn and
   played, private events with their audience (``private_to``) as the finished game
   shows them;
6. the replay is over after the last move, and the game's winners, every seat's score,
   hand count and status, and its table are the replay's.

Prints one line and exits 0 when the game verifies (``OK: ...``); otherwise prints
``MISMATCH: ...`` naming the first difference (the move's ``seq`` and what differs:
``stored`` is what the input says, ``replayed`` what the replay gives), or ``ERROR:
...`` when the input cannot be read as JSON, and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Mapping

from .config import shuffle_commitment
from .errors import EngineError
from .catalog import OPTIONS, make_config
from .game import apply, deck_of, new_game, public_event, view
from .state import FINISHED, State

#: the fields of the game's view that must equal the replay's final ``view``
TABLE_FIELDS = ("round", "current_seat", "dealer", "direction", "top_card", "current_color", "draw_pile_count",
                "discard_pile_count", "pending", "uno_catchable_seat")
#: each seat's fields that must equal the replay's (with the server's defaults)
SEAT_FIELDS = {"hand_count": None, "score": None, "team": None, "status": "active"}
BY = ("player", "bot", "timer")


class Mismatch(Exception):
    """The game does not verify: the message says where and what differs."""


def first_difference(stored: Any, replayed: Any, path: str = "") -> str | None:
    """Where two JSON-like values first differ (None if equal)."""
    if type(stored) is not type(replayed) and not (
        isinstance(stored, (int, float)) and isinstance(replayed, (int, float))
        and not isinstance(stored, bool) and not isinstance(replayed, bool)
    ):
        return f"{path or 'value'}: stored {stored!r}, replayed {replayed!r}"
    if isinstance(stored, dict):
        for key in list(stored) + [k for k in replayed if k not in stored]:
            if key not in replayed:
                return f"{path}.{key}: stored {stored[key]!r}, not in the replay"
            if key not in stored:
                return f"{path}.{key}: not stored, replayed {replayed[key]!r}"
            diff = first_difference(stored[key], replayed[key], f"{path}.{key}" if path else str(key))
            if diff:
                return diff
        return None
    if isinstance(stored, list):
        for i, (a, b) in enumerate(zip(stored, replayed)):
            diff = first_difference(a, b, f"{path}[{i}]")
            if diff:
                return diff
        if len(stored) != len(replayed):
            return f"{path}: stored {len(stored)} items, replayed {len(replayed)}"
        return None
    if stored != replayed:
        return f"{path or 'value'}: stored {stored!r}, replayed {replayed!r}"
    return None


def _expect(what: str, stored: Any, replayed: Any) -> None:
    """Raise :class:`Mismatch` unless ``stored`` equals ``replayed`` (JSON-wise: the
    replay's values are compared as they would be sent)."""
    diff = first_difference(stored, json.loads(json.dumps(replayed)), what)
    if diff:
        raise Mismatch(diff)


#: the JSON names of the types :func:`_field` is asked for
JSON_TYPES = {dict: "object", list: "array", str: "string", int: "integer"}


def _field(obj: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    """``obj[key]``, which must be a ``kind`` (one of JSON_TYPES; never a boolean)."""
    value = obj.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise Mismatch(f"{where}.{key}: missing from the input, or not of JSON type {JSON_TYPES[kind]}")
    return value


def options_as_played(stored: Mapping[str, Any], resolved: Mapping[str, Any]) -> dict[str, Any]:
    """A game's options in force as ``stored`` when it was created, completed with the
    default of each option of ``resolved`` (the engine's resolution of them today) that
    it lacks: an option added to the engine since, which the game was played without."""
    return {**{name: OPTIONS[name].default for name in resolved if name not in stored}, **stored}


def _moves(moves: list) -> list[dict]:
    """The moves, each checked to be shaped as the API sends it, numbered from 1."""
    for i, m in enumerate(moves, start=1):
        where = f"moves[{i - 1}]"
        if not isinstance(m, dict):
            raise Mismatch(f"{where}: not an object in the input")
        seq = _field(m, "seq", int, where)
        if seq != i:
            raise Mismatch(f"{where}.seq: {seq}, expected {i} (the moves must be every move, in order, from 1)")
        _field(m, "round", int, where)
        _field(m, "seat", int, where)
        _field(m, "action", dict, where)
        _field(m, "events", list, where)
        if m.get("by") not in BY:
            raise Mismatch(f"move {seq}: by {m.get('by')!r}, not one of {', '.join(BY)}")
    return moves


def verify(record: Any) -> str:
    """Check ``record`` (``{"game": ..., "moves": [...]}``, see the module docstring);
    raise :class:`Mismatch` at the first difference, return a one-line summary when
    the game verifies."""
    if not isinstance(record, dict):
        raise Mismatch('input: a JSON object {"game": ..., "moves": [...]} expected')
    game = _field(record, "game", dict, "input")
    moves = _moves(_field(record, "moves", list, "input"))
    if game.get("status") != "finished":
        raise Mismatch(f"game.status: {game.get('status')!r}: only a finished game reveals its seed")
    seed = _field(game, "seed", str, "game")
    commitment = _field(game, "shuffle_commitment", str, "game")
    if shuffle_commitment(seed) != commitment:
        raise Mismatch(f"shuffle_commitment: the game committed to {commitment!r}, "
                       f"but the SHA-256 of its seed is {shuffle_commitment(seed)!r}")
    version = _field(game, "version", int, "game")
    if len(moves) != version:
        raise Mismatch(f"moves: {len(moves)} given, the game is at version {version} (one move per version)")
    if not moves or moves[0]["action"] != {"type": "start"}:
        first = moves[0]["action"] if moves else None
        raise Mismatch(f"move 1: the deal ({{'type': 'start'}}) expected, stored {first!r}")

    ruleset = _field(game, "ruleset", str, "game")
    requested = _field(game, "requested_options", dict, "game")
    players = _field(game, "players", list, "game")
    try:
        config = make_config(ruleset, requested, len(players), seed)
    except EngineError as exc:
        raise Mismatch(f"config: the engine refuses {ruleset!r} with {requested!r} for {len(players)} seats: "
                       f"{exc}") from None
    resolved = dict(config.options)
    _expect("options", options_as_played(_field(game, "options", dict, "game"), resolved), resolved)

    events: list[dict] = []
    state = new_game(ruleset, requested, len(players), seed, events)
    _expect("move 1 (the deal): events", moves[0]["events"], [public_event(e) for e in events])
    for m in moves[1:]:
        where = f"move {m['seq']} ({m['action'].get('type')!r} by seat {m['seat']}, {m['by']})"
        if state.status == FINISHED:
            raise Mismatch(f"{where}: recorded after the end of the game (the replay ended at move {m['seq'] - 1})")
        if m["round"] != state.round:
            raise Mismatch(f"{where}: recorded in round {m['round']}, the replay is in round {state.round}")
        try:
            events = apply(state, m["seat"], m["action"], system=m["by"] == "timer")
        except EngineError as exc:
            raise Mismatch(f"{where}: refused by the engine on replay: {exc.code}: {exc}") from None
        _expect(f"{where}: events", m["events"], [public_event(e) for e in events])
    if state.status != FINISHED:
        raise Mismatch(f"the replay is not over after the last move ({len(moves)}): seat {state.actor()} owes a "
                       "decision")
    _check_end(game, players, state)
    return (f"OK: game {game.get('id')}: its seed matches shuffle_commitment; {len(moves)} moves replayed, "
            f"every deal, draw and card as recorded (round {state.round}, {state.shuffles} shuffles); "
            f"winners {sorted(state.winners)}, scores {state.scores}")


def _check_end(game: dict, players: list, state: State) -> None:
    """The finished game's result and table against the replay's final state."""
    v = view(state)
    _expect("game.winner.seat", _field(game, "winner", dict, "game").get("seat"), state.winner)
    _expect("game.winners (seats)", [w.get("seat") if isinstance(w, dict) else w
                                     for w in _field(game, "winners", list, "game")], sorted(state.winners))
    for i, p in enumerate(players):
        if not isinstance(p, dict) or p.get("seat") != i:
            raise Mismatch(f"game.players[{i}]: seat {i} expected in the input (one entry per seat, in order)")
        _expect(f"game.players[{i}]", {k: p.get(k, d) for k, d in SEAT_FIELDS.items()},
                {k: v["players"][i].get(k, d) for k, d in SEAT_FIELDS.items()})
    _expect("game", {k: game.get(k) for k in TABLE_FIELDS}, {k: v[k] for k in TABLE_FIELDS})
    _expect("game.deck", game.get("deck"), deck_of(state))
    seat = game.get("seat")
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        _expect("game.hand", game.get("hand"), view(state, seat)["hand"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.engine.verify",
        description="Verify a finished game from its public JSON: the seed against shuffle_commitment, and a "
        "replay of every move against what was recorded. Exit status 0: it verifies; 1: it does not.",
    )
    parser.add_argument("file", help='{"game": <GET /games/{id}>, "moves": [<every move, in order>]}; - for stdin')
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            record = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as f:
                record = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"ERROR: cannot read {args.file}: {exc}")
        return 1
    try:
        summary = verify(record)
    except Mismatch as exc:
        print(f"MISMATCH: {exc}")
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
