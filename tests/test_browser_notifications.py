"""The browser client's notification settings (issue 29) in a real browser: Debian's
chromium driven by Playwright against a real gunicorn with Web Push configured (a VAPID
key pair made by reach.push).  Every change goes through the page's JavaScript
(games/static/uno/notifications.js) to the API, and is read back from the API.

- The settings screen (#/notifications, a link in the top bar): each kind x channel box
  shows the API's value and saves a change; quiet hours and the time zone (this device's
  by default); the digest; the email address (saved, shown unverified); the "away"
  period (set, shown with the days used, ended); a push subscription listed and removed.
- The button "Enable notifications on this device": with the permission granted, it
  registers the service worker (/sw.js, scope /) and asks the push manager to subscribe.
  Headless Chromium has no push service to reach here (its push service is Google's),
  so the subscription itself may fail: the test then checks that the page says so and
  still works; where it succeeds, the subscription is in the API.  Without the
  permission, the page says it is blocked.  Where the browser has no Push API, no
  button, a sentence, and no error.
- The service worker itself: a push message delivered to it (Chromium's DevTools
  protocol, ServiceWorker.deliverPushMessage) shows a notification with the message's
  title, body and tag.
- On a 360 x 640 phone nothing scrolls sideways; axe-core finds nothing serious.

Screenshots for the docs: ``UNO_SCREENSHOTS=docs/screenshots`` writes
``notifications-desktop.png`` and ``notifications-phone.png``.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest
import requests

from reach import push
from tests.browser_support import SMALL_PHONE, assert_accessible, browser_marks, no_sideways_scroll, register, shot, signed_in
from tests.server_support import served

pytestmark = browser_marks

KEYS = push.generate_vapid_keys()


@pytest.fixture(scope="module")
def server(django_db_setup, static_root, tmp_path_factory):
    """This module's server: the browser tests' (tests/browser_support.py), with Web Push on."""
    yield from served(tmp_path_factory, STATIC_ROOT=static_root, UNO_VAPID_PRIVATE_KEY=KEYS[0],
                      UNO_VAPID_PUBLIC_KEY=KEYS[1], UNO_VAPID_SUBJECT="mailto:ops@example.org")


def no_error(page) -> None:
    assert page.locator("#error").is_hidden(), page.inner_text("#error")


def open_settings(page, server, name, token):
    signed_in(page, server, name, token, "#/lobby")
    page.click("#nav-notifications")
    page.wait_for_selector("#notifications[data-loaded=true]")
    assert page.title() == "Notifications · UNO"
    return page


def settled(page, selector: str) -> None:
    """The control is enabled again (its request answered) and the screen drawn again."""
    page.wait_for_selector(f"{selector}:not([disabled])")
    page.wait_for_selector("#notifications[data-loaded=true]")


def until(page, check, what: str, limit: float = 30):
    """``check()`` until it is truthy (what the browser does, not a time, is awaited);
    Playwright hands over the browser's events while the page waits between tries."""
    deadline = time.monotonic() + limit
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(100)


