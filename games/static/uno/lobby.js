// The lobby: creating a game, quick play, challenges, the player's games and the open ones.

import { api, session } from "./api.js";
import { playerFeed } from "./live.js";
import { FEED_EVENTS, challengeControls, challengesPanel, quickPlayPanel } from "./meeting.js";
import { TURN_TIMES, loadRulesets, presetTitle, turnText } from "./rulesets.js";
import { commaList, playerLink } from "./standing.js";
import { deadlineEl, el, hideError, notice, showError } from "./ui.js";

const FALLBACK_CATALOG = {
  rulesets: ["standard", "house", "standard_112", "duo", "play_uno_com", "decktet_uno"],
  levels: ["random", "easy", "normal", "hard"],
};
let catalog = null;

/** Presets and bot levels, read from the server's OpenAPI schema; the presets in words
 * (`presets`, `groups`) from GET /rulesets. */
export async function loadCatalog() {
  if (catalog) return catalog;
  const [schema, words] = await Promise.all([
    api("GET", "/api/schema/?format=json").then(({ data }) => data.components.schemas).catch(() => null),
    loadRulesets(),
  ]);
  catalog = schema ? { rulesets: schema.RulesetEnum.enum, levels: schema.LevelEnum.enum } : { ...FALLBACK_CATALOG };
  catalog.presets = words ? words.results : [];
  catalog.groups = words ? words.groups : [];
  return catalog;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** One option's field: a visible label, the control (its preset's value set), the description. */
function optionField(o) {
  const id = `opt-${o.name}`;
  const schema = o.schema;
  const data = { option: o.name };
  let control;
  if (schema.type === "boolean" && !schema.enum) {
    control = el("input", { id, type: "checkbox", checked: o.default === true, dataset: { ...data, kind: "boolean" } });
  } else if (o.choices.length) {
    control = el("select", { id, dataset: { ...data, kind: "enum" } },
      o.choices.map((c, i) => el("option", { value: String(i), selected: same(c.value, o.default) }, c.label)));
  } else if (schema.type === "integer" || schema.type === "number") {
    control = el("input", {
      id, type: "number", inputmode: "numeric", min: schema.minimum, max: schema.maximum, step: 1,
      value: o.default === null ? "" : String(o.default), placeholder: schema.nullable ? "none" : "",
      dataset: { ...data, kind: "number" },
    });
  } else {
    return null; // anything else: through the JSON box
  }
  const describedBy = `${id}-about`;
  control.setAttribute("aria-describedby", describedBy);
  const about = el("p", { id: describedBy, class: "option-about" }, o.description);
  const box = el("div", { class: `option option-${control.dataset.kind}`, dataset: { optionBox: o.name } });
  if (control.dataset.kind === "boolean") {
    box.append(el("label", { for: id, class: "check" }, control, el("span", { class: "option-name" }, o.label)), about);
  } else {
    box.append(el("label", { for: id, class: "option-name" }, o.label), control, about);
  }
  box.option = o;
  return box;
}

/** The value a field holds, as `options` takes it. */
function fieldValue(box) {
  const o = box.option;
  const c = box.querySelector("[data-option]");
  if (c.dataset.kind === "boolean") return c.checked;
  if (c.dataset.kind === "enum") return o.choices[Number(c.value)].value;
  if (c.value === "") return o.schema.nullable ? null : o.default;
  return Number(c.value);
}

/** The options the player changed from the preset's, and the JSON box's over them. */
function readOptions(form) {
  const options = {};
  for (const box of form.querySelectorAll("[data-option-box]")) {
    if (box.hidden) continue; // an option whose requirement is not met
    const value = fieldValue(box);
    if (!same(value, box.option.default)) options[box.option.name] = value;
  }
  const text = form.querySelector("#create-options-json").value.trim();
  if (text) {
    let extra;
    try { extra = JSON.parse(text); } catch (err) { throw new Error(`Options JSON: ${err.message}`); }
    if (!extra || typeof extra !== "object" || Array.isArray(extra)) throw new Error("Options JSON: an object, e.g. {\"rounds\": 1}");
    Object.assign(options, extra);
  }
  return options;
}

/** Shows each option only when what it requires holds (e.g. rounds to win: with that scoring). */
function applyRequires(form) {
  const values = {};
  for (const box of form.querySelectorAll("[data-option-box]")) values[box.option.name] = fieldValue(box);
  for (const box of form.querySelectorAll("[data-option-box]")) {
    box.hidden = !Object.entries(box.option.requires || {}).every(([k, v]) => k in values ? same(values[k], v) : true);
  }
}

