"""Benchmark of the bots (games/bots): strength and decision time.

    python bench/bots.py                         # all four parts, defaults below
    python bench/bots.py --part rlcard --games 2000 --procs 2
    python bench/bots.py --part roundrobin --games 400
    python bench/bots.py --part roundrobin --rr-games 100 --presets standard,duo
    python bench/bots.py --part roundrobin --rr-games 1000 --levels hard,normal   # one pairing
    python bench/bots.py --part timing --decisions 1000
    python bench/bots.py --budget-ms 30          # hard's search budget (default: HARD_BUDGET_MS)
    python bench/bots.py --part rlcard --reveal-opponent   # diagnostic: hard sees the opponent's hand
    python bench/bots.py --part beliefs --belief-games 300  # how well the beliefs know the opponent's hand
    python bench/bots.py --part table --games 2000 --seats 3,4,6 --opponents a,b,c --procs 2
    python bench/bots.py --part table --games 300 --seats 3,4 --samples 60   # screening: the same games anywhere

Parts (``--part``, default ``all``: every part but ``table``):

``rlcard``
    Our ``hard`` (and, as references, ``normal`` and RLCard's own random agent)
    heads-up against RLCard's ``uno-rule-v1`` rule agent, inside RLCard's UNO
    environment (``pip install rlcard``).  Our bots play through an adapter
    (:class:`OurAgent`), an RLCard agent that at each of its turns builds one of
    *our* engine's states consistent with what RLCard shows the player (its hand,
    the target card and colour, the opponent's card count, the cards played since
    the last reshuffle; every unseen card dealt at random from the rest of the
    108-card deck: a determinization), asks ``games.bots.choose`` among our legal
    actions that map onto RLCard's legal actions, and maps the answer back to an
    RLCard action.  With ``--infer`` (the default) the adapter also translates
    RLCard's public record of the game into our engine's events (:class:`RLHistory`:
    the cards played, the draws, the counts; it adds nothing RLCard's rules would
    prove) and ``hard`` deals its worlds from them exactly as it does on the server
    (``games.bots.Beliefs``, fed the round's events the seat was shown);
    ``--no-infer`` deals them uniformly.  Both seat orders are played equally
    (RLCard's player 0 starts).  Win rates come with a 95% Wilson interval.
    ``--reveal-opponent`` is a diagnostic, not a fair game: the adapter shows
    ``hard`` the opponent's real hand (only the draw pile stays hidden), which
    measures how much of the gap to a perfect player is hidden information.
``roundrobin``
    Our four levels (or those of ``--levels``) against each other in our own engine, in every preset of
    ``--presets`` (default: every preset of the catalogue, ``engine.PRESETS``): N
    games per pairing, heads-up where the preset allows two players (else its least
    seat count, the levels alternating round the table), one round where the preset
    takes ``rounds``, seats rotated; every seat also gets its out-of-turn chances
    (catching UNO, jumping in, buzzing).  A cell is the games the row level won alone
    (a win shared by both levels, Decktet-Uno's equal top scores, counts for neither).
    ``hard`` gets the round's events its seat was shown, as on the server.
``timing``
    Decision time of each level (``games.bots.decide``: observation + choice),
    median and p99, over in-turn decisions with more than one legal action,
    in our engine (each level against ``normal``), in one process.
``beliefs``
    How well ``hard``'s beliefs know the opponent's hand (RLCard's games, ``normal``
    playing our seat through the adapter, which feeds the beliefs as in part 1): at each
    decision with a choice, the chance the weighted worlds of ``Beliefs.deal`` give the
    opponent each colour and a wild, against its real hand (Brier scores, and a
    calibration row: of the cases the worlds gave about 0.6, the share that held it);
    beside it, uniformly dealt worlds.  Minutes instead of the hour part 1 needs to
    tell a change in the beliefs apart from the noise; a change that sharpens them may
    still not win more games.

``table``
    ``hard`` (``--focal``: other levels too, e.g. ``hard,normal``) in one seat of a table
    of 3, 4 or 6 (``--seats``), the seat rotated (seat ``i % seats`` in game i), every
    other seat filled by one agent (``--opponents``): (a) ``rule``, RLCard's
    ``uno-rule-v1`` re-implemented in our engine as RLCard's environment lets it play
    (:func:`rlcard_rule`: a Wild Draw Four only when nothing else is playable, always
    calls UNO, never catches, never challenges), (b) ``rule-wd4``, the same agent
    playing a Wild Draw Four whenever it holds one (a bluff when it holds the colour in
    force), (c) ``normal``.  ``standard``, one round; game i is dealt by the same seed
    in every cell of a seat count.  A cell: the games the focal seat won alone, its 95%
    Wilson interval, parity (1 / seats), the share times the seat count, the focal
    seat's decision times (median, p99), and the Wild Draw Fours: how many the focal
    seat faced, challenged and caught, how many the others played and how many of those
    were bluffs (the engine's guilt test).  ``--samples N``: ``hard`` searches N worlds
    per decision instead of its time budget, so a screening run gives the same games on
    a loaded machine (its decision times are then not budget figures).

How RLCard's UNO differs from ours (read from rlcard/games/uno/round.py):
one round, 2 players, no UNO call, no challenge; a player may draw only when it
holds nothing playable, and Wild Draw Four is legal only when nothing else is;
a drawn card is played at once when it is a wild (random colour, without its
+4 effect) or of the target's colour, otherwise it is kept and the turn passes;
Reverse with two players just passes the turn; Skip / Draw Two / Wild Draw Four
give the player another turn.  The adapter's engine options are
``{"rounds": 1, "two_player_replay": False, "wild_draw_four": "bluff"}`` (so
Reverse passes the turn, as in RLCard, and a Wild Draw Four played while anything else
was playable is a bluff: what RLCard forbids); since our bots decide only among RLCard's legal actions and a play of
the next-to-last card is always made with ``"uno": true``, the remaining
differences only affect what our ``hard`` bot's rollouts assume about the future
(the draw rule and the challenge).

Prints figures only; there are no assertions.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.bots import Beliefs, RoundLog, choose, decide  # noqa: E402
from games.bots.policies import HARD_BUDGET_MS, LEVELS  # noqa: E402
from games.bots import policies  # noqa: E402
from games.engine import (  # noqa: E402
    GAME_OVER, PLAY, PRESETS, InvalidOptions, State, apply, build_rules, get_deck, legal_actions, make_config, new_game, observe,
    redeal_hidden,
)

DECK = get_deck("standard_108")
RL_COLORS = {"r": "red", "g": "green", "b": "blue", "y": "yellow"}
OUR_COLORS = {v: k for k, v in RL_COLORS.items()}
RL_TRAITS = {
    **{str(i): str(i) for i in range(10)},
    "skip": "skip",
    "reverse": "reverse",
    "draw_2": "draw_two",
    "wild": "wild",
    "wild_draw_4": "wild_draw_four",
}
OUR_TRAITS = {v: k for k, v in RL_TRAITS.items()}
WILDS = ("wild", "wild_draw_four")
#: our engine's rules made as close to RLCard's as the options allow
ADAPTER_OPTIONS = {"rounds": 1, "two_player_replay": False, "wild_draw_four": "bluff"}
ADAPTER_CONFIG = make_config("standard", ADAPTER_OPTIONS, 2, "adapter")
#: ids of our deck per (colour, rank); colour None for wilds
IDS_BY_TYPE: dict[tuple[str | None, str], list[int]] = {}
for _cid in range(len(DECK)):
    IDS_BY_TYPE.setdefault((DECK.color[_cid], DECK.rank[_cid]), []).append(_cid)
#: an RLCard game that has not ended after this many steps is abandoned (never seen)
RL_STEP_CAP = 20_000
ENGINE_ACTION_CAP = 5_000


# --------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------
def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[k]


def game_seed(base: int, i: int) -> int:
    return (base * 1_000_003 + i * 7919) % (2**31 - 1)


# --------------------------------------------------------------------------------------
# RLCard <-> our engine
# --------------------------------------------------------------------------------------
def rl_type(card: str) -> tuple[tuple[str | None, str], str | None]:
    """An RLCard card string ('r-7', 'b-wild') -> ((our colour or None, our rank), colour named)."""
    c, t = card.split("-", 1)
    rank = RL_TRAITS[t]
    if rank in WILDS:
        return (None, rank), RL_COLORS[c]
    return (RL_COLORS[c], rank), RL_COLORS[c]


def rl_string(action: dict, hand_colour: str | None = None) -> str | None:
    """Our action -> the RLCard action id it means (None: no RLCard counterpart)."""
    kind = action.get("type")
    if kind == "draw":
        return "draw"
    if kind != "play":
        return None
    card = action.get("card")
    if not isinstance(card, int) or not 0 <= card < len(DECK):
        return None
    rank, colour = DECK.rank[card], DECK.color[card]
    if colour is None:
        colour = action.get("color")
        if colour is None:
            return None
    return f"{OUR_COLORS[colour]}-{OUR_TRAITS[rank]}"


def target_string(raw: dict, rl_legal: list[str] | None = None) -> str:
    """The target card with the colour in force.  RLCard's ``target`` string is made
    when the card is created: for a wild it names the card's original colour, not the
    one chosen (``UnoCard.str`` is not updated); ``played_cards`` (rebuilt from the
    cards) is right, and its last card is always the target, unless a reshuffle just
    emptied it: then a colour in force is read off the legal non-wild plays."""
    if raw["played_cards"]:
        return raw["played_cards"][-1]
    target = raw["target"]
    c, t = target.split("-", 1)
    if RL_TRAITS[t] in WILDS:
        for a in rl_legal if rl_legal is not None else raw["legal_actions"]:
            if a != "draw" and RL_TRAITS[a.split("-", 1)[1]] not in WILDS:
                return f"{a[0]}-{t}"
    return target


class Determinizer:
    """Builds one of our engine's states from an RLCard raw observation."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.anomalies = 0  # cards RLCard shows that our 108-card deck had no free id for

    def build(self, raw: dict) -> State:
        me = raw["current_player"]
        pool = {k: list(v) for k, v in IDS_BY_TYPE.items()}

        def take(kind: tuple[str | None, str], strict: bool = False) -> int | None:
            ids = pool.get(kind)
            if ids:
                return ids.pop()
            if strict:
                return None
            # RLCard can hold a card twice (it reshuffles the target card into the
            # deck): use any free card of the same rank, else any free card.
            self.anomalies += 1
            for (colour, rank), ids in pool.items():
                if rank == kind[1] and ids:
                    return ids.pop()
            for ids in pool.values():
                if ids:
                    return ids.pop()
            return None

        hand = [c for c in (take(rl_type(s)[0]) for s in raw["hand"]) if c is not None]
        below = list(raw["played_cards"])
        target_kind, colour = rl_type(target_string(raw))
        if below:
            below.pop()  # the target: the last card played (played_cards is empty after a reshuffle)
        top = take(target_kind)
        discard = [c for c in (take(rl_type(s)[0], strict=True) for s in below) if c is not None]
        self.rng.shuffle(discard)  # their order does not matter; keeps the pile unbiased
        discard.append(top)
        unseen = [c for ids in pool.values() for c in ids]
        self.rng.shuffle(unseen)
        need = raw["num_cards"][1 - me]
        while len(unseen) < need and len(discard) > 1:
            unseen.append(discard.pop(0))
        opp, draw_pile = unseen[:need], unseen[need:]
        state = State(ADAPTER_CONFIG.reseeded(f"rl:{self.rng.random()}"))
        state.phase, state.round, state.dealer = PLAY, 1, 1
        state.hands = [hand, opp]  # we are always seat 0 of our engine
        state.draw_pile, state.discard = draw_pile, discard
        state.current, state.direction, state.color = 0, 1, colour
        return state