def test_settings_are_saved_and_read_back(new_page, server):
    name, api = register(server)
    page = open_settings(new_page(), server, name, api.token)
    settings = api.get("/players/me/notifications")
    assert settings["push"]["webpush_public_key"] == KEYS[1]

    # every box shows the API's value; a change is saved (and read back from the API)
    for kind, channels in settings["kinds"].items():
        for channel, on in channels.items():
            assert page.is_checked(f"#kind-{kind}-{channel}") == on, (kind, channel)
    for kind, channel in (("challenge", "email"), ("game_finished", "push"), ("your_turn", "email")):
        was = settings["kinds"][kind][channel]
        page.click(f"#kind-{kind}-{channel}")
        settled(page, f"#kind-{kind}-{channel}")
        assert api.get("/players/me/notifications")["kinds"][kind][channel] is (not was)
        assert page.is_checked(f"#kind-{kind}-{channel}") is (not was)
    no_error(page)

    # quiet hours in a time zone; the digest
    device_zone = page.evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone")
    assert page.input_value("#quiet-timezone") == device_zone  # never chosen: this device's
    page.check("#quiet-on")
    page.fill("#quiet-start", "21:30")
    page.fill("#quiet-end", "07:15")
    page.select_option("#quiet-timezone", "Europe/Berlin")
    page.click("#quiet-save")
    settled(page, "#quiet-save")
    saved = api.get("/players/me/notifications")
    assert saved["quiet_hours"] == {"start": "21:30", "end": "07:15"} and saved["timezone"] == "Europe/Berlin"
    page.click("#digest")
    settled(page, "#digest")
    assert api.get("/players/me/notifications")["digest"] is (not settings["digest"])

    page.reload()
    page.wait_for_selector("#notifications[data-loaded=true]")
    assert page.is_checked("#quiet-on") and page.input_value("#quiet-start") == "21:30"
    assert page.input_value("#quiet-end") == "07:15" and page.input_value("#quiet-timezone") == "Europe/Berlin"
    assert page.is_checked("#digest") is (not settings["digest"])
    page.uncheck("#quiet-on")
    page.click("#quiet-save")
    settled(page, "#quiet-save")
    assert api.get("/players/me/notifications")["quiet_hours"] is None

    # the email address: saved, not verified yet
    page.fill("#email-address", f"{name}@example.org")
    page.click("#email-save")
    page.wait_for_selector("#email-state[data-verified=false] strong")
    assert page.inner_text("#email-state strong") == f"{name}@example.org"
    assert api.get("/players/me/notifications")["email"] == {"address": f"{name}@example.org", "verified": False}
    no_error(page)
    shot(page, "notifications-desktop.png")
    assert_accessible(page, "notifications")


def test_away_period_is_set_shown_and_ended(new_page, server):
    name, api = register(server)
    page = open_settings(new_page(), server, name, api.token)
    page.wait_for_selector("#notify-away[data-away=false]")
    allowed = api.get("/players/me/away")["days_allowed_per_month"]
    assert page.get_attribute("#away-days", "data-allowed") == str(allowed)
    if not allowed:
        pytest.skip("the server allows no away days")
    # two days from now, in the page's local time (what a datetime-local input holds)
    target = page.evaluate("""() => { const d = new Date(Date.now() + 2 * 86400000); d.setSeconds(0, 0);
        const p = (n) => String(n).padStart(2, '0');
        return [`${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`,
                d.toISOString()]; }""")
    page.fill("#away-until", target[0])
    page.click("#away-save")
    page.wait_for_selector("#notify-away[data-away=true]")
    away = api.get("/players/me/away")
    assert away["away_until"] is not None
    got = datetime.fromisoformat(away["away_until"].replace("Z", "+00:00"))
    asked = datetime.fromisoformat(target[1].replace("Z", "+00:00"))
    assert abs(got - asked) <= timedelta(minutes=1), (got, asked)  # the server may round
    assert float(page.get_attribute("#away-days", "data-used")) == pytest.approx(away["days_used_this_month"])
    page.click("#away-end")
    page.wait_for_selector("#notify-away[data-away=false]")
    assert api.get("/players/me/away")["away_until"] is None
    no_error(page)


def test_push_subscriptions_are_listed_and_removed(new_page, server):
    name, api = register(server)
    r = api.call("POST", "/players/me/push-subscriptions", {
        "platform": "webpush", "endpoint": "https://push.example.net/send/abc123",
        "keys": {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
                 "auth": "tBHItJI5svbpez7KI4CCXg"}, "label": "Firefox on Linux"})
    assert r.status_code == 201, r.text
    sub_id = r.json()["id"]
    page = open_settings(new_page(), server, name, api.token)
    item = page.locator(f"#push-devices li[data-id='{sub_id}']")
    assert "Firefox on Linux" in item.inner_text()
    item.locator("button.remove").click()
    page.wait_for_selector("p#push-devices")  # the empty list's sentence
    assert api.get("/players/me/notifications")["push_subscriptions"] == []
    no_error(page)


