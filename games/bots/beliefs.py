"""What one seat can tell about the hidden hands from the public history of the round.

:class:`Beliefs` reads the events of the current round that a seat was shown (the
engine's events, as ``visible_events`` gives them: the public ones and the seat's own
private ones, in order) and keeps, for every other seat, what its hand is made of:

- ``known``: cards the seat has seen go into that hand and not come out (its own hand,
  given away by a swap or a rotation; a hand shown to it after a challenge);
- ``slots``: one per other card, the cards that card cannot be (an *exclusion*, a
  frozenset of card ids, empty when nothing is known);
- ``plays``: its plays since it last drew, which weigh each possible hand (below).

What the events prove or make likely:

- a turn's draw (``reason: draw``): a player who draws may hold a playable card (RULES:
  drawing is always allowed), but players rarely draw with one; so every card it held
  is taken to be unplayable then (the cards the matching rule admitted);
- a draw the engine passed on by itself (``pass`` with ``auto``) proves the drawn cards
  unplayable; a draw followed by a player's own ``pass`` proves the drawn card playable
  (with nothing playable drawn the engine passes, so a pass says it kept one);
- a Wild Draw Four (``official``: none of the colour in force; ``bluff``: nothing else
  playable) once answered without a challenge, unless a challenge found it guilty; a
  challenge that found it innocent makes it a fact.  ``free`` proves nothing.  While the
  seat must still answer it, its worlds hold bluffs too (the player's hand dealt without
  that evidence, a world where it bluffed weighed by ``BLUFF_WEIGHT``), so that the search
  weighs a challenge by how likely a bluff is: the player's hand size, the cards of
  that colour seen, its plays;
- a play: a player picking among its playable cards would have made this play less often
  from a hand with more choices, so each sampled world is weighed, for every play since
  the player last drew (or its hand moved), by how likely the play was from the hand
  it held then (the hand it holds in that world and the cards it played after, the
  played card included).  How likely depends on how the player chooses, which the
  seat does not know: the weight is a mixture of two models of a player (``STYLES``,
  equally likely before its plays tell them apart), each model's chance of all of that
  player's plays: a *considered* player picks among the distinct playable kinds (a wild
  is one more choice) and names the colour it holds most of for its wild
  (``RANDOM_COLOUR`` aside); a *casual* player picks any playable card of a colour at
  random (a kind it holds twice, twice as often), plays a wild only when nothing of a
  colour is playable, and names any colour.  (RLCard's rule agent plays casually; a
  hand that names a colour it holds few of, or keeps its wilds, is evidence for one
  model and against the other.)

A played card is taken out of ``known`` or, if it was not known, out of the most
constrained slot it fits (constraints learned from draws are nested, so what is left is
implied whichever card it really was); one that fits no slot means the likely evidence
was wrong: that hand's constraints are dropped.  Hands that move (swaps, rotations, a
Wild Shuffle Hands) take their knowledge with them.

:meth:`Beliefs.deal` is a sampler for ``hard``: it deals every card the seat cannot see
again, each known card where it is known to be, each slot from the cards it may be,
and returns the world with its weight.  It depends only on what the seat sees: the
unseen cards are sorted before they are shuffled, so two states that differ only in
where the hidden cards are give the same worlds for the same random generator.
A constraint no unseen card left satisfies is dropped for that world, and where the
events and the state disagree (a count the events do not explain) that hand is dealt
at random: the beliefs never put a card where the state says it cannot be (the seat's
own hand, the discard pile).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from games.engine import COLORS, State, build_rules, redeal_hidden, rotated, shuffle_deal, unseen_cards, visible_events

NONE: frozenset[int] = frozenset()
#: the share of wilds whose colour is named without regard to the hand (:meth:`Beliefs.weight`)
RANDOM_COLOUR = 0.25
#: the chance of one colour when a colour is named at random
ANY_COLOUR = 1 / len(COLORS)
#: how the others may choose their plays, each with its chance before any play is seen
#: (module doc; :meth:`Beliefs.weight`)
STYLES = {"considered": 0.5, "casual": 0.5}
#: a Wild Draw Four to answer: its worlds hold bluffs as well as honest hands, a bluff
#: weighed by this beyond its plays' weight (most players bluff less than they could;
#: issue 31, ``bench/bots.py --part table``: 0.4 and 1.0 won alike, 0.4 challenging RLCard's
#: honest agent less often)
BLUFF_WEIGHT = 0.4


class RoundLog:
    """The events of a game's current round as its log grows (``add`` each move's
    events): what :class:`Beliefs` is fed, as each seat was shown them."""

    def __init__(self, events: Iterable[dict] = ()) -> None:
        self.events: list[dict] = []
        self.add(events)

    def add(self, events: Iterable[dict]) -> None:
        for e in events:
            if e["type"] == "round_started":
                self.events = []
            self.events.append(e)

    def shown_to(self, seat: int) -> list[dict]:
        return visible_events(self.events, seat)


@dataclass
class HandBelief:
    """What is known of one seat's hand (module doc)."""

    known: list[int] = field(default_factory=list)
    slots: list[frozenset[int]] = field(default_factory=list)
    #: its plays since it last drew or its hand moved, each (the cards playable then,
    #: the card it played, the colour it named: a wild's, else None); with its count
    #: after the last of them (the hand they were played from is the one it holds, with
    #: the cards played since)
    plays: list[tuple[frozenset[int], int, str | None]] = field(default_factory=list)
    count_after: int = -1

    @property
    def count(self) -> int:
        return len(self.known) + len(self.slots)

    def exclude_all(self, cards: frozenset[int]) -> None:
        """Every card of the hand but the known ones is none of ``cards``."""
        self.slots = [s | cards for s in self.slots]

    def take_out(self, card: int) -> None:
        """``card`` left the hand (played, set aside)."""
        if card in self.known:
            self.known.remove(card)
            return
        fits = [i for i, s in enumerate(self.slots) if card not in s]
        if not fits:  # the likely evidence was wrong: forget it
            self.slots = [NONE] * len(self.slots)
            fits = list(range(len(self.slots)))
        if fits:
            self.slots.pop(max(fits, key=lambda i: len(self.slots[i])))