def reveal_opponent(state: State, opponent_cards: list[str]) -> bool:
    """Diagnostic (``--reveal-opponent``): put the opponent's real cards (RLCard
    strings) into seat 1 of a determinized ``state``, taking them from its unseen
    cards.  False (state unchanged) if some card has no free id."""
    unseen = state.hands[1] + state.draw_pile
    hand = []
    for s in opponent_cards:
        kind, _ = rl_type(s)
        i = next((i for i, c in enumerate(unseen) if (DECK.color[c], DECK.rank[c]) == kind), None)
        if i is None:
            return False
        hand.append(unseen.pop(i))
    state.hands[1], state.draw_pile = hand, unseen
    return True


def shuffle_draw_pile(state: State, seat: int, rng: random.Random) -> State:
    """A sampler for a state whose hands are all known: only the draw pile is hidden."""
    world = state.copy()
    rng.shuffle(world.draw_pile)
    return redeal_hidden(world, seat, rng)


def restrict(legal: list[dict], rl_legal: list[str], hand_size: int) -> dict[str, dict]:
    """Our legal actions that map onto RLCard's legal ones: one per RLCard action id
    (a play of the next-to-last card with ``"uno": true``; RLCard has no UNO call)."""
    allowed = set(rl_legal)
    out: dict[str, dict] = {}
    for a in legal:
        s = rl_string(a)
        if s is None or s not in allowed:
            continue
        if a["type"] == "play" and hand_size == 2 and not a.get("uno"):
            continue
        out.setdefault(s, a)
    return out


def closest(rl_legal: list[str], wanted: str | None, rng: random.Random) -> str:
    """The legal RLCard action nearest to ``wanted`` (same card, else same rank, else colour)."""
    if wanted in rl_legal:
        return wanted
    if wanted and wanted != "draw":
        c, t = wanted.split("-", 1)
        for test in (lambda x: x.endswith("-" + t), lambda x: x.startswith(c + "-")):
            hits = [x for x in rl_legal if x != "draw" and test(x)]
            if hits:
                return hits[0]
    return rng.choice(rl_legal)


