"""The lobby in a player's words, phone first (issue 28), in Debian's chromium driven by
Playwright against a real gunicorn (tests/browser_support.py):

- a new game: the preset chosen by title with its description (which changes with the
  preset), that preset's options only (Decktet-Uno's ``face_down`` and ``decks``, none of
  UNO's; never Decktet-Uno's for standard), grouped, each with its description in words,
  the advanced ones folded away; only what the player changed is sent; the time per turn
  chosen in words reaches the API as the right ``turn_seconds``;
- "start by itself": a 2-seat table created from the page starts when a second player
  joins, and the creator's page shows the running table without pressing Start;
- the lists speak words (presets by title, names, "1 day per turn", "won by ..."), and at
  390 x 844 and 360 x 640 nothing scrolls sideways and every button, field and select of
  the lobby is a touch target of 44 x 44 px or more; at 1280 x 800 the lobby keeps its two
  columns; axe-core finds no serious or critical violation at any of these widths.
"""

from __future__ import annotations

import re
import time

from tests.browser_support import (DESKTOP, GAME_URL, PHONE, SMALL_PHONE, TOUCH, Api, assert_accessible, browser_marks,
                                   no_sideways_scroll, register, shot, signed_in)

pytestmark = browser_marks


def small_lobby_targets(page) -> list[str]:
    """The lobby's visible buttons, selects and fields smaller than 44 x 44 px."""
    return page.eval_on_selector_all(
        ".lobby button, .lobby .button, .lobby select, .lobby textarea, "
        ".lobby input:not([type=checkbox]):not([type=radio]):not([type=hidden])",
        """(els, min) => els.flatMap((e) => {
            const r = e.getBoundingClientRect();
            if (!r.width || !r.height) return [];
            return r.width >= min && r.height >= min ? [] : [`${e.id || e.className || e.tagName} ${r.width}x${r.height}`];
        })""", TOUCH)


def visible_options(page) -> list[str]:
    return page.eval_on_selector_all(
        "#create-form [data-option]", "els => els.filter(e => e.checkVisibility()).map(e => e.dataset.option)")


def all_options(page) -> list[str]:
    return page.eval_on_selector_all("#create-form [data-option]", "els => els.map(e => e.dataset.option)")


def test_a_new_game_in_words_only_the_presets_options_and_the_time_in_words(server, new_page):  # noqa: F811
    name, api = register(server)
    page = signed_in(new_page(viewport=PHONE), server, name, api.token)
    rulesets = {p["name"]: p for p in Api(server).get("/rulesets")["results"]}

    # the presets by title, each with its description under it
    titles = page.eval_on_selector_all("#create-ruleset option", "os => os.map(o => [o.value, o.textContent])")
    assert titles == [[n, p["title"]] for n, p in rulesets.items()]
    page.select_option("#create-ruleset", "standard")
    assert page.inner_text("#create-ruleset-about") == rulesets["standard"]["description"]
    standard = all_options(page)
    assert sorted(standard) == sorted(o["name"] for o in rulesets["standard"]["options"])  # (grouped)
    assert "face_down" not in standard and "decks" not in standard
    # grouped under headings, each option with a visible label and its description in words
    legends = page.eval_on_selector_all("#create-options legend", "ls => ls.map(l => l.textContent)")
    assert "Length of the game" in legends and "Penalties and calls" in legends
    stacking = page.locator("[data-option-box=stacking]")
    assert stacking.locator("label").inner_text() == "Stacking draw cards"
    assert "pass the penalty" in stacking.locator(".option-about").inner_text()
    # the advanced ones are folded away until asked for
    assert "wild_draw_four" not in visible_options(page) and "stacking" in visible_options(page)
    shot(page, "lobby-new-game-phone.png")
    page.click("#create-options-box summary")
    assert "wild_draw_four" in visible_options(page)
    # an option that applies only with another's value appears with it
    assert "hands_to_win" not in visible_options(page)
    page.select_option("#opt-scoring", label=rulesets["standard"]["options"][2]["choices"][3]["label"])
    assert "hands_to_win" in visible_options(page)

    # Decktet-Uno: its own description and its own two options
    page.select_option("#create-ruleset", "decktet_uno")
    assert page.inner_text("#create-ruleset-about") == rulesets["decktet_uno"]["description"]
    assert sorted(all_options(page)) == ["decks", "face_down"]
    assert page.get_attribute("#create-max-players", "max") == "4"
    # the time per turn in words, never seconds
    times = page.eval_on_selector_all("#create-turn-seconds option", "os => os.map(o => o.textContent)")
    assert times == ["No limit", "30 seconds", "1 minute", "5 minutes", "1 hour", "1 day", "3 days"]
    page.select_option("#create-turn-seconds", label="1 day")
    page.check("#opt-face_down")
    page.uncheck("#create-start-when-full")
    page.click("#create-submit")
    page.wait_for_url(GAME_URL)
    gid = int(GAME_URL.search(page.url).group(1))
    game = api.get(f"/games/{gid}")
    assert game["ruleset"] == "decktet_uno" and game["turn_seconds"] == 86400
    assert game["requested_options"] == {"face_down": True}  # only what the player changed
    assert game["start_when_full"] is False and game["status"] == "waiting"  # 1 + the lobby's bot: full
    assert [p["bot_level"] for p in game["players"]] == [None, "normal"]

    # the lobby lists it in words: the preset's title, the time per turn, the players' names
    page.goto(f"{server.url}/#/lobby")
    row = page.locator(f"#my-games tr[data-game-id='{gid}']")
    row.wait_for()
    text = row.inner_text()
    assert "Decktet-Uno" in text and "1 day per turn" in text and name in text and "normal bot" in text
    assert "decktet_uno" not in text and "86400" not in text and "seat" not in text


