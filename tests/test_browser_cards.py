"""What cards.js says and shows (games/static/uno/cards.js, cards.css), in Debian's chromium:
the module imported by a page of the served client and run on real games' moves.

- Every event type the engine registers (games.engine.events.EVENT_TYPES) gets a sentence:
  games dealt and played by the engine in every preset, with the options that make the rare
  events happen (buzzes, windows that expire, a Wild Draw Four turned up first...), until
  each type was seen; no sentence falls back to the raw type, names a seat by number, or
  says "you plays".
- Games of every preset played through the API by two players: each move in a sentence
  with the players' names ("you" for the viewer, the other's username), each player's plays,
  draws and calls as the events say; Duo's draft marks the card just drawn (drawnCardId on
  the API's view; "just drawn" for screen readers).
- Decktet-Uno's scoring explained: the points of each play and why (the suits on the top card
  times the suits shared), as RULES.md counts them.
- Every card of every deck has an accessible name ("blue 7", "Wild Draw Four", "Island: court
  of suns, waves and wyrms"), a playable one says so, the glyphs are hidden from screen readers;
  with `body.cb-symbols` each colour shows its symbol on cards, swatches and colour buttons
  (not in their accessible names); axe-core finds no serious contrast problem on any card.
- Times in words.
"""

from __future__ import annotations

import random
import re

import pytest

from games import engine
from games.engine.actions import ACTION_TYPES
from games.engine.events import EVENT_TYPES
from tests.browser_support import OPTION_MIXES, Api, add_move, assert_accessible, browser_marks, engine_deal, register

pytestmark = browser_marks

# third-person verbs a sentence must not put after "you" ("you plays")
THIRD_PERSON = ("plays", "draws", "calls", "catches", "names", "passes", "is", "has", "wins", "keeps", "puts",
                "deals", "swaps", "shuffles", "sends", "ends", "cuts", "buzzes", "sets", "tries", "jumps",
                "challenges", "scores", "loses", "does")
YOU_PLAYS = re.compile(r"\b[Yy]ou (%s)\b" % "|".join(THIRD_PERSON))
NOT_WORDS = re.compile(r"undefined|null|NaN|\[object|\bseat \d|\bplayer \d")


def page_with_cards(server, new_page, viewport=None):
    """A page of the served client (its stylesheets loaded), cards.js imported as `window.cards`."""
    page = new_page(viewport=viewport)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#signin-form")
    page.evaluate("async () => { window.cards = await import('/static/uno/cards.js'); }")
    return page


def sentences(page, game: dict, moves: list[dict]) -> list[dict]:
    """Each move of ``game`` as cards.js says it: the move's sentence, each event's, and what
    an event type without a sentence would say."""
    return page.evaluate("""([game, moves]) => {
        const c = window.cards;
        const n = c.seatNamer(game);
        let top = null;
        return moves.map((m) => {
            const out = {move: c.describeMove(m, n, {top}),
                         events: (m.events || []).map((e) => [e.type, c.describeEvent(e, n), c.unknownEvent(e)]),
                         scored: c.scoredLine(m, n, top)};
            for (const e of m.events || []) if (c.PILE_EVENTS.has(e.type)) top = e.card;
            return out;
        });
    }""", [game, moves])


def check_sentence(text: str, where, lower_names=()) -> None:
    """A sentence: a capital first (unless it starts with a name spelt in lower case), no
    raw value, no seat number, "you" with its own verbs."""
    assert text and (text[0] == text[0].upper() or any(text.startswith(n) for n in lower_names)), (text, where)
    assert not NOT_WORDS.search(text), (text, where)
    assert not YOU_PLAYS.search(text), (text, where)


def listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def a_card(card: dict) -> str:
    """A card as a sentence names it, with its article: "a blue 7", "the Island (court of suns,
    waves and wyrms)", "the Ace of Moons", "the UNO card"."""
    if "suits" in card:
        return f"the {card['name']}" if card["rank"] == "ace" else f"the {card['name']} ({card['rank']} of {listed(card['suits'])})"
    name = expected_name(card)
    if card["rank"] == "uno":
        return f"the {name}"
    return f"{'an' if name[0].lower() in 'aeiou8' else 'a'} {name}"


# --- every event type, from games the engine plays ------------------------------------------
CONFIGS = [  # (preset, options, seats): every event type among them
    *OPTION_MIXES,
    ("standard", {"replay_cards": True, "rounds": 1}, 3),
]


