// Meeting other players: challenges (by name, or open by a link), quick play, rematch
// offers and the table talk, through the API's /challenges, /quickplay,
// /games/{id}/rematch, /games/{id}/chat and /players/me/blocks; live through the feed's
// and the game stream's notice events.

import { api, newKey, session } from "./api.js";
import { countdown } from "./cards.js";
import { optionText, presetTitle, turnText } from "./rulesets.js";
import { commaList, playerLink } from "./standing.js";
import { el, hideError, notice, showError } from "./ui.js";

/** The feed's events this module follows (besides the games' own). */
export const FEED_EVENTS = [
  "challenge", "challenge_accepted", "challenge_declined", "challenge_cancelled", "challenge_expired",
  "quickplay_matched", "quickplay_expired", "rematch_offer",
];
/** The game stream's events this module follows (besides the moves). */
export const STREAM_EVENTS = ["chat", "chat_hidden", "rematch"];

/** Why a challenge is declined: the API's documented list, in words. */
export const DECLINE_REASONS = {
  generic: "Not now",
  later: "Later, please",
  too_fast: "Too fast for me",
  too_slow: "Too slow for me",
  rated: "Rated, please",
  casual: "Casual, please",
  ruleset: "Not this preset",
  options: "Not these house rules",
  too_many_players: "Fewer players, please",
  no_bot: "No bots, please",
  only_bot: "Only with bots",
};
const REPORT_REASONS = ["spam", "abuse", "cheating", "other"];
const QUICKPLAY_KEY = "uno.quickplay";

const same = (a, b) => (a || "").toLowerCase() === (b || "").toLowerCase();
const me = (name) => same(name, session.username);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export { turnText };

/** A game's settings in words (presets by title, options by label once the rulesets are
 * loaded): "Standard UNO · 2 seats · 1 bot (easy) · 30 seconds per turn · rated". */
export function settingsText(c) {
  const parts = [presetTitle(c.ruleset), plural(c.max_players, "seat")];
  if (c.bots && c.bots.length) parts.push(`${plural(c.bots.length, "bot")} (${c.bots.map((b) => b.level).join(", ")})`);
  parts.push(turnText(c.turn_seconds), c.rated ? "rated" : "casual");
  const options = Object.entries(c.options || {}).map(([k, v]) => optionText(k, v));
  if (options.length) parts.push(options.join(", "));
  return parts.join(" · ");
}

const tokenOf = (url) => (url || "").split("/").filter(Boolean).pop();
/** The page's own link to an open challenge (its API `url` ends with the token). */
export const challengeLink = (c) => `${location.origin}${location.pathname}#/challenge/${tokenOf(c.url)}`;

async function copyText(input) {
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  notice("Link copied: send it to the players you want at the table.");
}

const linkBox = (c) => {
  const input = el("input", { class: "challenge-link", type: "text", readonly: true, value: challengeLink(c),
    "aria-label": "The challenge's link", onfocus: (e) => e.target.select() });
  return el("div", { class: "link-box" }, input,
    el("button", { type: "button", class: "challenge-copy", onclick: () => copyText(input) }, "Copy link"));
};

const goToGame = (game, why) => {
  if (why) notice(why);
  location.hash = `#/game/${game}`;
};

// --- the lobby: challenging ------------------------------------------------------------
/**
 * The "play with someone" controls under the lobby's game settings: `readSettings()`
 * gives the settings as `POST /games` takes them; `onCreated(challenge)` after a
 * challenge was sent.
 */
