"""UNO Duo (seed 003, preset ``duo``): a family of its own, :class:`DuoFamily`, a
subclass of UNO's.

RULES.md "duo":

- "Two players, the 112-card deck.  Drafting instead of dealing: Player 1 draws the top
  card and keeps it, or discards it and must keep the next; then Player 2; alternating
  until both hold 7.  Discarded cards (14 at most with passes) go face down under the
  draw pile.  The first drafter alternates each round (``draft_keep`` /
  ``draft_discard`` actions)."
- "The top card is then turned.  Player 2 goes first: on a Draw Two / Wild Draw Four
  Player 2 draws and ends the turn; on a Skip Player 1 goes first instead; on a Reverse
  the first player may play all of their cards of that colour; on a Wild / Wild Draw
  Four Player 1 names the colour."
- "A player is never required to play: they may draw one card, and may play it if it
  is playable."  (The standard turn: ``draw_limit`` 1.)
- "Draw Twos stack (``stacking: same`` for +2)."  (The preset's ``stacking: same``.)
- "Reverse: the player who plays it may then play every other card of that colour from
  their hand, one at a time (decision: in any order, each must be of that colour), then
  the turn passes."
- "UNO: an uncalled next-to-last card caught by the opponent costs 2 cards."
  (``uno_penalty`` 2.)
- "Scoring (``scoring: lowest_total``): when a player goes out, the loser is charged the
  points in their own hand.  Decision: the game ends when a player reaches 500; the
  lowest total wins."  (The preset's ``scoring: lowest_total``, ``target_score`` 500.)
- "Time": "a sequence (... Duo's Reverse) ends; the draft keeps the drawn card".

How the engine plays it:

- **Players 1 and 2.**  Player 1, the first drafter, is the round's dealer
  (``State.dealer``): chosen at random for the first round (the seed's cut for the
  highest card, recorded as its outcome only, ``dealer_chosen``), then the other seat
  each round, so the first drafter alternates; Player 2 is the other seat, left of the
  dealer, who goes first, as in every UNO round (so the player who goes first
  alternates too, as the seed says).
- **The draft** (phase ``setup``): a round starts with the whole deck shuffled into the
  draw pile, no hand, no discard pile, and a :class:`Draft` decision owed by Player 1:
  the drafter has drawn the top card into their hand (the ``draw`` event, ``reason:
  "draft"``, and the card in the private ``cards_drawn``; it is the last card of the
  drafter's ``hand``, and the engine's view lists it as ``drawn``) and posts ``draft_keep`` or ``draft_discard`` (no field:
  an action is public, the moves feed shows it to every seat, so it names no card).  A discarded card goes face down at the
  bottom of the draw pile at once (under the pile, as RULES.md says; nobody draws that
  deep during the draft) and the drafter draws the next card, which they must keep
  (``must_keep``: only ``draft_keep`` is listed).  The drafters alternate until every
  hand holds 7; then the phase is ``play``, each seat is told its hand (``hand``) and
  the first card is turned (``first_card``).  Nothing else happens meanwhile: no UNO
  call, no jump-in, no window.  The opponent sees counts only: ``pending``
  ``{"type": "draft", "seat", "must_keep"}``, the public ``draw`` / ``draft_keep`` /
  ``draft_discard`` events (seat only), never the card; the drafter is told privately
  (``cards_drawn``, and ``hand`` after a discard).  The timer keeps the card.
- **The first card** (``Rules.first_card``, from the dealer = Player 1): a number:
  Player 2 plays; a Draw Two: Player 2 draws 2 and ends the turn (then Player 1
  plays); a Skip: Player 1 goes first; a Reverse: Player 2 opens with the Reverse's
  sequence (below), drawing instead if they play none of that colour; a Wild (and
  the 112-card deck's other wilds, turned up first): Player 1 names the colour, then
  Player 2 plays; a Wild Draw Four (never put back in Duo): Player 1 names the colour,
  then Player 2 draws 4 and ends the turn.  A first Draw Two / Wild Draw Four is a
  penalty like any (stackable with ``stacking``, never challengeable).
- **Reverse** is Duo's sequence, :class:`DuoReverse` (a straights ``Sequence``,
  ``pending`` ``{"type": "duo_reverse", "seat", "color", "opening"}``): after a
  Reverse its player may play the other cards of its colour, one at a time, in any
  order, then ``end_turn`` passes the turn (there is no direction to reverse between
  two players, and ``two_player_replay`` plays no part: the Reverse never acts as a
  Skip).  Decisions: the cards played in the sequence are shed without effect of their
  own (a Draw Two, Skip or Reverse of that colour played there makes nobody draw or
  lose a turn, also as a last card): "then the turn passes" to the opponent.  The
  sequence opens after every Reverse (drawn and played too: the Reverse's effect, as
  a drawn Replay replays), whether or not its player holds that colour, so the pause
  reveals nothing; nobody cuts in (``cut_in`` False; jump-in applies between cards as
  anywhere); a card that would be the player's last is listed only once UNO is called,
  as in every sequence; the timer ends it (an opening one with nothing played draws,
  as an ordinary turn's timer does).
- ``stacking: same`` stacks a Wild Draw Four on a Wild Draw Four too (RULES.md's
  value; seed 003 only names the Draw Twos).

Options that make no sense with Duo are refused (``validate``): ``two_player_replay:
false`` (Duo's Reverse is its sequence, never a Skip: the option plays no part),
``dealer: random`` (the first drafter alternates), ``first_wild_draw_four: name_color``
(Duo's own first-card table plays a Wild Draw Four), ``teams`` and ``partner_rotation`` (two players);
another seat count is refused by the preset's range (2 to 2, ``max_players``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence as Seq

from ..actions import Action, ActionType, register
from ..cards import COLORS, CUSTOMIZABLE, DRAW_VALUE, SHUFFLE_HANDS, SWAP_HANDS
from ..errors import InvalidOptions
from ..events import EventType, register as register_event, seat as seat_field
from ..rules import Decision, Effect, Finish, Module, Play, Rules
from ..state import PLAY, SETUP, State
from . import rounds
from .family import UnoFamily
from .piles import draw, reveal_hands
from .standard import NEXT
from .straights import END_TURN_MOVE, Sequence, _end_sequence
from .turn import DRAW_MOVE, ChooseColor, Penalty, _draw, card_moves

Events = Any  # list[dict] | None

#: the draft's actions name no card: an action is public (the moves feed shows it to every
#: seat), the drafted card is not (its drafter sees it in its hand, ``drawn`` and events)
DRAFT_KEEP = register(ActionType(
    "draft_keep", refusal="no card is being drafted now",
    doc="Duo's draft: keep the card just drawn (the view's `drawn`)"))
DRAFT_DISCARD = register(ActionType(
    "draft_discard", refusal="no card may be discarded from the draft now",
    doc="Duo's draft: put the card just drawn face down under the draw pile and keep the next one"))
KEEP_MOVE, DISCARD_MOVE = Action("draft_keep"), Action("draft_discard")
register_event(EventType("draft_keep", {"seat": seat_field("the drafter")},
                         "Duo's draft: the seat kept the card it drew (which card: only its own cards_drawn said)"))
register_event(EventType("draft_discard", {"seat": seat_field("the drafter")},
                         "Duo's draft: the seat put the card it drew face down under the draw pile (its own "
                         "`hand` event follows) and draws the next, which it must keep"))
#: the wilds of Duo's deck that Player 1 names the colour of when turned up first
WILDS = ("wild", SHUFFLE_HANDS, SWAP_HANDS, CUSTOMIZABLE)


# -- the draft -----------------------------------------------------------------------------
def start_round(state: State, rules: Rules, ev: Events) -> None:
    """A Duo round: the whole deck shuffled into the draw pile, phase ``setup``, and
    the dealer (Player 1) drafts first."""
    state.round += 1
    cards = list(range(len(rules.deck)))
    state.shuffle(cards)
    state.hands = [[] for _ in range(state.seats)]
    state.draw_pile, state.discard = cards, []
    state.direction = 1
    state.color = None
    state.stack, state.windows = [], []
    state.uno_declared = state.uno_exposed = None
    state.phase = SETUP
    if ev is not None:
        ev.append({"type": "round_started", "round": state.round, "dealer": state.dealer})
    reveal_hands(state, rules, ev)  # privately, each seat: an empty hand, before the draft fills it
    _offer(state, rules, state.dealer, False, ev)


def _offer(state: State, rules: Rules, seat: int, must_keep: bool, ev: Events) -> None:
    """``seat`` draws the top card into its hand and owes the choice."""
    state.current = seat
    got = draw(state, rules, seat, 1, ev, "draft")
    state.stack.append(Draft(seat, got[0], must_keep or None))


def _keep(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    state.stack.pop()
    if ev is not None:
        ev.append({"type": "draft_keep", "seat": seat})
    target = rules.family.hand_size
    for k in range(1, state.seats + 1):  # the next seat that still drafts
        nxt = state.next_seat(seat, k)
        if len(state.hands[nxt]) < target:
            _offer(state, rules, nxt, False, ev)
            return
    # every hand is full: the play begins
    state.phase = PLAY
    reveal_hands(state, rules, ev)
    rounds.turn_first_card(state, rules, ev)


def _discard(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    card = state.stack.pop().card  # type: ignore[attr-defined]
    state.hands[seat].remove(card)
    state.draw_pile.insert(0, card)  # face down, under the draw pile
    if ev is not None:
        ev.append({"type": "draft_discard", "seat": seat})
    reveal_hands(state, rules, ev, (seat,))  # privately: the hand without the card
    _offer(state, rules, seat, True, ev)


class Draft(Decision):
    """Duo's draft: ``seat`` has drawn ``card`` (the last card of its hand) and keeps
    it or, unless ``must_keep`` (the card after a discard), discards it."""

    __slots__ = ("card", "must_keep")
    name = "draft"
    public_schema = {
        "must_keep": {"type": "boolean", "description": "the card drawn after a discard: it must be kept"},
    }
    fields = ("card", "must_keep")
    handlers = {"draft_keep": _keep, "draft_discard": _discard}
    turn_extras = False  # no UNO call ahead
    windows_open = False  # no jump-in: nothing is played yet
    card: int
    must_keep: bool | None

    def __init__(self, seat: int, card: int, must_keep: bool | None = None):
        self.seat, self.card, self.must_keep = seat, card, must_keep

    @property
    def drawn(self) -> tuple[int, ...]:
        """The card being drafted (``State.drawn``: the view's ``drawn``, for its owner)."""
        return (self.card,)

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        out.append(KEEP_MOVE)
        if not self.must_keep:
            out.append(DISCARD_MOVE)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "draft_discard" and self.must_keep:
            return "the card drawn after a discard must be kept (draft_keep)"
        return "the round has not begun: draft your hand first (draft_keep / draft_discard)"

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "must_keep": bool(self.must_keep)}

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        _keep(state, rules, seat, KEEP_MOVE, ev, self)  # the draft keeps the card

    def redeal(self, state: State, rules: Rules, observer: int) -> Decision:
        if self.seat == observer:
            return self
        # which card is being drafted is hidden: say it is the seat's last one
        return Draft(self.seat, state.hands[self.seat][-1], self.must_keep)


