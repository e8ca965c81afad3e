"""Bot levels.

* ``random``: any legal action, now and then an out-of-turn one.
* ``easy``: plays a random playable card, never challenges, forgets UNO a third
  of the time and misses half of the catches.
* ``normal``: a heuristic player: keeps wilds for later, dumps high cards and
  action cards, names its strongest colour, stacks, challenges a Wild Draw Four
  from a big hand, always sends a +2/+4/Skip back when it holds a Renvoi, always
  calls and catches UNO, jumps in, plays a sequence on (``straights``,
  ``continuations``) while it can and cuts into the previous player's.  It aims a
  +2?/+4? (``targeted_draw_cards``; ``hard`` too) at the opponent with the fewest
  cards, never at a partner, and plays a Downpour at once when an opponent is down to
  two cards.  No level ever misplays (``jump_in_misplay_points``).  With
  ``wild_draw_four: bluff`` it never bluffs (a Wild Draw Four only when no other card
  could be played) and challenges one from a hand of 4 or more; with ``free`` it plays
  a Wild Draw Four before a plain Wild (it risks nothing).  A Replay's extra play
  (``replay_cards``) is a turn like another: its best card, or ``end_turn``.
  In Duo's draft it keeps wilds, action cards and numbers of a colour it holds and
  discards other numbers; Duo's Reverse sequence is played like any sequence.

Every level buzzes in a buzz window (``buzzer_cards``) first thing, in turn or out of
turn (a reflex: not buzzing is sure to cost 2 cards), except ``hard`` in turn when it
is the last seat that owes the buzz: buzzing then makes it the last to buzz, so its
search weighs the buzz against its plays.  How long a bot waits before buzzing, like a
person reacting, is :func:`reaction_delay` (the server honours it).
Team play (``teams``, ``partner_rotation``): ``normal`` never plays a Skip, +2 or +4
on its partner when something else will do, nor aims a +2?/+4? at it, nor catches or
challenges it, and skips the opponent before a partner about to go out; ``hard``'s
search values a round its partner wins as its own.
* ``hard``: determinized Monte Carlo search (flat, information-set sampling) over
  the engine with a time budget: every distinct play (and colour) is tried in the
  same sampled worlds, rolled out with ``normal`` in every seat, a rollout cut short
  valued by every seat's hand size; ``normal``'s choices out of turn.  At 3 seats or
  more it overrules ``normal``'s favourite only with a clear margin (``OVERRULE_Z``).
  Its worlds come from what the round's public history tells about the hidden hands
  (``games.bots.beliefs``: what draws, passes and Wild Draw Fours make likely or prove,
  cards seen going into hands, each world weighed by how likely the others' last plays
  were from it; an unanswered Wild Draw Four may be a bluff) when the caller gives it that history
  (``decide(..., history=...)``: the server always does); else uniformly.

The policies work on the engine's :class:`~games.engine.Action` values; ``choose``
takes and returns the ready-to-post dicts of ``legal_actions``.  The search uses the
engine's fast path (``legal_moves``, ``push`` without events, ``State.copy``).
"""

from __future__ import annotations

import math
import random

from games.engine import (
    COLORS, GAME_OVER, Action, State, build_rules, deadline_seconds, legal_moves, owed, push,
)

from . import decktet
from .worlds import Sampler, sampled_worlds

LEVELS = ("random", "easy", "normal", "hard")
HARD_BUDGET_MS = 60.0
HARD_MAX_ROLLOUTS = 20_000  # a bound for very large budgets; the time budget is what stops a search
#: actions per rollout before the hand sizes judge it (against RLCard's rule agent, 2000
#: games each, in-product inference: 12 won 58.7%, 24 60.5% and 60.7%, 48 59.6%)
HARD_ROLLOUT_DEPTH = 24
#: at 3 seats or more ``hard`` plays another candidate than ``normal``'s favourite only
#: when its mean beats it by this many standard errors of their difference (issue 31,
#: ``bench/bots.py --part table``, 60 worlds a decision, 200 games per cell: at 3 and 4
#: seats against (a, b, c) the best mean won 34.3% and 27.7% of 600 games, 1 SE 39.7%
#: and 32.3%, 2 SE 41.5% and 31.7%; on other deals, 300 games per cell, the code before
#: issue 31 35.6% and 26.7%, this 37.6% and 30.4%); heads-up the best mean wins (measured
#: best there)
OVERRULE_Z = 2.0
#: the last search of ``hard`` in this process: samples, candidates, simulations (benchmarks read it)
LAST_SEARCH: dict[str, int] = {"samples": 0, "candidates": 0, "simulations": 0}

