/**
 * A bot written against the TypeScript client generated from the server's own schema
 * (openapi-typescript's `schema.d.ts`, openapi-fetch's `createClient<paths>()`): it
 * registers two players, creates, joins and starts a game of one round and plays it to
 * the end by posting `legal_actions` entries back, while the first player's feed and a
 * spectator's view of the game's event stream run beside it.  Compiled with
 * `tsc --strict`, without a cast: `pending`, the players, the enums and the events'
 * data are read as the schema types them.
 *
 * Usage: node dist/bot.js BASE_URL USERNAME_PREFIX
 * Prints one line of JSON (the game, what it read, the events received) for
 * tests/test_schema_typescript.py, which checks it against the server and the schema.
 */
import createClient, { type Client } from "openapi-fetch";
import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Game = Schemas["Game"];
type Api = Client<paths>;

function usage(): never {
  throw new Error("usage: node dist/bot.js BASE_URL USERNAME_PREFIX");
}

const base: string = process.argv[2] ?? usage();
const prefix: string = process.argv[3] ?? usage();
const PASSWORD = "a-long-password-1";

function failed(what: string, response: Response, error: unknown): never {
  throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(error)}`);
}

// ---- the enums, exhaustively -----------------------------------------------------------
function phase(status: Schemas["GameStatusEnum"]): string {
  switch (status) {
    case "waiting":
      return "waiting for players";
    case "active":
      return "being played";
    case "finished":
      return "over";
    default: {
      const unknown: never = status; // a status the schema does not list fails to compile
      return unknown;
    }
  }
}

function cardName(card: Schemas["Card"]): string {
  const color: Schemas["ColorEnum"] | null | undefined = card.color; // UNO: a colour, or null for a wild
  return color ? `${color} ${card.rank}` : (card.name ?? card.rank);
}

// ---- pending: a union discriminated by `type` ------------------------------------------
function describePending(pending: Game["pending"]): string {
  if (pending === null) return "nothing special";
  switch (pending.type) {
    case "penalty":
      return `seat ${pending.seat} owes ${pending.amount} cards (${pending.kind})`;
    case "play_drawn":
      return `seat ${pending.seat} may play what it drew (${pending.drawn_count})`;
    case "choose_color":
      return `seat ${pending.seat} names a colour`;
    case "buzz":
      return `a buzz, owed by seats ${pending.owed_by.join(", ")}`;
    default:
      return `${pending.type}, owed by seat ${pending.seat}`;
  }
}

// ---- the event streams: each event's data, by its SSE event name -------------------------
type FeedFrame = paths["/api/v1/players/me/events"]["get"]["responses"][200]["content"]["text/event-stream"];
type StreamFrame = paths["/api/v1/games/{game_id}/events"]["get"]["responses"][200]["content"]["text/event-stream"];

/** The data component of each of the feed's events (each frame's `x-contentSchema`). */
interface FeedData {
  your_turn: Schemas["FeedYourTurn"];
  game_started: Schemas["FeedGameStarted"];
  game_finished: Schemas["FeedGameFinished"];
  joined: Schemas["FeedJoined"];
}
interface StreamData {
  message: Schemas["GameStreamMove"];
  game: Schemas["GameStreamChange"];
}
// exactly the event names the schema lists (a missing or an unknown one fails to compile)
const FEED_EVENTS = { your_turn: true, game_started: true, game_finished: true, joined: true } satisfies Record<
  FeedFrame["event"] & keyof FeedData, true
>;
const STREAM_EVENTS = { message: true, game: true } satisfies Record<StreamFrame["event"] & keyof StreamData, true>;

type Received<D> = { [E in keyof D]: { event: E; id: string | undefined; data: D[E] } }[keyof D];
type Raw = { event: string; id: string | undefined; data: string };

/** An event's data: one line of JSON, of the type its event name says (checked against the
 * schema by the test that runs this bot). */
function json<T>(text: string): T {
  return JSON.parse(text);
}

function feedEvent(e: Raw): Received<FeedData> {
  switch (e.event) {
    case "your_turn":
      return { event: e.event, id: e.id, data: json<FeedData["your_turn"]>(e.data) };
    case "game_started":
      return { event: e.event, id: e.id, data: json<FeedData["game_started"]>(e.data) };
    case "game_finished":
      return { event: e.event, id: e.id, data: json<FeedData["game_finished"]>(e.data) };
    case "joined":
      return { event: e.event, id: e.id, data: json<FeedData["joined"]>(e.data) };
  }
  throw new Error(`the feed sent an event the schema does not list: ${e.event} (${Object.keys(FEED_EVENTS)})`);
}

function streamEvent(e: Raw): Received<StreamData> {
  switch (e.event) {
    case "message":
      return { event: e.event, id: e.id, data: json<StreamData["message"]>(e.data) };
    case "game":
      return { event: e.event, id: e.id, data: json<StreamData["game"]>(e.data) };
  }
  throw new Error(`the game's stream sent an event the schema does not list: ${e.event} (${Object.keys(STREAM_EVENTS)})`);
}

