"""A pure-Python rules engine for UNO and its variants and for Decktet-Uno (no Django).

    state = new_game("standard", {"stacking": "same"}, seats=2, seed=42)
    seat = state.actor()
    actions = legal_actions(state, seat)      # ready-to-post dicts
    events = apply(state, seat, actions[0])   # validates, mutates, returns events
    view(state, seat)                          # what that seat may see

    moves = legal_moves(state, seat)           # the fast path (bots, replay): Action values
    push(state, seat, moves[0])                # unchecked; no event built
    trial = state.copy()                       # cheap deep copy to try a move on

The state is plain data (:class:`State`), JSON-serialisable with ``to_dict`` /
``State.from_dict`` (which also reads the snapshots of the engine before issue 9); a
game replays exactly from its config and its actions.  Its architecture (families,
phases, the decision stack, windows, rule modules) is in the README's "Rules engine"
section.  Pure Python, one build: its speed comes from its data layout (integer card
ids, memoised playability and move tables, tuples as moves).
"""

from .actions import ACTION_FIELDS, ACTION_TYPES, SYSTEM_ACTIONS, Action, ActionType, action_key, json_schemas
from .cards import COLORS, Card, Deck, get_deck
from .catalog import FAMILIES, OPTIONS, PRESETS, build_rules, make_config, resolve_options
from .decktet.cards import SUITS
from .decktet.family import POINTS as DECKTET_POINTS
from .rules import DECISIONS, Decision, Family, Module, Rules, StoredWindow, Window
from .config import Config, OptionSpec, Preset, shuffle_commitment
from .events import EVENT_TYPES, EventType
from .errors import (
    EngineError,
    GameOver,
    IllegalMove,
    InvalidAction,
    InvalidOptions,
    NotYourCard,
    NotYourTurn,
    UnknownCard,
)
from .game import (
    apply,
    deadline_seconds,
    deck_of,
    lasting_teams,
    window_instance,
    legal_actions,
    legal_moves,
    new_game,
    owed,
    public_event,
    public_pending,
    push,
    replay,
    standings,
    view,
    visible_events,
)
from .observation import observe, redeal_hidden, unseen_cards
from .uno.hand_moves import rotated, shuffle_deal
from .state import ACTIVE, FINISHED, GAME_OVER, PLAY, ROUND_OVER, SETUP, State

__all__ = [
    "ACTION_FIELDS", "ACTION_TYPES", "ACTIVE", "COLORS", "DECISIONS", "FAMILIES", "FINISHED", "GAME_OVER",
    "OPTIONS", "PLAY", "PRESETS", "ROUND_OVER", "SETUP", "SYSTEM_ACTIONS", "Action", "ActionType", "Card",
    "Config", "DECKTET_POINTS", "Deck", "Decision", "EVENT_TYPES", "EventType", "Family", "Module", "Rules", "EngineError", "GameOver", "IllegalMove", "InvalidAction", "InvalidOptions",
    "NotYourCard", "NotYourTurn", "OptionSpec", "Preset", "SUITS", "State", "StoredWindow", "UnknownCard", "Window", "action_key",
    "apply", "build_rules", "deadline_seconds", "deck_of", "lasting_teams", "window_instance", "get_deck", "json_schemas", "legal_actions", "legal_moves", "make_config",
    "new_game", "observe", "owed", "public_event", "public_pending", "push", "redeal_hidden", "replay", "resolve_options",
    "rotated", "shuffle_commitment", "shuffle_deal", "standings", "unseen_cards", "view", "visible_events",
]
