// Standing: a player's profile (#/player/NAME), the leaderboards (#/leaderboard/PRESET,
// and #/leaderboard/PRESET/me around the player's own entry), a finished rated game's
// rating changes, and the links to a profile wherever a name is shown.  Over the API's
// /players/{username}, /players/me/profile and /leaderboards/{ruleset}.

import { api, session } from "./api.js";
import { seatNamer } from "./cards.js";
import { loadRulesets, presetTitle } from "./rulesets.js";
import { el, hideError, scrollBox, showError } from "./ui.js";

const same = (a, b) => (a || "").toLowerCase() === (b || "").toLowerCase();
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const fixed = (x, digits = 2) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));
/** A rating change as people read it: "+1.25", "−0.50", "±0.00". */
export const signed = (x) => {
  const v = Number(x);
  if (Math.abs(v) < 0.005) return "±0.00";
  return `${v > 0 ? "+" : "−"}${Math.abs(v).toFixed(2)}`;
};
const day = (iso) => (iso ? new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }) : "");
const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
};

// --- links to a profile -------------------------------------------------------------------
/** A bot level's name on the boards and in the API's paths: `bot:easy`. */
export const botName = (level) => `bot:${level}`;
export const profileHref = (username) => `#/player/${encodeURIComponent(username)}`;

/** A link to `username`'s profile, showing `label` (the name itself by default). */
export function playerLink(username, label = username, props = {}) {
  return el("a", { class: "player-link", href: profileHref(username), dataset: { username }, ...props }, label);
}

/** The profile name of a game's seat: its player's username, its bot level's `bot:<level>`, or null. */
export function seatProfile(game, seat) {
  const p = (game.players || []).find((x) => x.seat === seat);
  if (!p) return null;
  if (p.username) return p.username;
  return p.is_bot && p.bot_level ? botName(p.bot_level) : null;
}

/**
 * `links(seat)`: what `seatNamer(game).label` says ("alice (you)", "Bot 1 (easy)"), as a
 * link to the seat's profile (plain text for a seat without one).
 */
export function seatLinker(game) {
  const n = seatNamer(game).label;
  return (seat) => {
    const who = seat === null || seat === undefined ? null : seatProfile(game, seat);
    return who ? playerLink(who, n(seat)) : n(seat);
  };
}

/** `items` with `sep` between them (for lists of elements, as `join` does for text). */
export function commaList(items, sep = ", ") {
  return items.flatMap((x, i) => (i ? [sep, x] : [x]));
}

// --- the end of a game ------------------------------------------------------------------------
/**
 * A finished game's rating changes (each seat's place, rating before and after, change),
 * for the result panel; a note while a rated game's changes are not there; nothing for an
 * unrated game.
 */
export function ratingChangesPanel(g) {
  if (!g.rated) return el("p", { id: "rating-changes", class: "hint", dataset: { rated: "false" } }, "A casual game: not rated.");
  const changes = g.rating_changes;
  if (!changes || !changes.length) {
    return el("p", { id: "rating-changes", class: "hint", dataset: { rated: "true" } }, "A rated game: its rating changes are not recorded yet.");
  }
  const link = seatLinker(g);
  return el("div", { id: "rating-changes", class: "rating-changes", dataset: { rated: "true" } },
    el("h4", {}, "Rating changes"),
    scrollBox("Rating changes", el("table", { class: "games ratings" },
      el("thead", {}, el("tr", {}, ["Place", "Player", "Before", "After", "Change"].map((t) => el("th", {}, t)))),
      el("tbody", {}, changes.slice().sort((a, b) => a.place - b.place || a.seat - b.seat).map((c) => el("tr", {
        dataset: { seat: c.seat }, class: c.seat === g.seat ? "me" : "",
      },
      el("td", {}, ordinal(c.place)), el("td", {}, link(c.seat)),
      el("td", {}, fixed(c.rating_before)), el("td", { class: "after" }, fixed(c.rating_after)),
      el("td", { class: `change ${c.change > 0 ? "up" : c.change < 0 ? "down" : ""}` }, signed(c.change))))))));
}

