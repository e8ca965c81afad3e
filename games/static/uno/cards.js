// How cards, actions, events and moves look and read: DOM for cards, sentences for the rest,
// in the words a player would use ("Ann plays a blue Skip", "You draw 2 cards"), names never
// seat numbers.

export const COLORS = ["red", "yellow", "green", "blue"];

/** A symbol per colour, shown next to it when `<body>` has the class `cb-symbols` (colour-blind help). */
export const COLOR_SYMBOL = { red: "◆", yellow: "●", green: "▲", blue: "■" };

// UNO ranks: the corner label (a number stays itself); decorative, hidden from screen readers.
const RANK_SHORT = {
  skip: "⊘", reverse: "⇄", draw_two: "+2", wild: "W", wild_draw_four: "+4",
  wild_shuffle_hands: "⇆", wild_customizable: "W✎", wild_swap_hands: "⇋",
  replay: "↻", deflect: "↩", buzzer: "Bz", downpour_one: "☂1", downpour_two: "☂2",
  targeted_draw_two: "+2?", targeted_wild_draw_four: "+4?", hand_pass: "⇉", uno: "UNO",
};
// UNO ranks in words (a number stays itself).
const RANK_NAME = {
  skip: "Skip", reverse: "Reverse", draw_two: "Draw Two", wild: "Wild", wild_draw_four: "Wild Draw Four",
  wild_shuffle_hands: "Wild Shuffle Hands", wild_customizable: "Wild Customizable", wild_swap_hands: "Wild Swap Hands",
  replay: "Replay", deflect: "Renvoi", buzzer: "Buzzer", downpour_one: "Downpour +1", downpour_two: "Downpour +2",
  targeted_draw_two: "Targeted Draw Two", targeted_wild_draw_four: "Targeted Wild Draw Four",
  hand_pass: "Change de jeu", uno: "UNO card",
};
// cards there is one of in a deck: "the UNO card"
const ONE_OF_A_KIND = new Set(["uno"]);
export const SUIT_SHORT = { moons: "Mo", suns: "Su", waves: "Wa", leaves: "Le", wyrms: "Wy", knots: "Kn" };

const words = (s) => String(s).replace(/_/g, " ");
const capital = (s) => (s ? s.charAt(0).toUpperCase() + s.slice(1) : s);
const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
// a sentence's first letter made a capital, unless the sentence starts with a player's name
// ("p2 plays" stays as p2 spells it; "you play" -> "You play")
function sentence(text, names) {
  if (!text) return text;
  const seats = names && names.seats !== undefined ? names.seats : 16;
  for (let seat = 0; names && seat < seats; seat++) {
    const name = String(names(seat));
    if (name !== "you" && text.startsWith(name)) return text;
  }
  return capital(text);
}

