"""Wild Draw Four's colour rule and the challenge (option ``wild_draw_four``).

``official``: a Wild Draw Four may only be played by a player holding no card of
the colour in force.  The server lets a player bluff; the next player may
``challenge``: the challenged hand is shown to the challenger only; guilty, the
player who played it draws the penalty instead and the challenger plays on;
innocent, the challenger draws the penalty plus 2 (4 + 2 = 6 unstacked).
"""

from __future__ import annotations

from ..core import advance, draw
from . import Events, Rules, State

EXTRA_FOR_WRONG_CHALLENGE = 2


def challenge_official(state: State, rules: Rules, seat: int, ev: Events) -> None:
    p = state.pending
    assert p is not None
    offender, amount = p["by"], p["amount"]
    ev.append({"type": "challenge", "seat": seat, "target_seat": offender, "guilty": p["guilty"]})
    ev.append(
        {
            "type": "hand_revealed",
            "seat": offender,
            "cards": [rules.deck.dicts[c] for c in state.hands[offender]],
            "to": [seat],
        }
    )
    if p["guilty"]:
        draw(state, rules, offender, amount, ev, reason="challenge_lost")
        state.pending = None  # the challenger did not draw: its turn goes on
        return
    draw(state, rules, seat, amount + EXTRA_FOR_WRONG_CHALLENGE, ev, reason="challenge_lost")
    if rules.opt("penalty_skips_turn"):
        advance(state)
    else:
        state.pending = None


def install(rules: Rules) -> None:
    if rules.opt("wild_draw_four") == "official":
        rules.challenge = challenge_official