export function challengeControls(readSettings, onCreated) {
  const to = el("input", { id: "challenge-to", type: "text", autocomplete: "off", placeholder: "e.g. alice, bob" });
  const rated = el("input", { id: "challenge-rated", type: "checkbox" });
  const send = async (button, open) => {
    hideError();
    const names = to.value.split(/[\s,]+/).filter(Boolean);
    if (!open && !names.length) {
      showError(new Error("Name the players to challenge (or send an open challenge: anyone with its link)."));
      return;
    }
    button.disabled = true;
    try {
      const body = { ...readSettings(), rated: rated.checked };
      if (!open) body.to = names;
      const { data } = await api("POST", "/api/v1/challenges", { body, headers: { "Idempotency-Key": newKey() } });
      if (!open) to.value = "";
      notice(open ? "Open challenge created: copy its link below." : `Challenge sent to ${names.join(", ")}.`);
      onCreated(data);
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  };
  const challenge = el("button", { type: "button", id: "challenge-submit", onclick: (e) => send(e.target, false) },
    "Challenge");
  const open = el("button", { type: "button", id: "open-challenge-submit", onclick: (e) => send(e.target, true) },
    "Open challenge (link)");
  return el("fieldset", { id: "challenge-box", class: "challenge-box" },
    el("legend", {}, "Or play these settings with someone"),
    el("div", { class: "row" },
      el("label", { for: "challenge-to", class: "grow" }, "Players to challenge (usernames)", to),
      el("label", { for: "challenge-rated", class: "check" }, rated, "rated")),
    el("div", { class: "buttons" }, challenge, open),
    el("p", { class: "hint" }, "A challenge starts the game once every player named accepts; an open challenge ",
      "once its link filled the seats."));
}

function challengeItem(c, refresh) {
  const act = (path, body) => async (e) => {
    hideError();
    e.target.disabled = true;
    try {
      const { data } = await api("POST", `/api/v1/challenges/${c.id}/${path}`, {
        body, headers: path === "accept" ? { "Idempotency-Key": newKey() } : {} });
      if (data.game) goToGame(data.game, `The game of challenge #${c.id} starts.`);
      else refresh();
    } catch (err) {
      showError(err);
      refresh();
    }
  };
  const incoming = c.direction === "incoming";
  const myAnswer = (c.to.find((t) => me(t.username)) || {}).answer;
  const who = incoming ? [playerLink(c.challenger), ` challenges ${c.open ? "anyone with the link" : "you"}`]
    : c.open ? "Open challenge" : ["To ", ...commaList(c.to.map((t) => playerLink(t.username)))];
  const answers = c.to.length > 1 || (!incoming && c.to.length)
    ? el("div", { class: "answers hint" }, c.to.map((t) => `${t.username}: ${t.answer}`).join(" · ")) : "";
  const joined = c.open ? el("div", { class: "hint" },
    `Seats taken: ${[c.challenger, ...c.joined].join(", ")} (${1 + c.joined.length + c.bots.length} of ${c.max_players})`) : "";
  const controls = [];
  if (c.status === "pending") {
    if (incoming && myAnswer === "pending") {
      const reason = el("select", { class: "decline-reason", "aria-label": "Why you decline" },
        Object.entries(DECLINE_REASONS).map(([v, label]) => el("option", { value: v }, label)));
      controls.push(el("button", { type: "button", class: "challenge-accept primary", onclick: act("accept") }, "Accept"),
        reason, el("button", { type: "button", class: "challenge-decline",
          onclick: (e) => act("decline", { reason: reason.value })(e) }, "Decline"));
    } else if (incoming) {
      controls.push(el("span", { class: "hint" }, "You accepted: waiting for the others."));
    } else {
      if (c.open) controls.push(linkBox(c));
      controls.push(el("button", { type: "button", class: "challenge-cancel", onclick: act("cancel") }, "Cancel"));
    }
  } else if (c.status === "accepted" && c.game) {
    controls.push(el("a", { class: "challenge-game", href: `#/game/${c.game}` }, `Game #${c.game}`));
  } else if (c.status === "declined" && c.declined) {
    controls.push(el("span", { class: "challenge-declined" },
      `${c.declined.by || "Declined"}${c.declined.by ? " declined" : ""}: ${DECLINE_REASONS[c.declined.reason] || c.declined.reason}`));
  }
  return el("li", { class: `challenge ${c.status}`, dataset: { challengeId: c.id, status: c.status, direction: c.direction } },
    el("div", { class: "what" }, el("strong", {}, who), " ", el("span", { class: `badge ${c.status}` }, c.status)),
    el("div", { class: "settings" }, settingsText(c)),
    answers, joined,
    c.status === "pending" ? el("div", { class: "hint" }, "Expires in ",
      el("span", { class: "countdown", dataset: { deadline: c.expires_at } }, countdown(c.expires_at))) : "",
    controls.length ? el("div", { class: "controls" }, controls) : "");
}

/** The lobby's list of the player's challenges: `{element, refresh, onFeed(name, data)}`. */
export function challengesPanel(sc) {
  const element = el("section", { id: "challenges", class: "panel" }, el("h2", {}, "Challenges"));
  const refresh = async () => {
    const { data } = await api("GET", "/api/v1/challenges");
    if (!sc.alive()) return;
    const pending = data.results.filter((c) => c.status === "pending");
    const ended = data.results.filter((c) => c.status !== "pending").slice(0, 5);
    const list = [...pending, ...ended];
    element.replaceChildren(el("h2", {}, "Challenges"), list.length
      ? el("ul", { class: "challenge-list" }, list.map((c) => challengeItem(c, () => refresh().catch(showError))))
      : el("p", { class: "empty" }, "No challenges: send one with the game settings."));
  };
  const onFeed = (name, data) => {
    if (!data) return;
    if (name === "challenge") notice(`${data.from} challenges you (${presetTitle(data.ruleset)}).`);
    if (name === "challenge_declined") notice(`${data.by} declined your challenge: ${DECLINE_REASONS[data.reason] || data.reason}.`);
    if (name === "challenge_accepted" && data.game) {
      goToGame(data.game, `${data.by} accepted: game #${data.game} starts.`);
      return;
    }
    if (name.startsWith("challenge")) refresh().catch(showError);
  };
  return { element, refresh, onFeed };
}

// --- an open challenge's link ------------------------------------------------------------
/** `#/challenge/<token>`: the challenge, a button to take a seat; the game once it starts. */
export async function viewOpenChallenge(root, sc, token, playerFeed) {
  const box = el("section", { id: "open-challenge", class: "panel open-challenge" });
  root.append(box);
  const load = async () => {
    const { data: c } = await api("GET", `/api/v1/challenges/open/${encodeURIComponent(token)}`);
    if (!sc.alive()) return;
    if (c.game) {
      goToGame(c.game, `The game of ${c.challenger}'s challenge starts.`);
      return;
    }
    const mine = me(c.challenger) || c.joined.some(me);
    const free = c.max_players - 1 - c.joined.length - c.bots.length;
    box.dataset.status = c.status;
    box.replaceChildren(
      el("h2", {}, playerLink(c.challenger), "'s open challenge"),
      el("p", { class: "settings" }, settingsText(c)),
      el("p", {}, `At the table: ${[c.challenger, ...c.joined].join(", ")}`,
        c.bots.length ? ` and ${plural(c.bots.length, "bot")}` : "", ` · ${plural(free, "free seat")}`),
      c.status !== "pending" ? el("p", { id: "open-challenge-ended" }, `This challenge is ${c.status}.`)
        : mine ? el("p", { id: "open-challenge-waiting", class: "waiting-note" }, el("span", { class: "spinner" }),
          `You have a seat: the game starts when ${plural(free, "more player")} join${free === 1 ? "s" : ""}.`)
          : el("button", { type: "button", id: "take-seat", class: "primary", onclick: take }, "Take a seat"),
      me(c.challenger) && c.status === "pending" ? linkBox(c) : "",
      el("p", {}, el("a", { href: "#/lobby" }, "Back to the lobby")));
  };
  const take = async (e) => {
    hideError();
    e.target.disabled = true;
    try {
      const { data } = await api("POST", `/api/v1/challenges/open/${encodeURIComponent(token)}/accept`,
        { headers: { "Idempotency-Key": newKey() } });
      if (data.game) goToGame(data.game);
      else await load();
    } catch (err) {
      showError(err);
      load().catch(() => {});
    }
  };
  await load();
  if (!sc.alive()) return;
  // the feed says when the seats are filled; a slow poll in case it is cut
  sc.later(playerFeed((name) => { if (name.startsWith("challenge") || name === "game_started" || name === "poll") load().catch(() => {}); },
    FEED_EVENTS));
  const timer = setInterval(() => load().catch(() => {}), 5000);
  sc.later(() => clearInterval(timer));
}

// --- quick play ---------------------------------------------------------------------------
/** The lobby's quick play: a form, then a waiting indicator with a cancel button. */
export function quickPlayPanel(sc, rulesets, levels) {
  const element = el("section", { id: "quickplay", class: "panel" });
  const check = (name, value, label, checked) => el("label", { class: "check" },
    el("input", { type: "checkbox", name, value, checked }), label);
  const botsAfter = el("input", { id: "qp-bots-after", type: "number", min: 0, max: 3600, value: 20, "aria-label": "Seconds before bots" });
  const form = el("form", { id: "quickplay-form" },
    el("div", { class: "choices", role: "group", "aria-label": "Presets" }, el("span", { class: "label" }, "Presets"),
      rulesets.map((r) => check("qp-ruleset", r, presetTitle(r), r === "standard"))),
    el("div", { class: "choices", role: "group", "aria-label": "Seats" }, el("span", { class: "label" }, "Seats"),
      [2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => check("qp-seats", n, n, n === 2))),
    el("div", { class: "row" },
      el("label", { for: "qp-speed" }, "Speed", el("select", { id: "qp-speed" },
        el("option", { value: "realtime" }, "real time (30 seconds a turn)"),
        el("option", { value: "correspondence" }, "correspondence (a day a turn)"),
        el("option", { value: "both" }, "either"))),
      el("label", { for: "qp-rated", class: "check" }, el("input", { id: "qp-rated", type: "checkbox" }), "rated")),
    el("div", { class: "row bots-after" },
      el("label", { for: "qp-bots", class: "check" }, el("input", { id: "qp-bots", type: "checkbox" }), "bots may fill the table after"),
      botsAfter, el("span", {}, "seconds,"),
      el("select", { id: "qp-bots-level", "aria-label": "Bot level" },
        levels.map((lv) => el("option", { value: lv, selected: lv === "easy" }, lv)))),
    el("button", { type: "submit", id: "quickplay-submit", class: "primary" }, "Find a game"));
  let waiting = null; // the request while it waits
  let ticker = null;

  const show = () => {
    clearInterval(ticker);
    if (!waiting) {
      element.replaceChildren(el("h2", {}, "Quick play"), form);
      return;
    }
    const since = el("span", { id: "quickplay-elapsed" });
    const tick = () => {
      const s = Math.max(0, Math.round((Date.now() - Date.parse(waiting.created_at)) / 1000));
      since.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
    };
    tick();
    let ticks = 0;
    ticker = setInterval(() => { tick(); if (++ticks % 5 === 0) poll().catch(() => {}); }, 1000);
    element.replaceChildren(el("h2", {}, "Quick play"),
      el("div", { id: "quickplay-waiting", class: "waiting-note", dataset: { quickplay: waiting.id } },
        el("span", { class: "spinner", "aria-hidden": "true" }),
        el("span", {}, `Looking for a table (${waiting.rulesets.map(presetTitle).join(" or ")}, ${waiting.seats.join(" or ")} players)… `), since,
        waiting.bots_at ? el("span", { class: "hint" }, ` · bots from ${new Date(waiting.bots_at).toLocaleTimeString()}`) : "",
        el("button", { type: "button", id: "quickplay-cancel", onclick: cancel }, "Cancel")));
  };
  const settle = (r) => {
    if (r.status === "waiting") {
      waiting = r;
      sessionStorage.setItem(QUICKPLAY_KEY, String(r.id));
    } else {
      waiting = null;
      sessionStorage.removeItem(QUICKPLAY_KEY);
      if (r.status === "matched" && r.game) {
        goToGame(r.game, "Quick play: your table is ready.");
        return;
      }
      if (r.status === "expired") notice("Quick play: nobody came in time; ask again.");
    }
    if (sc.alive()) show();
  };
  const poll = async () => {
    const id = waiting ? waiting.id : sessionStorage.getItem(QUICKPLAY_KEY);
    if (!id) return;
    try {
      settle((await api("GET", `/api/v1/quickplay/${id}`)).data);
    } catch (err) {
      if (err.status === 404) settle({ status: "gone" });
    }
  };
  const cancel = async (e) => {
    hideError();
    e.target.disabled = true;
    try {
      settle((await api("DELETE", `/api/v1/quickplay/${waiting.id}`)).data);
      notice("Quick play cancelled.");
    } catch (err) {
      showError(err);
      poll();
    }
  };
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    hideError();
    const picked = (name) => [...form.querySelectorAll(`input[name=${name}]:checked`)].map((i) => i.value);
    const speed = form.querySelector("#qp-speed").value;
    const body = {
      rulesets: picked("qp-ruleset"),
      seats: picked("qp-seats").map(Number),
      speed: speed === "both" ? ["realtime", "correspondence"] : speed,
      rated: form.querySelector("#qp-rated").checked,
      bots: form.querySelector("#qp-bots").checked
        ? { after_seconds: Number(botsAfter.value || 0), level: form.querySelector("#qp-bots-level").value } : null,
    };
    const button = form.querySelector("#quickplay-submit");
    button.disabled = true;
    try {
      settle((await api("POST", "/api/v1/quickplay", { body, headers: { "Idempotency-Key": newKey() } })).data);
    } catch (err) {
      if (err.code === "already_waiting" && err.problem.quickplay) {
        sessionStorage.setItem(QUICKPLAY_KEY, String(err.problem.quickplay));
        await poll();
        notice("You were already waiting for a table: here is that request.");
      } else {
        showError(err);
      }
    } finally {
      button.disabled = false;
    }
  });
  sc.later(() => clearInterval(ticker));
  show();
  const onFeed = (name, data) => {
    if (name === "quickplay_matched" && data) settle({ status: "matched", game: data.game });
    else if (name === "quickplay_expired" || name === "poll") poll();
  };
  return { element, refresh: poll, onFeed };
}