// --- a profile ----------------------------------------------------------------------------------
/** A rating's uncertainty: ± sigma (the skill estimate mu in the title). */
const uncertaintyCell = (r) => el("td", {
  class: "uncertainty", title: `skill estimate ${fixed(r.mu)} ± ${fixed(r.sigma)}; the rating is mu − 3 sigma`,
}, `± ${fixed(r.sigma)}`);

function ratingRows(ratings) {
  return ratings.map((r) => el("tr", { dataset: { ruleset: r.ruleset, provisional: r.provisional ? "true" : "false" } },
    el("td", {}, el("a", { href: `#/leaderboard/${r.ruleset}` }, presetTitle(r.ruleset))),
    el("td", { class: "rating" }, fixed(r.rating)),
    uncertaintyCell(r),
    el("td", {}, r.games), el("td", { class: "wins" }, r.wins),
    el("td", { class: "rank" }, r.provisional ? el("span", { class: "badge provisional" }, "provisional")
      : r.rank ? `#${r.rank}` : "—")));
}

/** A game's seats (as a profile's game list gives them), each a link to its profile. */
function seatsText(seats) {
  return commaList((seats || []).map((s) => {
    const who = s.username || (s.is_bot && s.bot_level ? botName(s.bot_level) : null);
    const label = s.username || (s.is_bot ? `${s.bot_level || ""} bot`.trim() : `seat ${s.seat}`);
    return who ? playerLink(who, label) : label;
  }));
}

function changeText(change) {
  if (change === null || change === undefined) return "";
  const value = typeof change === "object" ? change.change : change;
  if (value === null || value === undefined) return "";
  return el("span", { class: `change ${value > 0 ? "up" : value < 0 ? "down" : ""}` }, signed(value));
}

function gameRows(games) {
  return games.map((g) => el("tr", { dataset: { gameId: g.id, status: g.status } },
    el("td", {}, el("a", { class: g.status === "finished" ? "replay" : "table", href: `#/${g.status === "finished" ? "replay" : "game"}/${g.id}` },
      `#${g.id}`)),
    el("td", {}, presetTitle(g.ruleset), g.rated ? el("span", { class: "badge rated" }, "rated") : ""),
    el("td", {}, day(g.finished_at || g.created_at)),
    el("td", {}, seatsText(g.seats)),
    el("td", { class: "result" }, g.result ? String(g.result).replace(/_/g, " ") : g.status),
    el("td", { class: "rating-change" }, changeText(g.rating_change))));
}

