"""The Wild Draw Four: its effect, its colour rule and the challenge (option
``wild_draw_four``).

``official``: a Wild Draw Four may only be played by a player holding no card of the
colour in force.  The server lets a player bluff; the next player may ``challenge``:
the challenged hand is shown to the challenger only; guilty, the player who played it
draws the penalty instead and the challenger plays on; innocent, the challenger draws
the penalty plus 2 (4 + 2 = 6 unstacked) and, with ``penalty_skips_turn``, loses the
turn.  With stacking, the whole pending amount moves.

The guilt test (:func:`guilty`) is written here once: settled when the card is played,
kept in the :class:`~.turn.Penalty`, and used again by observations (``Rules.guilt``).
"""

from __future__ import annotations

from typing import Any

from ..actions import ActionType, register
from ..cards import DRAW_VALUE, Deck
from ..config import OptionSpec, choice
from ..core import end_turn
from ..rules import Module, Play, Rules
from ..state import State
from .piles import draw
from .turn import Penalty

Events = Any  # list[dict] | None

CHALLENGE = register(ActionType("challenge", refusal="there is no Wild Draw Four to challenge",
                                doc="challenge the Wild Draw Four you must answer"))
EXTRA_FOR_WRONG_CHALLENGE = 2


def guilty(deck: Deck, hand: list[int], prev_color: str | None) -> bool:
    """Whether a Wild Draw Four was played by a player holding a card of the colour in
    force before it (``hand``: the player's cards after playing it)."""
    color = deck.color
    return any(color[c] == prev_color for c in hand)


def wild_draw_four(state: State, rules: Rules, play: Play, ev: Events) -> int:
    state.stack.append(Penalty(
        state.next_seat(play.seat),
        DRAW_VALUE["wild_draw_four"] + play.stack,
        "wild_draw_four",
        play.seat,
        challengeable=rules.challenge is not None,
        guilty=guilty(rules.deck, state.hands[play.seat], play.prev_color),
        prev_color=play.prev_color,
    ))
    return 1


def challenge_official(state: State, rules: Rules, seat: int, ev: Events) -> None:
    rules.close(state, seat, "challenge")
    p = state.stack[-1]
    assert isinstance(p, Penalty) and p.by is not None
    offender, amount = p.by, p.amount
    if ev is not None:
        ev.append({"type": "challenge", "seat": seat, "target_seat": offender, "guilty": p.guilty})
        ev.append({"type": "hand_revealed", "seat": offender,
                   "cards": [rules.deck.dicts[c] for c in state.hands[offender]], "to": [seat]})
    state.stack.pop()
    if p.guilty:
        draw(state, rules, offender, amount, ev, reason="challenge_lost")
        return  # the challenger did not draw: its turn goes on
    draw(state, rules, seat, amount + EXTRA_FOR_WRONG_CHALLENGE, ev, reason="challenge_lost")
    if rules.opts["penalty_skips_turn"]:
        end_turn(state, 1)


class WildDrawFour(Module):
    name = "wild_draw_four"
    options = (OptionSpec("wild_draw_four", "official", choice("official"), "Wild Draw Four rule",
                          planned=("bluff", "free")),)

    def install(self, rules: Rules) -> None:
        rules.effects["wild_draw_four"] = wild_draw_four
        rules.guilt = guilty
        if rules.opts["wild_draw_four"] == "official":
            rules.challenge = challenge_official