CHOOSE = {c: Action("choose_color", color=c) for c in COLORS}
DRAW, PASS, CALL, CHALLENGE = Action("draw"), Action("pass"), Action("call_uno"), Action("challenge")
RANK_BONUS = frozenset({"skip", "draw_two", "reverse"})
#: the cards whose effect falls on the next seat (team play: never on the partner)
HITS_NEXT = frozenset({"skip", "draw_two", "wild_draw_four"})
#: ends a turn of several cards (``straights``, ``continuations``) once nothing is worth playing on
END_TURN = Action("end_turn")
#: what a bot with nothing (more) to play does, in this order
FALLBACKS = (("pass", PASS), ("draw", DRAW), ("end_turn", END_TURN))
#: the decisions that aim an effect at their owner (accepted with a draw or a pass)
AIMED = frozenset({"penalty", "skip", "deflected"})
#: the rank of the Renvoi (``deflect_cards``), played only to send such an effect back
DEFLECT = "deflect"
#: +2? / +4? (``targeted_draw_cards``): a +2 / +4 on the victim its play names;
#: Downpour (``downpour_cards``): every other player draws 1 / 2
TARGETED = frozenset({"targeted_draw_two", "targeted_wild_draw_four"})
DOWNPOUR = frozenset({"downpour_one", "downpour_two"})
#: the cards that move hands (``standard_112``, ``swap_hands_card``, ``hand_pass_cards``,
#: ``uno_card``): ``normal`` weighs the hand it would get against the one it keeps
HAND_MOVES = frozenset({"wild_shuffle_hands", "wild_swap_hands", "hand_pass", "uno"})
#: the buzz (``buzzer_cards``): the action every seat owes in a buzz window, the window's
#: decision name, the Buzzer's rank
BUZZ, BUZZ_WINDOW, BUZZER = Action("buzz"), "buzz", "buzzer"
#: a bot's reaction time to a buzz window, by level: the median (seconds after the window
#: opened) and the spread (sigma) of a log-normal, as people's reaction times are; a bot
#: buzzes at least MIN_REACTION after the window opened and within REACTION_SHARE of it
BUZZ_REACTION: dict[str, tuple[float, float]] = {
    "random": (2.0, 0.6), "easy": (2.5, 0.4), "normal": (1.5, 0.35), "hard": (1.0, 0.3),
}
MIN_REACTION = 0.3
REACTION_SHARE = 0.8


def reaction_delay(level: str, state: State, action: dict, rng: random.Random) -> float:
    """How long after the decision it answers became owed a bot of ``level`` should post
    ``action`` (a dict ``choose`` returned), like a person: a buzz after a human-like
    random reaction time, always well inside the window (``buzzer_seconds``); 0.0 for
    every other action (the server's own think time applies).  The bots only say it;
    the server waits."""
    if action.get("type") != BUZZ.type:
        return 0.0
    median, sigma = BUZZ_REACTION[level]
    delay = max(MIN_REACTION, median * math.exp(rng.gauss(0.0, sigma)))
    seconds = deadline_seconds(state, BUZZ_WINDOW)
    return min(delay, REACTION_SHARE * seconds) if seconds else delay


def as_action(a: dict) -> Action:
    """A listed action (a dict of ``legal_actions``) as an Action."""
    return Action(a["type"], a.get("card"), a.get("color"), a.get("target_seat"), a.get("uno") or None)


def _in_turn(state: State, seat: int) -> bool:
    return state.actor() == seat