# -- the Reverse ---------------------------------------------------------------------------
def _opening_draw(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    """A first-card Reverse's sequence with nothing played: the turn's draw instead."""
    state.stack.pop()
    _draw(state, rules, seat, move, ev, rules.turn)  # type: ignore[arg-type]


class DuoReverse(Sequence):
    """After a Reverse its player may play the other cards of its colour, one at a time,
    then ``end_turn``; ``opening``: Player 2's sequence on a Reverse turned up first,
    where nothing was played yet (``draw`` instead of ``end_turn``)."""

    __slots__ = ("opening",)
    name = "duo_reverse"
    public_schema = {
        "color": {"type": "string", "enum": list(COLORS), "description": "the colour that may be played"},
        "opening": {"type": "boolean",
                    "description": "a Reverse turned up first: its player may draw instead of playing"},
    }
    fields = ("opening",)
    handlers = {**Sequence.handlers, "draw": _opening_draw}
    cut_in = False
    opening: bool | None

    def __init__(self, seat: int, opening: bool | None = None):
        self.seat = seat
        self.step = None
        self.opening = opening

    def followers(self, state: State, rules: Rules) -> list[int]:
        """The cards of its owner's hand that go on: of the colour in force (the
        Reverse's: every card of the sequence is of it), never one played only in
        answer (a Renvoi)."""
        deck, color = rules.deck, state.color
        return [c for c in state.hands[self.seat] if deck.color[c] == color and deck.rank[c] not in rules.answer_only]

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        hand = state.hands[seat]
        n = len(hand)
        if n > 1 or state.uno_exposed != seat:  # no last card without UNO called
            for c in self.followers(state, rules):
                out.extend(card_moves(rules, seat, c, n))
        out.append(DRAW_MOVE if self.opening else END_TURN_MOVE)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if seat != self.seat:
            return None
        kind = move[0]
        color = state.color
        if kind == "end_turn" and self.opening:
            return "play a card of the Reverse's colour or draw: the turn has not begun"
        if kind == "draw":
            return "after a Reverse you play its colour or end_turn: nothing is drawn"
        if kind != "play":
            return None
        if move[1] in self.followers(state, rules):
            return "call UNO before playing your last card: no going out through a sequence without it"
        return (f"after a Reverse only the other {color} cards may be played, one at a time, then "
                + ("draw" if self.opening else "end_turn"))

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "color": state.color, "opening": bool(self.opening)}

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        if self.opening:
            _opening_draw(state, rules, seat, DRAW_MOVE, ev, self)  # as an ordinary turn's timer
        else:
            _end_sequence(state, rules, seat, END_TURN_MOVE, ev, self)  # the sequence ends


