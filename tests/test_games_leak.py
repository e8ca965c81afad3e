"""Hidden information never leaks: random games through the API, checked at every step.

After every action, what each seated player and a spectator are shown (the game,
the move history, the action's own response, error documents, and every log record
written meanwhile) is walked for card references: card objects ``{"id", "color",
"rank"}`` and the ``card`` ids of actions.  None may name a card that is, at that
moment, in another player's hand or in the draw pile, unless the viewer has
legitimately seen it there in this round (a card it held before its hand changed
owners, a card seen on the discard pile before it was reshuffled into the draw pile,
a hand shown to it by a challenge).  The truth comes from the Game row's state.

Card ids are small integers and restart with every round, so the check is
structural (never a substring search) and each reference is judged in the round it
belongs to (events after a ``round_started`` belong to the new round).

Nor may the game's seed, which every shuffle derives from, be shown anywhere (as a
field or inside any text) while the game runs: only its ``shuffle_commitment``.
"""

from __future__ import annotations

import json
import logging
import random
import re
from typing import Any, Iterator

import pytest

from games import engine
from games.models import Game, GameStatus, Move
from tests.games_support import (
    all_moves,
    by_seat,
    clients,  # noqa: F401 (fixture)
    fix_seeds,
    game_url,
    start_table,
    walk,
)
from tests.helpers import assert_json, assert_problem
from tests.presets_support import (
    HAND_MOVING, accepted, extra_card_options, hand_moving_options, presets, seat_counts, seats_for, short,
)

pytestmark = pytest.mark.django_db

#: the event types that are always private (the engine's event registry)
PRIVATE_EVENTS = engine.events.private_types() | {"hand", "cards_drawn", "hand_revealed"}


def card_refs(value: Any) -> Iterator[int]:
    """Every card id named in ``value``: card objects and the ``card`` of actions."""
    for node in walk(value):
        if isinstance(node, dict):
            if "rank" in node and isinstance(node.get("id"), int):
                yield node["id"]
            if isinstance(node.get("card"), int) and not isinstance(node.get("card"), bool):
                yield node["card"]
            for key in ("draw_pile", "hands", "drawn", "discard"):
                if key in node:
                    raise AssertionError(f"a raw engine pile/hand {key!r} is exposed: {node}")


def event_refs(events: list[dict], round_no: int) -> Iterator[tuple[int, int, dict]]:
    """(round, card id, event) for every card named in ``events`` (which start in
    ``round_no``; a ``round_started`` event opens the next round)."""
    for e in events:
        if e.get("type") == "round_started":
            round_no = e["round"]
        for card in card_refs(e):
            yield round_no, card, e