def _owes_buzz(state: State, legal: list[Action]) -> bool:
    """Whether the seat whose ``legal`` moves these are owes a buzz (only a stored window
    asks for one: with none open, the list is not even searched)."""
    return bool(state.windows) and BUZZ in legal


def _answer_buzzes(state: State, rng: random.Random) -> None:
    """Every seat that owes a buzz buzzes, in a random order (a race): what the bots of
    every level do, played out in ``hard``'s rollouts."""
    owing = [s for s, decision, _ in owed(state) if decision == BUZZ_WINDOW]
    rng.shuffle(owing)
    for s in owing:
        push(state, s, BUZZ)


class _Table:
    """What the bots read of one game's rules, looked up once per rules (``_table``): the
    deck's lookup tables, and which of the cards a policy treats specially the deck
    holds at all (most games hold none of them: their filters are skipped)."""

    __slots__ = ("rules", "deck", "rank", "color", "color_index", "free_plus4", "bluff", "targeted", "hand_moves")

    def __init__(self, rules) -> None:
        self.rules, self.deck = rules, rules.deck
        self.rank, self.color = rules.deck.rank, rules.deck.color
        #: each card's colour as its place in COLORS (a wild, or a card of no colour: len(COLORS))
        self.color_index = tuple(COLORS.index(k) if k in COLORS else len(COLORS) for k in self.color)
        self.free_plus4 = rules.opts.get("wild_draw_four") == "free"
        self.bluff = rules.opts.get("wild_draw_four") == "bluff"
        ranks = set(self.rank)
        self.targeted = not TARGETED.isdisjoint(ranks)
        self.hand_moves = not HAND_MOVES.isdisjoint(ranks)


#: id(rules) -> its table; bounded like the engine's cache of rules (a table keeps its
#: rules alive, so an id is never reused while its entry is here)
_TABLES: dict[int, _Table] = {}
_TABLES_MAX = 512


def _table(state: State) -> _Table:
    rules = build_rules(state.config)  # (built once per config; its table once per rules)
    table = _TABLES.get(id(rules))
    if table is None:
        if len(_TABLES) >= _TABLES_MAX:
            _TABLES.clear()
        table = _TABLES[id(rules)] = _Table(rules)
    return table


def _best_color(state: State, seat: int, table: _Table | None = None) -> str:
    """The colour ``seat`` holds most of (ties: first in COLORS order); wilds, having
    none, never count (so the wild being played does not either)."""
    index = (table or _table(state)).color_index
    counts = [0] * (len(COLORS) + 1)  # (the last: wilds)
    for c in state.hands[seat]:
        counts[index[c]] += 1
    return COLORS[max(range(len(COLORS)), key=counts.__getitem__)]  # (max: the first of the most)


# --------------------------------------------------------------------------------------
def _random(state: State, seat: int, legal: list[Action], rng: random.Random) -> Action | None:
    if _owes_buzz(state, legal):
        return BUZZ
    if not _in_turn(state, seat) and rng.random() < 0.7:
        return None
    return rng.choice(legal)


def _easy(state: State, seat: int, legal: list[Action], rng: random.Random) -> Action | None:
    if _owes_buzz(state, legal):
        return BUZZ
    types = {a.type for a in legal}
    if not _in_turn(state, seat):
        if "call_uno" in types and rng.random() < 0.7:
            return CALL
        catches = [a for a in legal if a.type == "catch_uno"]
        if catches and rng.random() < 0.5:
            return catches[0]
        return None
    plays = [a for a in legal if a.type == "play" and (a.uno or rng.random() < 0.33)]
    plays = plays or [a for a in legal if a.type == "play"]
    if "choose_color" in types:
        return CHOOSE[_best_color(state, seat)]
    if DRAFT_KEEP in types:  # Duo's draft: half the time as normal drafts, else at random
        return _draft(state, seat, legal) if rng.random() < 0.5 else rng.choice(legal)
    if plays:
        pick = rng.choice(plays)
        return pick if pick.color is None else pick._replace(color=_best_color(state, seat))
    for kind, action in FALLBACKS:
        if kind in types:
            return action
    return rng.choice(legal)


