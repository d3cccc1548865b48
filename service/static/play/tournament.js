// The tournament screen (/play?tournament=<id>#player=<player token>): its standings, every
// round's pairings and results, and the player's own match, opened at the table with the player
// token as the seat's bearer. Calls: GET /v1/me (who the token is), GET /v1/tournaments/{id},
// and the player's feed GET /v1/me/events (long-poll) as the doorbell.
import { call, collapsing, errorText, followPlayer, seats } from "./api.js";
import { clear, h } from "./dom.js";

const STATUS = { registering: "registering", running: "running", finished: "finished" };
const FORMAT = { swiss: "Swiss", knockout: "Knockout" };

// A player's name as the standings give it; an erased player reads null in every field.
function namer(t) {
  const names = new Map(t.players.map((p) => [p.player, p.name ?? p.player]));
  return (external) => (external === null ? "(erased player)" : names.get(external) ?? external);
}

const points = (value) => String(Number(value));

function roundLine(t) {
  if (t.status === "registering") return "Registration is open";
  return t.total_rounds ? `Round ${t.round} of ${t.total_rounds}` : `Round ${t.round}`;
}

// Where the player stands now: its match to open, a bye, a wait, or the end.
function yoursEl(t, me, nameOf) {
  const you = t.you;
  let body;
  if (t.status === "finished") {
    const winners = (t.winners || []).map(nameOf).join(" & ");
    body = h("b", { class: "winner" }, `Finished — winner: ${winners}`, t.winners?.includes(me) ? " (you)" : "");
  } else if (t.status === "registering") {
    body = "The tournament has not started: its first round is paired when the app starts it.";
  } else if (you?.bye) {
    body = h("b", {}, `Bye this round (round ${you.round}): it counts as a win.`);
  } else if (you?.match && !you.over) {
    const match = t.rounds.at(-1).matches.find((m) => m.id === you.match);
    const others = (match?.players || []).filter((p) => p !== me).map(nameOf).join(", ");
    body = h(
      "span",
      { class: "row" },
      // The token is not in the link: the table finds it in sessionStorage (keepSeats).
      h("a", { class: "button primary", href: `/play?match=${you.match}&tournament=${t.id}`, "data-testid": "your-match" }, "Your match"),
      others ? `against ${others}, seat ${you.seat + 1}` : `seat ${you.seat + 1}`,
    );
  } else if (you?.over) {
    body = "Waiting for the other matches of this round";
  } else if (t.players.some((p) => p.player === me)) {
    body = "You are out of the tournament.";
  } else {
    body = "You are not playing in this tournament.";
  }
  return h("div", { class: "notice", "data-testid": "you" }, body);
}

