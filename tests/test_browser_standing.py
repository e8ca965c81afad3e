"""The browser client's standing (issue 27) in a real browser: Debian's chromium driven by
Playwright against a real gunicorn and a real Celery worker (the bot's moves).  Nothing is
mocked: every click goes through the page's JavaScript (games/static/uno/standing.js) to
the API, and what the page shows is compared with what the API answers.

- A rated game against a bot, created in the lobby (its "rated" box), played to the end:
  the end panel shows each seat's rating change; a name there opens the profile, which
  shows the new rating (provisional) and the game, whose number opens its replay; the
  player hides their game list and another player sees it hidden; the leaderboard's "my
  position" shows the provisional entry; the bot's name opens its level's profile.
- The leaderboard's pages (``next_cursor`` -> ``?after=``) and "my position" of a ranked
  player, with the ranks the API gives.
- On a 360 x 640 phone, the profile, the leaderboard and a rated game's end do not scroll
  sideways.

Screenshots for the docs: ``UNO_SCREENSHOTS=docs/screenshots`` writes ``rating-changes.png``,
``profile.png`` and ``leaderboard-phone.png``.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

from standing.models import RankBucket, Rating
from standing.services import bucket_of
from tests.browser_support import (GAME_URL, SMALL_PHONE, Api, browser_marks, no_sideways_scroll, register, shot,
                                   signed_in)
from tests.celery_helpers import celery_beat, requires_redis

pytestmark = browser_marks


def signed(x: float) -> str:
    """A change as the page writes it."""
    if abs(x) < 0.005:
        return "±0.00"
    return f"{'+' if x > 0 else '−'}{abs(x):.2f}"


def no_error(page) -> None:
    assert page.locator("#error").is_hidden(), page.inner_text("#error")


def good_action(legal: list[dict]) -> dict:
    """A card when one can be played (calling UNO with it when it is the last but one), else
    the first legal action: a player who forgets UNO is caught, and a game of a forgetful
    player against a random bot can last hundreds of moves."""
    plays = [a for a in legal if a["type"] == "play"]
    return max(plays, key=lambda a: bool(a.get("uno"))) if plays else legal[0]


def play_my_turns(gid: int, api: Api, limit: float = 240) -> None:
    """The player plays their turns by the API (a card when they can) while the worker
    plays the bot's, until the game is finished."""
    deadline = time.monotonic() + limit
    view: dict = {}
    while True:
        assert time.monotonic() < deadline, f"game {gid} did not end: {stalled(view)}"
        view = api.get(f"/games/{gid}")
        if view["status"] == "finished":
            return
        if view["legal_actions"]:
            r = api.call("POST", f"/games/{gid}/actions", {**good_action(view["legal_actions"]),
                                                              "expected_version": view["version"]})
            assert r.status_code in (200, 409), r.text  # 409: the bot moved first
        else:
            time.sleep(0.1)


def stalled(view: dict) -> dict:
    """What a game that did not end was waiting for (a failure's message)."""
    keys = ("status", "version", "round", "current_seat", "pending", "deadline")
    seats = [{k: p.get(k) for k in ("seat", "is_bot", "hand_count", "autopilot", "deadline")}
             for p in view.get("players", [])]
    return {**{k: view.get(k) for k in keys}, "legal": len(view.get("legal_actions") or []), "seats": seats,
            "now": datetime.now(timezone.utc).isoformat()}


def played_between(players: list[Api], **body) -> int:
    """A rated game of ``players`` (the first creates it, the others join), played to the
    end by the API: its id."""
    gid = players[0].post("/games", {"ruleset": "standard", "max_players": len(players), "rated": True,
                                     "options": {"rounds": 1}, **body}, status=201)["id"]
    for api in players[1:]:
        api.post(f"/games/{gid}/join")
    players[0].post(f"/games/{gid}/start")
    deadline = time.monotonic() + 120
    while (view := players[0].get(f"/games/{gid}"))["status"] != "finished":
        assert time.monotonic() < deadline, f"game {gid} did not end"
        for api in players:
            view = api.get(f"/games/{gid}")
            if view["legal_actions"]:
                r = api.call("POST", f"/games/{gid}/actions", {**good_action(view["legal_actions"]),
                                                                  "expected_version": view["version"]})
                assert r.status_code in (200, 409), r.text
    return gid


