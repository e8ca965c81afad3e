"""A pure-Python UNO rules engine (no Django).

    state = new_game("standard", {"stacking": "same"}, seats=2, seed=42)
    seat = state.actor()
    actions = legal_actions(state, seat)      # ready-to-post dicts
    events = apply(state, seat, actions[0])   # validates, mutates, returns events
    view(state, seat)                          # what that seat may see

The state is plain data (:class:`State`), JSON-serialisable with ``to_dict`` /
``State.from_dict``; a game replays exactly from its config and its actions.

Pure Python, one build: its speed comes from its data layout (integer card ids, memoised
playability tables, an uncopied legal-action table for bots).
"""

from .cards import COLORS, Card, Deck, get_deck
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
    ACTION_FIELDS,
    action_key,
    apply,
    legal_actions,
    new_game,
    public_pending,
    replay,
    view,
    visible_events,
)
from .options import OPTIONS, PRESETS, Config, make_config, resolve_options
from .rules import build_rules
from .state import ACTIVE, FINISHED, State

__all__ = [
    "ACTION_FIELDS", "ACTIVE", "COLORS", "FINISHED", "OPTIONS", "PRESETS", "Card", "Config", "Deck",
    "EngineError", "GameOver", "IllegalMove", "InvalidAction", "InvalidOptions", "NotYourCard",
    "NotYourTurn", "State", "UnknownCard", "action_key", "apply", "build_rules", "get_deck",
    "legal_actions", "make_config", "new_game", "public_pending", "replay", "resolve_options",
    "view", "visible_events",
]