/** Read a `text/event-stream` body, each event to `onEvent`, until it ends or `close` is
 * called (which cancels the body: the connection is closed). */
function read(body: NonNullable<Response["body"]>, onEvent: (e: Raw) => void): { done: Promise<void>; close: () => Promise<void> } {
  const reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const message: EventSourceMessage = value;
      onEvent({ event: message.event ?? "message", id: message.id, data: message.data });
    }
  })();
  return { done, close: () => reader.cancel() };
}

/** Progress, on stderr (what a run that hangs was doing). */
function step(what: string): void {
  console.error(`${new Date().toISOString()} ${what}`);
}

async function until(what: string, done: () => boolean, seconds = 30): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---- playing ---------------------------------------------------------------------------
/** A small deterministic generator (mulberry32), so that a run can be repeated. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function register(username: string): Promise<Api> {
  const anonymous = createClient<paths>({ baseUrl: base });
  const { data, error, response } = await anonymous.POST("/api/v1/auth/register", {
    body: { username, password: PASSWORD },
  });
  if (!data) failed("register", response, error);
  return createClient<paths>({ baseUrl: base, headers: { Authorization: `Token ${data.token}` } });
}

async function view(client: Api, game_id: number): Promise<Game> {
  const { data, error, response } = await client.GET("/api/v1/games/{game_id}", { params: { path: { game_id } } });
  if (!data) failed("read the game", response, error);
  return data;
}

async function main(): Promise<void> {
  const alice = await register(`${prefix}_alice`);
  const bob = await register(`${prefix}_bob`);
  const watcher = await register(`${prefix}_carol`);

  const created = await alice.POST("/api/v1/games", {
    body: { ruleset: "standard", options: { rounds: 1 }, max_players: 2 },
  });
  if (!created.data) failed("create", created.response, created.error);
  const game_id = created.data.id;
  const ruleset: Schemas["RulesetEnum"] = created.data.ruleset;
  step(`game ${game_id} created`);

  // alice's feed and a spectator's view of the game's stream, read beside the game
  const feed: Raw[] = [];
  const stream: Raw[] = [];
  const feedResponse = await alice.GET("/api/v1/players/me/events", { parseAs: "stream" });
  const streamResponse = await watcher.GET("/api/v1/games/{game_id}/events", {
    params: { path: { game_id } },
    parseAs: "stream",
  });
  if (!feedResponse.data) failed("open the feed", feedResponse.response, feedResponse.error);
  if (!streamResponse.data) failed("open the game's stream", streamResponse.response, streamResponse.error);
  const readers = [read(feedResponse.data, (e) => feed.push(e)), read(streamResponse.data, (e) => stream.push(e))];
  step("the feed and the game's stream are open");
  await new Promise((resolve) => setTimeout(resolve, 1000)); // (the feed follows alice's games from now on)

  const join = await bob.POST("/api/v1/games/{game_id}/join", { params: { path: { game_id } } });
  if (!join.data) failed("join", join.response, join.error);
  await until("the join on the game's stream", () =>
    stream.some((e) => {
      const received = streamEvent(e);
      return received.event === "game" && received.data.game.players.length === 2;
    }),
  );
  const start = await alice.POST("/api/v1/games/{game_id}/start", { params: { path: { game_id } } });
  if (!start.data) failed("start", start.response, start.error);

  const rng = random(12);
  const pendings = new Set<Schemas["Pending"]["type"]>();
  const situations = new Set<string>();
  const cards = new Set<string>();
  const phases = new Set<string>();
  const owed = new Set<Schemas["DecisionEnum"]>();
  const colours = new Set<Schemas["ColorEnum"]>();
  let posted = 0;
  let last: Game | undefined;
  for (;;) {
    const views = [await view(alice, game_id), await view(bob, game_id)];
    const [first] = views;
    if (!first) throw new Error("no view");
    last = first;
    phases.add(phase(first.status));
    for (const v of views) {
      const pending = v.pending?.type; // the decision on top, if any: its variant's `type`
      if (pending) {
        pendings.add(pending);
        situations.add(describePending(v.pending));
      }
      for (const card of v.hand ?? []) cards.add(cardName(card));
      for (const o of v.obligations) owed.add(o.type);
      const colour: Schemas["ColorEnum"] | null = v.current_color;
      if (colour) colours.add(colour);
    }
    if (first.status === "finished") break;
    const acting = views.filter((v) => v.legal_actions.length > 0);
    const actor = acting.find((v) => v.seat === v.current_seat) ?? acting[0];
    if (!actor) throw new Error(`nobody can act: ${describePending(first.pending)}`);
    const plays = actor.legal_actions.filter((a) => a.type === "play" || a.type === "choose_color");
    const pool = plays.length > 0 ? plays : actor.legal_actions;
    const action = pool[Math.floor(rng() * pool.length)];
    if (!action) throw new Error("no action to post");
    const client = actor.seat === 0 ? alice : bob;
    const result = await client.POST("/api/v1/games/{game_id}/actions", {
      params: { path: { game_id } },
      body: action, // a legal_actions entry, posted verbatim
    });
    if (!result.data) failed(`post ${action.type}`, result.response, result.error);
    if (result.data.game.version !== actor.version + 1) throw new Error("the version did not grow by one");
    posted += 1;
    if (posted % 25 === 0) step(`${posted} actions posted`);
    if (posted >= 2000) throw new Error("the game did not finish");
  }

  // the list's players and the score table's, as the schema types them
  const listed = await alice.GET("/api/v1/games", { params: { query: { mine: true } } });
  if (!listed.data) failed("list", listed.response, listed.error);
  const summary = listed.data.results.find((g) => g.id === game_id);
  if (!summary) throw new Error("the game is not listed");
  const summaryRuleset: Schemas["RulesetEnum"] = summary.ruleset;
  const summaryPlayers = summary.players.map((p) => {
    const username: string | null = p.username;
    const level: Schemas["LevelEnum"] | null = p.bot_level;
    const isBot: boolean = p.is_bot;
    return { seat: p.seat, username, is_bot: isBot, bot_level: level };
  });
  const scores = await bob.GET("/api/v1/games/{game_id}/scores", { params: { path: { game_id } } });
  if (!scores.data) failed("scores", scores.response, scores.error);
  phases.add(phase(summary.status));
  phases.add(phase(scores.data.status));
  const scoresPlayers = scores.data.players.map((p) => {
    const username: string | null = p.username;
    const isBot: boolean = p.is_bot;
    return { seat: p.seat, username, is_bot: isBot };
  });
  const scoring: Schemas["ScoringEnum"] = scores.data.scoring;

  // the streams: alice's game_finished, and the spectator's last move
  const finalVersion = last.version;
  step(`the game is over at version ${finalVersion}; waiting for the streams`);
  await until("the feed's game_finished", () => feed.some((e) => e.event === "game_finished"));
  await until("the stream's last move", () =>
    stream.some((e) => {
      const received = streamEvent(e);
      return received.event === "message" && received.data.version === finalVersion;
    }),
  );
  await Promise.all(readers.map((r) => r.close()));
  await Promise.all(readers.map((r) => r.done));
  step("the streams are closed");

  const decisions: Schemas["DecisionEnum"][] = [];
  let winner: number | null = null;
  const joined: string[] = [];
  for (const e of feed.map(feedEvent)) {
    switch (e.event) {
      case "your_turn":
        decisions.push(e.data.decision);
        break;
      case "game_finished":
        winner = e.data.winner_seat;
        break;
      case "joined":
        joined.push(e.data.username);
        break;
      case "game_started":
        break;
    }
  }
  const recorded = stream.map(streamEvent).flatMap((e) => (e.event === "message" ? [e.data.action.type] : []));

  console.log(
    JSON.stringify({
      game: game_id,
      ruleset,
      summary_ruleset: summaryRuleset,
      posted,
      version: finalVersion,
      status: phase(last.status),
      phases: [...phases],
      winner: last.winner?.username ?? null,
      pendings: [...pendings],
      situations: [...situations],
      owed: [...owed],
      colours: [...colours],
      cards: cards.size,
      summary_players: summaryPlayers,
      scores_players: scoresPlayers,
      scoring,
      feed_decisions: decisions,
      feed_winner: winner,
      feed_joined: joined,
      recorded_actions: recorded,
      feed,
      stream,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
