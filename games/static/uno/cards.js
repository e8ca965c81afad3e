// How cards, actions, events and moves look: DOM for cards, short text for the rest.

export const COLORS = ["red", "yellow", "green", "blue"];

// UNO ranks: the corner label (a number stays itself).
const RANK_SHORT = {
  skip: "⊘", reverse: "⇄", draw_two: "+2", wild: "W", wild_draw_four: "+4",
  wild_shuffle_hands: "⇆", wild_customizable: "W✎", wild_swap_hands: "⇋",
  replay: "↻", deflect: "↩", buzzer: "Bz", downpour_one: "☂1", downpour_two: "☂2",
  targeted_draw_two: "+2?", targeted_wild_draw_four: "+4?", hand_pass: "⇉", uno: "UNO",
};
const RANK_NAME = {
  draw_two: "Draw Two", wild_draw_four: "Wild Draw Four", wild_shuffle_hands: "Wild Shuffle Hands",
  wild_customizable: "Wild Customizable", wild_swap_hands: "Wild Swap Hands", deflect: "Renvoi",
  downpour_one: "Downpour +1", downpour_two: "Downpour +2", targeted_draw_two: "+2?",
  targeted_wild_draw_four: "+4?", hand_pass: "Change de jeu", uno: "UNO card",
};
export const SUIT_SHORT = { moons: "Mo", suns: "Su", waves: "Wa", leaves: "Le", wyrms: "Wy", knots: "Kn" };

const words = (s) => String(s).replace(/_/g, " ");
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export function isDecktet(card) {
  return Boolean(card && Array.isArray(card.suits));
}

/** A card in words: "red 7", "Wild Draw Four", "Island (court; suns, waves, wyrms)". */
export function cardName(card) {
  if (!card) return "?";
  if (isDecktet(card)) return `${card.name || words(card.rank)} (${words(card.rank)}; ${card.suits.join(", ")})`;
  const rank = RANK_NAME[card.rank] || capital(words(card.rank));
  return card.color ? `${card.color} ${rank}` : rank;
}

/** A card's element: a <button> when `onClick` is given, else a <div>. */
export function cardEl(card, { onClick = null, playable = false, small = false } = {}) {
  const el = document.createElement(onClick ? "button" : "div");
  el.className = "card";
  if (small) el.classList.add("small");
  el.dataset.cardId = card.id;
  el.dataset.rank = card.rank;
  el.title = cardName(card);
  if (isDecktet(card)) {
    el.classList.add("decktet");
    el.dataset.name = card.name || "";
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = card.rank;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = card.name || "";
    const suits = document.createElement("span");
    suits.className = "suits";
    for (const suit of card.suits) {
      const chip = document.createElement("span");
      chip.className = `suit s-${suit}`;
      chip.textContent = SUIT_SHORT[suit] || suit;
      chip.title = suit;
      suits.append(chip);
    }
    el.append(rank, name, suits);
  } else {
    el.classList.add(card.color ? `c-${card.color}` : "c-wild");
    el.dataset.color = card.color || "";
    const label = RANK_SHORT[card.rank] || card.rank;
    const corner = document.createElement("span");
    corner.className = "corner";
    corner.textContent = label;
    const face = document.createElement("span");
    face.className = "face";
    face.textContent = label;
    el.append(corner, face);
  }
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", onClick);
  }
  if (playable) el.classList.add("playable");
  return el;
}

/** `names(seat)` -> "alice" / "bot (easy)" / "seat 3"; `you` marks the viewer's seat. */
export function seatNamer(game) {
  return (seat) => {
    if (seat === null || seat === undefined) return "the server";
    const p = (game.players || []).find((x) => x.seat === seat);
    let name = p ? (p.username || (p.is_bot ? `bot ${seat}` : `seat ${seat}`)) : `seat ${seat}`;
    if (p && p.is_bot && p.bot_level) name += ` (${p.bot_level} bot)`;
    return seat === game.seat ? `${name} (you)` : name;
  };
}

/** A button's label for a legal action that names no card. */
export function actionLabel(a, names) {
  switch (a.type) {
    case "draw": return "Draw";
    case "pass": return "Pass";
    case "call_uno": return "Call UNO!";
    case "catch_uno": return `Catch ${names(a.target_seat)} (no UNO)`;
    case "challenge": return "Challenge the Wild Draw Four";
    case "choose_color": return `Name ${a.color}`;
    case "end_turn": return "End turn";
    case "buzz": return "Buzz!";
    case "draft_keep": return "Keep the drawn card";
    case "draft_discard": return "Discard it, draw another";
    default: {
      const extra = Object.entries(a).filter(([k]) => k !== "type")
        .map(([k, v]) => (k.endsWith("seat") ? `${words(k)} ${names(v)}` : `${words(k)} ${v}`));
      return capital(words(a.type)) + (extra.length ? ` (${extra.join(", ")})` : "");
    }
  }
}