def engine_game(preset: str, options: dict, seats: int, seed: int, max_moves: int = 400) -> tuple[dict, list]:
    """A game dealt and played at random by the engine (buzzes taken, windows left to expire
    now and then, a misplayed jump-in tried), as the API shows a finished game's moves."""
    rng = random.Random(seed)
    state, moves, deck = engine_deal(preset, options, seats, seed)
    decisions: list[dict] = []

    def record(seat, action, events, by="player", move_round=None):
        add_move(moves, move_round, seat, action, events, by)
        if state.status != engine.FINISHED:  # what the game waits for after it, and who may do what
            view = engine.view(state)
            decisions.append({"pending": view["pending"], "legal": [
                (s, a) for s in range(seats) for a in engine.legal_actions(state, s)]})

    while state.status != engine.FINISHED and len(moves) < max_moves:
        move_round = state.round
        if options.get("jump_in_misplay_points") and rng.random() < 0.1:
            seat = rng.randrange(seats)
            if state.hands[seat]:
                card = rng.choice(state.hands[seat])
                action = {"type": "play", "card": card, **({} if deck.dicts[card]["color"] else {"color": "red"})}
                try:
                    record(seat, action, engine.apply(state, seat, action), move_round=move_round)
                    continue
                except engine.EngineError:
                    pass
        choices = [(s, a) for s in range(seats) for a in engine.legal_actions(state, s)]
        buzzes = [c for c in choices if c[1]["type"] == "buzz"]
        if buzzes and rng.random() < 0.5:
            seat, action = rng.choice(buzzes)
            record(seat, action, engine.apply(state, seat, action), move_round=move_round)
        elif choices and rng.random() > 0.05:
            plays = [c for c in choices if c[1]["type"] in ("play", "play_face_down")]
            seat, action = rng.choice(plays if plays and rng.random() < 0.6 else choices)
            record(seat, action, engine.apply(state, seat, action), move_round=move_round)
        else:  # the timer acts for a seat that owes a decision (a window's, now and then)
            seat, _, kind = rng.choice(engine.owed(state))
            action = {"type": "timeout" if kind == "turn" else "expire"}
            record(seat, action, engine.apply(state, seat, action, system=True), "timer", move_round)
    players = [{"seat": 0, "username": "ann", "is_bot": False, "bot_level": None},
               *({"seat": s, "username": None, "is_bot": True, "bot_level": "hard"} for s in range(1, seats - 1)),
               {"seat": seats - 1, "username": "bob", "is_bot": False, "bot_level": None}]
    game = {"ruleset": preset, "options": dict(state.config.options), "seat": 0, "players": players,
            "decisions": decisions}
    return game, moves


def test_every_event_type_the_engine_emits_reads_as_a_sentence(server, new_page):
    page = page_with_cards(server, new_page)
    seen: dict[str, str] = {}
    for round_ in range(12):
        for preset, options, seats in CONFIGS:
            if round_ and set(EVENT_TYPES) <= set(seen):
                break
            game, moves = engine_game(preset, options, seats, seed=5000 + 97 * round_ + len(seen))
            for move, said in zip(moves, sentences(page, game, moves)):
                where = (preset, options, move)
                check_sentence(said["move"], where, ("bob",))
                for (kind, text, unknown), event in zip(said["events"], move["events"]):
                    assert text != unknown, f"no sentence for the event type {kind!r}: {event}"
                    check_sentence(text, (event, where), ("bob",))
                    if kind == "play":
                        assert a_card(event["card"]) in text, (text, event)
                    seen.setdefault(kind, text)
                    # the viewer is "you", the others by name, bots as "Bot n (level)"
                    if event.get("seat") == 0 and kind in ("play", "draw", "uno", "pass"):
                        assert re.match(r"^(You|Your)\b", text), (text, event)
                    if event.get("seat") == seats - 1 and kind in ("play", "draw", "uno"):
                        assert text.startswith("bob "), (text, event)
                    if event.get("seat") == 1 and seats > 2 and kind == "play":
                        assert text.startswith("Bot 1 (hard) plays "), (text, event)
    missing = sorted(set(EVENT_TYPES) - set(seen))
    assert not missing, f"event types never seen in the games played (play more or other options): {missing}"
    print("\n".join(f"{k}: {v[:160]}" for k, v in sorted(seen.items())))