class _Valuer:
    """How much ``normal`` likes each play of one seat in one position (higher is
    better); what every play shares is computed once."""

    __slots__ = ("deck", "hands", "hand", "n", "next_count", "counts", "free_plus4", "state", "seat", "mate_next",
                 "help_mate")

    def __init__(self, state: State, seat: int, table: _Table | None = None):
        table = table or _table(state)
        self.deck = table.deck
        self.free_plus4 = table.free_plus4
        self.state, self.seat = state, seat
        hands = self.hands = state.hands
        hand = self.hand = hands[seat]
        self.n = state.seats
        nxt = state.next_seat(seat)
        self.next_count = len(hands[nxt])
        # team play (``teams``, ``partner_rotation``): the next seat is the partner (never
        # hit it), or the seat after it is a partner about to go out (skip to it)
        if state.teams is None:
            self.mate_next = self.help_mate = False
        else:
            after = state.next_seat(seat, 2)
            self.mate_next = _mate(state, seat, nxt)
            self.help_mate = _mate(state, seat, after) and len(hands[after]) <= 2
        color = table.color
        counts: dict[str | None, int] = {}
        for c in hand:
            k = color[c]
            counts[k] = counts.get(k, 0) + 1
        self.counts = counts

    def value(self, a: Action) -> float:
        deck, card = self.deck, a.card
        rank, color = deck.rank[card], deck.color[card]  # type: ignore[index]
        value = deck.points[card] / 10.0  # type: ignore[index]  # get rid of points
        if rank in HAND_MOVES:  # the hand it gets: the fewer cards than those kept, the better
            return value + 1.0 + (len(self.hand) - 1 - _received(self.state, self.seat, a, rank)) * 0.8
        if rank == BUZZER:  # a lottery of 2 cards that lets the next player play anything:
            value = -2.5 if len(self.hand) > 3 else 2.0  # a fallback (before a wild, worth more kept)
        elif color is None:
            value = -3.0 if len(self.hand) > 3 else 4.0  # keep wilds for later
            if rank == "wild_draw_four" and self.next_count <= 2:
                value = 6.0
            elif rank == "wild_draw_four" and self.free_plus4:
                value += 1.0  # never challenged: before a plain Wild
        else:
            value += self.counts[color] * 0.5  # stay in the colour I hold most of
        if rank in RANK_BONUS and self.next_count <= 2 and not self.mate_next:
            value += 5.0
        if rank in HITS_NEXT:
            if self.mate_next:
                value -= 8.0  # never a Skip / +2 / +4 on the partner when something else will do
            elif self.help_mate:
                value += 4.0  # the opponent between is skipped: the partner, about to go out, plays
        if rank in TARGETED:  # a +2 / +4 on its victim: the smaller its hand, the better
            victim = len(self.hands[a.target_seat])  # type: ignore[index]
            value += (5.0 if victim <= 2 else 0.0) - 0.1 * victim
        elif rank in DOWNPOUR and min(len(h) for h in self.hands if h is not self.hand) <= 2:
            value = 6.0  # everyone else draws: stop the one about to go out
        elif a.target_seat is not None:
            value += (len(self.hand) - len(self.hands[a.target_seat])) * 0.8
        if a.uno:
            value += 0.01
        if self.n > 2 and rank == "reverse":
            value -= 0.5
        return value


def _mate(state: State, seat: int, other: int) -> bool:
    """Whether ``other`` is ``seat``'s partner this round (``State.teams``)."""
    teams = state.teams
    return teams is not None and other != seat and teams[other] == teams[seat]