/** `#/player/NAME`: a player's (or a bot level's) profile. */
export async function viewProfile(root, sc, username) {
  const [{ data: p }] = await Promise.all([api("GET", `/api/v1/players/${encodeURIComponent(username)}`), loadRulesets()]);
  if (!sc.alive()) return;
  const mine = !p.is_bot && same(p.username, session.username);
  const games = p.games || { played: 0, won: 0, by_ruleset: [] };
  const ratings = p.ratings || [];

  const head = el("header", { class: "profile-head" },
    el("h2", { id: "profile-name" }, p.username),
    p.is_bot ? el("span", { class: "badge bot" }, "bot") : "",
    p.online ? el("span", { id: "profile-online", class: "badge online" }, "online") : "",
    p.joined ? el("span", { class: "meta", id: "profile-joined" }, `joined ${day(p.joined)}`) : "");

  const played = el("section", { id: "profile-games", class: "panel" },
    el("h3", {}, "Games"),
    el("p", { id: "profile-totals" }, `${plural(games.played, "game")} played, ${games.won} won`),
    (games.by_ruleset || []).length ? scrollBox("Games by preset", el("table", { class: "games" },
      el("thead", {}, el("tr", {}, ["Preset", "Played", "Won"].map((t) => el("th", {}, t)))),
      el("tbody", {}, games.by_ruleset.map((r) => el("tr", { dataset: { ruleset: r.ruleset } },
        el("td", {}, presetTitle(r.ruleset)), el("td", {}, r.played), el("td", {}, r.won)))))) : "");

  const rated = el("section", { id: "profile-ratings", class: "panel" },
    el("h3", {}, "Ratings"),
    ratings.length ? scrollBox("Ratings", el("table", { class: "games ratings" },
      el("thead", {}, el("tr", {}, ["Preset", "Rating", "±", "Games", "Won", "Rank"].map((t) => el("th", { class: t === "Won" ? "wins" : null }, t)))),
      el("tbody", {}, ratingRows(ratings))))
      : el("p", { class: "empty" }, "No rated games yet."),
    ratings.some((r) => r.provisional)
      ? el("p", { class: "hint" }, "A provisional rating is not ranked on the leaderboard until it has more games.") : "");

  const last = el("section", { id: "profile-last-games", class: "panel" });
  const renderLast = (profile) => {
    const list = profile.last_games;
    const parts = [el("h3", {}, "Last games")];
    if (mine) {
      const box = el("input", { id: "games-public", type: "checkbox", checked: profile.games_public !== false });
      box.addEventListener("change", async () => {
        hideError();
        box.disabled = true;
        try {
          const { data } = await api("PATCH", "/api/v1/players/me/profile", { body: { games_public: box.checked } });
          if (!sc.alive()) return;
          const fresh = (await api("GET", `/api/v1/players/${encodeURIComponent(username)}`)).data;
          if (!sc.alive()) return;
          renderLast({ ...fresh, games_public: data && data.games_public !== undefined ? data.games_public : box.checked });
        } catch (err) {
          showError(err);
          box.checked = !box.checked;
          box.disabled = false;
        }
      });
      parts.push(el("label", { for: "games-public", class: "check" }, box, "Show my game list on my profile"));
    }
    if (list === null || list === undefined) {
      parts.push(el("p", { id: "games-hidden", class: "empty" }, `${p.username} keeps their game list private.`));
    } else if (!list.length) {
      parts.push(el("p", { class: "empty" }, "No games yet."));
    } else {
      parts.push(scrollBox("Last games", el("table", { class: "games", id: "last-games" },
        el("thead", {}, el("tr", {}, ["Game", "Preset", "Date", "Players", "Result", "Rating"].map((t) => el("th", {}, t)))),
        el("tbody", {}, gameRows(list)))),
      el("p", { class: "hint" }, "A finished game's number opens its replay."));
    }
    last.dataset.gamesPublic = profile.games_public === false ? "false" : "true";
    last.replaceChildren(...parts);
  };
  renderLast(p);
  root.append(el("section", { id: "profile", class: "profile", dataset: { username: p.username, bot: p.is_bot ? "true" : "false" } },
    head, el("div", { class: "profile-body" }, el("div", { class: "col" }, rated, played), el("div", { class: "col" }, last))));
}

// --- a leaderboard ------------------------------------------------------------------------------
function entryRow(e) {
  return el("tr", {
    dataset: { username: e.username, rank: e.rank ?? "", provisional: e.provisional ? "true" : "false" },
    class: !e.is_bot && same(e.username, session.username) ? "me" : "",
  },
  el("td", { class: "rank" }, e.rank ? String(e.rank) : "—"),
  el("td", {}, playerLink(e.username),
    e.is_bot ? el("span", { class: "badge bot" }, "bot") : "",
    e.provisional ? el("span", { class: "badge provisional" }, "provisional") : ""),
  el("td", { class: "rating" }, fixed(e.rating)),
  uncertaintyCell(e),
  el("td", {}, e.games), el("td", { class: "wins" }, e.wins));
}

/**
 * `#/leaderboard/PRESET`: the preset's board, best first, a page at a time (`next_cursor`
 * -> `?after=`); `#/leaderboard/PRESET/me`: the player's own entry and those around it
 * (`?around=me`), provisional or not.
 */