ACTION_LABELS = {  # what a button says for each legal action that names no card
    "draw": r"Draw (a card|\d+ cards)", "pass": r"Pass|Accept the Skip", "call_uno": r"Call UNO!",
    "catch_uno": r"Catch (ann|bob|Bot \d \(hard\)) without UNO", "challenge": r"Challenge the Wild Draw Four",
    "choose_color": r"Name (red|yellow|green|blue)", "end_turn": r"End the turn", "buzz": r"Buzz!",
    "draft_keep": r"Keep the drawn card", "draft_discard": r"Put it under the pile and draw another",
}


def test_every_decision_and_action_reads_in_words(server, new_page):
    """What the game waits for (every decision type of the engine as `pending`) and every legal
    action's button (a card's choices too), from the engine's games."""
    page = page_with_cards(server, new_page)
    pending_seen: dict[str, str] = {}
    actions_seen: set[str] = set()
    for round_ in range(4):
        for preset, options, seats in CONFIGS:
            game, _ = engine_game(preset, options, seats, seed=8000 + 31 * round_)
            said = page.evaluate("""(game) => {
                const c = window.cards;
                const n = c.seatNamer(game);
                return game.decisions.map((d) => ({
                    pending: d.pending && c.describePending(d.pending, n),
                    // each seat's buttons as that seat sees them
                    labels: d.legal.map(([seat, a]) => [a.type, a.card === undefined
                        ? c.actionLabel(a, c.seatNamer({...game, seat}), {pending: d.pending})
                        : c.choiceLabel(a, c.seatNamer({...game, seat}))]),
                }));
            }""", game)
            for decision, out in zip(game["decisions"], said):
                p = decision["pending"]
                if p:
                    text = out["pending"]
                    assert not text.lower().startswith(p["type"].replace("_", " ")), (text, p)
                    check_sentence(text, p, ("bob",))
                    if p.get("seat") == 0 and p["type"] != "buzz":
                        assert text.startswith("You "), (text, p)
                    pending_seen.setdefault(p["type"], text)
                for (kind, label), (_, action) in zip(out["labels"], decision["legal"]):
                    actions_seen.add(kind)
                    if "card" in action:
                        assert re.fullmatch(r"(Play it( at (ann|bob|Bot \d \(hard\)))?( and name \w+| and call UNO|, name \w+ and call UNO)?)"
                                            r"|Set it aside face down", label), (label, action)
                    else:
                        assert re.fullmatch(ACTION_LABELS[kind], label), (label, action)
    missing = sorted(set(engine.DECISIONS) - set(pending_seen))
    assert not missing, f"decision types never seen as pending: {missing}"
    playable = {name for name, kind in ACTION_TYPES.items() if not kind.system}
    assert actions_seen == playable, sorted(playable ^ actions_seen)
    print("\n".join(f"{k}: {v}" for k, v in sorted(pending_seen.items())))


def test_decktet_uno_scoring_is_explained_as_rules_count_it(server, new_page):
    page = page_with_cards(server, new_page)
    game, moves = engine_game("decktet_uno", {"face_down": True}, 3, seed=77)
    said = sentences(page, game, moves)
    top = None
    checked = checked_aside = 0
    for move, out in zip(moves, said):
        for e in move["events"]:
            if e["type"] == "play":
                shared = [s for s in e["card"]["suits"] if s in top["suits"]]
                assert e["points"] == len(top["suits"]) * len(shared)  # RULES.md's formula, as the engine scored
                line = out["scored"].split("; ")[0]  # the play's (a face-down card placed may follow)
                scores = "score" if e["seat"] == 0 else "scores"
                if e["points"]:
                    suits = f"{len(top['suits'])} suit{'s' if len(top['suits']) > 1 else ''}"
                    assert f"{scores} {e['points']} point" in line, line
                    assert f"{suits} on the {top['name']} × {len(shared)} shared ({listed(shared)})" in line, line
                else:
                    assert f"{scores} nothing: no suit shared with the {top['name']}" in line, line
                # the move's sentence: the card played, what it scored and why
                who = "You" if e["seat"] == 0 else "bob" if e["seat"] == 2 else "Bot 1 (hard)"
                assert line.startswith(f"{who} {scores} ")
                assert f"{a_card(e['card'])} and {line[len(who) + 1:]}" in out["move"], (line, out["move"])
                checked += 1
            if e["type"] == "face_down_placed":  # placed on the card just played
                shared = [s for s in e["card"]["suits"] if s in top["suits"]]
                assert e["points"] == (len(top["suits"]) * len(shared) if shared else -2)
                line = out["scored"].split("; ")[-1]
                if shared:
                    assert f"scores {e['points']} point" in line and f"on the {top['name']} × {len(shared)} shared" in line, line
                else:
                    assert f"loses 2 points: no suit shared with the {top['name']}" in line, line
                checked_aside += 1
            if e["type"] in ("play", "first_card", "face_down_placed"):
                top = e["card"]
    assert checked >= 10 and checked_aside >= 1, (checked, checked_aside)
    # the end: every hand empty, the final points by name (one round: no "wins round 1")
    end = next(e for e in moves[-1]["events"] if e["type"] == "round_ended")
    final = ", ".join(f"{who} {points}" for who, points in zip(["you", "Bot 1 (hard)", "bob"], end["points"]))
    assert f"; every hand is empty; final points: {final}; game over: " in said[-1]["move"], said[-1]["move"]