def ranked(pool: str, ratings: list[tuple[object, float, float]]) -> list[Rating]:
    """Established ratings of ``pool`` ((player, mu, sigma) each), counted in their rank
    buckets as rating a game counts them."""
    made = []
    for player, mu, sigma in ratings:
        ordinal = mu - 3 * sigma
        made.append(Rating.objects.create(pool=pool, player=player, mu=mu, sigma=sigma, ordinal=ordinal,
                                          bucket=bucket_of(ordinal), games=12, wins=6, established=True))
        bucket, _ = RankBucket.objects.get_or_create(pool=pool, bucket=bucket_of(ordinal))
        RankBucket.objects.filter(pk=bucket.pk).update(count=bucket.count + 1)
    return made


def board_rows(page) -> list[list[str]]:
    """The leaderboard table's rows: rank, name, rating."""
    return page.eval_on_selector_all("#leaderboard-table tbody tr", """rows => rows.map(r => [
        r.dataset.rank, r.dataset.username, r.querySelector('td.rating').textContent])""")


# --- a rated game, its end, the profile, the leaderboard -------------------------------------
@requires_redis
def test_a_rated_game_against_a_bot_shows_the_change_then_the_profile_and_the_leaderboard_show_the_rating(
        server, new_page, worker, tmp_path):  # noqa: F811
    worker.start()
    name, api = register(server)
    page = signed_in(new_page(), server, name, api.token)
    assert not page.is_checked("#create-rated")  # casual by default
    page.select_option("#create-ruleset", "standard")
    page.select_option(".bot-level", "random")
    page.check("#create-rated")
    page.uncheck("#create-start-when-full")  # a table that waits for its creator's Start
    page.click("#create-options-box summary")
    page.fill("#opt-target_score", "1")  # the first round ends it (a quick game)
    page.click("#create-submit")
    page.wait_for_url(GAME_URL)
    gid = int(GAME_URL.search(page.url).group(1))
    game = api.get(f"/games/{gid}")
    assert game["rated"] is True and game["options"]["target_score"] == 1
    page.wait_for_selector("#table[data-status=waiting] #game-rated")
    # the waiting seats link to the player's profile and the bot level's
    assert page.get_attribute(".waiting-seats li[data-seat='0'] a.player-link", "href") == f"#/player/{name}"
    assert page.get_attribute(".waiting-seats li[data-seat='1'] a.player-link", "href") == "#/player/bot%3Arandom"

    page.click("#start")
    page.wait_for_selector("#table[data-status=active]")
    # beat's sweeper runs beside the worker, as under `make run`: it revives a bot step whose
    # task was lost (once in CI the game did not end within 120 s without it; the cause
    # was not found: the lost bot step of the buzzer test is the likeliest)
    with celery_beat(tmp_path, sweep_seconds=1):
        play_my_turns(gid, api)
    final = api.get(f"/games/{gid}")
    assert final["status"] == "finished" and len(final["rating_changes"]) == 2
    # the page follows to the end (the stream), and shows each seat's change
    page.wait_for_selector("#table[data-status=finished] #rating-changes table")
    no_error(page)
    for change in final["rating_changes"]:
        row = page.locator(f"#rating-changes tr[data-seat='{change['seat']}']")
        cells = row.locator("td").all_inner_texts()
        expected_name = f"{name} (you)" if change["seat"] == 0 else "Bot 1 (random)"
        assert cells == [{1: "1st", 2: "2nd"}[change["place"]], expected_name, f"{change['rating_before']:.2f}",
                         f"{change['rating_after']:.2f}", signed(change["change"])], cells
    winner = final["winners"][0]["seat"]
    assert page.locator("#rating-changes tbody tr").first.get_attribute("data-seat") == str(winner)  # 1st first
    assert "rated" in page.inner_text("#game-rated")
    page.locator("#result").scroll_into_view_if_needed()
    shot(page, "rating-changes.png")

    # the player's name there opens their profile: the new rating, provisional, the game
    mine = final["rating_changes"][0]
    page.click("#rating-changes tr[data-seat='0'] a.player-link")
    page.wait_for_selector(f"#profile[data-username='{name}'] #profile-ratings")
    profile = api.get(f"/players/{name}")
    (rating,) = profile["ratings"]
    assert rating["ruleset"] == "standard" and rating["provisional"] and rating["rank"] is None
    assert rating["rating"] == mine["rating_after"]
    row = page.locator("#profile-ratings tr[data-ruleset=standard]")
    assert row.get_attribute("data-provisional") == "true"
    assert row.locator("td.rating").inner_text() == f"{mine['rating_after']:.2f}"
    assert row.locator("td.uncertainty").inner_text() == f"± {rating['sigma']:.2f}"
    assert row.locator("td.uncertainty").get_attribute("title").startswith(f"skill estimate {rating['mu']:.2f} ± ")
    assert row.locator("td.rank").inner_text() == "provisional"
    won = 1 if winner == 0 else 0
    assert page.inner_text("#profile-totals") == f"1 game played, {won} won"
    titles = {p["name"]: p["title"] for p in api.get("/rulesets")["results"]}  # presets by their titles
    assert page.locator("#profile-games tr[data-ruleset=standard] td").all_inner_texts() == [titles["standard"], "1", str(won)]
    listed = page.locator(f"#last-games tr[data-game-id='{gid}']")
    assert listed.locator("td.result").inner_text() == ("won" if won else "lost")
    assert listed.locator("td.rating-change").inner_text() == signed(mine["change"])
    assert "rated" in listed.inner_text() and listed.locator("a.player-link").count() == 2
    no_error(page)
    shot(page, "profile.png")

    # the game's number opens its replay
    listed.locator("a.replay").click()
    page.wait_for_selector("#replay-position")
    assert page.url.endswith(f"#/replay/{gid}")
    assert page.get_attribute("#replay-hands .replay-seat[data-seat='1'] a.player-link", "href") == "#/player/bot%3Arandom"

    # the leaderboard (the top bar's link): one rated game leaves the rating provisional, so
    # "my position" shows it unranked, with the same rating
    page.click("#nav-leaderboard")
    page.wait_for_selector("#leaderboard[data-loaded=true]")
    page.click("#leaderboard-around-me")
    page.wait_for_selector("#leaderboard[data-view=me][data-loaded=true] #my-position[data-provisional=true]")
    me = api.get("/leaderboards/standard?around=me")["me"]
    assert me["username"] == name and me["provisional"] and me["rank"] is None
    assert page.get_attribute("#my-position", "data-rank") == ""
    assert page.inner_text("#my-position .rating") == f"{mine['rating_after']:.2f}" == f"{me['rating']:.2f}"
    assert "provisional" in page.inner_text("#my-position .rank")
    no_error(page)

    # the player hides their game list: another player sees it hidden, they still see it
    page.click("#my-profile")
    page.wait_for_selector(f"#profile[data-username='{name}'] #last-games")
    page.uncheck("#games-public")
    page.wait_for_selector("#profile-last-games[data-games-public=false] #last-games")
    assert api.get(f"/players/{name}")["games_public"] is False
    other_name, other = register(server)
    assert other.get(f"/players/{name}")["last_games"] is None
    watcher = signed_in(new_page(), server, other_name, other.token, f"#/player/{name}")
    watcher.wait_for_selector("#profile #games-hidden")
    assert watcher.locator("#games-public").count() == 0 and watcher.locator("#last-games").count() == 0
    assert watcher.locator("#profile-ratings tr[data-ruleset=standard] td.rating").inner_text() == \
        f"{mine['rating_after']:.2f}"
    page.check("#games-public")
    page.wait_for_selector("#profile-last-games[data-games-public=true] #last-games")
    assert api.get(f"/players/{name}")["games_public"] is True

    # the bot's name opens its level's profile
    watcher.goto(f"{server.url}/#/game/{gid}")
    watcher.wait_for_selector("#table[data-status=finished] #rating-changes")
    watcher.click("#seats .seat[data-seat='1'] a.player-link")
    watcher.wait_for_selector("#profile[data-username='bot:random'][data-bot=true]")
    bot = api.get("/players/bot:random")["ratings"]
    assert watcher.locator("#profile-ratings tr[data-ruleset=standard] td.rating").inner_text() == \
        f"{next(r for r in bot if r['ruleset'] == 'standard')['rating']:.2f}"
    no_error(watcher)

    # the lobby says which games are rated
    page.click("text=Lobby")
    page.wait_for_selector(f"#my-games tr[data-game-id='{gid}'] .badge.rated")


