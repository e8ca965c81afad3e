"""RULES.md "The standard game": the deck, the deal, the dealer and the first card."""

import random
from collections import Counter
from functools import lru_cache

import pytest

from games.engine import COLORS, apply, get_deck, legal_actions, new_game, view

from .helpers import DECK, arrange, assert_conserved, card_name, ev_types, only, play


# -- the deck ------------------------------------------------------------------------------
def test_deck_has_108_cards_with_unique_ids():
    deck = get_deck("standard_108")
    assert len(deck) == 108
    assert [c.id for c in deck.cards] == list(range(108))
    assert deck.describe()["size"] == 108


def test_deck_counts_per_colour_and_rank():
    counts = Counter((DECK.color[c], DECK.rank[c]) for c in range(len(DECK)))
    for color in COLORS:
        assert counts[(color, "0")] == 1
        for rank in [str(n) for n in range(1, 10)] + ["skip", "reverse", "draw_two"]:
            assert counts[(color, rank)] == 2, (color, rank)
        assert sum(v for (c, _), v in counts.items() if c == color) == 25
    assert counts[(None, "wild")] == 4
    assert counts[(None, "wild_draw_four")] == 4
    assert sum(counts.values()) == 108
    assert set(counts) == (
        {(c, r) for c in COLORS for r in [str(n) for n in range(10)] + ["skip", "reverse", "draw_two"]}
        | {(None, "wild"), (None, "wild_draw_four")}
    )


@pytest.mark.parametrize(
    "rank, points",
    [(str(n), n) for n in range(10)]
    + [("skip", 20), ("reverse", 20), ("draw_two", 20), ("wild", 50), ("wild_draw_four", 50)],
)
def test_card_points(rank, points):
    values = {DECK.points[c] for c in range(len(DECK)) if DECK.rank[c] == rank}
    assert values == {points}


def test_card_dicts_describe_the_card():
    for c in range(len(DECK)):
        assert DECK.dicts[c] == {"id": c, "color": DECK.color[c], "rank": DECK.rank[c]}


# -- the deal --------------------------------------------------------------------------------
@pytest.mark.parametrize("seats", [2, 3, 4, 7, 10])
def test_seven_cards_dealt_to_each_player(seats):
    ev: list = []
    state = new_game("standard", {}, seats, seed=11, events=ev)
    assert [len(h) for h in state.hands] == [7] * seats
    assert len(state.discard) == 1
    assert len(state.draw_pile) == 108 - 7 * seats - 1
    assert_conserved(state)
    # every seat is told its own hand, privately
    hands = [e for e in ev if e["type"] == "hand"]
    assert sorted(e["seat"] for e in hands) == list(range(seats))
    for e in hands:
        assert e["to"] == [e["seat"]]
        assert [c["id"] for c in e["cards"]] == state.hands[e["seat"]]


def test_deal_is_reproducible_from_the_seed():
    a = new_game("standard", {}, 4, seed="abc")
    b = new_game("standard", {}, 4, seed="abc")
    assert a.to_dict() == b.to_dict()
    c = new_game("standard", {}, 4, seed="abd")
    assert c.hands != a.hands


def test_dealer_is_random_but_reproducible():
    dealers = [new_game("standard", {}, 4, seed=s).dealer for s in range(60)]
    assert dealers == [new_game("standard", {}, 4, seed=s).dealer for s in range(60)]
    assert set(dealers) == {0, 1, 2, 3}  # every seat deals for some seed
    ev: list = []
    state = new_game("standard", {}, 4, seed=5, events=ev)
    assert only(ev, "dealer_chosen")["seat"] == state.dealer
    assert only(ev, "round_started")["dealer"] == state.dealer


@lru_cache(maxsize=None)
def _first_card_game(rank: str, seats: int, returned: bool = False):
    """The first seed whose first card turned up has ``rank`` (and, if asked, whose
    deal returned a Wild Draw Four first)."""
    for seed in range(5000):
        ev: list = []
        state = new_game("standard", {}, seats, seed, events=ev)
        first = only(ev, "first_card")["card"]
        if first["rank"] == rank and (not returned or "first_card_returned" in ev_types(ev)):
            return seed, state.to_dict(), ev
    raise AssertionError(f"no seed turns up a {rank} first")


def _game(rank, seats=4, returned=False):
    from games.engine import State

    seed, d, ev = _first_card_game(rank, seats, returned)
    return seed, State.from_dict(d), ev


@pytest.mark.parametrize("rank", [str(n) for n in range(10)])
def test_first_card_number_player_left_of_dealer_starts(rank):
    _, state, ev = _game(rank)
    top = state.discard[-1]
    assert DECK.rank[top] == rank
    assert only(ev, "first_card")["card"] == DECK.dicts[top]
    assert state.current == (state.dealer + 1) % 4
    assert state.actor() == state.current
    assert state.direction == 1
    assert state.pending is None
    assert state.color == DECK.color[top]
    assert {a["type"] for a in legal_actions(state, state.current)} >= {"draw"}