class Truth:
    """The true state of the game, and what each viewer may legitimately know."""

    def __init__(self, gid: int, seats: int):
        self.gid = gid
        self.viewers: list[int | None] = [*range(seats), None]
        self.known: dict[int | None, set[int]] = {v: set() for v in self.viewers}
        self.round = 0
        self._round_start: tuple[int, int] | None = None
        self.refresh()

    def refresh(self, challenge_by: int | None = None, offender_hand: list[int] | None = None) -> None:
        game = Game.objects.get(pk=self.gid)
        self.game = game
        self.state = engine.State.from_dict(game.state)
        if self.state.round != self.round:
            self.round = self.state.round
            self.known = {v: set() for v in self.viewers}
        for v in self.viewers:
            self.known[v] |= set(self.state.discard)
            if v is not None:
                self.known[v] |= set(self.state.hands[v])
        if challenge_by is not None and offender_hand is not None:
            self.known[challenge_by] |= set(offender_hand)

    def hidden_from(self, viewer: int | None) -> set[int]:
        s = self.state
        secret = set(s.draw_pile)
        for seat, hand in enumerate(s.hands):
            if seat != viewer:
                secret |= set(hand)
        secret |= {card for seat, card in s.aside if seat != viewer}  # Decktet-Uno's face-down card
        return secret - self.known[viewer]

    # -- checks ----------------------------------------------------------------------
    def check_refs(self, viewer, refs, what: str) -> None:
        hidden = self.hidden_from(viewer)
        for round_no, card, context in refs:
            if round_no == self.state.round and self.game.status == GameStatus.ACTIVE:
                assert card not in hidden, (
                    f"{what}: card {card} shown to seat {viewer} is hidden from it "
                    f"(round {round_no}): {context}"
                )

    def check_game_view(self, viewer, g: dict, what: str = "game view") -> None:
        s = self.state
        assert g["version"] == self.game.version
        if viewer is None:
            assert "hand" not in g and g["legal_actions"] == [] and g["seat"] is None
        else:
            assert g["seat"] == viewer
            assert [c["id"] for c in g["hand"]] == s.hands[viewer]
            assert g["legal_actions"] == engine.legal_actions(s, viewer)
        assert g["shuffle_commitment"] == engine.shuffle_commitment(self.game.seed)
        self.check_no_seed(g, what)
        self.check_refs(viewer, ((s.round, c, g) for c in card_refs(g)), what)

    def check_no_seed(self, value: Any, what: str) -> None:
        """While the game runs, its seed (which every shuffle derives from) is nowhere in
        ``value``: a response, its events, the text of a log record."""
        if self.game.status == GameStatus.ACTIVE:
            text = value if isinstance(value, str) else json.dumps(value, default=str)
            assert "seed" not in (value if isinstance(value, dict) else {}), f"{what}: a seed field is shown"
            assert self.game.seed not in text, f"{what}: the running game's seed is shown"

    def check_events(self, viewer, events: list[dict], round_no: int, what: str) -> None:
        self.check_no_seed(events, what)
        if self.game.status == GameStatus.ACTIVE:
            for e in events:
                assert "to" not in e, f"{what}: raw audience shown: {e}"
                if e.get("type") in PRIVATE_EVENTS or "private_to" in e:
                    assert viewer is not None and viewer in e.get("private_to", ()), (
                        f"{what}: seat {viewer} was shown a private event: {e}"
                    )
        self.check_refs(viewer, event_refs(events, round_no), what)

    def check_moves(self, viewer, moves: list[dict]) -> None:
        for m in moves:
            what = f"move {m['seq']}"
            self.check_no_seed(m, what)
            self.check_refs(viewer, ((m["round"], c, m["action"]) for c in card_refs(m["action"])), what)
            self.check_events(viewer, m["events"], m["round"], what)

    def round_start_seq(self) -> int:
        """The seq after which the moves of the current round (and its deal) are (looked
        up once per round: the moves of a round only grow)."""
        if self._round_start is None or self._round_start[0] != self.state.round:
            self._round_start = (self.state.round, self._find_round_start())
        return self._round_start[1]

    def _find_round_start(self) -> int:
        for m in Move.objects.filter(game_id=self.gid).order_by("-seq").only("seq", "events"):
            if any(e["type"] == "round_started" and e["round"] == self.state.round for e in m.events):
                return m.seq - 1
        raise AssertionError("no round_started event for the current round")


LOG_CARD = re.compile(r"""['"](rank|draw_pile|hands|discard|cards)['"]""")


def check_logs(records: list[logging.LogRecord], truth: Truth) -> None:
    for record in records:
        message = record.getMessage()
        assert not LOG_CARD.search(message), f"a log line shows cards: {message}"
        truth.check_no_seed(f"{message} {record.__dict__!r}", "a log record")
        for value in (record.args, getattr(record, "data", None), getattr(record, "state", None)):
            if value is not None:
                assert not list(card_refs(value if isinstance(value, (dict, list)) else list(value))), (
                    f"a log record carries cards: {record.__dict__}"
                )


def reach_everyone(players) -> None:
    """Every player has a verified email address: the game writes every notification
    (reach's outbox) that it calls for, for :func:`check_notifications`."""
    from reach import messages, services

    for c in players:
        address = f"{c.player.username}@example.test"
        services.set_email(player=c.player, address=address)
        services.verify_email(messages.verify_token(c.player.pk, address))


def check_notifications(truth: Truth) -> int:
    """Every notification of the game (reach's outbox rows, and the texts built from them:
    subject, body, link; an email's whole text with its footer) shows no card, no hand,
    no seed; how many there are."""
    from reach import delivery, messages
    from reach.models import Message

    rows = list(Message.objects.filter(game_id=truth.game.pk))
    for m in rows:
        assert not list(card_refs(m.data)), f"a notification's facts carry cards: {m.data}"
        truth.check_no_seed(m.data, "a notification's facts")
        text = messages.text(m.kind, m.data)
        mail = delivery.email_message(m.player_id, "x@example.test", text, m.kind).message().as_string()
        for what, value in (("subject", text.subject), ("body", text.body), ("link", text.url), ("email", mail)):
            assert not LOG_CARD.search(value), f"a notification's {what} shows cards: {value}"
            truth.check_no_seed(value, f"a notification's {what}")
            assert not any(colour in value.lower().split() for colour in engine.COLORS), (
                f"a notification's {what} names a card's colour: {value}")
    if len(rows) > 1:
        text = messages.digest([(m.kind, m.data) for m in rows]).body
        assert not LOG_CARD.search(text)
        truth.check_no_seed(text, "a digest")
    return len(rows)


