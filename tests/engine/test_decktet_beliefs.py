"""What ``hard`` infers about the other Decktet-Uno hands from the round's events
(``games.bots.decktet.DecktetBeliefs``): a card set aside face down proves its player
held nothing that scored, a card played face up was likely the best it held; the
worlds it deals keep what the seat sees, and its decision does not depend on the
cards it cannot see."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.bots import DecktetBeliefs, RoundLog, decide
from games.engine import DECKTET_POINTS as POINTS, GAME_OVER, apply, legal_actions, new_game, redeal_hidden

from .helpers import card_in
from .test_beliefs import deal_events
from .test_decktet import DESERT, table


def _worlds(state, log, seat: int = 0, n: int = 100):
    beliefs = DecktetBeliefs(state, seat).feed(log.shown_to(seat))
    rng = random.Random(5)
    return beliefs, [beliefs.deal(state, seat, rng)[0] for _ in range(n)]


def test_a_card_set_aside_proves_the_cards_kept_scored_nothing_on_the_top():
    """Seat 0 holds nothing that scores on the Ace of Leaves and sets the Island aside: in
    every world seat 1 deals, the two cards seat 0 kept share no suit with the Ace of
    Leaves (only the card it drew after may)."""
    state = table([["Island", DESERT, "Bard"], ["Penitent", "Ace of Moons", "Ace of Knots"]],
                  top="Ace of Leaves", draw=("Huntress", "Calamity", "Windfall"), options={"face_down": True})
    top = state.discard[-1]
    log = RoundLog(deal_events(state))
    log.add(apply(state, 0, {"type": "play_face_down", "card": card_in(state, 0, "Island")}))
    beliefs, worlds = _worlds(state, log, seat=1)
    assert [bool(s) for s in beliefs.hands[0].slots] == [True, True, False]
    scoring = Counter()
    for world in worlds:
        scoring[sum(1 for c in world.hands[0] if POINTS[top][c])] += 1
        assert len(world.hands[0]) == 3 and world.hands[1] == state.hands[1]
    assert set(scoring) <= {0, 1} and scoring[1] > 0, "only the card drawn after may score"


def test_a_card_played_face_up_makes_the_hands_that_held_a_better_one_unlikely():
    """Seat 0 plays the Ace of Moons (1 point on the Harvest: moons suns leaves): the two
    cards it kept are dealt among those scoring no more than 3 on it."""
    state = table([["Ace of Moons", "Sea", "Bard"], ["Penitent", "Ace of Knots", "Sailor"]],
                  top="Harvest", draw=("Huntress", "Calamity", "Windfall"))
    top = state.discard[-1]
    played = card_in(state, 0, "Ace of Moons")
    log = RoundLog(deal_events(state))
    log.add(apply(state, 0, {"type": "play", "card": played}))
    _, worlds = _worlds(state, log, seat=1)
    for world in worlds:
        better = [c for c in world.hands[0] if POINTS[top][c] > POINTS[top][played]]
        assert len(better) <= 1, "at most the card drawn after scores more"


def test_a_play_that_contradicts_the_likely_evidence_drops_it():
    """Seat 0 played a card worth less than one it kept (not greedy) and drew nothing (the
    deck is out): when it plays the card it kept, what the first play suggested is
    dropped, not believed against the facts; what the new play suggests is kept."""
    state = table([["Ace of Moons", "Mountain", "Bard"], ["Penitent", "Ace of Knots", "Sailor"]], top="Harvest")
    log = RoundLog(deal_events(state))
    state.draw_pile = []  # (the deck is out: the cards not dealt play no part here)
    log.add(apply(state, 0, {"type": "play", "card": card_in(state, 0, "Ace of Moons")}))  # 3; the Mountain: 6
    penitent = card_in(state, 1, "Penitent")
    log.add(apply(state, 1, {"type": "play", "card": penitent}))
    mountain = card_in(state, 0, "Mountain")
    log.add(apply(state, 0, {"type": "play", "card": mountain}))
    beliefs = DecktetBeliefs(state, 1).feed(log.shown_to(1))
    assert beliefs.hands[0].count == len(state.hands[0]) == 1
    row = POINTS[penitent]
    assert beliefs.hands[0].slots == [frozenset(c for c in range(len(row)) if row[c] > row[mountain])]


def _positions(options: dict, games: int, seed: int):
    """(state, its events so far) along random Decktet-Uno games, the players greedy
    most of the time (as the beliefs expect) and random now and then."""
    for g in range(games):
        rng = random.Random(f"{seed}:{g}")
        seats = rng.choice([2, 3, 4])
        dealt: list[dict] = []
        state = new_game("decktet_uno", options, seats, f"decktet:{seed}:{g}", events=dealt)
        log = RoundLog(dealt)
        while state.phase != GAME_OVER:
            yield state, log
            seat = state.current
            legal = legal_actions(state, seat)
            if rng.random() < 0.7:
                action = decide("normal", state, seat, rng)
            else:
                action = rng.choice(legal)
            log.add(apply(state, seat, action))


def _cards(state) -> Counter:
    return (Counter(c for h in state.hands for c in h) + Counter(state.draw_pile) + Counter(state.discard)
            + Counter(a[1] for a in state.aside))


@pytest.mark.parametrize("options", [{}, {"face_down": True}], ids=["plain", "face_down"])
def test_the_beliefs_count_every_hand_and_their_worlds_keep_what_the_seat_sees(options):
    checked = 0
    for n, (state, log) in enumerate(_positions(options, games=6, seed=1)):
        if n % 3:
            continue
        for me in range(state.seats):
            beliefs = DecktetBeliefs(state, me).feed(log.shown_to(me))
            for s in range(state.seats):
                if s != me:
                    assert beliefs.hands[s].count == len(state.hands[s]), (n, me, s)
            world, weight = beliefs.deal(state, me, random.Random(n))
            assert weight == 1.0
            assert world.hands[me] == state.hands[me] and world.discard == state.discard
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert [a for a in world.aside if a[0] == me] == [a for a in state.aside if a[0] == me]
            assert _cards(world) == _cards(state)
            checked += 1
    assert checked > 50


def _redealt(state, seat: int, rng: random.Random):
    """``state`` with every card ``seat`` cannot see dealt again at random (the others'
    hands, the draw pile, a card another set aside), counts kept."""
    other = state.copy()
    pool = list(other.draw_pile) + [c for s, h in enumerate(other.hands) if s != seat for c in h]
    aside = [a for a in other.aside if a[0] != seat]
    pool += [a[1] for a in aside]
    rng.shuffle(pool)
    for a in aside:
        a[1] = pool.pop()
    for s in range(other.seats):
        if s != seat:
            k = len(other.hands[s])
            other.hands[s], pool = pool[:k], pool[k:]
    other.draw_pile = pool
    return redeal_hidden(other, seat, rng)


def test_hards_choice_does_not_depend_on_the_cards_it_cannot_see():
    compared = differ = 0
    for n, (state, log) in enumerate(_positions({"face_down": True}, games=4, seed=2)):
        if n % 3:
            continue
        seat = state.current
        if len(legal_actions(state, seat)) < 2:
            continue
        other = _redealt(state, seat, random.Random(n))
        assert legal_actions(other, seat) == legal_actions(state, seat)
        differ += other.hands != state.hands
        history = log.shown_to(seat)
        a = decide("hard", state, seat, random.Random(n), history=history, max_samples=6)
        b = decide("hard", other, seat, random.Random(n), history=history, max_samples=6)
        assert a == b, n
        compared += 1
    assert compared >= 10 and differ >= compared // 2