# --- games played through the API -------------------------------------------------------------
PRESETS = ["standard", "house", "standard_112", "duo", "play_uno_com", "decktet_uno"]


def api_game(server, preset: str, rng: random.Random, on_view=None) -> tuple[int, Api, Api, str, str]:
    """Two players play a game of ``preset`` to its end through the API (one round where the
    preset has rounds); ``on_view(view, other's view, the acting seat's Api)`` sees each view of
    the seat about to act."""
    a_name, a = register(server)
    b_name, b = register(server)
    r = a.call("POST", "/games", {"ruleset": preset, "max_players": 2, "options": {"rounds": 1}})
    if r.status_code == 400:  # a preset without rounds (Decktet-Uno: one round anyway)
        r = a.call("POST", "/games", {"ruleset": preset, "max_players": 2})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    b.post(f"/games/{gid}/join")
    a.post(f"/games/{gid}/start")
    seats = {0: a, 1: b}
    for _ in range(1500):
        view = a.get(f"/games/{gid}")
        if view["status"] == "finished":
            break
        seat = view["current_seat"]
        mine = seats[seat].get(f"/games/{gid}")
        if on_view:
            on_view(mine, seats[1 - seat].get(f"/games/{gid}"), seats[seat])
        legal = mine["legal_actions"]
        plays = [x for x in legal if x["type"] in ("play", "choose_color", "call_uno")]
        # a card whenever one can be played (now and then something else, for the other events):
        # random play that draws too often can last for thousands of moves
        action = rng.choice(plays if plays and rng.random() < 0.95 else legal)
        seats[seat].post(f"/games/{gid}/actions", {**action, "expected_version": mine["version"]})
    assert a.get(f"/games/{gid}")["status"] == "finished"
    return gid, a, b, a_name, b_name