// --- at the table: rematch ------------------------------------------------------------------
/** A finished game's rematch: the offer, who accepted, buttons for a seated player. */
export function rematchPanel(g, onChange) {
  const r = g.rematch;
  const seated = g.seat !== null && g.seat !== undefined;
  const call = (method, path = "rematch") => async (e) => {
    hideError();
    e.target.disabled = true;
    try {
      const { data } = await api(method, `/api/v1/games/${g.id}/${path}`,
        method === "POST" ? { headers: { "Idempotency-Key": newKey() } } : {});
      onChange(data);
    } catch (err) {
      showError(err);
      e.target.disabled = false;
    }
  };
  const parts = [];
  if (!r) {
    if (seated) parts.push(el("button", { type: "button", id: "rematch-offer", class: "primary", onclick: call("POST") }, "Rematch"));
  } else if (r.status === "offered") {
    parts.push(el("span", { id: "rematch-status" }, `${me(r.offered_by) ? "You" : r.offered_by} offered a rematch`,
      r.accepted.length > 1 ? ` (accepted: ${r.accepted.join(", ")})` : "", "."));
    if (seated && !r.accepted.some(me)) {
      parts.push(el("button", { type: "button", id: "rematch-accept", class: "primary", onclick: call("POST") }, "Accept rematch"));
    } else if (seated) {
      parts.push(el("span", { class: "hint" }, "Waiting for the others…"));
    }
    if (seated) parts.push(el("button", { type: "button", id: "rematch-decline", onclick: call("DELETE") }, "Decline"));
  } else if (r.status === "started" && r.game) {
    parts.push(el("span", { id: "rematch-status" }, "The rematch started: "),
      el("a", { id: "rematch-game", href: `#/game/${r.game}` }, `game #${r.game}`));
  } else if (r.status === "declined") {
    parts.push(el("span", { id: "rematch-status" }, `${me(r.declined_by) ? "You" : r.declined_by || "A player"} declined the rematch.`));
  } else {
    parts.push(el("span", { id: "rematch-status" }, "The rematch offer expired."));
  }
  return el("div", { id: "rematch", class: "rematch", dataset: { status: r ? r.status : "none" } }, parts);
}