def test_enable_button_asks_permission_registers_the_worker_and_subscribes(new_page, server):
    name, api = register(server)
    page = open_settings(new_page(permissions=("notifications",)), server, name, api.token)
    page.click("#push-enable")
    page.wait_for_selector("#push-state[data-step=done], #push-state[data-step=failed]")
    step = page.get_attribute("#push-state", "data-step")
    # the service worker at the site's root controls the whole site
    scope = page.evaluate("async () => (await navigator.serviceWorker.getRegistration('/')).scope")
    assert scope == f"{server.url}/"
    subs = api.get("/players/me/notifications")["push_subscriptions"]
    if step == "done":  # a browser with a push service: the subscription is the server's
        assert [s["platform"] for s in subs] == ["webpush"]
        page.wait_for_selector("ul#push-devices li")
    else:  # headless Chromium here: no push service to reach; the page says so and goes on
        assert "could not subscribe" in page.inner_text("#push-state")
        assert subs == []
        page.click("#kind-reminder-push")  # still works
        settled(page, "#kind-reminder-push")
    no_error(page)


def test_without_permission_the_page_says_notifications_are_blocked(new_page, server):
    name, api = register(server)
    page = open_settings(new_page(), server, name, api.token)
    permission = page.evaluate("() => Notification.permission")
    if permission == "denied":  # this browser answers before asking: no button, a sentence
        assert page.locator("#push-enable").count() == 0 and "blocked" in page.inner_text("#push-state")
    else:
        page.click("#push-enable")
        page.wait_for_selector("#push-state[data-step=permission]")
        assert page.evaluate("() => Notification.permission") != "granted"
    assert api.get("/players/me/notifications")["push_subscriptions"] == []
    no_error(page)


def test_a_browser_without_push_gets_no_button_and_no_error(new_page, server):
    name, api = register(server)
    page = new_page()
    page.add_init_script("delete window.PushManager;")
    open_settings(page, server, name, api.token)
    assert page.locator("#push-enable").count() == 0
    assert "cannot receive notifications" in page.inner_text("#push-state")
    page.click("#kind-rematch-email")
    settled(page, "#kind-rematch-email")
    no_error(page)


def test_service_worker_shows_a_pushed_message(new_page, server):
    """sw.js on a push: a notification with the message's title, body and tag."""
    resp = requests.get(f"{server.url}/sw.js", timeout=30)
    assert resp.status_code == 200 and resp.headers["Service-Worker-Allowed"] == "/"
    assert resp.headers["Content-Type"].startswith("text/javascript")
    name, api = register(server)
    page = signed_in(new_page(permissions=("notifications",)), server, name, api.token)
    page.evaluate("async () => { await navigator.serviceWorker.register('/sw.js', {scope: '/'}); "
                  "await navigator.serviceWorker.ready; }")
    registration = page.evaluate("async () => (await navigator.serviceWorker.getRegistration('/')).scope")
    cdp = page.context.new_cdp_session(page)
    versions: list = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: versions.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")  # reports the registrations there are
    reg = until(page, lambda: [r for r in versions if r["scopeURL"] == registration and not r["isDeleted"]],
                "the service worker's registration")
    message = {"title": "Your turn", "body": "Game 7: your move.", "url": "/#/game/7", "kind": "your_turn",
               "tag": "game-7"}
    cdp.send("ServiceWorker.deliverPushMessage", {"origin": server.url, "registrationId": reg[0]["registrationId"],
                                                 "data": json.dumps(message)})
    shown = until(page, lambda: page.evaluate("""async () => (await (await navigator.serviceWorker.getRegistration('/'))
        .getNotifications()).map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}))"""),
                  "the notification")
    assert shown == [{"title": "Your turn", "body": "Game 7: your move.", "tag": "game-7", "url": f"{server.url}/#/game/7"}]


def test_phone_fits_and_is_accessible(new_page, server):
    name, api = register(server)
    api.call("PUT", "/players/me/away", {"until": (datetime.now(timezone.utc) + timedelta(days=1)).isoformat()})
    page = open_settings(new_page(viewport=SMALL_PHONE), server, name, api.token)
    no_sideways_scroll(page, "#notify-kinds", "#notify-quiet", "#notify-away", "#notify-push", "#email-form")
    shot(page, "notifications-phone.png")
    assert_accessible(page, "notifications on a phone")