def pick_action(truth: Truth, rng: random.Random) -> tuple[int, dict]:
    """A random legal action of any seat: mostly the seat in turn, and out-of-turn
    actions (jump-ins, UNO calls and catches) whenever they come up."""
    s = truth.state
    options = []
    for seat in range(s.seats):
        for a in engine.legal_actions(s, seat):
            weight = 1
            if a["type"] in ("play", "choose_color", "play_face_down"):
                weight = 30
            if seat != s.actor() and a["type"] == "play":
                weight = 8  # a jump-in: take the chance often
            options.append((weight, seat, a))
    total = sum(w for w, _, _ in options)
    x = rng.uniform(0, total)
    for w, seat, a in options:
        x -= w
        if x <= 0:
            return seat, a
    return options[-1][1], options[-1][2]


GAMES = [
    pytest.param(2, "standard", {"rounds": 1}, 1, id="2p-standard"),
    pytest.param(3, "standard", {"rounds": 1, "seven_zero": True, "jump_in": "exact"}, 2, id="3p-7-0-jump"),
    pytest.param(4, "standard", {"rounds": 2, "seven_zero": True, "jump_in": "super", "stacking": "any"}, 3,
                 id="4p-7-0-super-stacking-2rounds"),
    pytest.param(3, "house", {"rounds": 1, "stacking": "same", "draw_limit": 2}, 4, id="3p-house-stacking"),
    # teams, and seats out of the game (hand moves among the seats still in)
    pytest.param(4, "standard", {"teams": True, "rounds": 1, "seven_zero": True}, 5, id="4p-teams-7-0"),
    pytest.param(3, "standard", {"scoring": "elimination", "target_score": 40, "seven_zero": True}, 6,
                 id="3p-elimination-7-0"),
    # cards set aside face down (their plays name the card), a second deck
    pytest.param(3, "decktet_uno", {"face_down": True}, 7, id="3p-decktet-face-down"),
    pytest.param(4, "decktet_uno", {"face_down": True, "decks": 2}, 8, id="4p-decktet-face-down-2-decks"),
]


def every_preset_and_card_option() -> list:
    """Every preset of the catalogue at the seat counts it allows; on ``standard``, each
    hand-moving or extra-card option of the catalogue alone; on every preset, all the
    hand-moving options it takes together, with one extra-card option (a different one
    per preset).  The list grows as options land.  (Every extra card at once makes
    games of thousands of actions: too long to check each step over HTTP.)"""
    out = []
    for preset in presets():
        for n in seat_counts(preset):
            out.append(pytest.param(n, preset, short(preset), 10 + n, id=f"{n}p-{preset}-preset"))
    extras = extra_card_options()
    names = list(dict.fromkeys([*hand_moving_options(), *extras]))
    for i, name in enumerate(names):
        out.append(pytest.param(3, "standard", short("standard", {name: True}), 20 + i, id=f"3p-{name}"))
    for i, preset in enumerate(presets()):
        together: dict = {}
        for name in [*HAND_MOVING, *extras[i % len(extras):][:1]] if extras else HAND_MOVING:
            if name in engine.OPTIONS and accepted(preset, {**together, name: True}):
                together[name] = True
        n = seats_for(preset, together, 3)
        if len(together) > 1 and n is not None:
            label = "-".join(together)
            out.append(pytest.param(n, preset, short(preset, together), 40 + i, id=f"{n}p-{preset}-{label}"))
    return out


GAMES += every_preset_and_card_option()