/** A rematch that started takes everyone at the table (players and spectators) to it. */
export function followRematch(r) {
  if (r && r.status === "started" && r.game) goToGame(r.game, `Rematch: game #${r.game}.`);
}

// --- at the table: the table talk -------------------------------------------------------------
/**
 * The game's chat panel (the players' room for the seated, the spectators' room for the
 * others; both once the game is finished): `{element, onNotice(name, data), load()}`.
 */
export function chatPanel(sc, gameId, getGame) {
  const list = el("ol", { id: "chat-messages", class: "chat-messages", "aria-live": "polite" });
  const text = el("input", { id: "chat-text", type: "text", maxlength: 280, autocomplete: "off",
    placeholder: "Say something to the table", "aria-label": "Message" });
  const form = el("form", { id: "chat-form", class: "chat-form" }, text,
    el("button", { type: "submit", id: "chat-send" }, "Send"));
  const title = el("h3", {});
  const element = el("section", { id: "chat", class: "panel chat" }, title, list, form);
  const seen = new Set();

  const roomTitle = () => {
    const g = getGame();
    const seated = g.seat !== null && g.seat !== undefined;
    title.replaceChildren("Table talk ", el("span", { class: "hint" },
      g.status === "finished" ? "(players and spectators)" : seated ? "(the players' room)" : "(the spectators' room: the players see it after the game)"));
  };

  const report = (m, li) => {
    li.querySelector(".chat-report-box")?.remove();
    const reason = el("select", { class: "chat-report-reason", "aria-label": "Why" },
      REPORT_REASONS.map((r) => el("option", { value: r }, r)));
    const box = el("div", { class: "chat-report-box" }, "Report this message: ", reason,
      el("button", { type: "button", class: "chat-report-send", onclick: async (e) => {
        hideError();
        e.target.disabled = true;
        try {
          await api("POST", `/api/v1/games/${gameId}/chat/${m.id}/report`,
            { body: { reason: reason.value }, headers: { "Idempotency-Key": newKey() } });
          box.replaceWith(el("span", { class: "hint chat-reported" }, "Reported: the staff will look at it."));
        } catch (err) {
          showError(err);
          e.target.disabled = false;
        }
      } }, "Send"),
      el("button", { type: "button", class: "cancel", onclick: () => box.remove() }, "Cancel"));
    li.append(box);
  };

  const block = async (m) => {
    hideError();
    try {
      await api("POST", "/api/v1/players/me/blocks", { body: { username: m.username } });
      for (const li of [...list.children]) if (same(li.dataset.username, m.username)) li.remove();
      notice(`You blocked ${m.username}: you will not see their messages, nor get their challenges.`);
    } catch (err) {
      showError(err);
    }
  };

  const add = (m) => {
    if (seen.has(m.id) || m.game !== undefined && m.game !== gameId) return;
    seen.add(m.id);
    const mine = me(m.username);
    const li = el("li", { class: `chat-message${mine ? " mine" : ""}`, dataset: { id: m.id, username: m.username, room: m.room } },
      el("span", { class: "chat-author" }, mine ? "you" : playerLink(m.username),
        m.room === "spectators" ? el("span", { class: "chat-room" }, " (spectator)") : ""),
      el("span", { class: "chat-text" }, m.text),
      mine ? "" : el("span", { class: "chat-tools" },
        el("button", { type: "button", class: "chat-block", title: `Block ${m.username}`, onclick: () => block(m) }, "Block"),
        el("button", { type: "button", class: "chat-report", title: "Report this message", onclick: () => report(m, li) }, "Report")));
    const after = [...list.children].find((x) => Number(x.dataset.id) > m.id);
    list.insertBefore(li, after || null);
    list.scrollTop = list.scrollHeight;
  };

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const value = text.value.trim();
    if (!value) return;
    hideError();
    const button = form.querySelector("#chat-send");
    button.disabled = true;
    try {
      const { data } = await api("POST", `/api/v1/games/${gameId}/chat`,
        { body: { text: value }, headers: { "Idempotency-Key": newKey() } });
      text.value = "";
      add(data);
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });

  const load = async () => {
    roomTitle();
    const { data } = await api("GET", `/api/v1/games/${gameId}/chat?limit=50`);
    if (!sc.alive()) return;
    data.results.forEach(add);
  };
  const onNotice = (name, data) => {
    if (name === "chat") add(data);
    if (name === "chat_hidden") list.querySelector(`li[data-id="${data.id}"]`)?.remove();
  };
  return { element, onNotice, load, roomTitle };
}