def reverse(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """Duo's Reverse: its player goes on with the cards of its colour (0: continues)."""
    state.stack.append(DuoReverse(play.seat))
    return 0


def in_reverse(inner: Effect) -> Effect:
    """A rank's effect in Duo: a card played in a Reverse's sequence has none of its own
    (the sequence goes on); otherwise ``inner``."""

    def effect(state: State, rules: Rules, play: Play, ev: Events) -> int:
        if type(play.answered) is DuoReverse:
            state.stack.append(DuoReverse(play.seat))
            return 0
        return inner(state, rules, play, ev)

    return effect


def finish_in_reverse(inner: Finish) -> Finish:
    """A last card's effect in Duo: none for a card played in a Reverse's sequence."""

    def finish(state: State, rules: Rules, play: Play, ev: Events) -> Any:
        if type(play.answered) is DuoReverse:
            return None
        return inner(state, rules, play, ev)

    return finish


# -- the first card (intents count from the dealer: Player 1) ----------------------------------
def first_reverse(state: State, rules: Rules, ev: Events) -> int:
    state.stack.append(DuoReverse(state.next_seat(state.dealer), True))  # Player 2 plays its colour
    return NEXT


def first_wild(state: State, rules: Rules, ev: Events) -> int:
    state.stack.append(ChooseColor(state.dealer))  # Player 1 names the colour, Player 2 plays
    return NEXT


def first_wild_draw_four(state: State, rules: Rules, ev: Events) -> int:
    # Player 2 draws 4 and ends the turn, once Player 1 has named the colour (on top)
    state.stack.append(Penalty(state.next_seat(state.dealer), DRAW_VALUE["wild_draw_four"], "wild_draw_four", None))
    state.stack.append(ChooseColor(state.dealer))
    return NEXT


# -- the module and the family ---------------------------------------------------------------
class DuoRules(Module):
    """Duo's own rules on top of UNO's modules (installed last: it wraps every rank's
    effect for the Reverse's sequence, and replaces the first-card table)."""

    name = "duo"

    def validate(self, opts: Mapping[str, Any], given: Mapping[str, Any]) -> None:
        if opts.get("two_player_replay") is False:
            raise InvalidOptions("two_player_replay", "duo: a Reverse is Duo's sequence (play the other cards of "
                                                      "its colour), never a Skip; two_player_replay does not apply")
        for name in ("teams", "partner_rotation"):
            if opts.get(name):
                raise InvalidOptions(name, f"duo is played by two players: {name} does not apply")
        if opts.get("dealer", "rotates") != "rotates":
            raise InvalidOptions("dealer", "duo: the first drafter (Player 1, the dealer) alternates each round")
        if opts.get("first_wild_draw_four", "redraw") != "redraw":
            raise InvalidOptions("first_wild_draw_four", "duo has its own first card table: on a Wild Draw Four "
                                                         "Player 1 names the colour and Player 2 draws 4")

    def install(self, rules: Rules) -> None:
        rules.effects = {rank: in_reverse(effect) for rank, effect in rules.effects.items()}
        rules.finish_effects = {rank: finish_in_reverse(f) for rank, f in rules.finish_effects.items()}
        ranks = set(rules.deck.rank)
        rules.first_card["reverse"] = first_reverse
        rules.first_card["wild_draw_four"] = first_wild_draw_four
        for rank in WILDS:
            if rank in ranks:
                rules.first_card[rank] = first_wild
        rules.first_card_redraw = rules.first_card_redraw - {"wild_draw_four"}
        rules.decision_types.extend((Draft, DuoReverse))


class DuoFamily(UnoFamily):
    """UNO Duo (see the module docstring): UNO's turn, cards and modules, a draft in
    the ``setup`` phase instead of the deal, its first-card table, its Reverse."""

    name = "duo"
    modules: ClassVar[Seq[Module]] = (*UnoFamily.modules, DuoRules())

    def install(self, rules: Rules) -> None:
        super().install(rules)
        rules.effects["reverse"] = reverse  # kept by the standard cards (``setdefault``)

    def start_round(self, state: State, rules: Rules, ev: Any) -> None:
        start_round(state, rules, ev)