# --- the leaderboard's pages ------------------------------------------------------------------
def test_the_leaderboard_pages_on_and_shows_a_ranked_player_around_their_rank(server, new_page, django_user_model):  # noqa: F811
    players = [django_user_model.objects.create_user(username=f"ranked{i:02d}", password="x" * 12) for i in range(60)]
    ranked("house", [(p, 40 - i * 0.25, 3.0) for i, p in enumerate(players)])  # ranked00 the best
    name, api = register(server)
    me = django_user_model.objects.get(username=name)
    ranked("house", [(me, 40 - 30.1 * 0.25, 3.0)])  # between ranked30 and ranked31: rank 32
    page = signed_in(new_page(), server, name, api.token, "#/leaderboard/house")
    page.wait_for_selector("#leaderboard[data-ruleset=house][data-loaded=true]")
    first = api.get("/leaderboards/house?limit=50")
    assert [[str(e["rank"]), e["username"], f"{e['rating']:.2f}"] for e in first["results"]] == board_rows(page)
    assert len(board_rows(page)) == 50 and page.inner_text("#leaderboard-count") == "61 ranked"
    assert page.locator("#leaderboard-table tr.me").count() == 1  # the player's own row, marked
    page.click("#leaderboard-more")
    page.wait_for_function("() => document.querySelectorAll('#leaderboard-table tbody tr').length === 61")
    rest = api.get(f"/leaderboards/house?limit=50&after={first['next_cursor']}")
    assert rest["next_cursor"] is None
    assert board_rows(page)[50:] == [[str(e["rank"]), e["username"], f"{e['rating']:.2f}"] for e in rest["results"]]
    assert [r[0] for r in board_rows(page)] == [str(i) for i in range(1, 62)]
    assert page.locator("#leaderboard-more").count() == 0

    # my position: ranked, with the players around
    page.click("#leaderboard-around-me")
    page.wait_for_selector("#leaderboard[data-view=me][data-loaded=true] #my-position[data-rank='32']")
    around = api.get("/leaderboards/house?around=me&limit=20")
    assert around["me"]["rank"] == 32 and not around["me"]["provisional"]
    assert board_rows(page)[: len(around["results"])] == [
        [str(e["rank"]), e["username"], f"{e['rating']:.2f}"] for e in around["results"]]
    assert page.inner_text("#my-position .rank") == "rank #32"
    assert page.get_attribute("#leaderboard-table tr.me", "data-rank") == "32"
    # a name opens its profile
    page.click("#leaderboard-table tr[data-username=ranked31] a.player-link")
    page.wait_for_selector("#profile[data-username=ranked31] #profile-ratings tr[data-ruleset=house]")
    assert page.inner_text("#profile-ratings tr[data-ruleset=house] td.rank") == "#33"
    # another preset from the picker: nobody ranked there
    page.go_back()
    page.wait_for_selector("#leaderboard[data-view=me][data-loaded=true]")
    page.select_option("#leaderboard-ruleset", "duo")
    page.wait_for_selector("#leaderboard[data-ruleset=duo][data-view=me][data-loaded=true]")
    duo = next(p["title"] for p in api.get("/rulesets")["results"] if p["name"] == "duo")
    assert f"no rating in {duo}" in page.inner_text("#my-position")
    no_error(page)
    # an unknown preset in the address: the API's problem
    page.goto(f"{server.url}/#/leaderboard/nothing")
    page.wait_for_selector("#error:not([hidden])")
    assert page.get_attribute("#error", "data-code") == "unknown_ruleset"