class Beliefs:
    """The beliefs of ``seat`` about the other hands of ``state`` (its observation will
    do: only the public part is read); :meth:`feed` it the round's events the seat was
    shown, then :meth:`deal`."""

    def __init__(self, state: State, seat: int) -> None:
        self.rules = build_rules(state.config)
        self.seat = seat
        self.hands = [HandBelief() for _ in range(state.seats)]
        deck = self.rules.deck
        self.kind = [(deck.color[c], deck.rank[c]) for c in range(len(deck))]
        self.color: str | None = None  # the colour in force
        self.top: str | None = None  # the rank on top of the discard pile
        #: a turn's draw awaiting its end: (seat, the cards playable then, slots drawn)
        self.drawing: tuple[int, frozenset[int], int] | None = None
        #: a Wild Draw Four not yet answered: (seat, its hand's slots before it)
        self.wd4: tuple[int, list[frozenset[int]]] | None = None
        guilt = self.rules.guilt
        self.wd4_mode = None if guilt is None else guilt.__name__  # "guilty" (official), "bluffed"
        self.eliminated: set[int] = set(state.eliminated)
        self.dealing = False  # between round_started and the seat's own hand

    # ---- reading the events ------------------------------------------------------------
    def feed(self, events: Iterable[dict]) -> Beliefs:
        for e in events:
            handler = getattr(self, "_on_" + e["type"], None)
            if handler is not None:
                handler(e)
        return self

    def _playable(self) -> frozenset[int]:
        if self.top is None:
            return NONE
        return self.rules.playable_on(self.color, self.top)

    def _on_round_started(self, e: dict) -> None:
        size = self.rules.family.hand_size
        self.hands = [HandBelief(slots=[NONE] * size) for _ in self.hands]
        self.color = self.top = None
        self.drawing = self.wd4 = None
        self.dealing = True

    def _on_hand(self, e: dict) -> None:  # (private: the seat's own hand)
        cards = [c["id"] for c in e["cards"]]
        if self.dealing:  # the deal: every hand got as many cards as this one
            self.hands = [HandBelief(slots=[NONE] * len(cards)) for _ in self.hands]
            self.dealing = False
        self.hands[e["seat"]] = HandBelief(known=cards)

    def _on_hand_revealed(self, e: dict) -> None:  # (private: shown after a challenge)
        self.hands[e["seat"]] = HandBelief(known=[c["id"] for c in e["cards"]])

    def _on_cards_drawn(self, e: dict) -> None:  # (private: the drawer's cards)
        hand = self.hands[e["seat"]]
        ids = [c["id"] for c in e["cards"]]
        # the draw event (public) came first and added one slot per card: they are known now
        del hand.slots[len(hand.slots) - min(len(ids), len(hand.slots)):]
        hand.known.extend(ids)

    def _on_draft_discard(self, e: dict) -> None:
        """Duo's draft: the card just drafted goes under the draw pile face down."""
        hand = self.hands[e["seat"]]
        if hand.slots:
            hand.slots.pop()
        elif hand.known:
            hand.known.pop()

    def _on_first_card(self, e: dict) -> None:
        card = e["card"]
        self.top, self.color = card["rank"], card.get("color")

    def _on_color_chosen(self, e: dict) -> None:
        self.color = e["color"]

    def _on_draw(self, e: dict) -> None:
        s, count = e["seat"], e["count"]
        hand = self.hands[s]
        if e.get("reason") == "draw" and s != self.seat:
            ok = self._playable()
            if self.drawing is None or self.drawing[0] != s:
                hand.exclude_all(ok)  # likely: it had nothing to play
                self.drawing = (s, ok, count)
            else:
                self.drawing = (s, ok, self.drawing[2] + count)
        hand.slots.extend([NONE] * count)
        hand.plays = []
        self.wd4 = None  # (a Wild Draw Four is answered by now)

    def _on_pass(self, e: dict) -> None:
        s = e["seat"]
        if self.drawing is not None and self.drawing[0] == s:
            _, ok, drawn = self.drawing
            hand = self.hands[s]
            k = min(drawn, len(hand.slots))
            if e.get("auto"):  # proven: nothing drawn was playable
                hand.slots[len(hand.slots) - k:] = [x | ok for x in hand.slots[len(hand.slots) - k:]]
            elif k == 1:  # proven: the card drawn was playable (a pass keeps it)
                everything = frozenset(range(len(self.kind)))
                hand.slots[-1] = hand.slots[-1] | (everything - ok)
        self.drawing = None

    def _on_play(self, e: dict) -> None:
        s, card = e["seat"], e["card"]["id"]
        ok, prev_color = self._playable(), self.color
        hand = self.hands[s]
        self.wd4 = None  # (a Wild Draw Four is answered by now)
        hand.take_out(card)
        self.drawing = None
        self.top, self.color = e["card"]["rank"], e.get("color")
        if s == self.seat:
            return
        if card in ok:
            hand.plays.append((ok, card, e.get("color") if self.kind[card][0] is None else None))
            hand.count_after = hand.count
        else:  # (a card the rule did not admit on the top: a jump-in's, a sequence's, a misplay)
            hand.plays = []
        if self.kind[card][1] == "wild_draw_four" and self.wd4_mode is not None and ok:
            before = list(hand.slots)
            if self.wd4_mode == "guilty":  # official: it held none of the colour in force
                guilt = frozenset(c for c, (color, _) in enumerate(self.kind) if color == prev_color)
            else:  # bluff: nothing else playable
                guilt = frozenset(c for c in ok if self.kind[c][1] != "wild_draw_four")
            hand.exclude_all(guilt)
            self.wd4 = (s, before)

    def _on_challenge(self, e: dict) -> None:
        if self.wd4 is not None and e["guilty"] and self.wd4[0] == e["target_seat"]:
            self.hands[e["target_seat"]].slots = self.wd4[1]  # it held one: what it proved is void
        self.wd4 = None

    def _on_hands_swapped(self, e: dict) -> None:
        a, b = e["seat"], e["target_seat"]
        self.hands[a], self.hands[b] = self.hands[b], self.hands[a]
        for s in (a, b):
            self.hands[s].plays = []

    def _on_hands_rotated(self, e: dict) -> None:
        toward = 1 if e["direction"] == "clockwise" else -1
        self.hands = rotated(self.hands, self.eliminated, toward)  # (the engine's rule)
        for h in self.hands:
            h.plays = []

    def _on_hands_shuffled(self, e: dict) -> None:
        total = sum(h.count for s, h in enumerate(self.hands) if s not in self.eliminated)
        for s, count in shuffle_deal(e["seat"], len(self.hands), self.eliminated, total):  # (the engine's deal)
            self.hands[s] = HandBelief(slots=[NONE] * count)

    def _on_seats_eliminated(self, e: dict) -> None:
        self.eliminated |= set(e["seats"])

    # ---- dealing ---------------------------------------------------------------------
    def _unanswered_wd4(self, state: State, seat: int) -> int | None:
        """The seat whose Wild Draw Four ``seat`` must answer now (None: none): its
        worlds then hold bluffs as well as honest hands (:meth:`deal`)."""
        if self.wd4 is None:
            return None
        p = state.decision()
        if p is None or p.name != "penalty" or getattr(p, "by", None) != self.wd4[0] or state.actor() != seat:
            return None
        return self.wd4[0]

    def deal(self, state: State, seat: int, rng: random.Random) -> tuple[State, float]:
        """A world ``seat`` cannot tell from ``state`` (a determinization of its
        observation), dealt under these beliefs, and its weight (module doc)."""
        bluffer = self._unanswered_wd4(state, seat)
        obs = state.copy()
        unseen, hidden_aside = unseen_cards(obs, seat)
        unseen.sort()  # (what the seat sees only: not where the hidden cards really are)
        pool = set(unseen)
        plan: dict[int, tuple[list[int], list[frozenset[int]]]] = {}
        for s, hand in enumerate(obs.hands):
            if s == seat:
                continue
            belief = self.hands[s] if s < len(self.hands) else HandBelief()
            known = [c for c in belief.known if c in pool][: len(hand)]
            pool.difference_update(known)
            free = len(hand) - len(known)
            slots = belief.slots if s != bluffer else self.wd4[1]  # type: ignore[index]  # (without its honesty)
            slots = slots if len(slots) == free and len(known) == len(belief.known) else []
            plan[s] = (known, sorted(slots, key=len, reverse=True))
        rest = [c for c in unseen if c in pool]
        rng.shuffle(rest)
        used = [False] * len(rest)
        hands: dict[int, list[int]] = {}
        for s, (known, slots) in plan.items():  # the constrained cards first
            picked = hands[s] = list(known)
            for excluded in slots:
                if not excluded:
                    break  # (sorted: the unconstrained ones are last)
                for i, c in enumerate(rest):
                    if not used[i] and c not in excluded:
                        used[i] = True
                        picked.append(c)
                        break
        free_cards = iter(i for i in range(len(rest)) if not used[i])
        for s in plan:
            picked = hands[s]
            while len(picked) < len(obs.hands[s]):
                i = next(free_cards)
                used[i] = True
                picked.append(rest[i])
            rng.shuffle(picked)
            obs.hands[s] = picked
        left = [rest[i] for i in range(len(rest)) if not used[i]]
        for a in hidden_aside:  # (copies: ``State.copy`` copied each pair)
            a[1] = left.pop()
        obs.draw_pile = left
        world = redeal_hidden(obs, seat, rng)
        weight = self.weight(world)
        if bluffer is not None and getattr(world.decision(), "guilty", False):  # (redealt: the world's own hand says)
            weight *= BLUFF_WEIGHT
        return world, weight

    def weight(self, world: State) -> float:
        """How likely the others' plays since they last drew were from their hands in
        ``world`` (each from the hand it holds plus the cards it played after), under
        the mixture of ``STYLES`` (module doc)."""
        w = 1.0
        for s, belief in enumerate(self.hands):
            plays = belief.plays
            if s == self.seat or not plays or s >= len(world.hands) or len(world.hands[s]) != belief.count_after:
                continue
            considered, casual = STYLES["considered"], STYLES["casual"]  # (each model's chance of the plays)
            held = list(world.hands[s])  # what it held at each play: its hand, then the cards played after
            for ok, played, named in reversed(plays):
                playable = [self.kind[c] for c in held if c in ok]
                playable.append(self.kind[played])
                considered /= len(set(playable))
                if named is not None:
                    considered *= self._named_likelihood([self.kind[c] for c in held], named)
                casual *= self._casual_likelihood(playable, self.kind[played], named)
                held.append(played)
            w *= considered + casual
        return w

    @staticmethod
    def _casual_likelihood(playable: list[tuple], played: tuple, named: str | None) -> float:
        """How likely a casual player (module doc) makes a play of kind ``played`` when
        its playable cards are of ``playable`` (the played one included)."""
        coloured = [k for k in playable if k[0] is not None]
        if played[0] is not None:
            return coloured.count(played) / len(coloured)
        if coloured:
            return 0.0  # it keeps its wilds while it has anything else to play
        return playable.count(played) / len(playable) * (ANY_COLOUR if named is not None else 1.0)

    def _named_likelihood(self, kinds: list[tuple], named: str) -> float:
        """How likely a player holding cards of ``kinds`` names ``named`` for its wild:
        most name a colour they hold most of (a tie: one of those), the others any
        colour (``RANDOM_COLOUR``).  A hand of no coloured card says nothing."""
        counts: dict[str, int] = {}
        for colour, _ in kinds:
            if colour is not None:
                counts[colour] = counts.get(colour, 0) + 1
        if not counts:
            return 1.0
        most = max(counts.values())
        tops = sum(1 for n in counts.values() if n == most)
        chance = RANDOM_COLOUR * ANY_COLOUR
        return chance + ((1 - RANDOM_COLOUR) / tops if counts.get(named, 0) == most else 0.0)
