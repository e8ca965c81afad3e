"""Typed errors raised by the rules engine.

Every error carries a machine ``code`` that the REST layer maps to an HTTP status;
raising one never leaves a half-applied state behind (validation happens before
any mutation).
"""

from __future__ import annotations


class EngineError(Exception):
    code = "engine_error"

    def __init__(self, detail: str, **extra):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidOptions(EngineError):
    """The preset, options or seat count cannot make a game."""

    code = "invalid_options"

    def __init__(self, option: str, detail: str):
        super().__init__(f"{option}: {detail}", option=option)
        self.option = option


class InvalidAction(EngineError):
    """The action object is malformed (missing field, wrong type, unknown type)."""

    code = "invalid"


class UnknownCard(EngineError):
    code = "unknown_card"


class NotYourCard(EngineError):
    code = "not_your_card"


class NotYourTurn(EngineError):
    code = "not_your_turn"


class GameOver(EngineError):
    code = "game_over"


class IllegalMove(EngineError):
    code = "illegal_move"