@pytest.mark.parametrize("preset", PRESETS)
def test_the_moves_of_a_game_played_through_the_api_read_with_the_players_names(server, new_page, preset):
    page = page_with_cards(server, new_page)
    drafts = []

    def on_view(mine, other, mine_api):
        if mine.get("pending") and mine["pending"]["type"] == "draft":
            # Duo's draft: the drafter's view marks the card just drawn; the other's does not
            shown = page.evaluate("""([mine, other]) => {
                const c = window.cards;
                const id = c.drawnCardId(mine);
                const card = mine.hand.find((x) => x.id === id);
                const el = c.cardEl(card, {justDrawn: true, playable: false});
                document.body.append(el);
                const box = el.querySelector('.drawn-mark').getBoundingClientRect();
                el.remove();
                return {id, other: c.drawnCardId(other), label: el.getAttribute('aria-label'),
                        cls: el.className, mark: box.width > 0 && box.height > 0,
                        pending: c.describePending(mine.pending, c.seatNamer(mine))};
            }""", [mine, other])
            # the card the drafter's last move drew (its private cards_drawn event)
            last = mine_api.get(f"/games/{mine['id']}/moves?after={mine['version'] - 1}")["results"][-1]
            drawn = [e for e in last["events"] if e["type"] == "cards_drawn" and e["seat"] == mine["seat"]]
            assert drawn and shown["id"] == drawn[-1]["cards"][-1]["id"], (shown, last)
            assert shown["other"] is None
            assert shown["label"].endswith(", just drawn") and "just-drawn" in shown["cls"] and shown["mark"], shown
            assert shown["pending"].startswith("You "), shown
            drafts.append(shown)

    gid, a, b, a_name, b_name = api_game(server, preset, random.Random(PRESETS.index(preset)), on_view)
    if preset == "duo":
        assert drafts, "no draft in the Duo game"
    view = a.get(f"/games/{gid}")
    moves = a.moves(gid)
    said = sentences(page, view, moves)
    names = {0: "You", 1: b_name}
    for move, out in zip(moves, said):
        check_sentence(out["move"], move, (b_name,))
        assert "(you)" not in out["move"]
        for (kind, text, unknown), e in zip(out["events"], move["events"]):
            assert text != unknown, (kind, e)
            check_sentence(text, e, (b_name,))
            who = names.get(e.get("seat"))
            you = e.get("seat") == 0
            if kind == "play":
                assert text.startswith(f"{who} {'play' if you else 'plays'} {a_card(e['card'])}"), (text, e)
            if kind == "draw":
                count = "a card" if e["count"] == 1 else f"{e['count']} cards" if e["count"] else "no card"
                assert text.startswith(f"{who} {'draw' if you else 'draws'} {count}"), (text, e)
            if kind == "uno":
                assert text == f"{who} {'call' if you else 'calls'} UNO!", text
            if kind == "game_ended":
                winners = ["you" if w == 0 else b_name for w in (e.get("winners") or [e["winner"]])]
                assert text == f"Game over: {listed(winners)} {'win' if winners == ['you'] or len(winners) > 1 else 'wins'}", text
    # the other player's view names the first player by name, and itself "you"
    other = sentences(page, b.get(f"/games/{gid}"), moves)
    for move, out in zip(moves, other):
        for (kind, text, _), e in zip(out["events"], move["events"]):
            if kind == "play":
                assert text.startswith("You play " if e["seat"] == 1 else f"{a_name} plays "), text


# --- cards -------------------------------------------------------------------------------------
UNO_RANK_WORDS = {
    "skip": "Skip", "reverse": "Reverse", "draw_two": "Draw Two", "wild": "Wild", "wild_draw_four": "Wild Draw Four",
    "wild_shuffle_hands": "Wild Shuffle Hands", "wild_customizable": "Wild Customizable",
    "wild_swap_hands": "Wild Swap Hands", "replay": "Replay", "deflect": "Renvoi", "buzzer": "Buzzer",
    "downpour_one": "Downpour +1", "downpour_two": "Downpour +2", "targeted_draw_two": "Targeted Draw Two",
    "targeted_wild_draw_four": "Targeted Wild Draw Four", "hand_pass": "Change de jeu", "uno": "UNO card",
}
SYMBOLS = {"red": "◆", "yellow": "●", "green": "▲", "blue": "■"}


def every_card() -> list[dict]:
    """Every different card face of the presets' decks with every card option."""
    faces: dict[tuple, dict] = {}
    for preset, options, seats in [
        ("standard", {"replay_cards": True, "deflect_cards": True, "buzzer_cards": True, "downpour_cards": True,
                      "targeted_draw_cards": True, "hand_pass_cards": True, "uno_card": True}, 4),
        ("standard_112", {}, 3), ("standard_112", {"swap_hands_card": True}, 3), ("duo", {}, 2),
        ("decktet_uno", {}, 3),
    ]:
        deck = engine.build_rules(engine.new_game(preset, options, seats, "1").config).deck
        for c in deck.dicts:
            faces.setdefault((c.get("color"), c["rank"], c.get("name")), c)
    return list(faces.values())