/** "a", "a and b", "a, b and c". */
export function listWords(items) {
  const xs = items.filter((x) => x !== null && x !== undefined && x !== "");
  if (xs.length <= 1) return xs.join("");
  return `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
}

export function isDecktet(card) {
  return Boolean(card && Array.isArray(card.suits));
}

/** A UNO rank in words: "Skip", "Wild Draw Four", "7". */
export function rankName(rank) {
  return RANK_NAME[rank] || capital(words(rank));
}

// A Decktet card's rank and suits: "court of suns, waves and wyrms", "ace of moons".
function decktetKind(card) {
  return `${words(card.rank)} of ${listWords(card.suits)}`;
}

/**
 * A card in words: "blue 7", "red Skip", "Wild Draw Four", "Island (court of suns, waves and
 * wyrms)", "Ace of Moons".
 */
export function cardName(card) {
  if (!card) return "a card";
  if (isDecktet(card)) {
    if (card.rank === "ace" && card.name) return card.name;
    return card.name ? `${card.name} (${decktetKind(card)})` : decktetKind(card);
  }
  const rank = rankName(card.rank);
  return card.color ? `${card.color} ${rank}` : rank;
}

/** A card's accessible name: "blue 7", "Wild Draw Four", "Island: court of suns, waves and wyrms". */
export function cardLabel(card) {
  if (isDecktet(card) && card.name && card.rank !== "ace") return `${card.name}: ${decktetKind(card)}`;
  return cardName(card);
}

/** A card with its article, as a sentence says it: "a blue 7", "a Wild", "the Island (...)", "the UNO card". */
export function aCard(card) {
  if (!card) return "a card";
  if (isDecktet(card)) return `the ${cardName(card)}`;
  if (!card.color && ONE_OF_A_KIND.has(card.rank)) return `the ${cardName(card)}`;
  const name = cardName(card);
  return `${/^[aeiou8]/i.test(name) ? "an" : "a"} ${name}`;
}

/** A colour's symbol as a decorative element (shown with `body.cb-symbols`; screen readers skip it). */
export function colorSymbolEl(color) {
  const s = document.createElement("span");
  s.className = "cb-symbol";
  s.setAttribute("aria-hidden", "true");
  s.textContent = COLOR_SYMBOL[color] || "";
  return s;
}

/** A colour named where it is shown: a swatch "green" (with `body.cb-symbols`, CSS puts its symbol before it). */
export function colorTag(color, props = {}) {
  const tag = document.createElement("span");
  tag.className = `swatch c-${color}`;
  if (props.id) tag.id = props.id;
  tag.textContent = color;
  return tag;
}

function span(className, text, hidden = false) {
  const s = document.createElement("span");
  s.className = className;
  s.textContent = text;
  if (hidden) s.setAttribute("aria-hidden", "true");
  return s;
}

/**
 * A card's element: a <button> when `onClick` is given, else a <div role="img">. Its accessible
 * name is the card in words ("blue 7"; ", playable" when `playable`; ", just drawn" when
 * `justDrawn`): the button's visually hidden text `.card-name`, the image's aria-label; the
 * glyphs on its face are hidden from screen readers. Data attributes:
 * `data-card-id`, `data-rank`, `data-color` (UNO) or `data-name` (Decktet).
 */
export function cardEl(card, { onClick = null, playable = false, small = false, justDrawn = false } = {}) {
  const el = document.createElement(onClick ? "button" : "div");
  el.className = "card";
  if (small) el.classList.add("small");
  el.dataset.cardId = card.id;
  el.dataset.rank = card.rank;
  if (isDecktet(card)) {
    el.classList.add("decktet");
    el.dataset.name = card.name || "";
    const suits = span("suits", "", true);
    for (const suit of card.suits) suits.append(span(`suit s-${suit}`, SUIT_SHORT[suit] || suit));
    el.append(span("rank", card.rank, true), span("name", card.name || "", true), suits);
  } else {
    el.classList.add(card.color ? `c-${card.color}` : "c-wild");
    el.dataset.color = card.color || "";
    const label = RANK_SHORT[card.rank] || card.rank;
    el.append(span("corner", label, true), span("face", label, true));
    if (card.color) el.append(span("cb-mark", COLOR_SYMBOL[card.color] || "", true));
  }
  if (justDrawn) {
    el.classList.add("just-drawn");
    el.append(span("drawn-mark", "new", true));
  }
  const name = [cardLabel(card), justDrawn ? "just drawn" : "", playable ? "playable" : ""].filter(Boolean).join(", ");
  if (onClick) {
    // a button is named by its text (visually hidden): its name then holds what it shows
    el.type = "button";
    el.append(span("card-name", name));
    el.addEventListener("click", onClick);
  } else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", name);
  }
  if (playable) el.classList.add("playable");
  return el;
}

/**
 * The card of the viewer's hand just drawn, while the game waits on what to do with it: Duo's
 * draft (keep it, or put it under the pile and draw another) or a turn's "play the card just
 * drawn" (`pending` `draft` / `play_drawn` of the viewer's seat). The engine adds a drawn card at
 * the end of the hand, and the API's `hand` keeps that order: its last card (or the view's
 * `drawn`, where a view carries it). Its id, or null.
 */
export function drawnCardId(game) {
  if (!game || !game.pending || !["draft", "play_drawn"].includes(game.pending.type)) return null;
  if (game.seat === null || game.seat === undefined || game.pending.seat !== game.seat) return null;
  if (Array.isArray(game.drawn) && game.drawn.length) return game.drawn[game.drawn.length - 1];
  const hand = game.hand || [];
  return hand.length ? hand[hand.length - 1].id : null;
}

// --- names ------------------------------------------------------------------------------------
/**
 * `names(seat)`: how a sentence names a seat: "you" for the viewer, the username ("alice"),
 * "Bot 2 (hard)" for a bot (numbered among the table's bots), "nobody" for no seat.
 * `names.label(seat)`: a name standing alone, in a list or a table: "alice (you)".
 * `names.viewer`: the viewer's seat (null for a spectator).
 */
export function seatNamer(game) {
  const players = (game && game.players) || [];
  const viewer = game && game.seat !== undefined ? game.seat : null;
  const bots = players.filter((p) => p.is_bot).map((p) => p.seat).sort((a, b) => a - b);
  const plain = (seat) => {
    const p = players.find((x) => x.seat === seat);
    if (p && p.username) return p.username;
    if (p && p.is_bot) return `Bot ${bots.indexOf(seat) + 1}${p.bot_level ? ` (${p.bot_level})` : ""}`;
    return `player ${seat + 1}`; // a seat nobody holds (never shown for a seated player)
  };
  const names = (seat) => {
    if (seat === null || seat === undefined) return "nobody";
    return seat === viewer ? "you" : plain(seat);
  };
  names.label = (seat) => {
    if (seat === null || seat === undefined) return "nobody";
    return seat === viewer ? `${plain(seat)} (you)` : plain(seat);
  };
  names.viewer = viewer;
  names.seats = players.reduce((n, p) => Math.max(n, p.seat + 1), 0);
  return names;
}

// the grammar of a seat as a sentence's subject: "you" takes the plural verb
const isYou = (names, seat) => seat !== null && seat !== undefined &&
  (names.viewer !== undefined ? seat === names.viewer : String(names(seat)).toLowerCase() === "you");
const verb = (names, seat, third, base) => (isYou(names, seat) ? base : third);
/** "Ann plays", "you play" (`third`: the verb after Ann; `base`: after you). */
const does = (names, seat, third, base) => `${names(seat)} ${verb(names, seat, third, base)}`;
/** "Ann's", "your". */
const whose = (names, seat) => (isYou(names, seat) ? "your" : `${names(seat)}'s`);
/** "Ann is", "you are". */
const is = (names, seat) => does(names, seat, "is", "are");
const seatList = (names, seats) => listWords((seats || []).map((s) => names(s)));
// several seats as a subject: "Ann and Bob draw", "Ann draws", "you draw"
const doAll = (names, seats, third, base) => `${seatList(names, seats)} ${(seats || []).length === 1 ? verb(names, seats[0], third, base) : base}`;

// --- actions ----------------------------------------------------------------------------------
/**
 * A button's label for a legal action that names no card: "Draw a card", "Name blue", "Catch
 * Bob without UNO". `game` (optional): the game's view, for the labels that depend on it
 * ("Draw 4 cards" when a penalty is owed).
 */
export function actionLabel(a, names, game = null) {
  const pending = game && game.pending;
  switch (a.type) {
    case "draw":
      if (pending && ["penalty", "deflected"].includes(pending.type) && pending.amount) return `Draw ${plural(pending.amount, "card")}`;
      return "Draw a card";
    case "pass": return pending && pending.type === "skip" ? "Accept the Skip" : "Pass";
    case "call_uno": return "Call UNO!";
    case "catch_uno": return `Catch ${names(a.target_seat)} without UNO`;
    case "challenge": return "Challenge the Wild Draw Four";
    case "choose_color": return `Name ${a.color}`;
    case "end_turn": return "End the turn";
    case "buzz": return "Buzz!";
    case "draft_keep": return "Keep the drawn card";
    case "draft_discard": return "Put it under the pile and draw another";
    default: {
      const extra = Object.entries(a).filter(([k]) => k !== "type")
        .map(([k, v]) => (k.endsWith("seat") ? `${words(k)} ${names(v)}` : `${words(k)} ${v}`));
      return capital(words(a.type)) + (extra.length ? ` (${extra.join(", ")})` : "");
    }
  }
}

/**
 * A choice's label among the legal actions that use one card: "Play it", "Play it and name
 * blue", "Play it at Bob and call UNO", "Set it aside face down".
 */
export function choiceLabel(a, names) {
  if (a.type === "play_face_down") return "Set it aside face down";
  let s = "Play it";
  if (a.target_seat !== undefined) s += ` at ${names(a.target_seat)}`;
  const more = [];
  if (a.color) more.push(`name ${a.color}`);
  for (const [k, v] of Object.entries(a)) {
    if (!["type", "card", "color", "target_seat", "uno"].includes(k)) more.push(`${words(k)} ${v}`);
  }
  if (a.uno) more.push("call UNO");
  return more.length ? `${s}${more.length > 1 ? ", " : " and "}${listWords(more)}` : s;
}

// --- events -----------------------------------------------------------------------------------
// why a seat draws (the `draw` event's `reason`), after "Ann draws 2 cards"
const DRAW_REASON = {
  draw_two: "from a Draw Two", wild_draw_four: "from a Wild Draw Four",
  targeted_draw_two: "from a Targeted Draw Two", targeted_wild_draw_four: "from a Targeted Wild Draw Four",
  uno_penalty: "for not calling UNO", challenge_lost: "for losing the challenge", buzz: "for the buzz",
  downpour: "in the Downpour", skip: "",
};

/**
 * Why a Decktet-Uno play scored what it did, from the card it was played on: "3 suits on the
 * Consul × 2 shared (moons and knots)"; null without the card it was played on.
 */
export function scoringWhy(card, top) {
  if (!isDecktet(card) || !isDecktet(top)) return null;
  const shared = card.suits.filter((s) => top.suits.includes(s));
  if (!shared.length) return `no suit shared with the ${top.name || cardName(top)}`;
  return `${plural(top.suits.length, "suit")} on the ${top.name || cardName(top)} × ${shared.length} shared (${listWords(shared)})`;
}

// one event as a clause, not capitalised ("you draw 2 cards"); `ctx.top`: the card on the pile
// before it (Decktet-Uno's scoring explained)
function clause(e, names, ctx = {}) {
  const s = e.seat;
  const who = names(s);
  const cards = (list) => listWords((list || []).map(cardName)) || "no cards";
  switch (e.type) {
    case "dealer_chosen": return `${does(names, s, "deals", "deal")} first`;
    case "round_started": return `round ${e.round} begins; ${does(names, e.dealer, "deals", "deal")}`;
    case "first_card": return `the first card is ${aCard(e.card)}`;
    case "first_card_returned": return `the first card turned up, ${aCard({ rank: e.rank, color: null })}, goes back into the deck`;
    case "hand": return (e.cards || []).length ? `${whose(names, s)} hand: ${cards(e.cards)}` : `${whose(names, s)} hand is empty`;
    case "draw": {
      const why = e.reason && e.reason !== "draw" && e.reason !== "draft" ? DRAW_REASON[e.reason] ?? `(${words(e.reason)})` : "";
      const what = e.count === 1 ? "a card" : e.count ? plural(e.count, "card") : "no card (none left)";
      return `${does(names, s, "draws", "draw")} ${what}${why ? ` ${why}` : ""}`;
    }
    case "cards_drawn": {
      const n = (e.cards || []).length;
      return `${whose(names, s)} new ${n === 1 ? "card is" : "cards are"} ${listWords((e.cards || []).map(aCard)) || "none"}`;
    }
    case "play": {
      let t = `${does(names, s, "plays", "play")} ${aCard(e.card)}`;
      if (e.target_seat !== undefined && e.target_seat !== null) t += ` at ${names(e.target_seat)}`;
      if (e.card && !isDecktet(e.card) && !e.card.color && e.color) t += ` and ${verb(names, s, "names", "name")} ${e.color}`;
      if (e.points !== undefined) {
        t += e.points ? ` and ${verb(names, s, "scores", "score")} ${plural(e.points, "point")}`
          : ` and ${verb(names, s, "scores", "score")} nothing`;
        const why = scoringWhy(e.card, ctx.top);
        if (why) t += `: ${why}`;
      }
      return t;
    }
    case "pass": return e.auto ? `${whose(names, s)} turn passes` : does(names, s, "passes", "pass");
    case "uno": return `${does(names, s, "calls", "call")} UNO!`;
    case "uno_caught": return `${does(names, s, "catches", "catch")} ${names(e.target_seat)} without UNO`;
    case "jump_in": return `${does(names, s, "jumps", "jump")} in`;
    case "color_chosen": return `${does(names, s, "names", "name")} ${e.color}`;
    case "challenge":
      return `${does(names, s, "challenges", "challenge")} ${whose(names, e.target_seat)} Wild Draw Four: ${e.guilty ? "a bluff" : "it was played fairly"}`;
    case "hand_revealed": return `${whose(names, s)} hand is shown: ${cards(e.cards)}`;
    case "hands_rotated":
      return `every hand passes to the next player ${e.direction === "counterclockwise" ? "anticlockwise" : "clockwise"}`;
    case "hands_swapped": return `${does(names, s, "swaps", "swap")} hands with ${names(e.target_seat)}`;
    case "hands_shuffled": return `${does(names, s, "shuffles", "shuffle")} all the hands together and ${verb(names, s, "deals", "deal")} them out again`;
    case "reshuffled": return `the discard pile is shuffled into a new draw pile (${plural(e.count, "card")})`;
    case "skipped": return `${is(names, s)} skipped`;
    case "deflected":
      return `${does(names, s, "sends", "send")} the ${rankName(e.kind)} back to ${names(e.target_seat)} with a Renvoi`;
    case "end_turn": return `${does(names, s, "ends", "end")} the turn`;
    case "cut_in": return `${does(names, s, "cuts", "cut")} in on ${whose(names, e.target_seat)} sequence`;
    case "buzz_window": return `everyone must buzz${e.seconds ? ` within ${duration(e.seconds)}` : ""}!`;
    case "buzz": return does(names, s, "buzzes", "buzz");
    case "buzz_closed": {
      if (e.last === null || e.last === undefined) return "the buzz is over: nobody buzzed";
      const late = (e.not_buzzed || []).length ? `; ${doAll(names, e.not_buzzed, "does", "do")} not buzz` : "";
      return `the buzz is over: ${names(e.last)} buzzed last${late}`;
    }
    case "seats_eliminated":
      return `${seatList(names, e.seats)} ${(e.seats || []).length === 1 ? verb(names, e.seats[0], "is", "are") : "are"} out of the game`;
    case "face_down": return `${does(names, s, "sets", "set")} a card aside face down`;
    case "face_down_placed": {
      const on = ctx.top ? ` on the ${ctx.top.name || cardName(ctx.top)}` : "";
      const scorer = isYou(names, s) ? "you" : names(s);
      if (e.points < 0) {
        return `${whose(names, s)} face-down card, ${aCard(e.card)}, is placed${on}: no suit shared, ${scorer} ${verb(names, s, "loses", "lose")} ${plural(-e.points, "point")}`;
      }
      const shared = ctx.top && isDecktet(ctx.top) ? e.card.suits.filter((x) => ctx.top.suits.includes(x)) : [];
      const why = shared.length ? ` (${plural(ctx.top.suits.length, "suit")} × ${shared.length} shared: ${listWords(shared)})` : "";
      return `${whose(names, s)} face-down card, ${aCard(e.card)}, is placed${on}: ${scorer} ${verb(names, s, "scores", "score")} ${e.points ? plural(e.points, "point") : "nothing"}${why}`;
    }
    case "misplay":
      return `${does(names, s, "tries", "try")} to jump in with a card that does not match: ${plural(e.points, "penalty point")}`;
    case "draft_keep": return `${does(names, s, "keeps", "keep")} the drawn card`;
    case "draft_discard": return `${does(names, s, "puts", "put")} the drawn card under the draw pile and ${verb(names, s, "draws", "draw")} another`;
    case "timeout": return `time is up for ${who}: the server plays for ${isYou(names, s) ? "you" : "them"}`;
    case "expired": return `${whose(names, s)} time to answer ran out`;
    case "round_ended": {
      const pts = e.points || [];
      if (ctx.decktet) return `every hand is empty; final points: ${pts.map((p, i) => `${names(i)} ${p}`).join(", ")}`;
      const others = pts.some((p, i) => p && i !== e.winner);
      const head = `${does(names, e.winner, "wins", "win")} round ${e.round}${e.blocked ? " (nobody could play)" : ""}`;
      if (others) return `${head}; points this round: ${pts.map((p, i) => `${names(i)} ${p}`).join(", ")}`;
      return `${head}: ${plural(pts[e.winner] || 0, "point")}`;
    }
    case "game_ended": {
      const winners = e.winners && e.winners.length ? e.winners : [e.winner];
      return `game over: ${doAll(names, winners, "wins", "win")}`;
    }
    default: return null;
  }
}

/** The events that put their `card` on top of the pile. */
export const PILE_EVENTS = new Set(["first_card", "play", "face_down_placed"]);

/** What `describeEvent` says of an event type it has no sentence for: its type in words. */
export const unknownEvent = (e) => capital(words(e.type));

/** One event in a sentence ("Ann plays a blue Skip"). `ctx.top`: the card on the pile before it. */
export function describeEvent(e, names, ctx = {}) {
  const c = clause(e, names, ctx);
  return c === null ? unknownEvent(e) : sentence(c, names);
}

/**
 * A move in a sentence: its events' clauses joined ("Ann plays a blue Skip; Bob is skipped"),
 * or its action when it shows no event. `ctx.top`: the card on the pile before the move (to
 * explain Decktet-Uno's scoring).
 */
export function describeMove(move, names, ctx = {}) {
  let top = ctx.top || null;
  // a Decktet-Uno move (its one round ends with the game: no "wins round 1")
  const decktet = (move.events || []).some((e) => isDecktet(e.card));
  const parts = [];
  for (const e of move.events || []) {
    parts.push(clause(e, names, { top, decktet }) ?? unknownEvent(e).toLowerCase());
    if (PILE_EVENTS.has(e.type)) top = e.card;
  }
  if (!parts.length) {
    const a = move.action || {};
    const by = move.seat;
    switch (a.type) {
      case "play_face_down": parts.push(`${does(names, by, "sets", "set")} a card aside face down`); break;
      case "timeout": parts.push(`time is up for ${names(by)}`); break;
      default: parts.push(`${names(by)}: ${actionLabel(a, names).toLowerCase()}`);
    }
  }
  return sentence(parts.join("; "), names);
}

/**
 * A Decktet-Uno move's score, in a short line for the table to flash: "Ann scores 6 points: 3
 * suits on the Consul × 2 shared (moons and knots)", "Your face-down card loses 2 points";
 * null for a move that scored nothing worth saying (or an UNO move). `top`: the card on the
 * pile before the move, for the why.
 */
export function scoredLine(move, names, top = null) {
  const lines = [];
  let before = top;
  for (const e of move.events || []) {
    if (e.type === "play" && e.points !== undefined) {
      const why = scoringWhy(e.card, before);
      lines.push(`${does(names, e.seat, "scores", "score")} ${e.points ? plural(e.points, "point") : "nothing"}${why ? `: ${why}` : ""}`);
    } else if (e.type === "face_down_placed") {
      const why = scoringWhy(e.card, before);
      lines.push(`${whose(names, e.seat)} face-down ${e.card && e.card.name ? e.card.name : "card"} ${e.points >= 0
        ? `scores ${e.points ? plural(e.points, "point") : "nothing"}` : `loses ${plural(-e.points, "point")}`}${why ? `: ${why}` : ""}`);
    }
    if (PILE_EVENTS.has(e.type)) before = e.card;
  }
  return lines.length ? sentence(lines.join("; "), names) : null;
}

/** What the game waits for, in a sentence (null: nothing special). */
export function describePending(p, names) {
  if (!p) return null;
  const s = p.seat;
  switch (p.type) {
    case "penalty":
      return sentence(`${does(names, s, "must", "must")} draw ${plural(p.amount, "card")}${p.challengeable ? " or challenge" : ""}`, names);
    case "choose_color": return sentence(`${does(names, s, "must", "must")} name a colour`, names);
    case "play_drawn": return sentence(`${does(names, s, "may", "may")} play the card just drawn`, names);
    case "buzz": {
      const owing = p.owed_by || [];
      return owing.length ? sentence(`${seatList(names, owing)} must still buzz`, names) : "Everyone must buzz!";
    }
    case "draft": return sentence(p.must_keep ? `${does(names, s, "must", "must")} keep the drawn card`
      : `${does(names, s, "may", "may")} keep the drawn card, or put it under the pile and draw another`, names);
    case "skip": return sentence(`${is(names, s)} skipped unless ${isYou(names, s) ? "you send" : "they send"} it back with a Renvoi`, names);
    case "deflected":
      return sentence(`${does(names, s, "must", "must")} take the ${rankName(p.kind)}${p.amount ? ` (${plural(p.amount, "card")})` : ""} or send it back`, names);
    case "sequence": return sentence(`${does(names, s, "may", "may")} play on ${p.rule === "straights" ? "the straight" : "the sequence"} or end the turn`, names);
    case "replay": return sentence(`${does(names, s, "plays", "play")} again after the Replay`, names);
    case "duo_reverse":
      return sentence(`${does(names, s, "may", "may")} play another ${p.color ? `${p.color} ` : ""}card${p.opening ? ", draw" : ""} or end the turn`, names);
    default: return sentence(`${words(p.type)}${s !== undefined ? `: ${names(s)}` : ""}`, names);
  }
}

// --- time -------------------------------------------------------------------------------------
/** A length of time in words: "25 s", "4 min 5 s", "3 h 20 min", "1 day", "2 days 3 h". */
export function duration(seconds) {
  let s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  const join = (...xs) => xs.filter(Boolean).join(" ");
  if (d) return join(plural(d, "day"), h ? `${h} h` : "");
  if (h) return join(`${h} h`, m ? `${m} min` : "");
  if (m) return join(`${m} min`, s ? `${s} s` : "");
  return `${s} s`;
}

/** The time left until `deadline` in words ("25 s", "3 h 20 min", "2 days 3 h"); "now" when past. */
export function countdown(deadline, now = Date.now()) {
  if (!deadline) return "";
  const s = Math.round((Date.parse(deadline) - now) / 1000);
  return s <= 0 ? "now" : duration(s);
}
