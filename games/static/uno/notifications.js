// Notifications (issue 29): `#/notifications` (also `#/settings`, where emails link to).
// The player's email address and its verification, what is sent on which channel (email,
// push) for each kind of message, quiet hours in their time zone, the digest, the "away"
// period of correspondence games, the devices that receive push notifications, and the
// button that asks this browser's permission and subscribes it (Web Push, through the
// service worker at /sw.js).  Over the API's /players/me/notifications, /players/me/email,
// /players/me/push-subscriptions and /players/me/away.

import { api } from "./api.js";
import { el, hideError, notice, showError } from "./ui.js";

/** The kinds of message, in the order and the words the screen shows them. */
export const KINDS = [
  ["your_turn", "Your turn", "in a long game, when you have not looked for a while"],
  ["reminder", "Reminders", "before your time for a move runs out"],
  ["game_started", "Game started", ""],
  ["game_finished", "Game finished", "with the result"],
  ["challenge", "Challenges", "someone challenged you"],
  ["rematch", "Rematch offers", ""],
];
export const CHANNELS = [["email", "Email"], ["push", "Push"]];
const PLATFORM_NAMES = { webpush: "Browser", fcm: "Android app", apns: "iPhone / iPad app" };

/** This browser's time zone (IANA), or UTC. */
export function deviceTimeZone() {
  try { return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch { return "UTC"; }
}

/** Time zones a player can pick (the browser's list, or a few with theirs). */
function timeZones(current) {
  let zones = [];
  try { zones = Intl.supportedValuesOf("timeZone"); } catch { zones = []; }
  zones = [...new Set(["UTC", ...zones, current, deviceTimeZone()])].filter(Boolean);
  return zones;
}

/** Can this browser receive Web Push (a service worker, the Push API, notifications)? */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;
}

