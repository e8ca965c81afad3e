"""The Wild Draw Four: its effect, its colour rule and the challenge (option
``wild_draw_four``).

``official``: a Wild Draw Four may only be played by a player holding no card of the
colour in force.  The server lets a player bluff; the next player may ``challenge``:
the challenged hand is shown to the challenger only; guilty, the player who played it
draws the penalty instead and the challenger plays on; innocent, the challenger draws
the penalty plus 2 (4 + 2 = 6 unstacked) and, with ``penalty_skips_turn``, loses the
turn.  With stacking, the whole pending amount moves.

``bluff`` (seed 001): a Wild Draw Four is meant only when no other card can be played
at all.  It is challenged in the same way; the guilt test is wider (the player held any
other card the matching rule admitted on the card it covered, a Wild included; another
Wild Draw Four does not count: playing it would be the same bluff), and a guilty
bluffer draws the penalty plus 2 ("the bluffer himself has to draw the cards plus 2
more"), as an innocent player's accuser does.  Decisions where seed 001 is silent: the
matching rule is that of the card the Wild Draw Four covered (also when it was stacked
on a +2/+4: seed 001 says stacking and the bluff go together and no more); a challenger
who wins plays on (as in ``official``).

``free`` (seed 002, ``play_uno_com``): playable on anything, never challenged (the
``challenge`` action is refused with a message that says so).

The guilt tests are written here once: settled when the card is played, kept in the
:class:`~.turn.Penalty`, and used again by observations (``Rules.guilt``, called as
``guilt(rules, hand, prev_color, prev_rank)``).
"""

from __future__ import annotations

from typing import Any, Callable

from ..actions import ActionType, register
from ..cards import DRAW_VALUE
from ..config import OptionSpec, choice
from ..core import end_turn
from ..rules import Challenge, Module, Play, Rules
from ..state import State
from .piles import draw
from .turn import Penalty

Events = Any  # list[dict] | None

CHALLENGE = register(ActionType("challenge", refusal="there is no Wild Draw Four to challenge",
                                doc="challenge the Wild Draw Four you must answer"))
EXTRA_FOR_WRONG_CHALLENGE = 2
#: what a guilty bluffer draws beyond the penalty (``bluff``; ``official``: nothing more)
EXTRA_FOR_BLUFFER = 2
MODES = ("official", "bluff", "free")
WILD_DRAW_FOUR = "wild_draw_four"
#: why ``challenge`` is refused under ``free`` (``Penalty.explain``)
NOT_CHALLENGEABLE = "with wild_draw_four: free a Wild Draw Four cannot be challenged: draw the penalty"


def guilty(rules: Rules, hand: list[int], prev_color: str | None, prev_rank: str | None = None) -> bool:
    """``official``: whether a Wild Draw Four was played by a player holding a card of
    the colour in force before it (``hand``: the player's cards after playing it)."""
    color = rules.deck.color
    return any(color[c] == prev_color for c in hand)


def bluffed(rules: Rules, hand: list[int], prev_color: str | None, prev_rank: str | None = None) -> bool:
    """``bluff``: whether the player could have played another card than the Wild Draw
    Four: a card of ``hand`` (after playing it) that the matching rule admits on the card
    it covered (``prev_rank``, with ``prev_color`` in force), other than a Wild Draw Four."""
    ok = rules.playable_on(prev_color, prev_rank)  # type: ignore[arg-type]
    rank = rules.deck.rank
    return any(c in ok and rank[c] != WILD_DRAW_FOUR for c in hand)


def wild_draw_four(state: State, rules: Rules, play: Play, ev: Events) -> int:
    guilt = rules.guilt
    prev_rank = rules.deck.rank[state.discard[-2]] if guilt is bluffed else None  # the card it covered
    state.stack.append(Penalty(
        state.next_seat(play.seat),
        DRAW_VALUE[WILD_DRAW_FOUR] + play.stack,
        WILD_DRAW_FOUR,
        play.seat,
        challengeable=rules.challenge is not None,
        guilty=guilt(rules, state.hands[play.seat], play.prev_color, prev_rank) if guilt is not None else None,
        prev_color=play.prev_color,
        prev_rank=prev_rank,
    ))
    return 1


def challenge_with(bluffer_extra: int) -> Challenge:
    """The challenge of a Wild Draw Four whose guilty player draws the penalty plus
    ``bluffer_extra`` (0 ``official``, 2 ``bluff``)."""

    def challenge(state: State, rules: Rules, seat: int, ev: Events) -> None:
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
            draw(state, rules, offender, amount + bluffer_extra, ev, reason="challenge_lost")
            return  # the challenger did not draw: its turn goes on
        draw(state, rules, seat, amount + EXTRA_FOR_WRONG_CHALLENGE, ev, reason="challenge_lost")
        if rules.opts["penalty_skips_turn"] and seat == state.current:  # (a +4? victim may not be in turn)
            end_turn(state, 1)

    return challenge


challenge_official = challenge_with(0)
challenge_bluff = challenge_with(EXTRA_FOR_BLUFFER)
#: each mode's guilt test and challenge (``free``: none)
RULINGS: dict[str, tuple[Callable | None, Challenge | None]] = {
    "official": (guilty, challenge_official),
    "bluff": (bluffed, challenge_bluff),
    "free": (None, None),
}


class WildDrawFour(Module):
    name = "wild_draw_four"
    options = (OptionSpec("wild_draw_four", "official", choice(*MODES),
                          "Wild Draw Four rule: official (colour rule + challenge), bluff (only when nothing else "
                          "can be played; a guilty bluffer or a wrong accuser draws 4 + 2), free (on anything, no "
                          "challenge)"),)

    def install(self, rules: Rules) -> None:
        rules.effects[WILD_DRAW_FOUR] = wild_draw_four
        rules.guilt, rules.challenge = RULINGS[rules.opts["wild_draw_four"]]
