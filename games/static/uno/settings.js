// The player's table preferences, kept in this browser (localStorage): how the hand is
// sorted, colour-blind symbols on the cards, sounds, notifications.  The colour-blind
// setting is a class on <body> (`cb-symbols`), which cards.css styles on every screen.

const KEY = "uno.table-settings";

export const DEFAULTS = Object.freeze({
  sort: "color", // "color" | "rank" | "dealt"
  cbSymbols: false,
  sounds: false,
  notify: false,
});

export const SORTS = { color: "by colour", rank: "by rank", dealt: "as dealt" };

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
    return saved && typeof saved === "object" ? saved : {};
  } catch {
    return {};
  }
}

/** Every setting, the saved ones over the defaults. */
export function getSettings() {
  const saved = load();
  const out = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) {
    if (k in saved && typeof saved[k] === typeof DEFAULTS[k]) out[k] = saved[k];
  }
  if (!(out.sort in SORTS)) out.sort = DEFAULTS.sort;
  return out;
}

/** One setting. */
export function getSetting(key) {
  return getSettings()[key];
}

/** Saves one setting (unknown keys and values of the wrong type are refused). */
export function setSetting(key, value) {
  if (!(key in DEFAULTS) || typeof value !== typeof DEFAULTS[key]) throw new Error(`no setting ${key}=${value}`);
  if (key === "sort" && !(value in SORTS)) throw new Error(`no sort ${value}`);
  const saved = load();
  saved[key] = value;
  try { localStorage.setItem(KEY, JSON.stringify(saved)); } catch { /* private mode: this page only */ }
  applySettings();
  return value;
}

/** What the settings change on the whole page: the colour-blind class on <body>. */
export function applySettings() {
  if (document.body) document.body.classList.toggle("cb-symbols", getSetting("cbSymbols"));
}

applySettings();
