// Replaying a game's history: every hand, the table and the scores after each move,
// derived from the moves' events alone (a finished game shows them all).  No DOM here.
//
// The events that move cards:
//   hand          a seat's whole hand (after a deal, a draft discard, or when hands
//                 changed owners: a 7 / 0 of seven_zero, hand_pass, the UNO card,
//                 Wild Swap Hands, Wild Shuffle Hands): it replaces what we had
//   cards_drawn   cards added to a hand (after its public `draw` count)
//   play          a card leaves its player's hand for the pile
//   face_down     Decktet-Uno: the move's `action.card` is set aside (shown once finished)
//   face_down_placed  that card goes onto the pile
//   round_started a new deal: the hands start empty (their `hand` events follow)
// A seat whose hand cannot be followed (a card played that it was not known to hold,
// a draw whose cards are hidden) is marked `unknown[seat]`.

const clone = (hands) => hands.map((h) => h.slice());

function teammates(seat, n, options) {
  if (options && options.teams && n % 2 === 0) return [seat, (seat + n / 2) % n];
  return [seat];
}

/**
 * `game`: the game's view (players, options); `moves`: its moves in order.
 * Returns `{steps, seats}`: steps[i] is the table after moves[i]: `hands` (card objects
 * per seat), `unknown` (per seat), `top`, `color`, `round`, `scores`, `aside`
 * ({seat, card} set aside face down), `next` (the seat of the move after, if any).
 */
export function buildTimeline(game, moves) {
  const n = (game.players || []).length;
  const options = game.options || {};
  let hands = Array.from({ length: n }, () => []);
  let unknown = Array(n).fill(false);
  let scores = Array(n).fill(0);
  let top = null;
  let color = null;
  let round = 0;
  let aside = null;
  const steps = [];
  const misplaySign = ["lowest_total", "elimination"].includes(options.scoring) ? 1 : -1;

  const remove = (seat, card) => {
    const hand = hands[seat];
    if (!hand) return;
    const i = hand.findIndex((c) => c.id === card.id);
    if (i >= 0) hand.splice(i, 1);
    else unknown[seat] = true;
  };

  moves.forEach((move, index) => {
    const events = move.events || [];
    events.forEach((e, k) => {
      switch (e.type) {
        case "round_started":
          round = e.round;
          hands = Array.from({ length: n }, () => []);
          unknown = Array(n).fill(false);
          top = null;
          color = null;
          aside = null;
          break;
        case "hand":
          hands[e.seat] = e.cards.slice();
          unknown[e.seat] = false;
          break;
        case "draw": {
          const next = events[k + 1];
          if (e.count > 0 && !(next && next.type === "cards_drawn" && next.seat === e.seat)) unknown[e.seat] = true;
          break;
        }
        case "cards_drawn":
          hands[e.seat].push(...e.cards);
          break;
        case "play":
          remove(e.seat, e.card);
          top = e.card;
          color = e.color !== undefined ? e.color : e.card.color ?? null;
          if (e.points !== undefined) scores[e.seat] += e.points;
          break;
        case "first_card":
          top = e.card;
          color = e.card.color ?? null;
          break;
        case "first_card_returned":
          top = null;
          break;
        case "color_chosen":
          color = e.color;
          break;
        case "hands_swapped": {
          // the `hand` events that follow say the same; this keeps the counts right without them
          const a = e.seat;
          const b = e.target_seat;
          [hands[a], hands[b]] = [hands[b], hands[a]];
          [unknown[a], unknown[b]] = [unknown[b], unknown[a]];
          break;
        }
        case "face_down": {
          const id = move.action && move.action.card;
          const hand = hands[e.seat];
          const card = id === undefined ? null : hand.find((c) => c.id === id);
          if (card) remove(e.seat, card);
          else unknown[e.seat] = true;
          aside = { seat: e.seat, card: card || null };
          break;
        }
        case "face_down_placed":
          top = e.card;
          scores[e.seat] += e.points;
          aside = null;
          break;
        case "misplay":
          for (const s of teammates(e.seat, n, options)) scores[s] += misplaySign * e.points;
          break;
        case "round_ended":
        case "game_ended":
        case "seats_eliminated":
          if (Array.isArray(e.scores)) scores = e.scores.slice();
          break;
        default:
          break;
      }
    });
    if (move.round) round = Math.max(round, move.round);
    steps.push({
      seq: move.seq,
      move,
      hands: clone(hands),
      unknown: unknown.slice(),
      top,
      color,
      round,
      scores: scores.slice(),
      aside: aside && { ...aside },
      next: index + 1 < moves.length ? moves[index + 1].seat : null,
    });
  });
  return { steps, seats: n };
}

/** The hands of a step as card ids per seat (what tests compare). */
export function handIds(step) {
  return step.hands.map((h) => h.map((c) => c.id));
}
