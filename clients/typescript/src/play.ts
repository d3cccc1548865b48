// Plays one match of each game against bots, choosing at random among `legal_actions`
// (docs/guide/typescript-client.md walks through it). Usage: node dist/play.js [BASE_URL]
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type View = components["schemas"]["View"];
type Action = components["schemas"]["Action"];
type CreateMatch = components["schemas"]["CreateMatch"];
type Game = CreateMatch["game"];

const BASE = process.argv[2] ?? "http://localhost:8000";

// One human seat (ours) and easy bots, with options that keep the matches short.
const TABLES: { game: Game; bots: number; options: NonNullable<CreateMatch["options"]> }[] = [
  { game: "zoliky", bots: 1, options: { target_wins: 1 } },
  { game: "three-thirteen", bots: 2, options: {} },
  { game: "zhol", bots: 1, options: { target_wins: 1 } },
  { game: "spades", bots: 3, options: { target_score: 50 } },
];

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

// Every call goes through here: a 429 (rate limit) or a 503 (the service cannot reach Redis) is
// waited out as its Retry-After says, and the call made again (docs/api.md, "Requests").
async function patiently<Answer extends { response: Response }>(
  call: () => Promise<Answer>,
): Promise<Answer> {
  for (let tries = 0; tries < 50; tries++) {
    const answer = await call();
    if (answer.response.status !== 429 && answer.response.status !== 503) return answer;
    await sleep(1000 * Number(answer.response.headers.get("Retry-After") ?? "1"));
  }
  throw new Error("still refused after 50 tries");
}

// The entries of legal_actions that can be posted as they are: templates (Žolíky's melds, whose
// cards are ours to choose) are left alone, and so is resign, so that the match is played out.
// A loop, not a filter: in the `if`, `template !== true` narrows an entry to the schemas of
// actions that can be posted, which a filter's callback would not do for the array.
function playable(view: View): Action[] {
  const choices: Action[] = [];
  for (const action of view.legal_actions) {
    if (action.template !== true && action.type !== "resign") choices.push(action);
  }
  return choices;
}

function pick<T>(list: T[]): T {
  const chosen = list[Math.floor(Math.random() * list.length)];
  if (chosen === undefined) throw new Error("nothing to choose from");
  return chosen;
}

interface Result {
  game: Game;
  status: View["status"];
  rounds: number;
  winners: number[];
  moves: number;
}

async function playMatch(table: (typeof TABLES)[number]): Promise<Result> {
  const anyone = createClient<paths>({ baseUrl: BASE });
  const seats: CreateMatch["seats"] = [{ kind: "human", name: "Ana" }];
  for (let i = 0; i < table.bots; i++) seats.push({ kind: "bot", level: "easy" });
  const body: CreateMatch = { game: table.game, seats, options: table.options };
  const created = await patiently(() => anyone.POST("/v1/matches", { body }));
  if (created.data === undefined) throw new Error(`${table.game}: ${JSON.stringify(created.error)}`);
  const token = created.data.seats[0]?.token;
  if (token === undefined) throw new Error(`${table.game}: no token for seat 0`);

  // Our seat's client: every call carries its token.
  const me = createClient<paths>({ baseUrl: BASE, headers: { Authorization: `Bearer ${token}` } });
  const path = { match_id: created.data.id };
  let moves = 0;
  let seen = 0;
  for (;;) {
    const read = await patiently(() => me.GET("/v1/matches/{match_id}", { params: { path } }));
    if (read.data === undefined) throw new Error(`${table.game}: ${JSON.stringify(read.error)}`);
    const view = read.data;
    if (view.status === "finished" || view.status === "aborted") {
      const winners = view.winners ?? [];
      return { game: table.game, status: view.status, rounds: view.round, winners, moves };
    }
    if (view.status === "active" && view.turn.seat === view.you) {
      // If-Match: a move retried after a 503 that was stored after all is refused, not played twice.
      const header = { "If-Match": String(view.version) };
      const action = pick(playable(view));
      const posted = await patiently(() =>
        me.POST("/v1/matches/{match_id}/actions", { params: { path, header }, body: action }),
      );
      if (posted.error !== undefined) throw new Error(`${table.game}: ${JSON.stringify(posted.error)}`);
      moves++;
    } else if (view.status === "round_over" && view.host === view.you) {
      const started = await patiently(() => me.POST("/v1/matches/{match_id}/rounds", { params: { path } }));
      if (started.error !== undefined) throw new Error(`${table.game}: ${JSON.stringify(started.error)}`);
    } else {
      // The bots' turn: long-poll the match's events until something happens.
      const page = await patiently(() =>
        me.GET("/v1/matches/{match_id}/events", { params: { path, query: { after: seen, wait: 10 } } }),
      );
      if (page.data === undefined) throw new Error(`${table.game}: ${JSON.stringify(page.error)}`);
      seen = page.data.events.at(-1)?.seq ?? seen;
    }
  }
}

// The four matches are played at once; their results are printed in a fixed order.
const results = await Promise.all(TABLES.map(playMatch));
for (const r of results) {
  const winners = r.winners.join(", ");
  console.log(`${r.game}: ${r.status} after ${r.rounds} round(s), winners [${winners}], ${r.moves} moves of ours`);
}