export async function viewLeaderboard(root, sc, ruleset, aroundMe, rulesets) {
  await loadRulesets();
  if (!sc.alive()) return;
  const title = presetTitle(ruleset);
  const pick = el("select", { id: "leaderboard-ruleset", "aria-label": "Game" },
    (rulesets.includes(ruleset) ? rulesets : [ruleset, ...rulesets]).map((r) => el("option", { value: r, selected: r === ruleset }, presetTitle(r))));
  pick.addEventListener("change", () => { location.hash = `#/leaderboard/${pick.value}${aroundMe ? "/me" : ""}`; });
  const tabs = el("div", { class: "buttons" },
    el("a", { id: "leaderboard-top", class: `button${aroundMe ? "" : " current"}`, href: `#/leaderboard/${ruleset}` }, "Top"),
    el("a", { id: "leaderboard-around-me", class: `button${aroundMe ? " current" : ""}`, href: `#/leaderboard/${ruleset}/me` }, "My position"));
  const body = el("tbody");
  const table = scrollBox("Leaderboard", el("table", { id: "leaderboard-table", class: "games ratings" },
    el("thead", {}, el("tr", {}, ["Rank", "Player", "Rating", "±", "Games", "Won"].map((t) => el("th", { class: t === "Won" ? "wins" : null }, t)))),
    body));
  const mineBox = el("div", { id: "my-position" });
  const count = el("span", { id: "leaderboard-count", class: "meta" });
  const more = el("div", { class: "more" });
  const section = el("section", { id: "leaderboard", class: "panel leaderboard", dataset: { ruleset, view: aroundMe ? "me" : "top" } },
    el("header", { class: "profile-head" }, el("h2", {}, "Leaderboard"), pick, tabs, count),
    el("p", { class: "hint" }, "Ranked by rating: the skill estimate less three times its uncertainty (±). ",
      "A rating is provisional, and not ranked, until it has enough rated games."),
    mineBox, table, more);
  root.append(section);

  const showMe = (me) => {
    if (!me) {
      mineBox.replaceChildren(el("p", { class: "empty" }, `You have no rating in ${title} yet: play a rated game.`));
      return;
    }
    mineBox.dataset.rank = me.rank ?? "";
    mineBox.dataset.provisional = me.provisional ? "true" : "false";
    mineBox.replaceChildren(el("p", {},
      "Your rating: ", el("strong", { class: "rating" }, fixed(me.rating)),
      ` ± ${fixed(me.sigma)} after ${plural(me.games, "rated game")}, ${me.wins} won · `,
      me.provisional || !me.rank
        ? el("span", { class: "rank" }, el("span", { class: "badge provisional" }, "provisional"), " not ranked yet")
        : el("span", { class: "rank" }, `rank #${me.rank}`)));
  };

  let cursor = null;
  const load = async () => {
    const query = cursor !== null ? `limit=50&after=${encodeURIComponent(cursor)}` : aroundMe ? "around=me&limit=20" : "limit=50";
    const first = cursor === null;
    const { data } = await api("GET", `/api/v1/leaderboards/${encodeURIComponent(ruleset)}?${query}`);
    if (!sc.alive()) return;
    if (first) {
      count.textContent = `${data.count ?? 0} ranked`;
      if (aroundMe) showMe(data.me);
    }
    body.append(...data.results.map(entryRow));
    cursor = data.next_cursor ?? null;
    more.replaceChildren(cursor !== null
      ? el("button", { type: "button", id: "leaderboard-more", onclick: (e) => { e.target.disabled = true; load().catch(showError); } }, "More")
      : "");
    if (!body.children.length) {
      table.replaceChildren(el("p", { class: "empty" }, aroundMe ? "Nobody ranked around you: see the top of the board."
        : `Nobody is ranked in ${title} yet.`));
    }
    section.dataset.loaded = "true";
  };
  await load();
}
