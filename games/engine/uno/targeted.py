"""Option ``targeted_draw_cards`` (seed 004 "+2?" / "+4?"): a +2 and a +4 whose player
chooses the victim.

RULES.md: "one +2? per colour and two +4? (wild): as +2 and +4 but the player chooses
the victim (`target_seat`)."  Seed 004: "the same effect as charts "+2" and "+4" normals
but which can be indifferently given to any player."

The cards are ``{"id", "color", "rank": "targeted_draw_two"}`` (one per colour, 20
points) and ``{"id", "color": null, "rank": "targeted_wild_draw_four"}`` (two, 50
points): deck part ``targeted_draw_cards``, 6 cards.  A play names the victim
(``target_seat``: any other seat still in the game; a +4? also names a colour), the last
card too, since a last +2? still makes its victim draw.

The victim owes the penalty: the turn's :class:`~.turn.Penalty` decision (``pending``
``{"type": "penalty", "seat": <victim>, "amount", "kind": "targeted_draw_two" |
"targeted_wild_draw_four", "challengeable"}``), owed by a seat that need not be the next
one: who decides (the victim) and where play resumes (``State.current``) are separate.

Decisions where the sources are silent, as this module plays them:

- Play passes on from the player as after a +2: to the next player.  Aimed at the next
  player, a +2?/+4? is exactly a +2/+4 (the victim draws and, with
  ``penalty_skips_turn``, loses the turn).  Aimed at another seat, the victim draws at
  once (a decision it owes now) and loses nothing more; then the next player plays.
- The +4? obeys the Wild Draw Four's rules: the colour rule and its ``challenge`` (by
  the victim, whoever it is: the challenged hand is shown to the victim only), and
  whatever ``wild_draw_four`` says (the effect is the Wild Draw Four's, retargeted).
- Stacking: for the ``stacking`` tables a +2? is a +2 and a +4? a +4, both ways (a +2?
  may answer a +2 and name the next victim of the sum; a +2 may answer a +2?).  Only a
  victim in turn answers by stacking: a victim that is not the next player may draw,
  challenge a +4?, or send it back with a Renvoi, but not play on (it is not its turn).
- ``deflect_cards``: the victim may send a +2?/+4? back to its player with a Renvoi,
  as a +2/+4 (the player then draws; play stays with the seat in turn).
- Jump-in: a +2? is jumped in like any coloured card (``super``: on a +2? of another
  colour; there is one per colour, so never ``exact``), naming its own victim; it
  cancels the pending penalty beneath it.  A +4? is never jumped in (a wild).
- Turned up first, a +2? is a Draw Two nobody played (the first player draws 2 and
  loses the turn) and a +4? is put back like a Wild Draw Four.
- A play naming its own player, a seat out of the game or no seat is refused (HTTP 409
  ``illegal_move``, field ``target_seat``).  The target is part of the play: no
  decision ever waits for one, so the timer (which never plays a card for a seat)
  never names one; it accepts a pending penalty for its victim.
"""

from __future__ import annotations

from typing import Any

from ..cards import COLORS, PARTS, Card, uno_card
from ..config import OptionSpec, boolean
from ..rules import Module, Play, Rules
from ..state import State
from .piles import draw
from .standard import first_draw_two
from .turn import Penalty

Events = Any  # list[dict] | None

#: the ranks, the standard rank each one acts as, and what its victim draws
DRAW_TWO, DRAW_FOUR = "targeted_draw_two", "targeted_wild_draw_four"
ACTS_AS = {DRAW_TWO: "draw_two", DRAW_FOUR: "wild_draw_four"}
AS_TARGETED = {v: k for k, v in ACTS_AS.items()}
AMOUNT = {DRAW_TWO: 2, DRAW_FOUR: 4}
PART = "targeted_draw_cards"
POINTS = {DRAW_TWO: 20, DRAW_FOUR: 50}