function standingsEl(t, me) {
  return h(
    "div",
    { class: "panel" },
    h("h3", {}, "Standings"),
    h(
      "table",
      { class: "scores", "data-testid": "standings" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Points"), h("th", { title: "the sum of the points of every opponent met" }, "Tiebreak"))),
      h(
        "tbody",
        {},
        t.players.map((p) =>
          h(
            "tr",
            { class: p.player !== null && p.player === me ? "you" : null },
            h("td", {}, p.rank),
            h("td", {}, p.name ?? p.player ?? "(erased player)"),
            h("td", {}, points(p.points)),
            h("td", {}, points(p.buchholz)),
          ),
        ),
      ),
    ),
  );
}

function resultText(m, nameOf) {
  if (m.status === "active") return "playing";
  if (m.status === "aborted") return "aborted";
  return m.winners.length ? `${m.winners.map(nameOf).join(" & ")} won` : "no winner";
}

function roundsEl(t, me, nameOf) {
  return h(
    "div",
    { class: "panel", "data-testid": "rounds" },
    h("h3", {}, "Rounds"),
    t.rounds.length ? null : h("p", { class: "muted" }, "No round yet."),
    [...t.rounds].reverse().map((r) =>
      h(
        "div",
        { class: "round", "data-round": r.round },
        h("h4", {}, `Round ${r.round}`),
        h(
          "ul",
          { class: "pairings" },
          r.matches.map((m) =>
            h(
              "li",
              { class: m.players.includes(me) ? "you" : null, "data-match": m.id },
              m.players.map(nameOf).join(" – "),
              ": ",
              h("span", { class: `result ${m.status}` }, resultText(m, nameOf)),
              " ",
              h("a", { href: `/play?match=${m.id}&tournament=${t.id}` }, m.players.includes(me) ? "table" : "watch"),
            ),
          ),
          r.byes.map((p) => h("li", { class: p === me ? "you" : null }, `${nameOf(p)}: bye`)),
        ),
      ),
    ),
  );
}

// The player token acts on the seats bound to its player: it becomes the bearer of the player's
// own matches (stored as a seat's token is), so /play?match=ID opens them seated, and links
// never carry it. Other matches open without it, for watching.
function keepSeats(t, me, token) {
  for (const r of t.rounds) {
    for (const m of r.matches) {
      const seat = m.players.indexOf(me);
      if (seat >= 0 && me !== null && seats.get(m.id)?.token !== token) seats.set(m.id, seat, token);
    }
  }
}

// Opens the screen in `app` with the player's token; games from GET /v1/games name the game.
export async function openTournament(app, tournamentId, token, games) {
  const state = { t: null, me: null, error: null, gone: false };
  const gameName = (id) => games.find((g) => g.id === id)?.name || id;

  const render = () => {
    const t = state.t;
    const error = state.error ? h("div", { class: "error", role: "alert", "data-testid": "error" }, state.error) : null;
    if (!t) return clear(app, error || h("p", { class: "muted" }, "Loading…"));
    document.getElementById("title").textContent = `${gameName(t.game)} · tournament ${t.id}`;
    const nameOf = namer(t);
    clear(
      app,
      error,
      h(
        "div",
        { class: "panel", "data-testid": "tournament" },
        h("h2", {}, `${FORMAT[t.format] || t.format} tournament of ${gameName(t.game)}`),
        h(
          "div",
          { class: "row" },
          h("span", { class: "muted" }, `tournament ${t.id}`),
          h("span", { "data-testid": "status" }, STATUS[t.status] || t.status),
          h("b", { "data-testid": "round" }, roundLine(t)),
          h("span", { class: "muted" }, `${t.players.length} players`),
        ),
        yoursEl(t, state.me, nameOf),
      ),
      h("div", { class: "tlayout" }, standingsEl(t, state.me), roundsEl(t, state.me, nameOf)),
    );
  };

  // Re-read the tournament; the feed only says *that* something changed. Bursts collapse.
  const reread = collapsing(async () => {
    state.t = await call("GET", `/v1/tournaments/${tournamentId}`, { token });
    keepSeats(state.t, state.me, token);
    if (!state.gone) state.error = null;
  });
  const refresh = async () => {
    try {
      if (!(await reread())) return; // folded into the read under way, which renders
    } catch (err) {
      state.error = errorText(err);
    }
    render();
  };

  if (!token) {
    state.error = "This page needs the player's token: open it from your app's link (…#player=<token>).";
    return render();
  }
  render();
  try {
    state.me = (await call("GET", "/v1/me", { token })).player;
  } catch (err) {
    state.error = errorText(err);
    return render();
  }
  // The doorbell: a round started or the tournament ended (tournament.* entries), or the
  // player's own match ended (match.over). A wait that ends with nothing new re-reads too, so
  // the other tables' results appear within half a minute.
  const concerns = (e) =>
    (e.type.startsWith("tournament.") && e.data?.tournament === tournamentId) ||
    (e.type === "match.over" && state.t?.rounds.some((r) => r.matches.some((m) => m.id === e.data?.match)));
  followPlayer(token, (entries) => entries.some(concerns) && refresh(), {
    onReady: refresh,
    onIdle: refresh,
    onGone: (err) => {
      state.gone = true;
      state.error = `This page no longer holds the player's token: ${errorText(err)}`;
      render();
    },
  });
}
