"""The browser client (games/static/uno/, served at ``/``) in a real browser: Debian's
chromium driven by Playwright, against a real gunicorn serving the static files as
`make run` does (collected by ``collectstatic``, served by whitenoise) and, where bots
play, a real Celery worker.  Nothing is mocked: every click goes through the page's
JavaScript to the API.

- A person registers in the page, creates a one-round game against two bots, plays it to
  the end by clicking the cards and buttons the page offers (each time the cards offered
  are exactly those of the API's ``legal_actions``), then steps through the replay move
  by move: the move count, every seat's final hand (against the engine's stored state)
  and the score table are the API's.
- The replay's reconstruction of every hand, step by step, against the engine itself in
  every preset (games dealt and played at random by the engine, records built as the
  API shows a finished game's moves).
- A spectator's table shows no hand and follows the game live (the event stream).
- A bad sign-in shows the problem's ``detail``; a refused registration too.

Screenshots for the README: ``UNO_SCREENSHOTS=docs/screenshots`` writes ``table.png``
and ``replay.png`` from the whole-game test.
"""

from __future__ import annotations

import random
import re
import time

import pytest
import requests
from playwright.sync_api import Error as PlaywrightError

from games import engine
from tests.browser_support import (OPTION_MIXES, PASSWORD, Api, add_move, browser_marks, engine_deal, register,
                                   registered_in_page, shot)
from tests.celery_helpers import requires_redis
from tests.games_support import true_state

pytestmark = browser_marks


def position(page) -> str:
    return page.inner_text("#replay-position")


def shown_ids(page, selector: str) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.cardId)")]


# --- a whole game in the page -----------------------------------------------------------
def act_once(page) -> str | None:
    """Click one thing the page offers: a choice of the card picked before, else a
    playable card, else an action button.  What was clicked, or None (nothing offered,
    or the table changed under the click)."""
    try:
        for selector, kind in (("#choice .choice-option", "choice"), ("#hand .card.playable", "card"),
                               ("#actions button.action", "action")):
            found = page.locator(selector)
            if found.count():
                label = found.first.get_attribute("data-action-type") or kind
                found.first.click(timeout=3000)
                return label
    except PlaywrightError:
        return None  # re-rendered meanwhile (a bot moved): look again
    return None