def test_a_table_that_starts_by_itself_when_the_second_player_joins(server, new_page):  # noqa: F811
    name, api = register(server)
    page = signed_in(new_page(), server, name, api.token)
    page.select_option("#create-ruleset", "standard")
    assert page.is_checked("#create-start-when-full")  # the client's default
    while page.locator(".remove-bot").count():
        page.locator(".remove-bot").first.click()
    page.fill("#create-max-players", "2")
    page.fill("#opt-rounds", "1")
    page.click("#create-submit")
    page.wait_for_url(GAME_URL)
    gid = int(GAME_URL.search(page.url).group(1))
    page.wait_for_selector("#table[data-status=waiting]")
    game = api.get(f"/games/{gid}")
    assert game["start_when_full"] is True and game["requested_options"] == {"rounds": 1}

    # a second player joins through the API: the creator's page shows the running table
    other, other_api = register(server)
    joined = other_api.post(f"/games/{gid}/join")
    assert joined["status"] == "active"
    page.wait_for_selector("#table[data-status=active]")
    assert page.locator("#start").count() == 0
    assert page.locator("#hand .card").count() == 7
    assert api.get(f"/games/{gid}")["status"] == "active"


def _games_for_the_lists(server, name: str, api: Api) -> None:
    """A running timed game against a bot, one won by the player, and a stranger's open table."""
    api.post("/games", {"ruleset": "house", "bots": [{"level": "easy"}], "turn_seconds": 259200,
                        "start_when_full": True}, status=201)
    stranger, stranger_api = register(server)
    stranger_api.post("/games", {"ruleset": "play_uno_com", "max_players": 6, "turn_seconds": 3600}, status=201)
    g = api.post("/games", {"ruleset": "standard", "max_players": 2, "options": {"target_score": 1},
                            "start_when_full": True}, status=201)
    other, other_api = register(server)
    other_api.post(f"/games/{g['id']}/join")
    deadline = time.monotonic() + 60
    players = [api, other_api]
    while api.get(f"/games/{g['id']}")["status"] != "finished":
        assert time.monotonic() < deadline
        for p in players:
            view = p.get(f"/games/{g['id']}")
            if view["legal_actions"]:
                action = next((a for a in view["legal_actions"] if a["type"] == "play"), view["legal_actions"][0])
                p.call("POST", f"/games/{g['id']}/actions", {**action, "expected_version": view["version"]})


def test_the_lobby_on_a_phone_fits_and_every_control_is_a_fingertip(server, new_page):  # noqa: F811
    name, api = register(server)
    _games_for_the_lists(server, name, api)
    page = signed_in(new_page(viewport=PHONE), server, name, api.token)
    page.wait_for_selector("#my-games tr[data-status=finished]")
    page.wait_for_selector("#open-games tr[data-game-id]")
    page.click("#create-options-box summary")  # the advanced rules too
    for viewport in (PHONE, SMALL_PHONE):
        page.set_viewport_size(viewport)
        no_sideways_scroll(page, "#quickplay-form", "#create-form", "#my-games", "#open-games", "#challenges")
        assert small_lobby_targets(page) == [], viewport
        assert_accessible(page, f"the lobby at {viewport['width']} px")  # axe-core: no serious or critical
    shot(page, "lobby-phone-360.png")
    # the lists in words: names and titles, times in words, no seat numbers
    mine = page.inner_text("#my-games")
    assert "House rules" in mine and "3 days per turn" in mine and "easy bot" in mine
    assert re.search(r"won by (you|web\w+)", mine) and "seat" not in mine
    opened = page.inner_text("#open-games")
    assert "play-uno.com" in opened and "1 hour per turn" in opened and "1 of 6 taken" in opened
    # rows are stacked cards: each cell as wide as its card, none beside another
    cells = page.locator("#my-games tr[data-status=finished] td").evaluate_all(
        "tds => tds.map(td => td.getBoundingClientRect()).map(r => [Math.round(r.x), Math.round(r.width)])")
    assert len({x for x, _ in cells}) == 1 and len(cells) >= 5

    # the desktop keeps its two columns and a table's rows
    page.set_viewport_size(DESKTOP)
    no_sideways_scroll(page, "#create-form", "#my-games")
    assert_accessible(page, "the lobby at 1280 px")
    create, lists = (page.locator(s).bounding_box() for s in ("#create-form", "#my-games"))
    assert lists["x"] > create["x"] + create["width"] - 1
    cells = page.locator("#my-games tr[data-status=finished] td").evaluate_all(
        "tds => tds.map(td => Math.round(td.getBoundingClientRect().y))")
    assert len(set(cells)) == 1  # one row
    shot(page, "lobby-desktop-lists.png")