def expected_name(card: dict) -> str:
    if "suits" in card:
        suits = card["suits"]
        listed = suits[0] if len(suits) == 1 else f"{', '.join(suits[:-1])} and {suits[-1]}"
        return card["name"] if card["rank"] == "ace" else f"{card['name']}: {card['rank']} of {listed}"
    rank = UNO_RANK_WORDS.get(card["rank"], card["rank"])
    return f"{card['color']} {rank}" if card["color"] else rank


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_every_card_has_an_accessible_name_and_colour_blind_symbols(server, new_page, viewport):
    page = page_with_cards(server, new_page, viewport)
    cards = every_card()
    assert len([c for c in cards if "suits" in c]) == 44 and len([c for c in cards if c.get("color")]) >= 4 * 16
    page.evaluate("""(cards) => {
        const c = window.cards;
        const table = document.createElement('section');
        table.className = 'table';
        table.id = 'all-cards';
        const heading = document.createElement('h2');
        heading.textContent = 'Cards';
        const shown = document.createElement('div');
        shown.className = 'hand';
        const playable = document.createElement('div');
        playable.className = 'hand';
        playable.id = 'playable';
        for (const card of cards) {
            shown.append(c.cardEl(card), c.cardEl(card, {small: true}));
            playable.append(c.cardEl(card, {playable: true, onClick: () => {}}));
        }
        const colours = document.createElement('div');
        colours.id = 'colours';
        for (const color of c.COLORS) {
            colours.append(c.colorTag(color));
            const b = document.createElement('button');
            b.type = 'button';
            b.className = `action c-${color}`;
            b.textContent = c.actionLabel({type: 'choose_color', color}, c.seatNamer({players: []}));
            colours.append(b);
        }
        table.append(heading, shown, playable, colours);
        document.querySelector('main').replaceChildren(table);
    }""", cards)
    # the accessible names: each card once as an image, once small, once as a playable button
    for card in cards:
        name = expected_name(card)
        assert page.get_by_role("img", name=name, exact=True).count() == 2, name
        assert page.get_by_role("button", name=f"{name}, playable", exact=True).count() == 1, name
    # the data attributes the table and the tests rely on (each card twice, big and small, then playable)
    data = page.evaluate("() => [...document.querySelectorAll('#all-cards .card')].map((e) => ({...e.dataset}))")
    assert len(data) == 3 * len(cards)
    for i, card in enumerate([c for c in cards for _ in (0, 1)] + cards):
        want = {"cardId": str(card["id"]), "rank": card["rank"],
                **({"name": card["name"]} if "suits" in card else {"color": card["color"] or ""})}
        assert data[i] == want, (data[i], card)
    # no text of a card reaches a screen reader but its name: every other text inside is aria-hidden
    # (a screen reader never hears "⊘ ⊘")
    assert page.evaluate("""() => [...document.querySelectorAll('#all-cards .card')].every((card) => {
        const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
            if (t.textContent.trim() && !t.parentElement.closest('[aria-hidden=true], .card-name')) return false;
        }
        return true;
    })""")
    assert_accessible(page, "every card, plain", exclude=(".top-bar",))

    # colour-blind help: off by default; with body.cb-symbols a symbol per colour
    marks = "() => [...document.querySelectorAll('#all-cards .card .cb-mark')].map((m) => [m.closest('.card').dataset.color, m.textContent, m.getBoundingClientRect().width > 0])"
    assert all(not visible for _, _, visible in page.evaluate(marks))
    before = "sel => getComputedStyle(document.querySelector(sel), '::before').content"
    assert page.evaluate(before, "#colours .swatch.c-red") in ("none", "normal")
    page.evaluate("document.body.classList.add('cb-symbols')")
    shown = page.evaluate(marks)
    assert shown and all(visible and symbol == SYMBOLS[color] for color, symbol, visible in shown), shown
    assert {color for color, _, _ in shown} == set(SYMBOLS)
    for color, symbol in SYMBOLS.items():
        for kind in ("swatch", "action"):
            assert symbol in page.evaluate(before, f"#colours .{kind}.c-{color}"), (kind, color)
        # the symbol is decoration: the button's name stays "Name blue"
        assert page.get_by_role("button", name=f"Name {color}", exact=True).count() == 1
    assert_accessible(page, "every card, colour-blind symbols", exclude=(".top-bar",))


def test_times_read_in_words(server, new_page):
    page = page_with_cards(server, new_page)
    now = 1_800_000_000_000
    cases = {25: "25 s", 60: "1 min", 245: "4 min 5 s", 3600: "1 h", 12000: "3 h 20 min", 86400: "1 day",
             86400 + 3 * 3600 + 59: "1 day 3 h", 2 * 86400 + 3 * 3600: "2 days 3 h", 0: "now", -30: "now"}
    shown = page.evaluate("""([now, seconds]) => seconds.map((s) => [
        window.cards.countdown(new Date(now + s * 1000).toISOString(), now), window.cards.duration(s)])""",
                          [now, list(cases)])
    for (seconds, want), (left, length) in zip(cases.items(), shown):
        assert left == want, (seconds, left)
        if seconds > 0:
            assert length == want, (seconds, length)