class RLHistory:
    """RLCard's public record of one game as our engine's events, for the product's
    inference (``games.bots.Beliefs``, which ``hard`` deals its worlds from): a
    translation only, of what RLCard shows a player.  Our bot is seat 0 of our engine,
    the opponent seat 1.  Each RLCard step becomes what our engine would have said:
    a card played (``play``, with the colour named), a draw (``draw``, reason
    ``draw``) and then, when RLCard played the drawn card at once (its rule), that
    card's ``play``, else the turn passing by itself (``pass`` with ``auto``, as our
    engine passes when nothing drawn is playable); a count that grew otherwise (a +2,
    a +4, the first card's effect) a penalty ``draw``.  RLCard's own rules are not
    passed on: a draw only without a playable card (the beliefs weigh a draw as our
    engine's players' draws are weighed: likely nothing playable), a Wild Draw Four
    only without another playable card (weighed by the adapter's rules,
    ``wild_draw_four: bluff``), a drawn card kept only when it is no wild and not of
    the colour in force (RLCard keeps one of the target's rank in another colour, which
    our engine would let the player play: that automatic pass says a little more than
    RLCard does, about one kept card in thirteen)."""

    def __init__(self) -> None:
        self.log = RoundLog()
        self.counts = [0, 0]

    @staticmethod
    def _card(kind: tuple[str | None, str]) -> dict:
        return {"id": IDS_BY_TYPE[kind][0], "color": kind[0], "rank": kind[1]}

    def start(self, env, our_pid: int) -> None:
        """The deal (after ``env.reset``): our hand, the first card, the counts."""
        raw = env.get_state(our_pid)["raw_obs"]
        hand = [self._card(rl_type(c)[0]) for c in raw["hand"]]
        colour, rank = public_target(env)
        first = (None if rank in WILDS else colour, rank)
        self.counts = [7, 7]
        events = [{"type": "round_started", "round": 1, "dealer": 1},
                  {"type": "hand", "seat": 0, "cards": hand[:7], "to": [0]},  # (the deal: 7 each)
                  {"type": "first_card", "card": self._card(first)}]
        if rank in WILDS:
            events.append({"type": "color_chosen", "seat": 1, "color": colour})
        self.log = RoundLog(events)
        self._penalties(raw["num_cards"], our_pid)

    def _penalties(self, num_cards: list[int], our_pid: int) -> None:
        """A count grown beyond the events so far: a penalty draw."""
        for seat, pid in ((0, our_pid), (1, 1 - our_pid)):
            grown = num_cards[pid] - self.counts[seat]
            if grown > 0:
                self.log.add([{"type": "draw", "seat": seat, "count": grown, "reason": "penalty"}])
            self.counts[seat] = num_cards[pid]

    def step(self, env, our_pid: int, actor_pid: int, action: str, counts_before: list[int]) -> None:
        """After ``env.step(action)`` by RLCard player ``actor_pid``."""
        seat = 0 if actor_pid == our_pid else 1
        colour, rank = public_target(env)
        num_cards = env.get_state(our_pid)["raw_obs"]["num_cards"]
        if action == "draw":
            self.log.add([{"type": "draw", "seat": seat, "count": 1, "reason": "draw"}])
            self.counts[seat] += 1
            if num_cards[actor_pid] == counts_before[actor_pid]:  # RLCard played the drawn card
                kind = (None if rank in WILDS else colour, rank)
                self.log.add([{"type": "play", "seat": seat, "card": self._card(kind), "color": colour}])
                self.counts[seat] -= 1
            else:  # RLCard kept the card and passed the turn by itself: our engine's automatic pass
                self.log.add([{"type": "pass", "seat": seat, "auto": True}])
        else:
            kind, named = rl_type(action)
            self.log.add([{"type": "play", "seat": seat, "card": self._card(kind), "color": named}])
            self.counts[seat] -= 1
        self._penalties(num_cards, our_pid)


def public_target(env) -> tuple[str, str]:
    """The colour in force and the target's rank, in our names (public information)."""
    t = env.game.round.target
    rank = RL_TRAITS[t.trait]
    return RL_COLORS[t.color], rank


class OurAgent:
    """An RLCard agent (raw actions) that plays one of our bot levels."""

    use_raw = True

    def __init__(self, level: str, seed: int, budget_ms: float | None, infer: bool = False):
        self.level = level
        self.rng = random.Random(seed)
        self.budget_ms = budget_ms
        self.det = Determinizer(self.rng)
        self.infer = infer
        self.history = RLHistory()
        self.decisions = 0
        self.choices = 0  # decisions with more than one legal action (the bot was asked)
        self.seconds = 0.0
        self.choice_seconds = 0.0
        self.fallbacks = 0
        #: ``--reveal-opponent`` (a diagnostic, not a fair game): the env whose
        #: opponent hand is shown to the bot
        self.reveal_env = None
        #: ``--part beliefs``: called with (our state, the sampler, RLCard's raw
        #: observation) at each decision with a choice, before the bot decides
        self.probe = None

    def reseed(self, seed: int) -> None:
        self.rng.seed(seed)
        self.history = RLHistory()

    def step(self, state: dict) -> str:
        return self.eval_step(state)[0]

    def eval_step(self, state: dict):
        t0 = time.perf_counter()
        rl_legal = list(state["raw_legal_actions"])
        raw = state["raw_obs"]
        if len(rl_legal) == 1:
            action = rl_legal[0]
        else:
            ours = self.det.build(raw)
            options = restrict(legal_actions(ours, 0), rl_legal, len(ours.hands[0]))
            picked = None
            if options:
                sampler = None
                if self.infer:  # what the product's hard infers from the game's events
                    sampler = Beliefs(ours, 0).feed(self.history.log.shown_to(0)).deal
                if self.probe is not None:
                    self.probe(ours, sampler, raw)
                if self.reveal_env is not None:
                    opponent = self.reveal_env.game.players[1 - raw["current_player"]].hand
                    if reveal_opponent(ours, [c.str for c in opponent]):
                        sampler = shuffle_draw_pile
                picked = choose(self.level, ours, 0, list(options.values()), self.rng, self.budget_ms,
                                sampler=sampler)
            wanted = rl_string(picked) if picked is not None else None
            if wanted not in rl_legal:
                self.fallbacks += 1
            action = closest(rl_legal, wanted, self.rng)
            self.choices += 1
            self.choice_seconds += time.perf_counter() - t0
        self.decisions += 1
        self.seconds += time.perf_counter() - t0
        return action, {}


class TimedAgent:
    """Wraps an RLCard agent to time its decisions."""

    def __init__(self, agent):
        self.agent = agent
        self.use_raw = agent.use_raw
        self.decisions = 0
        self.choices = 0
        self.seconds = 0.0
        self.choice_seconds = 0.0
        self.fallbacks = 0

    def reseed(self, seed: int) -> None:
        pass  # RLCard's agents use numpy's global generator, seeded per game

    def eval_step(self, state: dict):
        t0 = time.perf_counter()
        out = self.agent.eval_step(state)
        dt = time.perf_counter() - t0
        self.decisions += 1
        self.seconds += dt
        if len(state["legal_actions"]) > 1:
            self.choices += 1
            self.choice_seconds += dt
        return out


