// The presets and their options in a player's words (GET /api/v1/rulesets), and times in
// words: what the lobby offers and how challenges, quick play and lists describe a game.

import { api } from "./api.js";

let loaded = null; // the answer once read
let loading = null;

/** `{groups, results: [preset...]}` from the server (once per page; null if it failed). */
export function loadRulesets() {
  if (loaded) return Promise.resolve(loaded);
  if (!loading) {
    loading = api("GET", "/api/v1/rulesets", { auth: false })
      .then(({ data }) => { loaded = data; return data; })
      .catch(() => { loading = null; return null; });
  }
  return loading;
}

/** A preset of the loaded answer (undefined before it is loaded). */
export const presetOf = (name) => loaded?.results.find((p) => p.name === name);

/** A preset's name in words ("Standard UNO"); its engine name until the rulesets are loaded. */
export const presetTitle = (name) => presetOf(name)?.title || String(name || "").replace(/_/g, " ");

function optionOf(name) {
  for (const p of loaded?.results || []) {
    const o = p.options.find((x) => x.name === name);
    if (o) return o;
  }
  return undefined;
}

/** An option and its value in words: "Stacking draw cards: the same card only", "Play in teams". */
export function optionText(name, value) {
  const o = optionOf(name);
  const label = o ? o.label : name.replace(/_/g, " ");
  if (value === true) return label;
  if (value === false) return `${label}: no`;
  if (value === null) return `${label}: none`;
  const choice = o?.choices.find((c) => c.value === value);
  return `${label}: ${choice ? choice.label.charAt(0).toLowerCase() + choice.label.slice(1) : value}`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A duration in words: "30 seconds", "1 minute", "1 hour 30 minutes", "3 days". */
export function durationText(seconds) {
  const units = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  const parts = [];
  let rest = Math.round(seconds);
  for (const [size, word] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(plural(Math.floor(rest / size), word));
      rest %= size;
    } else if (parts.length) {
      break; // "1 day 3 hours", never "1 day 0 hours 5 minutes"
    }
  }
  return parts.join(" ") || "0 seconds";
}

/** A game's time per turn in words: "1 day per turn", "no time limit". */
export const turnText = (seconds) => (seconds ? `${durationText(seconds)} per turn` : "no time limit");

/** The lobby's choice of time per turn: seconds (the API's `turn_seconds`) and words. */
export const TURN_TIMES = [
  [null, "No limit"], [30, "30 seconds"], [60, "1 minute"], [300, "5 minutes"], [3600, "1 hour"],
  [86400, "1 day"], [259200, "3 days"],
];