def test_first_card_draw_two_first_player_draws_two_and_loses_turn():
    _, state, _ = _game("draw_two")
    first = (state.dealer + 1) % 4
    assert state.actor() == first
    assert state.pending["type"] == "penalty" and state.pending["amount"] == 2
    acts = legal_actions(state, first)
    assert acts == [{"type": "draw"}]  # no challenge, no play: the penalty must be taken
    ev = apply(state, first, {"type": "draw"})
    assert len(state.hands[first]) == 9
    assert only(ev, "draw")["count"] == 2
    assert state.actor() == (state.dealer + 2) % 4
    assert state.pending is None


def test_first_card_reverse_dealer_starts_and_play_goes_right():
    _, state, _ = _game("reverse")
    dealer = state.dealer
    assert state.actor() == dealer
    assert state.direction == -1
    assert view(state)["direction"] == "counterclockwise"
    # after the dealer's turn, the player to the dealer's right plays
    apply(state, dealer, {"type": "draw"})
    if state.actor() == dealer:  # drew a playable card: keep it
        apply(state, dealer, {"type": "pass"})
    assert state.actor() == (dealer - 1) % 4


def test_first_card_skip_first_player_is_skipped():
    _, state, _ = _game("skip")
    assert state.actor() == (state.dealer + 2) % 4
    assert state.pending is None
    assert state.direction == 1
    assert legal_actions(state, (state.dealer + 1) % 4) == []


def test_first_card_wild_first_player_names_colour_then_plays():
    _, state, _ = _game("wild")
    first = (state.dealer + 1) % 4
    assert state.color is None
    assert state.actor() == first
    assert legal_actions(state, first) == [{"type": "choose_color", "color": c} for c in COLORS]
    for other in range(4):
        if other != first:
            assert legal_actions(state, other) == []
    ev = apply(state, first, {"type": "choose_color", "color": "green"})
    assert only(ev, "color_chosen") == {"type": "color_chosen", "seat": first, "color": "green"}
    assert state.color == "green"
    assert state.actor() == first  # ... then plays
    plays = [a for a in legal_actions(state, first) if a["type"] == "play"]
    greens = [c for c in state.hands[first] if DECK.color[c] in ("green", None)]
    assert {a["card"] for a in plays} == set(greens)
    assert {"type": "draw"} in legal_actions(state, first)


@pytest.mark.parametrize("seats", [2, 4])
def test_first_card_wild_draw_four_is_returned_and_another_turned(seats):
    seed, state, ev = _game_returned(seats)
    types = ev_types(ev)
    assert "first_card_returned" in types
    assert all(e["rank"] == "wild_draw_four" for e in ev if e["type"] == "first_card_returned")
    assert types.index("first_card_returned") < types.index("first_card")
    assert DECK.rank[state.discard[-1]] != "wild_draw_four"
    assert len(state.discard) == 1
    assert len(state.draw_pile) == 108 - 7 * seats - 1  # the returned card is back in the deck
    assert_conserved(state)


def _game_returned(seats):
    from games.engine import State

    for seed in range(5000):
        ev: list = []
        state = new_game("standard", {}, seats, seed, events=ev)
        if "first_card_returned" in ev_types(ev):
            return seed, State.from_dict(state.to_dict()), ev
    raise AssertionError("no seed returns a first Wild Draw Four")


def test_first_card_never_wild_draw_four_over_many_seeds():
    seen = Counter()
    for seed in range(300):
        ev: list = []
        state = new_game("standard", {}, 3, seed, events=ev)
        seen[DECK.rank[state.discard[-1]]] += 1
        assert DECK.rank[state.discard[-1]] != "wild_draw_four"
        seen["returned"] += "first_card_returned" in ev_types(ev)
    assert seen["returned"] > 0


# -- the next round --------------------------------------------------------------------------
def test_dealer_passes_left_for_the_next_round():
    state = arrange(3, hands=[["red 5"], ["blue 1", "blue 2"], ["green 1"]], top="red 3", current=0, dealer=2)
    ev = play(state, 0, "red 5")
    assert only(ev, "round_ended")["winner"] == 0
    started = only(ev, "round_started")
    assert started["round"] == 2
    assert started["dealer"] == 0 == state.dealer  # seat 2 dealt round 1; the deal passes left
    assert [len(h) for h in state.hands] == [7, 7, 7]
    assert_conserved(state)
    # the player left of the new dealer starts (unless the first card says otherwise)
    rank = DECK.rank[state.discard[-1]]
    expected = {"skip": 2, "reverse": 0}.get(rank, 1)
    assert state.actor() == expected, card_name(state.discard[-1])


def test_dealer_passes_left_round_after_round():
    state = new_game("standard", {"rounds": 4}, 3, seed=9)
    dealers = [state.dealer]
    rnd = random.Random(1)
    for _ in range(20000):
        if state.status != "active":
            break
        seat = state.actor()
        acts = legal_actions(state, seat)
        plays = [a for a in acts if a["type"] != "draw"]
        apply(state, seat, rnd.choice(plays or acts))
        if state.round > len(dealers):
            dealers.append(state.dealer)
    assert state.status == "finished"
    assert len(dealers) >= 4
    for a, b in zip(dealers, dealers[1:]):
        assert b == (a + 1) % 3