def _aim(state: State, seat: int, moves: list[Action]) -> list[Action]:
    """``moves`` with the +2?/+4? plays (``targeted_draw_cards``) aimed only at the
    opponents holding the fewest cards, never at a partner (``State.teams``) while an
    opponent may be aimed at."""
    table = _table(state)
    if not table.targeted or not any(a.target_seat is not None and a.type == "play" for a in moves):
        return moves
    rank = table.rank
    if not any(a.type == "play" and rank[a.card] in TARGETED for a in moves):  # type: ignore[index]
        return moves
    teams = state.teams
    others = [s for s in range(state.seats) if s != seat and s not in state.eliminated]
    foes = [s for s in others if teams is None or teams[s] != teams[seat]] or others
    fewest = min(len(state.hands[s]) for s in foes)
    aims = {s for s in foes if len(state.hands[s]) == fewest}
    return [a for a in moves if a.type != "play" or rank[a.card] not in TARGETED  # type: ignore[index]
            or a.target_seat in aims]


def _received(state: State, seat: int, a: Action, rank: str) -> float:
    """How many cards ``seat`` would hold after the hand-moving play ``a`` of a card of
    ``rank`` (``HAND_MOVES``): the hand it receives (a Shuffle: an even share)."""
    hands, n = state.hands, state.seats
    if len(hands[seat]) == 1 and rank != "uno":
        return -1.0  # its last card: it goes out (better than any hand), no hand moves
    if rank == "wild_swap_hands":
        return float(len(hands[a.target_seat]))  # type: ignore[index]
    if rank == "uno":  # hands pass against the direction of play: the next player's comes
        return float(len(hands[state.next_seat(seat)]))
    gone = state.eliminated
    if rank == "hand_pass":  # hands pass on in the direction of play: the previous player's comes
        prev = (seat - state.direction) % n
        while prev in gone:
            prev = (prev - state.direction) % n
        return float(len(hands[prev]))
    active = [s for s in range(n) if s not in gone]
    return (sum(len(hands[s]) for s in active) - 1) / len(active)  # a Shuffle: an even share


def _worth_moving(state: State, seat: int, plays: list[Action]) -> list[Action]:
    """``plays`` less the hand-moving plays that would not leave ``seat`` fewer cards
    than it keeps (a swap with a bigger hand, a last UNO card...): never a pointless
    swap while it holds the fewest cards."""
    table = _table(state)
    if not table.hand_moves:
        return plays
    rank = table.rank
    keep = len(state.hands[seat]) - 1
    return [a for a in plays
            if rank[a.card] not in HAND_MOVES or _received(state, seat, a, rank[a.card]) < keep]  # type: ignore[index]


# -- Duo (``uno/duo.py``) -----------------------------------------------------------------------
#: Duo's draft: keep the card just drawn, or discard it (and keep the next)
DRAFT_KEEP, DRAFT_DISCARD = "draft_keep", "draft_discard"


def _draft(state: State, seat: int, legal: list[Action]) -> Action:
    """Duo's draft (``normal``; ``hard`` too, its short rollouts cannot judge a draft):
    keep a good card (a wild, an action card, a number of a colour already held),
    discard a weak one (a number of a colour not held yet), unless it must be kept."""
    keep = next(a for a in legal if a.type == DRAFT_KEEP)
    discard = next((a for a in legal if a.type == DRAFT_DISCARD), None)
    if discard is None:
        return keep
    deck = build_rules(state.config).deck
    card = state.drawn[0]  # the card being drafted (its drafter's own: kept in an observation)
    color, rank = deck.color[card], deck.rank[card]
    if color is None or not rank.isdigit():
        return keep  # a wild or an action card
    held = sum(1 for c in state.hands[seat] if c != card and deck.color[c] == color)
    return keep if held else discard


def _normal_out_of_turn(state: State, seat: int, legal: list[Action], rng: random.Random) -> Action | None:
    if _owes_buzz(state, legal):
        return BUZZ
    for a in legal:
        if a.type == "call_uno":
            return a
    for a in legal:
        if a.type == "catch_uno" and not _mate(state, seat, a.target_seat):  # type: ignore[arg-type]
            return a  # (never the partner)
    jumps = _aim(state, seat, [a for a in legal if a.type == "play"])  # jump-ins, and cut-ins into a sequence
    if jumps:
        if any(a.color is not None for a in jumps):  # a wild cutting in: the colour it holds most of
            best = _best_color(state, seat)
            jumps = [a for a in jumps if a.color is None or a.color == best] or jumps
        valuer = _Valuer(state, seat)
        return max(jumps, key=lambda a: (bool(a.uno), valuer.value(a)))
    return None