# --- a phone --------------------------------------------------------------------------------
def test_the_profile_and_the_leaderboard_fit_a_small_phone(server, new_page, django_user_model):  # noqa: F811
    long_names = [django_user_model.objects.create_user(username=f"a_rather_long_username_{i:02d}", password="x" * 12)
                  for i in range(12)]
    ranked("standard", [(p, 30 - i, 2.5) for i, p in enumerate(long_names)])
    name, api = register(server)
    other_name, other = register(server)
    gid = played_between([api, other])
    page = signed_in(new_page(viewport=SMALL_PHONE), server, name, api.token, "#/leaderboard/standard")
    page.wait_for_selector("#leaderboard[data-loaded=true] #leaderboard-table tbody tr")
    no_sideways_scroll(page, "#leaderboard", "#leaderboard-ruleset", "#leaderboard-around-me")
    shot(page, "leaderboard-phone.png")
    page.click("#leaderboard-table tbody tr:first-child a.player-link")
    page.wait_for_selector("#profile[data-username='a_rather_long_username_00'] #profile-ratings table")
    no_sideways_scroll(page, "#profile", "#profile-ratings", "#profile-games", "#profile-last-games")
    page.click("#my-profile")
    page.wait_for_selector(f"#profile[data-username='{name}'] #last-games tr[data-game-id='{gid}']")
    no_sideways_scroll(page, "#profile", "#profile-ratings", "#profile-last-games", "#games-public")
    page.goto(f"{server.url}/#/leaderboard/standard/me")
    page.wait_for_selector("#leaderboard[data-view=me][data-loaded=true] #my-position[data-provisional=true]")
    no_sideways_scroll(page, "#leaderboard", "#my-position")
    # the end of the game, its rating changes
    page.goto(f"{server.url}/#/game/{gid}")
    # (once live: the table is drawn again when its stream opens)
    page.wait_for_selector("#table[data-status=finished]:not([data-live='']) #rating-changes table")
    no_sideways_scroll(page, "#result", "#rating-changes")
    no_error(page)
