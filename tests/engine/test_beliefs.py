"""games.bots.beliefs: what ``hard`` infers about hidden hands from the public history.

The worlds it samples keep what the seat sees (its hand, the piles it sees, every
count) and put no card where the history proves it cannot be; its choice does not
depend on where the hidden cards really are."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.bots import Beliefs, RoundLog, decide
from games.engine import GAME_OVER, apply, build_rules, legal_actions, new_game, redeal_hidden, visible_events

from .helpers import arrange, card, ids_named

#: presets and options whose events move cards between hands in every way the
#: beliefs follow: draws and passes, challenges, swaps, rotations, shuffles, passes of
#: hands, Duo's draft, jump-ins
CASES = [
    ("standard", {}),
    ("standard", {"wild_draw_four": "bluff"}),
    ("standard", {"seven_zero": True, "jump_in": "exact"}),
    ("standard", {"draw_limit": None}),
    ("house", {}),
    ("standard_112", {"hand_pass_cards": True, "uno_card": True}),
    ("standard_112", {"swap_hands_card": True}),
    ("play_uno_com", {}),
    ("duo", {}),
]


def random_positions(preset: str, options: dict, games: int, seed: int):
    """(state, its round's events so far) after each random action of ``games`` games,
    out-of-turn actions (catches, jump-ins) included."""
    for g in range(games):
        rng = random.Random(f"{seed}:{g}")
        seats = 2 if preset == "duo" else rng.choice([2, 3, 4])
        dealt: list[dict] = []
        opts = options if preset == "duo" else {**options, "rounds": 1}
        state = new_game(preset, opts, seats, f"{preset}:{seed}:{g}", events=dealt)
        log = RoundLog(dealt)
        for _ in range(300):
            if state.phase == GAME_OVER:
                break
            yield state, log
            movers = [s for s in range(seats) if legal_actions(state, s)]
            if not movers:
                break
            actor = state.actor()
            seat = actor if actor in movers and rng.random() < 0.7 else rng.choice(movers)
            log.add(apply(state, seat, rng.choice(legal_actions(state, seat))))


def cards_of(state) -> Counter:
    return Counter(c for h in state.hands for c in h) + Counter(state.draw_pile) + Counter(state.discard)


@pytest.mark.parametrize("preset, options", CASES, ids=[f"{p}-{'-'.join(o) or 'plain'}" for p, o in CASES])
def test_the_beliefs_follow_every_hand_and_their_worlds_keep_what_the_seat_sees(preset, options):
    checked = known_seen = 0
    for n, (state, log) in enumerate(random_positions(preset, options, games=4, seed=1)):
        if n % 3:
            continue
        for me in range(state.seats):
            beliefs = Beliefs(state, me).feed(log.shown_to(me))
            for s in range(state.seats):
                if s == me:
                    continue
                belief = beliefs.hands[s]
                assert belief.count == len(state.hands[s]), (preset, s, "the events explain every count")
                assert all(c in state.hands[s] for c in belief.known), "a card is known only where it is"
                known_seen += len(belief.known)
            world, weight = beliefs.deal(state, me, random.Random(n))
            assert weight > 0
            assert world.hands[me] == state.hands[me] and world.discard == state.discard
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert len(world.draw_pile) == len(state.draw_pile)
            assert cards_of(world) == cards_of(state)
            for s in range(state.seats):
                if s != me:
                    assert set(beliefs.hands[s].known) <= set(world.hands[s]), "known cards stay where they are"
            checked += 1
    assert checked > 50
    if preset == "standard_112" or options.get("seven_zero"):
        assert known_seen, "hands that moved took what the seat knew of them along"


def deal_events(state) -> list[dict]:
    """The events of the deal of an arranged ``state`` (as the engine's deal emits them;
    arrange hands of one size: a deal gives every seat as many cards)."""
    deck = build_rules(state.config).deck
    events: list[dict] = [{"type": "round_started", "round": 1, "dealer": state.dealer}]
    events += [{"type": "hand", "seat": s, "cards": [deck.dicts[c] for c in h], "to": [s]}
               for s, h in enumerate(state.hands)]
    events.append({"type": "first_card", "card": deck.dicts[state.discard[-1]]})
    return events


def worlds(state, log, seat: int = 0, n: int = 200):
    beliefs = Beliefs(state, seat).feed(log.shown_to(seat))
    rng = random.Random(3)
    return [beliefs.deal(state, seat, rng) for _ in range(n)]


def playable(state, color: str, rank: str) -> frozenset[int]:
    return build_rules(state.config).playable_on(color, rank)


def test_a_draw_then_an_automatic_pass_leaves_nothing_playable_in_the_drawers_hand():
    """Seat 1 draws on a red 3 and the engine passes for it (the card drawn is not
    playable): in every world its hand holds nothing playable on the red 3 (its own
    cards: likely, drawing being allowed; the drawn card: proven)."""
    state = arrange(hands=[["blue 1", "blue 2", "green 4"], ["green 5", "yellow 6", "blue 8"]],
                    top="red 3", draw=["green 9"], current=1)
    log = RoundLog(deal_events(state))
    ev = apply(state, 1, {"type": "draw"})
    assert [e["type"] for e in ev][-1] == "pass" and ev[-1].get("auto")
    log.add(ev)
    ok = playable(state, "red", "3")
    sampled = worlds(state, log)
    for world, _ in sampled:
        assert not set(world.hands[1]) & ok
    assert len({tuple(sorted(w.hands[1])) for w, _ in sampled}) > 50, "the free cards still vary"


def test_a_pass_after_a_draw_proves_the_card_drawn_playable():
    """Seat 1 draws, may play the card drawn, and passes: it kept a playable card (with
    nothing playable drawn the engine passes by itself), so every world gives it one."""
    state = arrange(hands=[["blue 1", "blue 2"], ["green 5", "yellow 6"]], top="red 3", draw=["red 9"], current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "draw"}))
    log.add(apply(state, 1, {"type": "pass"}))
    ok = playable(state, "red", "3")
    for world, _ in worlds(state, log):
        assert len(set(world.hands[1]) & ok) >= 1


def test_a_swap_gives_the_other_seat_exactly_the_hand_given_away():
    state = arrange(options={"seven_zero": True}, hands=[["red 7", "blue 1", "green 2", "yellow 4"],
                                                         ["green 5", "yellow 6", "blue 8"],
                                                         ["green 6", "yellow 8", "blue 9"]],
                    top="red 3", current=0, seats=3)
    given = sorted(c for c in state.hands[0] if c != card(state, 0, "red 7"))
    log = RoundLog(deal_events(state))
    log.add(apply(state, 0, {"type": "play", "card": card(state, 0, "red 7"), "target_seat": 2}))
    assert sorted(state.hands[2]) == given
    for world, _ in worlds(state, log):
        assert sorted(world.hands[2]) == given
        assert world.hands[0] == state.hands[0]


def test_an_unchallenged_wild_draw_four_leaves_none_of_the_colour_it_covered():
    """``official``: a Wild Draw Four is legal without a card of the colour in force;
    accepted unchallenged, the worlds give its player none (likely: it may have bluffed)."""
    state = arrange(hands=[["blue 1", "blue 2", "green 4", "green 7"],
                           ["wild_draw_four", "green 5", "yellow 6", "blue 8"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "wild_draw_four"), "color": "green"}))
    log.add(apply(state, 0, {"type": "draw"}))  # accepted
    deck = build_rules(state.config).deck
    for world, _ in worlds(state, log):
        assert all(deck.color[c] != "red" for c in world.hands[1])


def test_a_challenge_that_finds_the_wild_draw_four_guilty_proves_nothing_about_the_colour():
    state = arrange(hands=[["blue 1", "blue 2", "green 4", "green 7"],
                           ["wild_draw_four", "red 5", "yellow 6", "blue 8"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "wild_draw_four"), "color": "green"}))
    shown = sorted(state.hands[1])
    ev = apply(state, 0, {"type": "challenge"})
    assert next(e for e in ev if e["type"] == "challenge")["guilty"]
    log.add(ev)
    beliefs = Beliefs(state, 0).feed(log.shown_to(0))
    assert sorted(beliefs.hands[1].known) == shown, "the challenger was shown the hand (then it drew the penalty)"
    assert beliefs.hands[1].slots == [frozenset()] * (len(state.hands[1]) - len(shown))
    for world, _ in worlds(state, log):
        assert set(shown) <= set(world.hands[1])


def wild_draw_four_to_answer():
    """Seat 1 plays a Wild Draw Four on a red 3 from a hand of eight (it holds a red 5:
    a bluff); seat 0 must answer it."""
    state = arrange(hands=[["blue 1", "blue 2", "green 4", "green 7", "yellow 1", "yellow 2", "blue 9", "green 9"],
                           ["wild_draw_four", "red 5", "yellow 6", "blue 8", "green 2", "yellow 3", "blue 4",
                            "green 8"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "wild_draw_four"), "color": "green"}))
    return state, log


def test_a_wild_draw_four_to_answer_is_dealt_as_a_bluff_as_well_as_an_honest_play():
    """Until it is answered, the worlds of the seat that must answer it hold hands with
    the colour it covered too (a bluff: a challenge would catch it, and the world's own
    pending penalty says so), weighed by ``BLUFF_WEIGHT``; once accepted, none (above)."""
    state, log = wild_draw_four_to_answer()
    deck = build_rules(state.config).deck
    bluffs = 0
    for world, weight in worlds(state, log):
        red = any(deck.color[c] == "red" for c in world.hands[1])
        assert world.decision().guilty == red
        assert weight > 0
        bluffs += red
    assert 100 < bluffs < 200, "seven unseen cards of the 95 unseen: most hands hold a red one"


def test_hard_challenges_a_wild_draw_four_its_worlds_make_a_likely_bluff():
    """Seven cards left after it: in most worlds its player held a red card, so catching
    it (the player draws 4, the challenger plays on) outweighs the risk (6 cards)."""
    state, log = wild_draw_four_to_answer()
    assert {a["type"] for a in legal_actions(state, 0)} == {"draw", "challenge"}
    picks = {decide("hard", state, 0, random.Random(seed), history=log.shown_to(0), max_samples=60)["type"]
             for seed in range(3)}
    assert picks == {"challenge"}


def test_the_last_play_weighs_the_worlds_by_the_choices_its_hand_had():
    """Seat 1 played a red 5 on a red 3: from a hand whose cards were all playable that
    was one choice among many, from a hand of nothing else playable the only one."""
    state = arrange(hands=[["blue 1", "blue 2", "green 1"], ["red 5", "green 6", "yellow 8"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "red 5")}))
    beliefs = Beliefs(state, 0).feed(log.shown_to(0))
    world = state.copy()
    world.hands[1] = [ids_named("green 6")[0], ids_named("yellow 8")[0]]
    assert beliefs.weight(world) == 1.0  # nothing else it held was playable: red 5 only
    world.hands[1] = [ids_named("red 6")[0], ids_named("wild")[0]]
    # a considered player: red 5 among red 5, red 6, wild; a casual one: among red 5, red 6
    assert beliefs.weight(world) == pytest.approx(0.5 * 1 / 3 + 0.5 * 1 / 2)
    # once its hand changed (it drew), the play says nothing about the hand it holds
    log.add(apply(state, 0, {"type": "draw"}))
    while state.actor() == 0:
        log.add(apply(state, 0, {"type": "pass"}))
    log.add(apply(state, 1, {"type": "draw"}))
    assert Beliefs(state, 0).feed(log.shown_to(0)).weight(world) == 1.0


def test_every_play_since_the_last_draw_weighs_the_worlds_with_the_cards_played_after_it():
    state = arrange(hands=[["blue 1", "blue 2", "green 1", "red 9"], ["red 5", "red 7", "green 6", "yellow 8"]],
                    top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "red 5")}))
    log.add(apply(state, 0, {"type": "play", "card": card(state, 0, "red 9")}))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "red 7")}))
    beliefs = Beliefs(state, 0).feed(log.shown_to(0))
    world = state.copy()
    world.hands[1] = [ids_named("green 6")[0], ids_named("yellow 8")[0]]
    # red 7 on the red 9: its only choice; red 5 on the red 3: red 5 or the red 7 it still held
    assert beliefs.weight(world) == pytest.approx(1 / 2)
    world.hands[1] = [ids_named("red 1")[0], ids_named("wild")[0]]
    # considered: red 7 among red 1, wild, red 7; red 5 among red 1, wild, red 7, red 5;
    # casual (its wild kept): among red 1, red 7, then red 1, red 7, red 5.  One model
    # of the player makes both plays: a mixture of the two models' chances of both
    # plays, not a product of each play's mixture
    assert beliefs.weight(world) == pytest.approx(0.5 * (1 / 3 * 1 / 4) + 0.5 * (1 / 2 * 1 / 3))


def test_a_wilds_colour_weighs_the_hands_that_hold_most_of_it_more():
    state = arrange(hands=[["blue 1", "blue 2", "green 1"], ["wild", "green 6", "yellow 8"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "wild"), "color": "green"}))
    beliefs = Beliefs(state, 0).feed(log.shown_to(0))
    world = state.copy()
    greens = [ids_named("green 6")[0], ids_named("green 8")[0]]
    world.hands[1] = greens
    most = beliefs.weight(world)
    world.hands[1] = [ids_named("yellow 6")[0], ids_named("yellow 8")[0]]
    other = beliefs.weight(world)
    world.hands[1] = [ids_named("yellow 6")[0], greens[0]]
    tie = beliefs.weight(world)
    assert most > tie > other > 0


def test_the_worlds_weigh_a_considered_and_a_casual_player_alike_before_their_plays_tell_them_apart():
    """A casual player picks a card, not a kind (a kind held twice, twice as often),
    and keeps its wilds while it has anything else to play, naming any colour; a
    considered one picks among the kinds and names the colour it holds most of."""
    state = arrange(hands=[["blue 1", "blue 2", "green 1"], ["red 5", "red 5", "red 6"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "red 5")}))
    beliefs = Beliefs(state, 0).feed(log.shown_to(0))
    world = state.copy()
    kept = next(c for c in ids_named("red 5") if c not in state.discard)  # (the other red 5)
    world.hands[1] = [kept, ids_named("red 6")[0]]
    assert beliefs.weight(world) == pytest.approx(0.5 * 1 / 2 + 0.5 * 2 / 3)  # kinds: red 5, red 6; cards: 2 of 3

    state = arrange(hands=[["blue 1", "blue 2", "green 1"], ["wild", "red 6", "green 6"]], top="red 3", current=1)
    log = RoundLog(deal_events(state))
    log.add(apply(state, 1, {"type": "play", "card": card(state, 1, "wild"), "color": "green"}))
    beliefs = Beliefs(state, 0).feed(log.shown_to(0))
    world = state.copy()
    named_green = 0.25 / 4 + 0.75 / 2  # green ties with another colour for the most held
    world.hands[1] = [ids_named("red 6")[0], ids_named("green 6")[0]]
    # a wild played with a red 6 in hand: only a considered player does that
    assert beliefs.weight(world) == pytest.approx(0.5 * 1 / 2 * named_green)
    world.hands[1] = [ids_named("yellow 8")[0], ids_named("green 6")[0]]
    # nothing else playable: both models play the wild; the casual one names any colour
    assert beliefs.weight(world) == pytest.approx(0.5 * named_green + 0.5 * 1 / 4)


def redealt(state, seat: int, beliefs: Beliefs, rng: random.Random):
    """``state`` with every card ``seat`` cannot see dealt again at random (counts kept,
    the cards the seat has seen go into a hand kept there): another real state the
    seat cannot tell from this one."""
    other = state.copy()
    keep = {s: [c for c in beliefs.hands[s].known if c in state.hands[s]] for s in range(state.seats) if s != seat}
    pool = list(other.draw_pile) + [c for s in keep for c in other.hands[s] if c not in keep[s]]
    rng.shuffle(pool)
    for s in keep:
        free = len(other.hands[s]) - len(keep[s])
        other.hands[s], pool = keep[s] + pool[:free], pool[free:]
        rng.shuffle(other.hands[s])
    other.draw_pile = pool
    return redeal_hidden(other, seat, rng)


@pytest.mark.parametrize("preset, options", CASES[:7], ids=[f"{p}-{'-'.join(o) or 'plain'}" for p, o in CASES[:7]])
def test_hards_choice_does_not_depend_on_the_cards_it_cannot_see(preset, options):
    """Re-deal every card the deciding seat cannot see (consistently with what it was
    shown): with the same random seed and a fixed number of worlds, ``hard`` decides
    the same."""
    compared = differ_in_hidden = 0
    for n, (state, log) in enumerate(random_positions(preset, options, games=3, seed=2)):
        if n % 5:
            continue
        seat = state.actor()
        if seat is None or len(legal_actions(state, seat)) < 2:
            continue
        history = log.shown_to(seat)
        beliefs = Beliefs(state, seat).feed(history)
        other = redealt(state, seat, beliefs, random.Random(n))
        assert legal_actions(other, seat) == legal_actions(state, seat)
        differ_in_hidden += other.hands != state.hands
        a = decide("hard", state, seat, random.Random(n), history=history, max_samples=6)
        b = decide("hard", other, seat, random.Random(n), history=history, max_samples=6)
        assert a == b, (preset, n)
        compared += 1
    assert compared >= 10 and differ_in_hidden >= compared // 2


def test_the_server_log_and_the_engine_agree_on_the_rounds_events():
    """``RoundLog`` keeps only the current round: what ``selectors.round_history``
    reads from the moves."""
    dealt: list[dict] = []
    state = new_game("standard", {"rounds": 2}, 2, "two-rounds", events=dealt)
    log = RoundLog(dealt)
    everything = list(dealt)
    rng = random.Random(4)
    while state.round < 2 and state.phase != GAME_OVER:
        seat = state.actor()
        ev = apply(state, seat, rng.choice(legal_actions(state, seat)))
        log.add(ev)
        everything += ev
    starts = [i for i, e in enumerate(everything) if e["type"] == "round_started"]
    assert log.events == everything[starts[-1]:]
    assert log.shown_to(0) == visible_events(everything[starts[-1]:], 0)
    assert all(0 in e["to"] for e in log.shown_to(0) if "to" in e)