def _rl_chunk(args: tuple) -> dict:
    """Play games [start, stop) of one agent against RLCard's rule agent (``probe_worlds``:
    ``--part beliefs``'s number of worlds per decision, else 0)."""
    agent_name, start, stop, base_seed, budget_ms, infer, reveal, probe_worlds = args
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent
    from rlcard.models.uno_rule_models import UNORuleAgentV1

    env = rlcard.make("uno", config={"seed": base_seed})
    rule = UNORuleAgentV1()
    if agent_name == "rlcard-random":
        ours = TimedAgent(RandomAgent(num_actions=env.num_actions))
    else:
        ours = OurAgent(agent_name, base_seed, budget_ms, infer)
        if reveal:
            ours.reveal_env = env
    calibration = BeliefCheck(env, ours, probe_worlds) if probe_worlds else None
    wins = games = unfinished = steps = 0
    for i in range(start, stop):
        seed = game_seed(base_seed, i)
        env.seed(seed)
        np.random.seed(seed % (2**32))
        ours.reseed(seed)
        our_pid = i % 2  # seat orders alternate (RLCard's player 0 moves first)
        agents = [rule, rule]
        agents[our_pid] = ours
        try:
            state, pid = env.reset()
            n = 0
            history = getattr(ours, "history", None)
            if history is not None:
                history.start(env, our_pid)
            while not env.is_over() and n < RL_STEP_CAP:
                action, _ = agents[pid].eval_step(state)
                actor, counts = pid, list(state["raw_obs"]["num_cards"])
                state, pid = env.step(action, agents[pid].use_raw)
                n += 1
                if history is not None:  # public events only: the action, the target, the counts
                    history.step(env, our_pid, actor, action, counts)
            steps += n
        except (IndexError, ValueError):  # RLCard fails when both piles are empty
            unfinished += 1
            continue
        if not env.is_over():
            unfinished += 1
            continue
        games += 1
        wins += int(env.get_payoffs()[our_pid] > 0)
    anomalies = getattr(getattr(ours, "det", None), "anomalies", 0)
    return {
        "agent": agent_name, "games": games, "wins": wins, "unfinished": unfinished, "steps": steps,
        "decisions": ours.decisions, "choices": ours.choices, "seconds": ours.seconds,
        "choice_seconds": ours.choice_seconds, "fallbacks": ours.fallbacks, "anomalies": anomalies,
        "calibration": calibration.rows if calibration else [],
    }