#: ``normal`` challenges a Wild Draw Four whose player holds at least this many cards,
#: by ``wild_draw_four`` mode (``bluff``: guilty with any other playable card, so likelier)
CHALLENGE_FROM = {"official": 5, "bluff": 4}


def _no_bluff(state: State, seat: int, plays: list[Action]) -> list[Action]:
    """``plays`` less the Wild Draw Fours that would be a bluff (``wild_draw_four:
    bluff``: the hand holds another card playable now), unless nothing else is left."""
    rules = build_rules(state.config)
    rank, guilt = rules.deck.rank, rules.guilt
    if guilt is None:
        return plays
    top_rank, hand = rank[state.discard[-1]], state.hands[seat]
    honest = [a for a in plays if rank[a.card] != "wild_draw_four"  # type: ignore[index]
              or not guilt(rules, [c for c in hand if c != a.card], state.color, top_rank)]
    return honest or plays


def _normal(state: State, seat: int, legal: list[Action], rng: random.Random) -> Action | None:
    if not _in_turn(state, seat):
        return _normal_out_of_turn(state, seat, legal, rng)
    if _owes_buzz(state, legal):
        return BUZZ
    types: set[str] = set()
    plays: list[Action] = []
    colored = False  # (a wild's play names a colour)
    for a in legal:
        types.add(a.type)
        if a.type == "play":
            plays.append(a)
            colored = colored or a.color is not None
    if "choose_color" in types:
        return CHOOSE[_best_color(state, seat)]
    if DRAFT_KEEP in types:
        return _draft(state, seat, legal)
    table = _table(state)
    hand_size = len(state.hands[seat])
    if hand_size == 2:
        plays = [a for a in plays if a.uno] or plays  # always call UNO
    if colored:
        best = _best_color(state, seat, table)
        plays = [a for a in plays if a.color is None or a.color == best] or plays
    if table.targeted:
        plays = _aim(state, seat, plays)
    if table.hand_moves:
        plays = _worth_moving(state, seat, plays)  # (none left: it draws rather than take more cards)
    if plays and table.bluff:
        plays = _no_bluff(state, seat, plays)
    p = state.decision()
    if p is not None and p.name in AIMED:
        if plays:
            rank = table.rank
            back = [a for a in plays if rank[a.card] == DEFLECT]  # type: ignore[index]
            if back:  # a Renvoi has no other use: always send the effect back
                return back[0]
            return max(plays, key=_Valuer(state, seat, table).value)
        challenge_from = CHALLENGE_FROM.get(state.options["wild_draw_four"], 5)
        if "challenge" in types and len(state.hands[p.by]) >= challenge_from \
                and not _mate(state, seat, p.by):  # type: ignore[attr-defined]  # (never the partner)
            return CHALLENGE
        return DRAW if "draw" in types else PASS  # accept it (a Skip is accepted with a pass)
    if plays:
        valuer = _Valuer(state, seat, table)
        pick = max(plays, key=valuer.value) if len(plays) > 1 else plays[0]
        if valuer.mate_next and table.rank[pick.card] in HITS_NEXT:  # type: ignore[index]
            for kind, action in FALLBACKS[:2]:  # draw (or pass) rather than hit the partner
                if kind in types:
                    return action
        return pick
    if "end_turn" in types:  # a sequence with nothing to play on: calling UNO ahead would lapse
        return END_TURN
    if "call_uno" in types and hand_size == 2:
        return CALL
    for kind, action in FALLBACKS:
        if kind in types:
            return action
    return legal[0]


# --------------------------------------------------------------------------------------
def _round_result(state: State, seat: int, teams: list[int] | None = None) -> float:
    """1 if ``seat`` (or its partner: ``teams``, the teams of the round that ended)
    won the round that just ended, else 0."""
    winner = state.history[-1]["winner"]
    return 1.0 if winner == seat or (teams is not None and teams[winner] == teams[seat]) else 0.0