/** The options of `preset`, grouped under their headings; the advanced ones folded away. */
function optionsFor(preset, groups) {
  const grouped = (advanced) => {
    const order = [...groups, ...new Set(preset.options.map((o) => o.group))].filter((g, i, a) => a.indexOf(g) === i);
    return order.map((group) => {
      const fields = preset.options.filter((o) => o.group === group && o.advanced === advanced).map(optionField)
        .filter(Boolean);
      return fields.length ? el("fieldset", { class: "option-group" }, el("legend", {}, group), fields) : null;
    }).filter(Boolean);
  };
  return { main: grouped(false), advanced: grouped(true) };
}

export async function viewLobby(root, sc) {
  const cat = await loadCatalog();
  if (!sc.alive()) return;
  const presetNamed = (name) => cat.presets.find((p) => p.name === name);

  // creating a game
  const bots = el("div", { id: "create-bots", class: "bots" });
  let botCount = 0;
  const addBot = (level) => {
    botCount += 1;
    const id = `bot-level-${botCount}`;
    const row = el("div", { class: "bot-row" },
      el("select", { id, class: "bot-level", "aria-label": `Bot ${botCount}'s level` },
        cat.levels.map((lv) => el("option", { value: lv, selected: lv === level }, lv))),
      el("button", { type: "button", class: "remove-bot", "aria-label": "Remove this bot",
        onclick: () => row.remove() }, "×"));
    bots.append(row);
  };
  addBot("normal");
  const ruleset = el("select", { id: "create-ruleset", "aria-describedby": "create-ruleset-about" },
    cat.rulesets.map((r) => el("option", { value: r }, presetNamed(r)?.title || r)));
  const about = el("p", { id: "create-ruleset-about", class: "preset-about", "aria-live": "polite" });
  const seats = el("input", { id: "create-max-players", type: "number", inputmode: "numeric", min: 2, max: 10,
    placeholder: "1 + bots", "aria-describedby": "create-max-players-about" });
  const seatsAbout = el("span", { id: "create-max-players-about", class: "hint" });
  const mainOptions = el("div", { id: "create-options", class: "options" });
  const advancedOptions = el("div", { id: "create-options-advanced", class: "options" });
  const turn = el("select", { id: "create-turn-seconds" },
    TURN_TIMES.map(([s, words]) => el("option", { value: s === null ? "" : String(s) }, words)));
  const form = el("form", { id: "create-form", class: "panel" },
    el("h2", {}, "New game"),
    el("div", { class: "field" }, el("label", { for: "create-ruleset" }, "Game"), ruleset, about),
    el("div", { class: "row" },
      el("div", { class: "field" }, el("label", { for: "create-max-players" }, "Players"), seats, seatsAbout),
      el("div", { class: "field" }, el("label", { for: "create-turn-seconds" }, "Time per turn"), turn)),
    el("div", { class: "checks" },
      el("label", { for: "create-start-when-full", class: "check" },
        el("input", { id: "create-start-when-full", type: "checkbox", checked: true }), "Start by itself when the table is full"),
      el("label", { for: "create-rated", class: "check" },
        el("input", { id: "create-rated", type: "checkbox", "aria-describedby": "create-rated-about" }), "Rated"),
      el("span", { id: "create-rated-about", class: "hint" }, "A rated game's result counts towards the players' ratings.")),
    el("div", { class: "bots-box" }, el("span", { class: "label", id: "bots-label" }, "Bots"), bots,
      el("button", { type: "button", id: "add-bot", onclick: () => addBot("normal") }, "+ Add a bot")),
    mainOptions,
    el("details", { id: "create-options-box" }, el("summary", {}, "More rules"),
      advancedOptions,
      el("label", { for: "create-options-json", class: "json" }, "Other options as JSON (over the fields above)",
        el("textarea", { id: "create-options-json", rows: 2, placeholder: "{\"rounds\": 1, \"stacking\": \"same\"}" }))),
    el("button", { type: "submit", id: "create-submit" }, "Create game"));
  const showPreset = () => {
    const p = presetNamed(ruleset.value);
    about.textContent = p ? p.description : "";
    form.dataset.ruleset = ruleset.value;
    if (p) {
      seats.min = p.min_players;
      seats.max = p.max_players;
      seatsAbout.textContent = p.min_players === p.max_players ? `exactly ${p.min_players}`
        : `${p.min_players} to ${p.max_players}, you and the bots included`;
      const { main, advanced } = optionsFor(p, cat.groups);
      mainOptions.replaceChildren(...main);
      advancedOptions.replaceChildren(...advanced);
      applyRequires(form);
    }
  };
  ruleset.addEventListener("change", showPreset);
  form.addEventListener("change", (e) => { if (e.target.dataset && e.target.dataset.option) applyRequires(form); });
  showPreset();
  /** The game's settings as `POST /games` (and `POST /challenges`) take them. */
  const readSettings = () => {
    const body = { ruleset: ruleset.value };
    body.bots = [...bots.querySelectorAll(".bot-level")].map((s) => ({ level: s.value }));
    const p = presetNamed(ruleset.value);
    if (seats.value) body.max_players = Number(seats.value);
    else if (p && !body.bots.length && p.max_players < 4) body.max_players = p.max_players; // (the API's default: 4)
    if (turn.value) body.turn_seconds = Number(turn.value);
    const options = readOptions(form);
    if (Object.keys(options).length) body.options = options;
    return body;
  };
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    hideError();
    try {
      const body = { ...readSettings(), rated: form.querySelector("#create-rated").checked,
        start_when_full: form.querySelector("#create-start-when-full").checked };
      form.querySelector("#create-submit").disabled = true;
      const { data } = await api("POST", "/api/v1/games", { body });
      location.hash = `#/game/${data.id}`;
    } catch (err) {
      showError(err);
    } finally {
      form.querySelector("#create-submit").disabled = false;
    }
  });

  // my games, open games
  const mine = el("section", { id: "my-games", class: "panel" });
  const open = el("section", { id: "open-games", class: "panel" });
  const openId = el("input", { id: "open-game-id", type: "number", inputmode: "numeric", min: 1, placeholder: "e.g. 12" });
  const goto = el("form", { id: "open-form", class: "panel" },
    el("h2", {}, "Open a game"), el("label", { for: "open-game-id" }, "Game number"), openId,
    el("button", { type: "submit" }, "Table"),
    el("button", { type: "button", id: "open-replay",
      onclick: () => { if (openId.value) location.hash = `#/replay/${openId.value}`; } }, "Replay"));
  goto.addEventListener("submit", (e) => {
    e.preventDefault();
    if (openId.value) location.hash = `#/game/${openId.value}`;
  });
  // meeting others: quick play, challenges (sent with the settings above)
  const quick = quickPlayPanel(sc, cat.rulesets, cat.levels);
  const challenges = challengesPanel(sc);
  form.append(challengeControls(readSettings, () => challenges.refresh().catch(showError)));
  root.append(el("div", { class: "lobby" }, el("div", { class: "col" }, quick.element, form, goto),
    el("div", { class: "col" }, challenges.element, mine, open)));

  /** A seat's name in words: its player, or its bot's level ("easy bot"). */
  const seatName = (p) => p.username || (p.is_bot ? `${p.bot_level || ""} bot`.trim() : "a player");
  const playersText = (g) => commaList(g.players.map((p) => {
    const who = p.username || (p.is_bot && p.bot_level ? `bot:${p.bot_level}` : null);
    const shown = who ? playerLink(who, seatName(p)) : seatName(p);
    return p.seat === g.current_seat && g.status === "active"
      ? el("span", { class: "in-turn" }, el("span", { "aria-hidden": "true" }, "▶ "), shown) : shown;
  }));
  const ratedBadge = (g) => (g.rated ? el("span", { class: "badge rated", title: "a rated game" }, "rated") : "");
  const winnerOf = (g) => {
    const p = g.players.find((x) => x.seat === g.winner_seat);
    return p ? (p.username === session.username ? "you" : seatName(p)) : "";
  };
  const statusText = (g) => {
    if (g.status === "waiting") return `waiting for players (${g.seated} of ${g.max_players})`;
    if (g.status === "active") return "playing";
    return "finished";
  };
  const turnOf = (g) => {
    if (g.status !== "active") return g.status === "finished" && g.winner_seat !== null ? `won by ${winnerOf(g)}` : "";
    if (g.my_turn) return "your turn";
    const p = g.players.find((x) => x.seat === g.current_seat);
    return p ? `${seatName(p)}'s turn` : "";
  };
  /** The time left to play, for a timed game's human turn (a bot's wake-up is no one's concern). */
  const timeLeft = (g) => {
    const p = g.players.find((x) => x.seat === g.current_seat);
    if (g.status !== "active" || !g.turn_seconds || !g.deadline || !p || p.is_bot) return "";
    return el("span", { class: "time-left" }, deadlineEl(g.deadline), " left");
  };
  const cell = (label, ...children) => el("td", { dataset: { label } }, ...children);

  let mineCursor = null;
  const loadMine = async (more = false) => {
    const after = more && mineCursor ? `&after=${encodeURIComponent(mineCursor)}` : "";
    const { data } = await api("GET", `/api/v1/games?mine=true&limit=20${after}`);
    if (!sc.alive()) return;
    mineCursor = data.next_cursor;
    let body = mine.querySelector("tbody");
    if (!more || !body) {
      body = el("tbody");
      mine.replaceChildren(el("h2", {}, "My games"), data.results.length ? el("table", { class: "games cards-on-phone" },
        el("thead", {}, el("tr", {}, ["Game", "Players", "Status", "Turn", "Time", ""].map((t) => el("th", { scope: "col" }, t)))),
        body) : el("p", { class: "empty" }, "No games yet: create one."));
    }
    for (const g of data.results) {
      body.append(el("tr", { dataset: { gameId: g.id, status: g.status }, class: g.my_turn ? "my-turn" : "" },
        cell("Game", el("a", { href: `#/game/${g.id}` }, presetTitle(g.ruleset)), " ",
          el("span", { class: "game-number" }, `#${g.id}`), ratedBadge(g)),
        cell("Players", playersText(g)),
        cell("Status", el("span", { class: "status" }, statusText(g))),
        cell("Turn", el("span", { class: "turn" }, turnOf(g)), g.status === "active" ? timeLeft(g) : ""),
        cell("Time", turnText(g.turn_seconds)),
        el("td", { class: "go" }, g.status === "finished"
          ? el("a", { href: `#/replay/${g.id}`, class: "button" }, "Replay")
          : el("a", { href: `#/game/${g.id}`, class: "button" }, g.my_turn ? "Play" : "Open"))));
    }
    mine.querySelector("#more-games")?.remove();
    if (mineCursor) mine.append(el("button", { id: "more-games", type: "button", onclick: () => loadMine(true).catch(showError) }, "More"));
  };
  const loadOpen = async () => {
    const { data } = await api("GET", "/api/v1/games?status=waiting&limit=20");
    if (!sc.alive()) return;
    const rows = data.results.filter((g) => g.seat === null && g.seated < g.max_players);
    open.replaceChildren(el("h2", {}, "Waiting for players"), rows.length ? el("table", { class: "games cards-on-phone" },
      el("thead", {}, el("tr", {}, ["Game", "Created by", "Seats", "Time", ""].map((t) => el("th", { scope: "col" }, t)))),
      el("tbody", {}, rows.map((g) => el("tr", { dataset: { gameId: g.id } },
        cell("Game", presetTitle(g.ruleset), " ", el("span", { class: "game-number" }, `#${g.id}`), ratedBadge(g)),
        cell("Created by", g.creator ? playerLink(g.creator) : ""),
        cell("Seats", `${g.seated} of ${g.max_players} taken`, g.start_when_full ? el("span", { class: "hint" }, " · starts when full") : ""),
        cell("Time", turnText(g.turn_seconds)),
        el("td", { class: "go" }, el("button", { type: "button", class: "join", onclick: async () => {
          try {
            await api("POST", `/api/v1/games/${g.id}/join`);
            location.hash = `#/game/${g.id}`;
          } catch (err) { showError(err); }
        } }, "Join"))))))
      : el("p", { class: "empty" }, "No open game to join."));
  };
  const refresh = () => Promise.all([loadMine(), loadOpen(), challenges.refresh()])
    .catch((err) => { if (sc.alive()) showError(err); });
  await Promise.all([refresh(), quick.refresh()]);
  let pending = null;
  sc.later(playerFeed((name, data) => {
    if (name === "your_turn" && data) notice(`Your turn in game #${data.game}`);
    if (name === "game_finished" && data) notice(`Game #${data.game} is over`);
    if (name === "rematch_offer" && data) notice(`${data.by} offers a rematch of game #${data.game}`);
    challenges.onFeed(name, data);
    quick.onFeed(name, data);
    if (FEED_EVENTS.includes(name)) return;
    clearTimeout(pending);
    pending = setTimeout(refresh, 300);
  }, FEED_EVENTS));
  sc.later(() => clearTimeout(pending));
}