@pytest.mark.parametrize("n, ruleset, options, seed", GAMES)
def test_no_hidden_card_is_ever_shown(clients, caplog, monkeypatch, n, ruleset, options, seed):
    caplog.set_level(logging.DEBUG)
    rng = fix_seeds(monkeypatch, seed)  # reproducible deals
    players = clients(n)
    (spectator,) = clients(1)
    reach_everyone(players)
    gid = start_table(players, ruleset=ruleset, options=options)
    seats = by_seat(gid, players)
    viewers = {**seats, None: spectator}
    truth = Truth(gid, n)
    seen_private = {v: 0 for v in seats}
    steps = swaps = jumps = face_downs = checked = 0
    while truth.game.status == GameStatus.ACTIVE:
        steps += 1
        assert steps < 3000, "the game did not finish"
        # what everybody sees now
        # (every 7th step, each viewer's history of the round; in between, the actor's
        # moves since the last step)
        after = truth.round_start_seq()
        full = steps % 7 == 1
        for v, client in viewers.items():
            truth.check_game_view(v, assert_json(client.get(game_url(gid)), 200))
            if full or v == truth.state.actor():
                moves = all_moves(client, gid, after if full else max(after, checked))
                truth.check_moves(v, moves)
                if v is not None:
                    seen_private[v] += sum("private_to" in e for m in moves for e in m["events"])
        # a refused play of someone else's card says nothing about where that card is
        if steps % 5 == 0:
            v = rng.choice(list(seats))
            for card in (truth.state.draw_pile[:1] + [c for h in truth.state.hands if h is not truth.state.hands[v]
                                                       for c in h[:1]]):
                before = truth.game.version
                r = seats[v].post(game_url(gid, "actions"), {"type": "play", "card": card}, format="json")
                problem = assert_problem(r, 400, "not_your_card")
                truth.check_no_seed(problem, "a refusal")
                assert not list(card_refs(problem)) and set(problem) == {"type", "title", "status", "detail", "code",
                                                                         "fields"}
                assert Game.objects.get(pk=gid).version == before
        checked = truth.game.version
        # one action
        seat, action = pick_action(truth, rng)
        pre = truth.state
        challenge = action["type"] == "challenge"
        offender_hand = list(pre.hands[pre.pending["by"]]) if challenge else None
        if action["type"] == "play" and seat != pre.actor():
            jumps += 1
        face_downs += action["type"] == "play_face_down"
        r = seats[seat].post(game_url(gid, "actions"), {**action, "expected_version": truth.game.version},
                             format="json")
        body = assert_json(r, 200)
        round_before = pre.round
        truth.refresh(seat if challenge else None, offender_hand)
        if any(e["type"] in ("hands_swapped", "hands_rotated") for e in body["events"]):
            swaps += 1
        truth.check_game_view(seat, body["game"], "action response")
        truth.check_events(seat, body["events"], round_before, "action response events")
        check_logs(caplog.records, truth)
        caplog.clear()
        if steps % 7 == 1:
            check_notifications(truth)

    assert check_notifications(truth) >= 2 * n  # started and finished for every player, your turns
    # once finished, everything is revealed: every event, with its audience
    stored = sum(len(m.events) for m in Move.objects.filter(game_id=gid))
    for v, client in viewers.items():
        g = assert_json(client.get(game_url(gid)), 200)
        assert g["seed"] == truth.game.seed and g["legal_actions"] == []
        assert g["shuffle_commitment"] == engine.shuffle_commitment(g["seed"])
        assert sum(len(m["events"]) for m in all_moves(client, gid)) == stored
    assert all(seen_private.values())
    if options.get("seven_zero"):
        assert swaps, "no hand changed owners: pick another seed"
    if options.get("jump_in"):
        assert jumps, "nobody jumped in: pick another seed"
    if options.get("face_down"):
        assert face_downs, "no card was played face down: pick another seed"


@pytest.mark.parametrize("leak", ["audience_ignored", "audience_dropped", "disguised", "other_hand", "seed_in_view",
                                  "seed_in_event"])
def test_the_checks_catch_a_leak(clients, monkeypatch, leak):
    """The checker itself: a server that shows private events, another hand or the seed
    of a running game fails it."""
    players = clients(3)
    gid = start_table(players, options={"rounds": 1})
    seats = by_seat(gid, players)
    truth = Truth(gid, 3)
    viewer = (truth.state.actor() + 1) % 3
    if leak == "audience_ignored":
        monkeypatch.setattr(engine, "visible_events", lambda events, seat, reveal_all=False: list(events))
    elif leak == "audience_dropped":
        monkeypatch.setattr(engine, "visible_events", lambda events, seat, reveal_all=False: [
            {k: v for k, v in e.items() if k != "to"} for e in events])
    elif leak == "disguised":  # only the card ids give it away
        monkeypatch.setattr(engine, "visible_events", lambda events, seat, reveal_all=False: [
            {**{k: v for k, v in e.items() if k != "to"}, "type": "note"} for e in events])
    elif leak == "seed_in_view":
        real_deck_of = engine.deck_of
        monkeypatch.setattr(engine, "deck_of", lambda state: {**real_deck_of(state), "name": state.config.seed})
    elif leak == "seed_in_event":
        seed = truth.game.seed
        monkeypatch.setattr(engine, "visible_events", lambda events, seat, reveal_all=False: [
            {"type": "note", "text": f"shuffled with {seed}:0"}])
    else:
        real_view = engine.view
        monkeypatch.setattr(engine, "view", lambda state, seat=None: real_view(
            state, None if seat is None else (seat + 1) % state.seats) | {"seat": seat})
    expected = {"other_hand": "assert", "disguised": "is hidden from it", "seed_in_view": "seed is shown",
                "seed_in_event": "seed is shown"}.get(leak, "private event")
    with pytest.raises(AssertionError, match=expected):
        truth.check_game_view(viewer, assert_json(seats[viewer].get(game_url(gid)), 200))
        truth.check_moves(viewer, all_moves(seats[viewer], gid))