def targeted_draw_cards(start: int) -> list[Card]:
    """RULES.md: one +2? per colour and two +4? (wild); 20 and 50 points as +2 and +4."""
    cards = [uno_card(start + i, color, DRAW_TWO, points=POINTS[DRAW_TWO]) for i, color in enumerate(COLORS)]
    n = len(cards)
    cards += [uno_card(start + n + i, None, DRAW_FOUR, points=POINTS[DRAW_FOUR]) for i in range(2)]
    return cards


PARTS[PART] = targeted_draw_cards


# -- the plays: a victim (and a colour for the +4?) ---------------------------------------------
def draw_two_params(rules: Rules, seat: int, card: int, hand_size: int) -> tuple[dict, ...]:
    return tuple({"target_seat": t} for t in range(rules.seats) if t != seat)


def draw_four_params(rules: Rules, seat: int, card: int, hand_size: int) -> tuple[dict, ...]:
    return tuple({"color": c, "target_seat": t} for c in COLORS for t in range(rules.seats) if t != seat)


def target_refusal(state: State, rules: Rules, seat: int, card: int, target: int) -> str | None:
    """Why a targeted card's play may not name ``target`` (``Rules.target_refusal``)."""
    if rules.deck.rank[card] not in ACTS_AS:
        return None
    if target == seat:
        return "a +2? / +4? names another player as its victim, not yourself"
    if not 0 <= target < state.seats:
        return f"there is no seat {target} in this game"
    if target in state.eliminated:
        return f"seat {target} is out of the game"
    return None


# -- the effects ----------------------------------------------------------------------------
def retargeted(penalty: Penalty, victim: int, kind: str) -> Penalty:
    """The same penalty (amount, challenge, guilt...) aimed at ``victim``, of ``kind``."""
    return Penalty.from_dict({**penalty.to_dict(), "seat": victim, "kind": kind})  # type: ignore[return-value]


def targeted(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """The +2/+4's own effect (``Rules.effects`` of the rank it acts as: the penalty it
    pushes, the colour rule's guilt, its intent), aimed at the chosen victim."""
    rank = rules.deck.rank[play.card]
    intent = rules.effects[ACTS_AS[rank]](state, rules, play, ev)
    state.stack[-1] = retargeted(state.stack[-1], play.move[3], rank)  # type: ignore[arg-type]
    return intent


def last_targeted(state: State, rules: Rules, play: Play, ev: Events) -> None:
    """A last +2? / +4? still makes its victim draw (the round ends)."""
    rank = rules.deck.rank[play.card]
    draw(state, rules, play.move[3], AMOUNT[rank] + play.stack, ev, reason=rank)


class TargetedDrawCards(Module):
    """Installed after ``stacking`` (it extends its tables) and the standard cards."""

    name = "targeted_draw_cards"
    options = (OptionSpec("targeted_draw_cards", False, boolean,
                          "one +2? per colour and two +4? (wild): as +2 / +4, but the player names the victim"),)

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        return (PART,) if opts["targeted_draw_cards"] else ()

    def install(self, rules: Rules) -> None:
        if not rules.opts["targeted_draw_cards"]:
            return
        for rank in ACTS_AS:
            rules.effects[rank] = targeted
            rules.finish_effects[rank] = last_targeted
        rules.params[DRAW_TWO] = draw_two_params
        rules.params[DRAW_FOUR] = draw_four_params
        rules.first_card[DRAW_TWO] = first_draw_two
        rules.first_card_redraw = rules.first_card_redraw | {DRAW_FOUR}
        rules.target_refusal = target_refusal
        # stacking: a +2? is a +2 and a +4? a +4, as the answer and as what is answered
        stack_on = {}
        for kind, ranks in rules.stack_on.items():
            both = ranks | {AS_TARGETED[r] for r in ranks if r in AS_TARGETED}
            stack_on[kind] = both
            if kind in AS_TARGETED:
                stack_on[AS_TARGETED[kind]] = both
        rules.stack_on = stack_on