def _rollout(state: State, seat: int, rng: random.Random) -> float:
    """Play ``state`` on with ``normal`` in every seat for at most
    ``HARD_ROLLOUT_DEPTH`` actions: 1 if ``seat`` wins the round, 0 if another does,
    otherwise an estimate from the hand sizes (short rollouts: less noise, more
    samples in the budget): each seat's chance taken as ``1 / its cards`` over the sum
    of every seat's (heads-up: the opponent's cards over both hands'; team play: the
    team's shortest hand against the others').  A buzz window is answered by every seat
    that owes it, in a random order, before the seat in turn moves (as the bots do)."""
    start_round = state.round
    teams = state.teams  # team play: the team's result, not the seat's
    for _ in range(HARD_ROLLOUT_DEPTH):
        if state.windows:
            _answer_buzzes(state, rng)
        actor: int = state.actor()  # type: ignore[assignment]
        move = _normal(state, actor, legal_moves(state, actor), rng)
        push(state, actor, move)  # type: ignore[arg-type]
        if state.round != start_round or state.phase == GAME_OVER:
            return _round_result(state, seat, teams)
    if teams is None and not state.eliminated:
        hands = state.hands
        mine = len(hands[seat])
        if len(hands) > 2:  # every seat's chance by its hand size (heads-up: the same value as below)
            return (1.0 / mine) / sum(1.0 / len(h) for h in hands)
        best_other = min(len(h) for s, h in enumerate(hands) if s != seat)
    else:  # the team's shortest hand against the others'; eliminated seats hold none
        ours = [len(h) for s, h in enumerate(state.hands) if s == seat or _mate(state, seat, s)]
        theirs = [len(h) for s, h in enumerate(state.hands)
                  if s not in state.eliminated and s != seat and not _mate(state, seat, s)]
        mine, best_other = min(ours), min(theirs, default=1)
    return best_other / (best_other + mine)


def _candidates(state: State, seat: int, legal: list[Action]) -> list[Action]:
    """The decisions worth searching: every distinct play (two copies of a card are
    one candidate; a wild once per colour; a +2?/+4? aimed as ``normal`` aims it),
    ``normal``'s favourite first, then the non-play options (draw, challenge, pass)
    when there are any."""
    deck = build_rules(state.config).deck
    legal = _aim(state, seat, legal)
    plays, others, seen = [], [], set()
    two = len(state.hands[seat]) == 2
    for a in legal:
        if a.type == "call_uno":
            continue
        if a.type == "play":
            if two and not a.uno:
                continue  # always call UNO
            card = a.card
            key = (deck.color[card], deck.rank[card], a.color, a.target_seat)  # type: ignore[index]
            if key not in seen:
                seen.add(key)
                plays.append(a)
        else:
            others.append(a)
    valuer = _Valuer(state, seat)
    best = _best_color(state, seat) if any(a.color is not None for a in plays) else None
    plays.sort(key=lambda a: (valuer.value(a), a.color is None or a.color == best), reverse=True)
    return plays + others