def _chunks(n: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def _merge(parts: list[dict]) -> dict:
    out: dict = Counter()
    for p in parts:
        for k, v in p.items():
            if isinstance(v, (int, float)):
                out[k] += v
    return dict(out)


def _rlcard_version() -> str | None:
    """RLCard's version; None, said, when it is not installed (the part is skipped)."""
    try:
        import rlcard
    except ImportError:
        print("rlcard is not installed: pip install rlcard (skipping this part)")
        return None
    return rlcard.__version__


def _rl_games(pool, args, agent: str, games: int, budget_ms: float | None, infer: bool, reveal: bool = False,
              probe_worlds: int = 0) -> list[dict]:
    """``games`` games of ``agent`` against RLCard's rule agent, in chunks over ``pool``:
    each chunk's :func:`_rl_chunk` result."""
    size = max(1, min(50, games // (4 * max(1, args.procs)) or 1))
    jobs = [(agent, s, e, args.seed, budget_ms, infer, reveal, probe_worlds) for s, e in _chunks(games, size)]
    return list(pool.imap_unordered(_rl_chunk, jobs)) if pool else [_rl_chunk(j) for j in jobs]


def part_rlcard(args, pool) -> None:
    version = _rlcard_version()
    if version is None:
        return
    budget = args.budget_ms if args.budget_ms is not None else HARD_BUDGET_MS
    print(f"== Part 1: heads-up vs RLCard uno-rule-v1 in RLCard's UNO env "
          f"(rlcard {version}; {args.games} games per agent, seats alternated, "
          f"hard budget {budget:g} ms, {args.procs} procs, seed {args.seed}, "
          f"{'with' if args.infer else 'without'} inference from the opponent's actions)")
    rows = []
    if args.reveal_opponent:
        print("   DIAGNOSTIC --reveal-opponent: hard is shown the opponent's real hand (only the draw "
              "pile stays hidden); this measures what hidden information costs, it is not a fair game")
    for agent in ("hard", "normal", "rlcard-random"):
        t0 = time.perf_counter()
        m = _merge(_rl_games(pool, args, agent, args.games, budget, args.infer,
                             args.reveal_opponent and agent == "hard"))
        m["wall"] = time.perf_counter() - t0
        rows.append((agent, m))
        print(f"   {agent}: done in {m['wall']:.1f} s", flush=True)
    print()
    head = (f"{'agent':<16}{'games':>7}{'win rate':>10}{'95% CI':>18}{'mean ms/decision':>18}"
            f"{'mean ms/choice':>16}{'fallbacks':>11}")
    print(head)
    print("-" * len(head))
    for agent, m in rows:
        n, w = m["games"], m["wins"]
        lo, hi = wilson(w, n)
        dec = m["seconds"] / m["decisions"] * 1000 if m["decisions"] else float("nan")
        cho = m["choice_seconds"] / m["choices"] * 1000 if m["choices"] else float("nan")
        fb = str(m["fallbacks"]) if agent != "rlcard-random" else "-"
        label = {"rlcard-random": "random (RLCard)"}.get(agent, agent)
        print(f"{label:<16}{n:>7}{w / n if n else float('nan'):>10.1%}{f'[{lo:.1%}, {hi:.1%}]':>18}"
              f"{dec:>18.2f}{cho:>16.2f}{fb:>11}")
    print()
    for agent, m in rows:
        extra = f", {m['anomalies']} card(s) with no free id in our deck" if agent != "rlcard-random" else ""
        print(f"   {agent}: {m['decisions']} decisions ({m['choices']} with >1 legal action), "
              f"{m['unfinished']} unfinished game(s){extra}; fallbacks = answers that mapped to no "
              f"legal RLCard action")
    print("   win rate = games won by the agent against uno-rule-v1; ms/decision includes the adapter "
          "(state building and mapping); a decision with one legal action is answered without the bot")
    print()


COLOUR_NAMES = ("red", "green", "blue", "yellow")


class BeliefCheck:
    """``--part beliefs``: at each decision of our agent with a choice, what ``worlds``
    worlds dealt by the product's beliefs (``Beliefs.deal``, weighted) and dealt
    uniformly (``observe``) say of the opponent's hand (the chance it holds each
    colour, and a wild) beside its real hand, which RLCard knows.  A row: (the
    worlds' source, whether the opponent has drawn this round, the chances, the
    truth)."""

    def __init__(self, env, agent: "OurAgent", worlds: int) -> None:
        self.env, self.agent, self.worlds = env, agent, worlds
        self.rows: list[tuple[str, bool, list[float], list[int]]] = []
        agent.probe = self.probe

    def probe(self, ours: State, sampler, raw: dict) -> None:
        hand = self.env.game.players[1 - raw["current_player"]].hand
        truth = [int(any(c.type != "wild" and RL_COLORS[c.color] == k for c in hand)) for k in COLOUR_NAMES]
        truth.append(int(any(c.type == "wild" for c in hand)))
        drew = any(e["type"] == "draw" and e["seat"] == 1 for e in self.agent.history.log.events)
        for source, deal in (("beliefs", sampler), ("uniform", observe)):
            if deal is None:
                continue
            rng = random.Random(len(self.rows))
            total, chances = 0.0, [0.0] * 5
            for _ in range(self.worlds):
                dealt = deal(ours, 0, rng)
                world, weight = dealt if isinstance(dealt, tuple) else (dealt, 1.0)
                colours = {DECK.color[c] for c in world.hands[1]}
                held = [k in colours for k in COLOUR_NAMES] + [None in colours]
                total += weight
                chances = [x + weight * h for x, h in zip(chances, held)]
            if total > 0:
                self.rows.append((source, drew, [x / total for x in chances], truth))


def part_beliefs(args, pool) -> None:
    """How well the beliefs know the opponent's hand: Brier scores and calibration."""
    if _rlcard_version() is None:
        return
    n, worlds = args.belief_games, args.belief_worlds
    print(f"== Beliefs: what the worlds say of the opponent's hand against its real hand ({n} games of "
          f"normal vs uno-rule-v1 in RLCard's env, {worlds} worlds per decision, seed {args.seed})")
    t0 = time.perf_counter()
    parts = _rl_games(pool, args, "normal", n, None, True, probe_worlds=worlds)  # (the beliefs: always fed)
    rows = [r for p in parts for r in p["calibration"]]
    print(f"   {len(rows) // 2} decisions in {time.perf_counter() - t0:.1f} s")
    print()
    groups = [(source, drew) for source in ("beliefs", "uniform") for drew in (None, False, True)]
    head = f"{'worlds dealt by':<36}{'decisions':>10}{'Brier colours':>15}{'Brier wild':>12}"
    print(head + "   colour held: mean chance -> share held, per tenth of chance")
    print("-" * (len(head) + 60))
    for source, drew in groups:
        sel = [r for r in rows if r[0] == source and (drew is None or r[1] == drew)]
        if not sel:
            continue
        colours = sum((p - t) ** 2 for _, _, ps, ts in sel for p, t in zip(ps[:4], ts[:4])) / (4 * len(sel))
        wild = sum((ps[4] - ts[4]) ** 2 for _, _, ps, ts in sel) / len(sel)
        bins: dict[int, list[float]] = {}
        for _, _, ps, ts in sel:
            for p, t in zip(ps[:4], ts[:4]):
                b = bins.setdefault(min(9, int(p * 10)), [0, 0.0, 0])
                b[0] += 1
                b[1] += p
                b[2] += t
        label = source + ("" if drew is None else
                          ", opponent drew this round" if drew else ", opponent has not drawn")
        cells = " ".join(f"{b[1] / b[0]:.2f}->{b[2] / b[0]:.2f}" for _, b in sorted(bins.items()) if b[0] >= 30)
        print(f"{label:<36}{len(sel):>10}{colours:>15.4f}{wild:>12.4f}   {cells}")
    print()
    print("   Brier: mean squared gap between the worlds' chance and the truth (0 is perfect); a tenth "
          "with fewer than 30 cases is not shown")
    print()


# --------------------------------------------------------------------------------------
# Our engine: round robin and timing
# --------------------------------------------------------------------------------------
def play_engine_game(levels: tuple[str, ...], seed: int, budget_ms: float | None, timer: dict | None = None,
                     searches: list | None = None, preset: str = "standard", options: dict | None = None,
                     max_samples: int | None = None, stats: Counter | None = None, focal: int | None = None):
    """One game in our engine (default: a heads-up round of ``standard``; one seat per
    entry of ``levels``: a bot level, or an agent of ``TABLE_AGENTS``); returns the
    winning seats (several: a shared win, Decktet-Uno's equal top scores; None: abandoned).
    ``timer`` (seat -> list) collects that seat's decision times (>1 legal action);
    ``searches`` the simulations (samples x candidates) of each of its ``hard``
    searches (decisions with more than one candidate).  ``max_samples``: ``hard``
    searches that many worlds per decision instead of its time budget (the same games on
    any machine).  ``stats`` counts the Wild Draw Fours and their challenges, by role
    (``focal``: the seat ``focal``, ``other``: the rest): see :func:`_count_wd4`."""
    dealt: list[dict] = []
    state = new_game(preset, {"rounds": 1} if options is None else options, len(levels), seed, events=dealt)
    log = RoundLog(dealt)  # the round's events, as the server gives them to its hard bots
    rng = random.Random(seed)
    for _ in range(ENGINE_ACTION_CAP):
        if state.phase == GAME_OVER:
            return state.winners
        actor = state.actor()
        acted = False
        others = [s for s in range(len(levels)) if s != actor]
        for seat in (*others, actor):  # out-of-turn chances first (catching UNO), then the turn
            legal = legal_actions(state, seat)
            if not legal:
                continue
            policies.LAST_SEARCH.update(samples=0, candidates=0, simulations=0)
            t0 = time.perf_counter()
            agent = TABLE_AGENTS.get(levels[seat])
            if agent is not None:
                action = agent(state, seat, legal, rng)
            else:
                action = decide(levels[seat], state, seat, rng, budget_ms=budget_ms,
                                history=log.shown_to(seat) if levels[seat] == "hard" else None,
                                max_samples=max_samples)
            dt = time.perf_counter() - t0
            if timer is not None and seat in timer and seat == actor and len(legal) > 1:
                timer[seat].append(dt)
                if searches is not None and policies.LAST_SEARCH["candidates"] > 1:
                    searches.append(policies.LAST_SEARCH["simulations"])
            if action is None:
                if seat == actor:
                    action = legal[0]
                else:
                    continue
            if stats is not None:
                _count_wd4(stats, state, seat, action, "focal" if seat == focal else "other")
            log.add(apply(state, seat, action))
            acted = True
            break
        if not acted:
            return None
    return None


def _count_wd4(stats: Counter, state: State, seat: int, action: dict, role: str) -> None:
    """Count, before ``action`` is applied: a Wild Draw Four played by ``role``
    (``wd4:``), and whether it was a bluff (``bluff:``, the engine's guilt test); a
    Wild Draw Four ``role`` answered (``faced:``), challenged (``challenged:``) and
    caught (``caught:``: the challenge found it a bluff)."""
    rules = build_rules(state.config)
    if rules.guilt is None:
        return
    kind = action.get("type")
    if kind == "play" and rules.deck.rank[action["card"]] == "wild_draw_four":
        stats["wd4:" + role] += 1
        hand = [c for c in state.hands[seat] if c != action["card"]]
        prev_rank = rules.deck.rank[state.discard[-1]]
        stats["bluff:" + role] += int(rules.guilt(rules, hand, state.color, prev_rank))
        return
    p = state.decision()
    if p is not None and p.name == "penalty" and getattr(p, "challengeable", False) and state.actor() == seat:
        stats["faced:" + role] += 1
        if kind == "challenge":
            stats["challenged:" + role] += 1
            stats["caught:" + role] += int(bool(p.guilty))


# --------------------------------------------------------------------------------------
# RLCard's rule agent in our engine (``--part table``)
# --------------------------------------------------------------------------------------
def _most_colour(deck, hand: list[int], rng: random.Random) -> str:
    """The colour ``hand`` holds most of, ties to the first in the hand's order (RLCard's
    ``count_colors`` of the hand without its wilds, then ``max``); a hand of wilds only: any."""
    counts: dict[str, int] = {}
    for c in hand:
        colour = deck.color[c]
        if colour is not None:
            counts[colour] = counts.get(colour, 0) + 1
    if not counts:
        return rng.choice(COLOUR_NAMES)
    return max(counts, key=counts.__getitem__)


def rlcard_rule(state: State, seat: int, legal: list[dict], rng: random.Random, eager: bool = False) -> dict | None:
    """RLCard's ``uno-rule-v1`` (``rlcard/models/uno_rule_models.py``) in our engine, as
    RLCard's environment lets it play (``rlcard/games/uno/round.py``): it draws only
    when nothing is playable; a Wild Draw Four only when nothing else is (RLCard's legal
    actions), naming the colour its hand holds most of; otherwise a playable card of a
    colour at random (a kind held twice twice as often), a plain Wild (any colour) only
    when nothing of a colour is playable.  A card drawn is played at once when it is a
    wild (any colour) or of the colour in force, else kept (RLCard's draw).  It always
    calls UNO (with its play), never catches, never challenges (RLCard has no
    challenge): it draws a penalty.  ``eager``: it plays a Wild Draw Four whenever it
    holds one (what the same agent does where no rule forbids it: a bluff when it holds
    the colour in force)."""
    deck = build_rules(state.config).deck
    hand = state.hands[seat]
    if state.actor() != seat:
        return next((a for a in legal if a["type"] == "call_uno"), None)  # its own UNO, never a catch
    d = state.decision()
    name = d.name if d is not None else None
    types = {a["type"] for a in legal}
    if name == "penalty":
        return {"type": "draw"} if "draw" in types else legal[0]
    if name == "choose_color":
        return {"type": "choose_color", "color": _most_colour(deck, hand, rng)}
    plays = [a for a in legal if a["type"] == "play" and (len(hand) != 2 or a.get("uno"))] or \
        [a for a in legal if a["type"] == "play"]

    def pick(cards: list[int], colour: str | None = None) -> dict:
        card = rng.choice(cards)
        options = [a for a in plays if a["card"] == card and a.get("color") in (None, colour)]
        if colour is None and deck.color[card] is None:  # a wild: any colour
            options = [a for a in plays if a["card"] == card]
        return rng.choice(options)

    if name == "play_drawn":
        drawn = [a["card"] for a in plays]
        if drawn and (deck.color[drawn[0]] is None or deck.color[drawn[0]] == state.color):
            return pick(drawn[:1])
        return {"type": "pass"} if "pass" in types else legal[0]
    cards = list(dict.fromkeys(a["card"] for a in plays))  # (a card is listed once per colour and UNO)
    if not cards:
        for kind in ("draw", "pass", "end_turn"):
            if kind in types:
                return {"type": kind}
        return legal[0]
    wd4 = [c for c in cards if deck.rank[c] == "wild_draw_four"]
    wild = [c for c in cards if deck.color[c] is None and c not in wd4]
    coloured = [c for c in cards if deck.color[c] is not None]
    if wd4 and (eager or not (wild or coloured)):
        return pick(wd4[:1], _most_colour(deck, hand, rng))
    if coloured:
        return pick(coloured)
    return pick(wild[:1])


def rlcard_rule_eager(state: State, seat: int, legal: list[dict], rng: random.Random) -> dict | None:
    return rlcard_rule(state, seat, legal, rng, eager=True)


#: ``--part table``'s other seats (besides the bot levels): (a) RLCard's rule agent as its
#: environment lets it play, (b) the same agent with a Wild Draw Four whenever it holds one
TABLE_AGENTS = {"rule": rlcard_rule, "rule-wd4": rlcard_rule_eager}
#: ``--opponents`` letters
TABLE_OPPONENTS = {"a": "rule", "b": "rule-wd4", "c": "normal"}


def _table_chunk(args: tuple) -> dict:
    """Games [start, stop) of ``focal`` in one seat of ``seats`` (seat ``i % seats`` in
    game i: rotated) against ``other`` in every other seat; game i is dealt by
    ``game_seed(base_seed, i)`` whoever plays (the same deals for every condition)."""
    focal, other, seats, preset, options, start, stop, base_seed, budget_ms, samples = args
    stats: Counter = Counter()
    times: list[float] = []
    for i in range(start, stop):
        seat = i % seats
        levels = tuple(focal if s == seat else other for s in range(seats))
        timer = {seat: []}
        winners = play_engine_game(levels, game_seed(base_seed, i), budget_ms, timer, preset=preset, options=options,
                                   max_samples=samples, stats=stats, focal=seat)
        times.extend(timer[seat])
        if winners is None:
            stats["abandoned"] += 1
            continue
        stats["games"] += 1
        stats["wins"] += int(list(winners) == [seat])  # (a shared win counts for no one)
    return {"cell": (focal, other, seats), "stats": stats, "times": times}


def part_table(args, pool) -> None:
    """``hard`` (or the levels of ``--focal``) at tables of 3, 4, 6 seats against RLCard's
    rule agent (a), the same agent eager with its Wild Draw Fours (b) and ``normal`` (c)."""
    n = args.games
    budget = args.budget_ms if args.budget_ms is not None else HARD_BUDGET_MS
    preset = args.presets[0] if args.presets else "standard"
    options = {"rounds": 1}
    search = f"{args.samples} worlds per decision" if args.samples else f"a {budget:g} ms budget"
    print(f"== Part table: {', '.join(args.focal)} in one seat (rotated) against the others filled by one agent "
          f"({preset}, options {json.dumps(options)}, {n} games per cell, the same deals in every cell of a "
          f"seat count, hard searching {search}, {args.procs} procs, seed {args.seed})")
    print("   opponents: a = RLCard's uno-rule-v1 as its environment lets it play (a Wild Draw Four only when "
          "nothing else is playable), b = the same playing a Wild Draw Four whenever it holds one, c = normal")
    cells = [(f, TABLE_OPPONENTS[o], seats) for seats in args.seats for o in args.opponents for f in args.focal]
    size = max(1, min(25, n // (2 * max(1, args.procs)) or 1))
    jobs = [(f, o, seats, preset, options, s, e, args.seed, budget, args.samples)
            for f, o, seats in cells for s, e in _chunks(n, size)]
    t0 = time.perf_counter()
    parts = pool.imap_unordered(_table_chunk, jobs) if pool else map(_table_chunk, jobs)
    merged: dict[tuple, tuple[Counter, list[float]]] = {c: (Counter(), []) for c in cells}
    for done, p in enumerate(parts, 1):
        stats, times = merged[p["cell"]]
        stats.update(p["stats"])
        times.extend(p["times"])
        print(f"   {done}/{len(jobs)} chunks, {time.perf_counter() - t0:.0f} s", end="\r", file=sys.stderr, flush=True)
    print(f"   done in {time.perf_counter() - t0:.1f} s; load average after: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    head = (f"{'seats':<6}{'opponents':<14}{'focal':<8}{'games':>6}{'won':>6}{'share':>8}{'95% CI':>17}"
            f"{'parity':>8}{'x parity':>9}{'timed':>7}{'med ms':>8}{'p99 ms':>8}   Wild Draw Fours")
    print(head)
    print("-" * (len(head) + 60))
    letter = {v: k for k, v in TABLE_OPPONENTS.items()}
    for cell in cells:
        focal, other, seats = cell
        stats, times = merged[cell]
        g, w = stats["games"], stats["wins"]
        lo, hi = wilson(w, g)
        ms = sorted(t * 1000 for t in times)
        med = statistics.median(ms) if ms else float("nan")
        share = w / g if g else float("nan")
        wd4 = (f"focal challenged {stats['challenged:focal']} of {stats['faced:focal']} faced "
               f"({stats['caught:focal']} caught); others played {stats['wd4:other']} "
               f"({stats['bluff:other']} bluffs), focal {stats['wd4:focal']} ({stats['bluff:focal']} bluffs), "
               f"challenged {stats['challenged:other']} ({stats['caught:other']} caught)")
        abandoned = f" ({stats['abandoned']} abandoned)" if stats["abandoned"] else ""
        print(f"{seats:<6}{f'({letter[other]}) {other}':<14}{focal:<8}{g:>6}{w:>6}{share:>8.1%}"
              f"{f'[{lo:.1%}, {hi:.1%}]':>17}{1 / seats:>8.1%}{share * seats:>9.2f}{len(ms):>7}{med:>8.1f}"
              f"{percentile(ms, 99):>8.1f}   {wd4}{abandoned}")
    print()
    print("   share: games the focal seat won (one round); x parity: the share times the seat count; timed, ms: "
          "the focal seat's in-turn decisions with more than one legal action (valid budget figures only on an idle "
          "machine and without --samples)")
    print()


def _rr_chunk(args: tuple) -> dict:
    """Games [start, stop) of level ``a`` against level ``b`` in ``preset``: seat s is
    played by ``(a, b)[(s + i) % 2]`` in game i (seats rotated); a win is a game only
    ``a``'s seats won."""
    a, b, preset, options, seats, start, stop, base_seed, budget_ms, samples = args
    wins = Counter()
    games = 0
    for i in range(start, stop):
        levels = tuple((a, b)[(s + i) % 2] for s in range(seats))
        winners = play_engine_game(levels, game_seed(base_seed, i), budget_ms, preset=preset, options=options,
                                   max_samples=samples)
        if winners is None:
            continue
        games += 1
        won = {levels[s] for s in winners}
        if len(won) == 1:
            wins[won.pop()] += 1
    return {"pair": (a, b), "games": games, "wins": wins[a], "wins_b": wins[b], "abandoned": (stop - start) - games}


def preset_table(preset: str) -> tuple[dict, int] | None:
    """(options, seats) of ``preset``'s hard-vs-normal games: one round where it takes
    ``rounds``; two seats where it allows them, else its least count its options take;
    None when no count does."""
    options = {"rounds": 1}
    try:
        make_config(preset, options, PRESETS[preset].min_seats, "check")
    except InvalidOptions as exc:
        if exc.option != "max_players":
            options = {}
    p = PRESETS[preset]
    for seats in range(max(2, p.min_seats), p.max_seats + 1):
        try:
            make_config(preset, options, seats, "check")
        except InvalidOptions:
            continue
        return options, seats
    return None


def _rate(wins: int, games: int, width: int = 16) -> str:
    if not games:
        return f"{'n/a':>{width}}"
    lo, hi = wilson(wins, games)
    return f"{f'{wins / games:.1%} ±{(hi - lo) / 2:.1%}':>{width}}"


def part_roundrobin(args, pool) -> None:
    for preset in list(PRESETS) if args.presets is None else args.presets:
        part_levels(args, pool, preset)


def part_levels(args, pool, preset: str) -> None:
    """The four levels against each other in ``preset`` (heads-up where it allows two
    players, one round where it takes rounds: ``preset_table``)."""
    n = args.rr_games if args.rr_games is not None else min(args.games, 500)
    budget = args.budget_ms if args.budget_ms is not None else HARD_BUDGET_MS
    table = preset_table(preset)
    if table is None:
        print(f"== {preset}: skipped (no seat count its options take)")
        return
    options, seats = table
    search = f"hard searching {args.samples} worlds per decision" if args.samples else f"hard budget {budget:g} ms"
    print(f"== Part 2: round robin in our engine ({preset}, {seats} seats, options {json.dumps(options)}, {n} games "
          f"per pairing, seats rotated, {search}, {args.procs} procs, seed {args.seed})")
    levels = args.levels or LEVELS
    pairs = [(levels[i], levels[j]) for i in range(len(levels)) for j in range(i + 1, len(levels))]
    size = max(1, min(25, n // (2 * max(1, args.procs)) or 1))
    jobs = [(a, b, preset, options, seats, s, e, args.seed, budget, args.samples)
            for a, b in pairs for s, e in _chunks(n, size)]
    t0 = time.perf_counter()
    parts = list(pool.imap_unordered(_rr_chunk, jobs)) if pool else [_rr_chunk(j) for j in jobs]
    res: dict[tuple[str, str], list[int]] = {}  # (a, b) -> [a's wins, b's wins, games]
    abandoned = 0
    for p in parts:
        r = res.setdefault(p["pair"], [0, 0, 0])
        r[0] += p["wins"]
        r[1] += p["wins_b"]
        r[2] += p["games"]
        abandoned += p["abandoned"]
    print(f"   done in {time.perf_counter() - t0:.1f} s; {abandoned} game(s) abandoned at "
          f"{ENGINE_ACTION_CAP} actions")
    print("   cell: games the row level won against the column level (a shared win counts for neither), "
          "95% CI half-width (Wilson)")
    print()
    width = 18
    print(f"{'row vs col':<10}" + "".join(f"{lv:>{width}}" for lv in levels))
    for r in levels:
        cells = []
        for c in levels:
            if r == c:
                cells.append(f"{'-':>{width}}")
                continue
            if (r, c) in res:
                w, _, g = res[(r, c)]
            else:
                _, w, g = res[(c, r)]
            cells.append(f"{_rate(w, g, width) if g else 'n/a':>{width}}")
        print(f"{r:<10}" + "".join(cells))
    print()


def part_timing(args) -> None:
    budget = args.budget_ms if args.budget_ms is not None else HARD_BUDGET_MS
    print(f"== Part 3: decision time per level in our engine (decide(): observation + choice; in-turn "
          f"decisions with >1 legal action; each level vs normal, heads-up, one process, "
          f"hard budget {budget:g} ms, up to {args.decisions} decisions per level)")
    print()
    head = f"{'level':<8}{'decisions':>10}{'median ms':>12}{'p99 ms':>10}{'max ms':>10}{'games':>7}"
    print(head)
    print("-" * len(head))
    searches: list[int] = []
    for level in LEVELS:
        times: list[float] = []
        i = 0
        t0 = time.perf_counter()
        while len(times) < args.decisions and i < 100_000:
            seed = game_seed(args.seed + 17, i)
            seat = i % 2
            levels = (level, "normal") if seat == 0 else ("normal", level)
            timer = {seat: []}
            play_engine_game(levels, seed, budget, timer, searches if level == "hard" else None)
            times.extend(timer[seat])
            i += 1
        times = sorted(times[: args.decisions])
        ms = [t * 1000 for t in times]
        print(f"{level:<8}{len(ms):>10}{statistics.median(ms) if ms else float('nan'):>12.3f}"
              f"{percentile(ms, 99):>10.3f}{(ms[-1] if ms else float('nan')):>10.3f}{i:>7}"
              f"   ({time.perf_counter() - t0:.1f} s)", flush=True)
    print()
    if searches:
        print(f"hard: {len(searches)} searches (decisions with more than one candidate): simulations per search "
              f"(samples x candidates, each a rollout of up to {policies.HARD_ROLLOUT_DEPTH} actions) median "
              f"{statistics.median(searches):.0f}, mean {statistics.mean(searches):.0f}")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()


# --------------------------------------------------------------------------------------
def _preset_list(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in names if t not in PRESETS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown preset(s) {', '.join(unknown) or '(none)'}; "
                                         f"presets: {', '.join(PRESETS)}")
    return names


def _level_list(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in names if t not in LEVELS]
    if unknown or len(set(names)) < 2:
        raise argparse.ArgumentTypeError(f"two or more of {', '.join(LEVELS)} (got {text!r})")
    return list(dict.fromkeys(names))


def _int_list(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"comma-separated seat counts (got {text!r})") from None
    if not values or any(v < 2 or v > 10 for v in values):
        raise argparse.ArgumentTypeError(f"seat counts from 2 to 10 (got {text!r})")
    return values


def _opponent_list(text: str) -> list[str]:
    letters = [t.strip() for t in text.split(",") if t.strip()]
    if not letters or any(t not in TABLE_OPPONENTS for t in letters):
        raise argparse.ArgumentTypeError(f"letters of {','.join(TABLE_OPPONENTS)} (got {text!r})")
    return list(dict.fromkeys(letters))


def _focal_list(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names or any(t not in LEVELS for t in names):
        raise argparse.ArgumentTypeError(f"levels of {', '.join(LEVELS)} (got {text!r})")
    return list(dict.fromkeys(names))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("rlcard", "roundrobin", "timing", "beliefs", "table", "all"), default="all",
                    help="which part (default all: every part but table)")
    ap.add_argument("--games", type=int, default=2000, help="games per agent vs RLCard, and per pairing in "
                    "the round robin (default 2000)")
    ap.add_argument("--rr-games", type=int, default=None, help="games per pairing in the round robin "
                    "(default: --games, at most 500: three pairings involve hard)")
    ap.add_argument("--presets", type=_preset_list, default=None,
                    help="comma-separated presets of the round robin's hard-vs-normal part (default: every preset "
                    f"of the catalogue: {','.join(PRESETS)})")
    ap.add_argument("--levels", type=_level_list, default=None,
                    help=f"comma-separated levels of the round robin (default: all four, {','.join(LEVELS)}); "
                    "e.g. hard,normal plays that one pairing")
    ap.add_argument("--decisions", type=int, default=1000, help="timed decisions per level (default 1000)")
    ap.add_argument("--belief-games", type=int, default=300, help="games of the beliefs part (default 300)")
    ap.add_argument("--belief-worlds", type=int, default=60,
                    help="worlds per decision in the beliefs part (default 60)")
    ap.add_argument("--procs", type=int, default=2, help="parallel processes (default 2)")
    ap.add_argument("--budget-ms", type=float, default=None,
                    help=f"hard's time budget per decision (default HARD_BUDGET_MS = {HARD_BUDGET_MS:g})")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seats", type=_int_list, default=[3, 4, 6],
                    help="the table part's seat counts, comma-separated (default 3,4,6)")
    ap.add_argument("--opponents", type=_opponent_list, default=list(TABLE_OPPONENTS),
                    help="the table part's other seats, comma-separated letters: a = RLCard's rule agent, b = the "
                    "same with a Wild Draw Four whenever it holds one, c = normal (default a,b,c)")
    ap.add_argument("--focal", type=_focal_list, default=["hard"],
                    help="the level(s) in the table part's focal seat, comma-separated (default hard; e.g. "
                    "hard,normal for normal in the same seat as a reference)")
    ap.add_argument("--samples", type=int, default=None,
                    help="the table and round robin parts: hard searches this many worlds per decision instead of "
                    "its time budget (the same games on any machine, whatever its load)")
    ap.add_argument("--infer", action=argparse.BooleanOptionalAction, default=True,
                    help="the adapter tells hard what RLCard's rules prove about the opponent's hand "
                    "(its forced draws, its Wild Draw Fours) and hard samples under it")
    ap.add_argument("--reveal-opponent", action="store_true",
                    help="diagnostic: show hard the opponent's real hand in part 1 (what perfect "
                    "knowledge of it would be worth; not a fair game)")
    args = ap.parse_args()

    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    pool = None
    if args.procs > 1 and args.part in ("rlcard", "roundrobin", "beliefs", "table", "all"):
        pool = mp.get_context("fork").Pool(args.procs)
    try:
        if args.part in ("rlcard", "all"):
            part_rlcard(args, pool)
        if args.part in ("roundrobin", "all"):
            part_roundrobin(args, pool)
        if args.part in ("timing", "all"):
            part_timing(args)
        if args.part in ("beliefs", "all"):
            part_beliefs(args, pool)
        if args.part == "table":
            part_table(args, pool)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


if __name__ == "__main__":
    main()
