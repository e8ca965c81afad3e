"""A pure-Python UNO rules engine (no Django).

    state = new_game("standard", {"stacking": "same"}, seats=2, seed=42)
    seat = state.actor()
    actions = legal_actions(state, seat)      # ready-to-post dicts
    events = apply(state, seat, actions[0])   # validates, mutates, returns events
    view(state, seat)                          # what that seat may see

The state is plain data (:class:`State`), JSON-serialisable with ``to_dict`` /
``State.from_dict``; a game replays exactly from its config and its actions.

The engine's modules are compiled with mypyc when the project is installed (setup.py), unless
``UNO_PURE_PYTHON=1``; ``COMPILED`` and ``ENGINE_BUILD`` say which build runs. This file and
``_build.py`` stay Python: ``_build.select`` runs first and falls back to the ``.py`` sources,
with a warning, when the compiled modules are stale (see ``_build.py``).
"""

from pathlib import Path as _Path

from . import _build

#: True when the mypyc-compiled modules run; ENGINE_BUILD says which build, and why
COMPILED, ENGINE_BUILD = _build.select(__name__, _Path(__file__).resolve().parent)

from .cards import COLORS, Card, Deck, get_deck  # noqa: E402
from .errors import (  # noqa: E402
    EngineError,
    GameOver,
    IllegalMove,
    InvalidAction,
    InvalidOptions,
    NotYourCard,
    NotYourTurn,
    UnknownCard,
)
from .game import (  # noqa: E402
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
from .options import OPTIONS, PRESETS, Config, make_config, resolve_options  # noqa: E402
from .rules import build_rules  # noqa: E402
from .state import ACTIVE, FINISHED, State  # noqa: E402

__all__ = [
    "ACTION_FIELDS", "ACTIVE", "COLORS", "COMPILED", "ENGINE_BUILD", "FINISHED", "OPTIONS", "PRESETS", "Card", "Config", "Deck",
    "EngineError", "GameOver", "IllegalMove", "InvalidAction", "InvalidOptions", "NotYourCard",
    "NotYourTurn", "State", "UnknownCard", "action_key", "apply", "build_rules", "get_deck",
    "legal_actions", "make_config", "new_game", "public_pending", "replay", "resolve_options",
    "view", "visible_events",
]