def _hard(state: State, seat: int, legal: list[Action], rng: random.Random, budget_ms: float | None = None,
          sampler: Sampler | None = None, max_samples: int | None = None) -> Action | None:
    """Every candidate tried in the same worlds (:func:`~games.bots.worlds.sampled_worlds`:
    ``sampler`` deals them, weighed; default uniformly), the best weighted mean wins;
    at 3 seats or more only when it beats ``normal``'s favourite (the first candidate)
    by ``OVERRULE_Z`` standard errors of their difference, else the favourite.
    ``max_samples``: stop after that many worlds instead of at the time budget (a
    test's: the same choice on any machine)."""
    if not _in_turn(state, seat):
        return _normal_out_of_turn(state, seat, legal, rng)
    if any(a.type == "choose_color" or a.type == DRAFT_KEEP for a in legal):
        return _normal(state, seat, legal, rng)  # a colour to name, Duo's draft: normal's judgement
    if _owes_buzz(state, legal) and any(s != seat for s, decision, _ in owed(state) if decision == BUZZ_WINDOW):
        return BUZZ  # others still owe it: buzzing now avoids being the last
    candidates = _candidates(state, seat, legal)  # (the last to owe a buzz: buzz or play, searched)
    if not candidates:
        return _normal(state, seat, legal, rng)
    if len(candidates) == 1:
        return candidates[0]
    k = len(candidates)
    totals = [0.0] * k  # weighted sum of each candidate's results
    # each candidate's weighted sums of its difference to normal's favourite (the first)
    # and of its square, and the weights' sums (for the standard error of the difference)
    gated = state.seats > 2  # (a decision there moves the win less: the noise would pick)
    diffs, squares = [0.0] * k, [0.0] * k
    weights = weights2 = 0.0
    results = [0.0] * k
    samples = 0
    # Common random numbers: every candidate is tried in the same sampled world with
    # the same rollout dice, so their difference is what a sample measures.
    for world, weight in sampled_worlds(state, seat, rng, sampler, HARD_BUDGET_MS if budget_ms is None else budget_ms,
                                        max_samples, -(-HARD_MAX_ROLLOUTS // k)):
        samples += 1
        dice = rng.random()
        round_now, teams = world.round, world.teams
        for i, a in enumerate(candidates):
            sim = world.copy()
            push(sim, seat, a)
            if sim.round != round_now or sim.phase == GAME_OVER:
                result = _round_result(sim, seat, teams)
            else:
                result = _rollout(sim, seat, random.Random(dice))
            totals[i] += weight * result
            results[i] = result
        if gated:
            weights += weight
            weights2 += weight * weight
            for i in range(1, k):
                d = results[i] - results[0]
                diffs[i] += weight * d
                squares[i] += weight * d * d
    LAST_SEARCH.update(samples=samples, candidates=k, simulations=samples * k)
    # The best (weighted) mean wins; ties go to the earlier candidate (normal's order).
    # Measured against RLCard's rule agent (bench/bots.py, 2000 games): searching
    # every play and colour to the time budget and taking the best mean won 61.1%
    # where normal's top 3 plays at 400 rollouts, overruled only beyond one standard
    # error, won 57.9%.
    best = 0
    for i in range(1, k):
        if totals[i] > totals[best]:
            best = i
    if gated and best and weights > 0:
        mean = diffs[best] / weights
        var = max(0.0, squares[best] / weights - mean * mean)
        n_eff = weights * weights / weights2
        if mean <= OVERRULE_Z * math.sqrt(var / n_eff):
            best = 0  # not surely better than normal's favourite
    return candidates[best]


POLICIES = {"random": _random, "easy": _easy, "normal": _normal}


def choose(level: str, state: State, seat: int, legal: list[dict], rng: random.Random, budget_ms=None,
           sampler=None, max_samples: int | None = None) -> dict | None:
    """Pick an action of ``legal`` (dicts of ``legal_actions``) for ``seat`` given an
    observation ``state``; None: nothing out of turn.  ``sampler`` (``hard`` only;
    default :func:`observe`) deals the hidden cards of each of its samples."""
    moves = [as_action(a) for a in legal]
    if build_rules(state.config).family.name == "decktet" and level in LEVELS:  # a family of its own: its levels
        if level == "hard":
            pick, worlds = decktet.hard(state, seat, moves, rng, HARD_BUDGET_MS if budget_ms is None else budget_ms,
                                        sampler, max_samples)
            LAST_SEARCH.update(samples=worlds, candidates=len(moves), simulations=worlds * len(moves))
        else:
            pick = decktet.POLICIES[level](state, seat, moves, rng)
        return pick.to_json()
    if level == "hard":
        pick = _hard(state, seat, moves, rng, budget_ms, sampler, max_samples)
    elif level in POLICIES:
        pick = POLICIES[level](state, seat, moves, rng)
    else:
        raise ValueError(f"unknown bot level {level!r}")
    return None if pick is None else pick.to_json()