/** An application server key (URL-safe base64) as pushManager.subscribe takes it. */
function keyBytes(b64) {
  const s = (b64 + "=".repeat((4 - (b64.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

const sameKey = (buffer, b64) => {
  if (!buffer) return false;
  const a = new Uint8Array(buffer);
  const b = keyBytes(b64);
  return a.length === b.length && a.every((x, i) => x === b[i]);
};

/** A name for this device in the list of push subscriptions. */
function deviceLabel() {
  const ua = navigator.userAgent || "";
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrom(e|ium)\//.test(ua) ? "Chrome"
    : /Safari\//.test(ua) ? "Safari" : "Browser";
  const system = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Mac OS X/.test(ua) ? "macOS"
    : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "";
  return system ? `${browser} on ${system}` : browser;
}

const day = (iso) => new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A `datetime-local` value (the player's local time) for a Date. */
function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * Runs `call` (the request, and the screen drawn again after it) with `button` disabled;
 * shows its error.  Answers what `call` returned, or undefined after an error.
 */
async function busy(button, call) {
  hideError();
  if (button) button.disabled = true;
  try {
    return await call();
  } catch (err) {
    showError(err);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

// --- email ----------------------------------------------------------------------------------
function emailSection(settings, refresh) {
  const { address, verified } = settings.email || { address: null, verified: false };
  const input = el("input", { id: "email-address", type: "email", autocomplete: "email", inputmode: "email",
    value: address || "", required: true, "aria-describedby": "email-state" });
  const state = el("p", { id: "email-state", dataset: { verified: verified ? "true" : "false" } },
    !address ? "No email address: nothing is emailed to you."
      : verified ? ["Verified: ", el("strong", {}, address), "."]
        : ["Not verified yet: open the link sent to ", el("strong", {}, address), " (nothing else is emailed until then)."]);
  const save = el("button", { type: "submit", id: "email-save" }, address && !verified ? "Send the link again" : "Save and verify");
  const form = el("form", { id: "email-form", class: "row-form" },
    el("label", { for: "email-address" }, "Email address"), input, save);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const value = input.value.trim();
    await busy(save, async () => {
      await api("POST", "/api/v1/players/me/email", { body: { address: value } });
      notice(`A verification link was sent to ${value}.`);
      await refresh();
    });
  });
  const remove = address ? el("button", { type: "button", id: "email-remove", onclick: async (e) => {
    await busy(e.target, async () => {
      await api("DELETE", "/api/v1/players/me/email");
      notice("Your email address was removed.");
      await refresh();
    });
  } }, "Remove the address") : "";
  return el("section", { id: "notify-email", class: "panel" }, el("h3", {}, "Email"), state, form, remove);
}

// --- what is sent where ---------------------------------------------------------------------
function kindsSection(settings) {
  const kinds = settings.kinds || {};
  const rows = KINDS.map(([kind, label, about]) => el("tr", { dataset: { kind } },
    el("th", { scope: "row", id: `kind-${kind}` }, label, about ? el("span", { class: "hint about" }, about) : ""),
    CHANNELS.map(([channel, channelLabel]) => {
      const box = el("input", {
        type: "checkbox", id: `kind-${kind}-${channel}`, checked: Boolean(kinds[kind] && kinds[kind][channel]),
        "aria-label": `${label} by ${channelLabel.toLowerCase()}`, dataset: { kind, channel },
      });
      box.addEventListener("change", async () => {
        const saved = await busy(box, () => api("PATCH", "/api/v1/players/me/notifications",
          { body: { kinds: { [kind]: { [channel]: box.checked } } } }));
        if (saved === undefined) box.checked = !box.checked;
        else if (saved.data && saved.data.kinds && saved.data.kinds[kind]) box.checked = Boolean(saved.data.kinds[kind][channel]);
      });
      return el("td", {}, el("label", { class: "box", for: box.id }, box));
    })));
  return el("section", { id: "notify-kinds", class: "panel" },
    el("h3", {}, "What is sent, and where"),
    el("p", { class: "hint" }, "The games' pages show everything as it happens; these messages reach you when you are away. ",
      "A message never shows a card."),
    el("table", { class: "kinds" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Message"), CHANNELS.map(([, l]) => el("th", { scope: "col" }, l)))),
      el("tbody", {}, rows)));
}

// --- quiet hours, time zone, digest ---------------------------------------------------------
function quietSection(settings, refresh) {
  const quiet = settings.quiet_hours;
  // a player who never chose a time zone (the server's default, UTC) is offered this device's
  const zone = settings.timezone && !(settings.timezone === "UTC" && !quiet) ? settings.timezone : deviceTimeZone();
  const on = el("input", { type: "checkbox", id: "quiet-on", checked: Boolean(quiet) });
  const start = el("input", { type: "time", id: "quiet-start", value: quiet ? quiet.start : "22:00", required: true });
  const end = el("input", { type: "time", id: "quiet-end", value: quiet ? quiet.end : "08:00", required: true });
  const tz = el("select", { id: "quiet-timezone" }, timeZones(zone).map((z) => el("option", { value: z, selected: z === zone }, z.replace(/_/g, " "))));
  const times = el("div", { class: "times" },
    el("label", { for: "quiet-start" }, "From", start), el("label", { for: "quiet-end" }, "to", end));
  const showTimes = () => { times.hidden = !on.checked; };
  on.addEventListener("change", showTimes);
  showTimes();
  const save = el("button", { type: "submit", id: "quiet-save" }, "Save");
  const form = el("form", { id: "quiet-form" },
    el("label", { for: "quiet-on", class: "check" }, on, "Quiet hours: nothing is sent between"),
    times,
    el("label", { for: "quiet-timezone", class: "stacked" }, "Your time zone", tz),
    el("p", { class: "hint" }, "What comes in quiet hours waits until they end. A reminder still comes when your time ",
      "for a move would run out before then."),
    save);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { timezone: tz.value, quiet_hours: on.checked ? { start: start.value, end: end.value } : null };
    await busy(save, async () => {
      await api("PATCH", "/api/v1/players/me/notifications", { body });
      notice(on.checked ? `Quiet hours saved: ${start.value} to ${end.value} (${tz.value}).` : "No quiet hours.");
      await refresh();
    });
  });

  const digest = el("input", { type: "checkbox", id: "digest", checked: Boolean(settings.digest) });
  digest.addEventListener("change", async () => {
    const saved = await busy(digest, () => api("PATCH", "/api/v1/players/me/notifications", { body: { digest: digest.checked } }));
    if (saved === undefined) digest.checked = !digest.checked;
  });
  return el("section", { id: "notify-quiet", class: "panel" },
    el("h3", {}, "When"),
    form,
    el("label", { for: "digest", class: "check" }, digest, "One message for several games (a digest) rather than one each"));
}

// --- away -------------------------------------------------------------------------------------
async function awaySection(sc) {
  const box = el("section", { id: "notify-away", class: "panel" });
  const render = async () => {
    let away;
    try {
      away = (await api("GET", "/api/v1/players/me/away")).data;
    } catch (err) {
      box.replaceChildren(el("h3", {}, "Away"), el("p", { class: "empty" }, `Away periods cannot be read now (${err.message}).`));
      return;
    }
    if (!sc.alive()) return;
    const until = away.away_until;
    const used = Number(away.days_used_this_month || 0);
    const allowed = Number(away.days_allowed_per_month || 0);
    const input = el("input", { type: "datetime-local", id: "away-until", required: true,
      min: localInput(new Date()),
      value: localInput(until ? new Date(until) : new Date(Date.now() + 3 * 86400000)) });
    const go = el("button", { type: "submit", id: "away-save" }, until ? "Change" : "Go away");
    const form = el("form", { id: "away-form", class: "row-form" }, el("label", { for: "away-until" }, "Away until"), input, go);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const at = new Date(input.value);
      if (Number.isNaN(at.getTime())) return;
      await busy(go, async () => {
        await api("PUT", "/api/v1/players/me/away", { body: { until: at.toISOString() } });
        notice(`Away until ${when(at.toISOString())}: your correspondence clocks stop.`);
        await render();
      });
    });
    const back = until ? el("button", { type: "button", id: "away-end", onclick: async (e) => {
      await busy(e.target, async () => {
        await api("DELETE", "/api/v1/players/me/away");
        notice("Welcome back: your correspondence clocks run again.");
        await render();
      });
    } }, "I am back") : "";
    box.dataset.away = until ? "true" : "false";
    box.replaceChildren(
      el("h3", {}, "Away"),
      el("p", { id: "away-state" }, until ? ["You are away until ", el("strong", {}, when(until)), ": your correspondence clocks are stopped."]
        : "You are not away."),
      el("p", { id: "away-days", class: "hint", dataset: { used: used, allowed: allowed } },
        `${plural(Math.round(used * 10) / 10, "day")} used this month, of ${plural(allowed, "day")} allowed. `,
        "While you are away, the clocks of your correspondence games stop; real-time games are not affected."),
      allowed ? form : el("p", { class: "empty" }, "This server allows no away periods."),
      back);
  };
  await render();
  return box;
}

// --- devices (push) -------------------------------------------------------------------------
function devicesSection(settings, refresh) {
  const subs = settings.push_subscriptions || [];
  const key = settings.push && settings.push.webpush_public_key;
  const list = subs.length ? el("ul", { id: "push-devices", class: "devices" }, subs.map((s) => el("li", { dataset: { id: s.id, platform: s.platform } },
    el("span", { class: "device" }, s.label || PLATFORM_NAMES[s.platform] || s.platform,
      el("span", { class: "hint" }, ` ${PLATFORM_NAMES[s.platform] || s.platform}, since ${day(s.created_at)}`)),
    el("button", { type: "button", class: "remove", "aria-label": `Remove ${s.label || PLATFORM_NAMES[s.platform] || s.platform}`,
      onclick: async (e) => {
        await busy(e.target, async () => {
          await api("DELETE", `/api/v1/players/me/push-subscriptions/${s.id}`);
          notice("That device gets no more push notifications.");
          await refresh();
        });
      } }, "Remove"))))
    : el("p", { id: "push-devices", class: "empty" }, "No device gets push notifications yet.");

  const state = el("p", { id: "push-state", class: "hint", role: "status" });
  let action = "";
  if (!key) {
    state.textContent = "This server does not send browser notifications.";
  } else if (!pushSupported()) {
    state.textContent = "This browser cannot receive notifications from a web page.";
  } else if (Notification.permission === "denied") {
    state.textContent = "Notifications are blocked for this site: allow them in the browser's site settings, then come back.";
  } else {
    action = el("button", { type: "button", id: "push-enable", class: "primary" }, "Enable notifications on this device");
    // a device that subscribed before: say so (the button then subscribes it again)
    if (Notification.permission === "granted") {
      navigator.serviceWorker.getRegistration("/")
        .then((r) => (r ? r.pushManager.getSubscription() : null))
        .then((sub) => {
          if (sub && sameKey(sub.options && sub.options.applicationServerKey, key) && !state.dataset.step) {
            state.dataset.step = "subscribed";
            state.textContent = "This device already gets notifications.";
            action.textContent = "Subscribe this device again";
          }
        })
        .catch(() => { /* no worker, no subscription: the button as it is */ });
    }
    action.addEventListener("click", async () => {
      await busy(action, async () => {
        state.textContent = "Asking the browser…";
        const permission = await Notification.requestPermission();
        if (permission !== "granted") {
          state.textContent = permission === "denied"
            ? "Notifications are blocked for this site: allow them in the browser's site settings, then try again."
            : "The browser was not allowed to show notifications.";
          state.dataset.step = "permission";
          return;
        }
        state.dataset.step = "subscribe";
        state.textContent = "Subscribing this device…";
        const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
        await navigator.serviceWorker.ready;
        let sub = await registration.pushManager.getSubscription();
        if (sub && !sameKey(sub.options && sub.options.applicationServerKey, key)) {
          await sub.unsubscribe(); // made for another server key
          sub = null;
        }
        try {
          sub = sub || await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
        } catch (err) {
          state.dataset.step = "failed";
          state.textContent = `This browser could not subscribe to notifications (${err.message || err.name}).`;
          return;
        }
        const json = sub.toJSON();
        await api("POST", "/api/v1/players/me/push-subscriptions",
          { body: { platform: "webpush", endpoint: json.endpoint, keys: json.keys, label: deviceLabel() } });
        state.dataset.step = "done";
        notice("This device gets notifications now.");
        await refresh();
      });
    });
  }
  return el("section", { id: "notify-push", class: "panel" },
    el("h3", {}, "Push notifications"),
    el("p", { class: "hint" }, "The devices that show notifications of your games. Choose which messages above (the Push column)."),
    list, state, action);
}

/** `#/notifications`: every notification setting of the player. */
export async function viewNotifications(root, sc) {
  const page = el("section", { id: "notifications", class: "notifications" });
  root.append(el("h2", { class: "notifications-title" }, "Notifications"), page);
  // the whole screen drawn again from the API; `data-loaded` is "true" once it is
  const refresh = async () => {
    page.dataset.loaded = "false";
    const { data } = await api("GET", "/api/v1/players/me/notifications");
    if (!sc.alive()) return;
    const away = page.querySelector("#notify-away") || await awaySection(sc);
    if (!sc.alive()) return;
    page.replaceChildren(
      emailSection(data, refresh), kindsSection(data), quietSection(data, refresh), away, devicesSection(data, refresh));
    page.dataset.loaded = "true";
  };
  await refresh();
}