@requires_redis
def test_a_person_plays_a_whole_game_against_bots_in_the_page_then_replays_it(server, new_page, worker):  # noqa: F811
    worker.start()
    page = new_page()
    page.goto(f"{server.url}/")
    name = registered_in_page(page, then="#create-form")
    assert page.inner_text("#whoami") == f"Signed in as {name}"
    api = Api(server, page.evaluate("localStorage.getItem('uno.token')"))
    assert api.get("/players/me")["username"] == name

    # the presets and bot levels are the schema's
    schema = requests.get(f"{server.url}/api/schema/", params={"format": "json"}, timeout=30).json()["components"]
    options = page.eval_on_selector_all("#create-ruleset option", "os => os.map(o => o.value)")
    assert options == schema["schemas"]["RulesetEnum"]["enum"] and "standard" in options
    page.select_option("#create-ruleset", "standard")
    page.select_option(".bot-level", "random")
    page.click("#add-bot")
    page.locator(".bot-level").nth(1).select_option("easy")
    page.uncheck("#create-start-when-full")  # a table that waits for its creator's Start
    page.click("#create-options-box summary")
    page.fill("#opt-rounds", "1")
    page.click("#create-submit")
    page.wait_for_url(re.compile(r"#/game/\d+$"))
    gid = int(page.url.rsplit("/", 1)[1])
    page.wait_for_selector("#table[data-status=waiting]")
    game = api.get(f"/games/{gid}")
    assert game["status"] == "waiting" and game["options"]["rounds"] == 1
    assert [(p["username"], p["is_bot"], p["bot_level"]) for p in game["players"]] == [
        (name, False, None), (None, True, "random"), (None, True, "easy")]
    assert page.locator("#table .waiting-seats li.taken").count() == 3

    page.click("#start")
    page.wait_for_selector("#table[data-status=active]")
    clicked: dict[str, int] = {}
    checked_turns = 0
    deadline = time.monotonic() + 300
    while page.get_attribute("#table", "data-status") != "finished":
        assert time.monotonic() < deadline, f"the game did not end; clicked {clicked}"
        version = page.get_attribute("#table", "data-version")
        if page.locator("#hand .card.playable").count() and not page.locator("#choice").count():
            # what the page offers is the API's view at that version: the hand, the playable cards
            view = api.get(f"/games/{gid}")
            if str(view["version"]) == version:
                playable = sorted({a["card"] for a in view["legal_actions"] if "card" in a})
                # (the page sorts the hand as the player chose: by colour unless told otherwise)
                if sorted(shown_ids(page, "#hand .card")) == sorted(c["id"] for c in view["hand"]) and playable == sorted(
                        shown_ids(page, "#hand .card.playable")):
                    checked_turns += 1
                    if checked_turns == 6:
                        shot(page, "table.png")  # a turn of ours, its playable cards lit
                else:
                    assert str(view["version"]) != page.get_attribute("#table", "data-version"), (
                        "the page's hand or playable cards differ from the API's", view)
        kind = act_once(page)
        if kind:
            clicked[kind] = clicked.get(kind, 0) + 1
        try:  # the next version (from the action's answer or the stream), or a choice to make
            page.wait_for_function(
                "v => document.querySelector('#table').dataset.version !== v || document.querySelector('#choice')",
                arg=version, timeout=20000)
        except PlaywrightError:
            pass
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
    final = api.get(f"/games/{gid}")
    assert final["status"] == "finished"
    print(f"game {gid}: {final['version']} moves; the page clicked {clicked}; "
          f"{checked_turns} turns checked against legal_actions")
    assert clicked.get("card", 0) >= 1 and checked_turns >= 1, clicked
    assert page.get_attribute("#table", "data-live") == "stream"  # the updates came by the event stream
    winners = [w["seat"] for w in final["winners"]]
    headline = page.inner_text("#result h3")
    assert headline.startswith("Game over: won by ") and (f"{name} (you)" in headline) == (0 in winners), headline
    scores = {r.get_attribute("data-seat"): (r.locator("th").inner_text(), r.locator("td.score").inner_text())
              for r in page.locator("#final-scores tbody tr").all()}
    assert scores == {str(p["seat"]): (
        (f"{name} (you)" if p["seat"] == 0 else f"Bot {p['seat']} ({p['bot_level']})")
        + (" · winner" if p["seat"] in winners else ""), str(p["score"])) for p in final["players"]}
    assert sorted(shown_ids(page, "#hand .card")) == sorted(c["id"] for c in final["hand"])

    # the replay: step through every move
    page.click("#replay-link")
    page.wait_for_selector("#replay-position")
    moves = api.moves(gid)
    total = final["version"]
    assert len(moves) == total and page.get_attribute("#replay", "data-moves") == str(total)
    assert position(page) == f"Move 1 / {total}"
    assert page.is_disabled("#replay-prev") and page.is_enabled("#replay-next")
    # after the deal, each seat holds its seven cards (a `hand` event each)
    state = true_state(gid)
    for seat in range(3):
        assert page.locator(f"#replay-hands .replay-seat[data-seat='{seat}'] .card").count() == 7
    for step in range(2, total + 1):
        page.click("#replay-next")
        assert position(page) == f"Move {step} / {total}"
        if step == total // 2:
            shot(page, "replay.png")
    assert page.is_disabled("#replay-next") and page.is_disabled("#replay-last")
    last = moves[-1]
    assert f"Move #{last['seq']}" in page.inner_text("#replay-move")
    assert [e["type"] for e in last["events"]][-1] == "game_ended"
    # the final hands: every seat's cards as the engine holds them; the counts and scores as the API shows
    for p in final["players"]:
        seat = page.locator(f"#replay-hands .replay-seat[data-seat='{p['seat']}']")
        assert shown_ids(page, f"#replay-hands .replay-seat[data-seat='{p['seat']}'] .card") == state.hands[p["seat"]]
        assert seat.locator(".card").count() == p["hand_count"]
        assert seat.locator(".score").inner_text() == f"{p['score']} pts"
    assert shown_ids(page, "#replay-hands .replay-seat[data-seat='0'] .card") == [c["id"] for c in final["hand"]]
    assert page.locator("#replay-hands .unknown").count() == 0
    scores = api.get(f"/games/{gid}/scores")
    totals = [page.inner_text(f"#score-totals td[data-seat='{s}']") for s in range(3)]
    assert totals == [str(t) for t in scores["totals"]] == [str(p["score"]) for p in final["players"]]
    assert page.locator("#replay-scores tbody tr").count() == len(scores["rounds"]) == 1
    # the slider and the first / last buttons
    page.click("#replay-first")
    assert position(page) == f"Move 1 / {total}"
    page.locator("#replay-slider").fill(str(total // 2))
    assert position(page) == f"Move {total // 2} / {total}"
    page.keyboard.press("End")
    assert position(page) == f"Move {total} / {total}"
    # every step's hands are the engine's (the page's own reconstruction, step by step)
    expected = replay_in_engine(final, moves)
    assert replay_in_page(page, final, moves)["hands"] == [e["hands"] for e in expected]

    # the lobby lists the game, finished, with its replay
    page.click("text=Lobby")
    row = page.locator(f"#my-games tr[data-game-id='{gid}']")
    row.wait_for()
    assert row.get_attribute("data-status") == "finished" and row.locator("a[href='#/replay/%d']" % gid).count() == 1


# --- the replay's reconstruction, every preset ------------------------------------------
GAMES = [  # (preset, options, seats): what moves cards between hands
    *OPTION_MIXES,
    # the scores at every step: other scorings, misplays charged at once (to a team too)
    ("standard", {"scoring": "hands_won", "hands_to_win": 2}, 3),
    ("standard", {"partner_rotation": True}, 4),
    ("house", {"teams": True, "jump_in": "super", "jump_in_misplay_points": 5, "rounds": 1}, 4),
]


def play_in_engine(preset: str, options: dict, seats: int, seed: int, max_moves: int = 500) -> tuple[dict, list]:
    """A game dealt and played at random by the engine: its finished view's fields the
    replay reads, and its moves as the API shows a finished game's (every event revealed)."""
    rng = random.Random(seed)
    state, moves, deck = engine_deal(preset, options, seats, seed)
    while state.status != engine.FINISHED and len(moves) < max_moves:
        if options.get("jump_in_misplay_points") and rng.random() < 0.1:
            # a card played out of turn that is no jump-in: a misplay (or refused)
            seat = rng.randrange(seats)
            if state.hands[seat]:
                card = rng.choice(state.hands[seat])
                action = {"type": "play", "card": card, **({} if deck.dicts[card]["color"] else {"color": "red"})}
                move_round = state.round
                try:
                    events = engine.apply(state, seat, action)
                except engine.EngineError:
                    pass
                else:
                    add_move(moves, move_round, seat, action, events)
                    continue
        choices = [(s, a) for s in range(seats) for a in engine.legal_actions(state, s)]
        if choices and rng.random() > 0.03:
            plays = [c for c in choices if c[1]["type"] in ("play", "play_face_down")]
            seat, action = rng.choice(plays if plays and rng.random() < 0.6 else choices)
            by = "player"
        else:  # the timer acts for whoever owes the decision
            seat, _, kind = engine.owed(state)[0]
            action, by = {"type": "timeout" if kind == "turn" else "expire"}, "timer"
        move_round = state.round
        add_move(moves, move_round, seat, action, engine.apply(state, seat, action, system=by == "timer"), by)
    game = {"ruleset": preset, "options": dict(state.config.options), "requested_options": options,
            "seed": str(seed), "seat": None,
            "players": [{"seat": s, "username": f"p{s}", "is_bot": False} for s in range(seats)]}
    return game, moves


def replay_in_engine(game: dict, moves: list[dict]) -> list[dict]:
    """The truth after each move, from the seed and the moves: every hand (card ids), the
    top card, each seat's score."""
    out = []
    state = None
    for m in moves:
        if state is None:
            state = engine.new_game(game["ruleset"], game["requested_options"], len(game["players"]), game["seed"])
        else:
            engine.apply(state, m["seat"], m["action"], system=m["by"] == "timer")
        v = engine.view(state)
        out.append({"hands": [list(h) for h in state.hands], "top": v["top_card"],
                    "scores": [p["score"] for p in v["players"]]})
    return out


def replay_in_page(page, game: dict, moves: list[dict]) -> dict:
    return page.evaluate("""async ([game, moves]) => {
        const m = await import('/static/uno/replay.js');
        const {steps} = m.buildTimeline(game, moves);
        return {hands: steps.map(m.handIds), tops: steps.map(s => s.top), scores: steps.map(s => s.scores),
                unknown: steps.map(s => s.unknown)};
    }""", [game, moves])


@pytest.mark.parametrize("preset,options,seats", GAMES, ids=[f"{g[0]}-{i}" for i, g in enumerate(GAMES)])
def test_the_replay_follows_every_hand_as_the_engine_does(server, new_page, preset, options, seats):
    page = new_page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#signin-form")
    for seed in range(3):
        game, moves = play_in_engine(preset, options, seats, seed=1000 + seed)
        expected = replay_in_engine(game, moves)
        shown = replay_in_page(page, game, moves)
        for i, (want, hands, top, scores, unknown) in enumerate(
                zip(expected, shown["hands"], shown["tops"], shown["scores"], shown["unknown"])):
            where = f"{preset} {options} seed {1000 + seed}, after move {i + 1} ({moves[i]['action']})"
            assert hands == want["hands"], where
            assert not any(unknown), where
            assert top == want["top"], where
            assert scores == want["scores"], where


# --- watching, signing in ---------------------------------------------------------------
@requires_redis
def test_a_spectator_sees_the_table_without_a_hand_and_follows_it_live(server, new_page, worker):  # noqa: F811
    worker.start()
    owner_name, owner = register(server)
    gid = owner.post("/games", {"ruleset": "standard", "bots": [{"level": "easy"}], "options": {"rounds": 1}},
                     status=201)["id"]
    watcher_name, watcher = register(server)
    page = new_page()
    page.goto(f"{server.url}/#/game/{gid}")
    # not signed in: the sign-in form first, then the game asked for
    page.wait_for_selector("#signin-form")
    page.fill("#signin-username", watcher_name)
    page.fill("#signin-password", PASSWORD)
    page.click("#signin-submit")
    page.wait_for_selector("#table[data-status=waiting][data-seat=spectator]")
    assert page.url.endswith(f"#/game/{gid}") and page.locator("#join").count() == 0  # both seats taken
    assert page.locator("#start").count() == 0 and page.locator("#spectating").is_visible()

    owner.post(f"/games/{gid}/start")
    try:
        page.wait_for_selector("#table[data-status=active]")
    except Exception as exc:  # (seen once in CI: say what the page and the server knew)
        table = page.evaluate("() => ({...(document.querySelector('#table') || {}).dataset})")
        raise AssertionError(f"the page did not follow the start: #table {table}, "
                             f"the game {owner.get(f'/games/{gid}')['status']}; "
                             f"the server's log:\n{server.output()}") from exc
    assert page.locator("#hand").count() == 0 and page.locator("#hand-box").count() == 0
    assert page.locator("#actions").count() == 0 and page.locator("#spectating").is_visible()
    # the owner plays through the API (and the bot on the worker) until at least two moves
    # after the start (however long the worker takes); the spectator's page follows
    # without reloading
    deadline = time.monotonic() + 60
    actions = 0
    while actions < 3 and time.monotonic() < deadline:
        view = owner.get(f"/games/{gid}")
        if view["status"] != "active" or (view["version"] >= 2 and not view["legal_actions"]):
            break
        if view["legal_actions"]:
            action = next((a for a in view["legal_actions"] if a["type"] == "play"), view["legal_actions"][0])
            r = owner.call("POST", f"/games/{gid}/actions", {**action, "expected_version": view["version"]})
            assert r.status_code in (200, 409), r.text  # 409: the bot moved first
            actions += 1
        time.sleep(0.3)
    view = owner.get(f"/games/{gid}")
    assert view["version"] >= 2
    page.wait_for_function("v => Number(document.querySelector('#table').dataset.version) >= v",
                           arg=view["version"], timeout=20000)
    assert page.get_attribute("#table", "data-live") == "stream"
    # the page's seats as the API shows them at the page's version (read in one go: the bot
    # may move meanwhile; then again, until the two agree on a version)
    for _ in range(20):
        shown = page.evaluate("""() => ({
            version: Number(document.querySelector('#table').dataset.version),
            counts: [...document.querySelectorAll('#seats .seat')].map(
                c => [Number(c.dataset.seat), c.querySelector('.hand-count').innerText.split(/\\s+/)[0]]),
        })""")
        seen = watcher.get(f"/games/{gid}")
        assert "hand" not in seen and seen["seat"] is None
        if seen["version"] == shown["version"]:
            break
        time.sleep(0.5)
    assert seen["version"] == shown["version"], (seen["version"], shown["version"])
    assert sorted(shown["counts"]) == [[p["seat"], str(p["hand_count"])] for p in seen["players"]]
    assert owner_name in page.inner_text("#seats")
    assert page.locator("#log li").count() >= 2  # the deal and the moves since

    # a browser whose event stream never gets through (a proxy that cuts it): after three
    # failures the page falls back to the long-poll, and still follows the game
    cut = new_page()
    cut.route(re.compile(r".*/events\?.*"), lambda route: route.abort())
    cut.goto(f"{server.url}/")
    cut.evaluate("([token, name]) => { localStorage.setItem('uno.token', token); localStorage.setItem('uno.username', name); }",
                 [watcher.token, watcher_name])
    cut.goto(f"{server.url}/#/game/{gid}")
    cut.wait_for_selector("#table[data-live=long-poll]", timeout=20000)
    view = owner.get(f"/games/{gid}")
    assert cut.get_attribute("#table", "data-seat") == "spectator" and cut.locator("#hand").count() == 0
    for _ in range(20):  # one more move, whoever makes it (the owner here, or the bot)
        if view["status"] != "active":
            break
        if view["legal_actions"]:
            r = owner.call("POST", f"/games/{gid}/actions", {**view["legal_actions"][0], "expected_version": view["version"]})
            if r.status_code == 200:
                break
        time.sleep(0.3)
        view = owner.get(f"/games/{gid}")
    now = owner.get(f"/games/{gid}")["version"]
    cut.wait_for_function("v => Number(document.querySelector('#table').dataset.version) >= v", arg=now, timeout=20000)
    assert cut.get_attribute("#table", "data-live") == "long-poll"


def test_a_bad_sign_in_and_a_refused_registration_show_the_problem_detail(server, new_page):
    name, _ = register(server)
    page = new_page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#signin-form")
    page.fill("#signin-username", name)
    page.fill("#signin-password", "not-the-password")
    page.click("#signin-submit")
    page.wait_for_selector("#error:not([hidden])")
    problem = Api(server).call("POST", "/auth/token", {"username": name, "password": "not-the-password"})
    assert problem.status_code == 400 and problem.headers["Content-Type"].startswith("application/problem+json")
    assert page.inner_text("#error .message") == problem.json()["detail"]
    assert page.get_attribute("#error", "data-code") == problem.json()["code"]
    assert page.evaluate("localStorage.getItem('uno.token')") is None
    assert page.url.endswith("#/login")

    page.fill("#register-username", name)  # taken
    page.fill("#register-password", "short")
    page.click("#register-submit")
    page.wait_for_function("() => document.querySelector('#error .message')?.textContent.includes('username')")
    refused = Api(server).call("POST", "/auth/register", {"username": name, "password": "short"}).json()
    assert page.inner_text("#error .message") == refused["detail"] and refused["code"] == "invalid"
    assert page.evaluate("localStorage.getItem('uno.token')") is None


def test_the_page_and_its_files_are_served_at_the_root(server):
    page = requests.get(f"{server.url}/", timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert '<script type="module" src="/static/uno/app.js">' in page.text
    for name, kind in (("app.js", "javascript"), ("api.js", "javascript"), ("replay.js", "javascript"),
                       ("app.css", "css")):
        r = requests.get(f"{server.url}/static/uno/{name}", timeout=30)
        assert r.status_code == 200 and kind in r.headers["Content-Type"], (name, r.headers)
    assert requests.head(f"{server.url}/", timeout=30).status_code == 200
    assert requests.get(f"{server.url}/nothing-here", timeout=30).status_code == 404  # one route only