/** A choice's label among the legal actions that use one card (a wild's colour, UNO...). */
export function choiceLabel(a, names) {
  const parts = [a.type === "play_face_down" ? "Set it aside face down" : "Play it"];
  if (a.color) parts.push(`naming ${a.color}`);
  if (a.target_seat !== undefined) parts.push(`at ${names(a.target_seat)}`);
  if (a.uno) parts.push("and call UNO");
  for (const [k, v] of Object.entries(a)) {
    if (!["type", "card", "color", "target_seat", "uno"].includes(k)) parts.push(`${words(k)} ${v}`);
  }
  return parts.join(" ");
}

/** One event in words, or null for the ones not worth a line. */
export function describeEvent(e, names) {
  const who = names(e.seat);
  switch (e.type) {
    case "dealer_chosen": return `${who} deals first`;
    case "round_started": return `round ${e.round} dealt by ${names(e.dealer)}`;
    case "first_card": return `first card: ${cardName(e.card)}`;
    case "first_card_returned": return `the first card (${words(e.rank)}) goes back`;
    case "hand": return `${who}'s hand: ${e.cards.map(cardName).join(", ") || "empty"}`;
    case "draw": return `${who} draws ${e.count}${e.reason && e.reason !== "draw" ? ` (${words(e.reason)})` : ""}`;
    case "cards_drawn": return `${who} drew ${e.cards.map(cardName).join(", ")}`;
    case "play": {
      let s = `${who} plays ${cardName(e.card)}`;
      if (e.color && !e.card.color) s += ` naming ${e.color}`;
      if (e.target_seat !== undefined) s += ` at ${names(e.target_seat)}`;
      if (e.points !== undefined) s += ` for ${e.points} point${e.points === 1 ? "" : "s"}`;
      return s;
    }
    case "pass": return `${who} passes${e.auto ? " (automatically)" : ""}`;
    case "uno": return `${who} calls UNO`;
    case "uno_caught": return `${who} catches ${names(e.target_seat)} without UNO`;
    case "color_chosen": return `${who} names ${e.color}`;
    case "challenge": return `${who} challenges ${names(e.target_seat)}: ${e.guilty ? "guilty" : "not guilty"}`;
    case "hand_revealed": return `${who}'s hand shown: ${e.cards.map(cardName).join(", ")}`;
    case "hands_rotated": return `every hand passes ${e.direction}`;
    case "hands_swapped": return `${who} swaps hands with ${names(e.target_seat)}`;
    case "hands_shuffled": return `${who} shuffles every hand`;
    case "reshuffled": return `the discard pile is reshuffled (${e.count} cards)`;
    case "skipped": return `${who} is skipped`;
    case "deflected": return `${who} sends it back to ${names(e.target_seat)}`;
    case "end_turn": return `${who} ends the turn`;
    case "cut_in": return `${who} cuts in`;
    case "jump_in": return `${who} jumps in`;
    case "buzz_window": return `${who} plays a Buzzer: everyone buzz!`;
    case "buzz": return `${who} buzzes`;
    case "buzz_closed": return `buzz over: ${(e.draws || []).map(names).join(", ") || "nobody"} draw${(e.draws || []).length === 1 ? "s" : ""}`;
    case "seats_eliminated": return `${e.seats.map(names).join(", ")} out`;
    case "face_down": return `${who} sets a card aside face down`;
    case "face_down_placed": return `${who}'s face-down ${cardName(e.card)} scores ${e.points}`;
    case "misplay": return `${who} misplays (${e.points} points)`;
    case "draft_keep": return `${who} keeps the drawn card`;
    case "draft_discard": return `${who} discards the drawn card`;
    case "timeout": return `time is up for ${who}`;
    case "expired": return `${who} missed the window`;
    case "round_ended": return `round ${e.round} won by ${names(e.winner)}${e.blocked ? " (blocked)" : ""}: ${e.points.join(" / ")} points`;
    case "game_ended": return `game over: ${(e.winners || [e.winner]).map(names).join(", ")} won`;
    default: return words(e.type);
  }
}

/** A move in words: its events, or its action when it has none to show. */
export function describeMove(move, names) {
  const lines = (move.events || []).map((e) => describeEvent(e, names)).filter(Boolean);
  if (!lines.length) lines.push(`${names(move.seat)}: ${words(move.action && move.action.type)}`);
  return lines.join("; ");
}

/** What the game waits for, in words (null: nothing special). */
export function describePending(p, names) {
  if (!p) return null;
  const who = p.seat !== undefined ? names(p.seat) : "";
  switch (p.type) {
    case "penalty": return `${who} must take +${p.amount}${p.challengeable ? " or challenge" : ""}`;
    case "choose_color": return `${who} names a colour`;
    case "play_drawn": return `${who} may play the drawn card`;
    case "buzz": return "Buzz window open";
    case "draft": return `${who} drafts`;
    default: return `${words(p.type)}${who ? `: ${who}` : ""}`;
  }
}

/** "12 s", "3 min 4 s", "2 h 5 min", "1 d 3 h"; "now" when past. */
export function countdown(deadline, now = Date.now()) {
  if (!deadline) return "";
  let s = Math.round((Date.parse(deadline) - now) / 1000);
  if (s <= 0) return "now";
  const d = Math.floor(s / 86400); s -= d * 86400;
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${s} s`;
  return `${s} s`;
}
