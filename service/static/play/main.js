// The web table's controller: which screen to show, the view, the clicks, the event feed.
// Read docs/play.md first; api.js is the only file that talks to the service.
import { call, collapsing, errorText, follow, players, seats } from "./api.js";
import { card } from "./cards.js";
import { Compose, composeBar, stagedMelds } from "./compose.js";
import { clear, h } from "./dom.js";
import { handOverLink, joinForm, joinLink, newMatchForm } from "./lobby.js";
import { replayEl } from "./replay.js";
import { eventLine, roundResultEl, scoresEl, winnerEl } from "./results.js";
import { statusEl, tableEl, tickClocks, who } from "./table.js";
import { openTournament } from "./tournament.js";

const app = document.getElementById("app");
const state = {
  matchId: null,
  tournamentId: null, // the match was opened from this tournament's screen (…&tournament=ID)
  token: null,
  games: [],
  view: null,
  compose: null, // Žolíky: the turn being composed (compose.js)
  choice: null, // several legal actions for one clicked card: the player picks one
  error: null,
  log: [], // the latest events, newest last
  feed: "", // "stream" or "long-poll"
  replay: null, // GET …/history, once asked for
  handOver: null, // the invitation code of a hand-over link, once asked for
};

// An entry of legal_actions marked as a template (Žolíky's meld, lay_off…) has fields to fill in:
// the compose bar builds those actions from the player's selection (docs/api.md, "Views").
const isTemplate = (a) => a.template === true;

function describeAction(v, a) {
  switch (a.type) {
    case "bid":
      return a.tricks === 0 ? "0 (Nil)" : String(a.tricks);
    case "draw":
      return a.pile === "discard" ? "Take the discard" : "Draw from the stock";
    case "discard":
      return [
        "Discard ",
        card(a.card, { small: true }),
        a.onto !== undefined ? ` in front of ${who(v, a.onto)}` : "",
        a.declare_out ? " and declare out" : "",
      ];
    case "lay_off":
      return ["Lay off ", card(a.card, { small: true }), ` on ${a.meld}`];
    case "play":
      return ["Play ", card(a.card, { small: true })];
    default:
      return a.type.replaceAll("_", " ");
  }
}

async function act(body) {
  state.error = null;
  state.choice = null;
  try {
    // If-Match: a click made on an old view is refused (412) instead of playing blind.
    const view = await call("POST", `/v1/matches/${state.matchId}/actions`, {
      body,
      token: state.token,
      headers: { "If-Match": `"${state.view.version}"` },
    });
    setView(view);
  } catch (err) {
    state.error = errorText(err);
    render();
    refresh();
  }
}

async function handOver() {
  try {
    state.handOver = (await call("POST", `/v1/matches/${state.matchId}/invite`, { token: state.token })).code;
  } catch (err) {
    state.error = errorText(err);
  }
  render();
}

async function post(path, confirmText) {
  if (confirmText && !window.confirm(confirmText)) return;
  state.error = null;
  try {
    setView(await call("POST", `/v1/matches/${state.matchId}/${path}`, { token: state.token }));
  } catch (err) {
    state.error = errorText(err);
    render();
  }
}

// Re-read the view; events only say *that* something changed. Bursts collapse into one read.
const reread = collapsing(async () =>
  setView(await call("GET", `/v1/matches/${state.matchId}`, { token: state.token })),
);
async function refresh() {
  try {
    await reread();
  } catch (err) {
    if (err.status === 401 && state.token) {
      // The seat was handed over (its invitation claimed) or freed: this page watches on.
      seats.forget(state.matchId);
      state.handOver = null;
      state.error = "This page no longer holds a seat in the match: you are watching it.";
      setTimeout(openMatch);
      return;
    }
    state.error = errorText(err);
    render();
  }
}

function setView(view) {
  if (state.view && view.version < state.view.version) return; // an older answer arrived late
  const old = state.view;
  state.view = view;
  const myTurn = view.status === "active" && view.turn.seat === view.you && view.you !== null;
  // The version counts moves only (joining and starting keep it), so compare the whole view.
  const unchanged = old && JSON.stringify(old) === JSON.stringify(view);
  if (view.game === "zoliky" && myTurn) {
    if (!unchanged || !state.compose) state.compose = new Compose(view.hand);
  } else {
    state.compose = null;
  }
  if (unchanged) {
    // Nothing moved (our own move echoed by the event feed): redraw only the event log, so a
    // click in the middle of composing a meld never lands on a replaced element.
    document.getElementById("log")?.replaceWith(eventLog(view));
    return;
  }
  state.choice = null;
  render();
}

function onHandCard(code, index) {
  const v = state.view;
  if (state.compose) {
    state.compose.toggle(index);
    return render();
  }
  const options = v.legal_actions.filter((a) => a.card === code && !isTemplate(a));
  if (options.length === 1) return act(options[0]);
  if (options.length > 1) {
    state.choice = options;
    render();
  }
}

function onPile(pile) {
  const legal = state.view.legal_actions;
  const c = state.compose;
  if (pile === "stock") return act(legal.find((a) => a.type === "draw" && a.pile !== "discard"));
  if (pile === "discard" && !c) return act(legal.find((a) => a.type === "draw" && a.pile === "discard"));
  // Žolíky: the discard or the closing card is taken only to meld it at once; compose first.
  if (pile === "discard") c.takeExtra("discard", state.view.discard.top);
  if (pile === "closing") c.takeExtra("closing", state.view.table.closing_card);
  render();
}

function handEl(v) {
  if (v.hand === null) return h("div", { class: "hand" }, h("p", { class: "muted" }, "You are watching this match: you hold no cards."));
  const c = state.compose;
  const legal = v.legal_actions;
  const playable = new Set(legal.filter((a) => a.card && !isTemplate(a)).map((a) => a.card));
  const used = c ? c.used() : new Set();
  const codes = c ? c.cards() : v.hand;
  const handCards = codes.map((code, i) =>
    used.has(i)
      ? null
      : card(code, {
          classes: [playable.has(code) && "legal", c?.selected.has(i) && "selected", c?.extra && i === v.hand.length && "taken"],
          onclick: playable.size || c ? () => onHandCard(code, i) : undefined,
        }),
  );
  // Resigning has its own button (with a confirmation) beside the match controls.
  const others = legal.filter((a) => !a.card && !isTemplate(a) && a.type !== "bid" && a.type !== "resign");
  const bids = legal.filter((a) => a.type === "bid");
  const types = new Set(legal.map((a) => a.type));
  return h(
    "div",
    { class: "hand", "data-testid": "hand" },
    h("h3", {}, `Your hand (${v.hand.length})`),
    h("div", { class: "cards" }, handCards),
    h(
      "div",
      { class: "actions" },
      bids.length ? h("span", { class: "bids row" }, "Bid:", bids.map((a) => h("button", { type: "button", onclick: () => act(a) }, describeAction(v, a)))) : null,
      others.map((a) => h("button", { type: "button", onclick: () => act(a) }, describeAction(v, a))),
      state.choice ? state.choice.map((a) => h("button", { type: "button", class: "primary", onclick: () => act(a) }, describeAction(v, a))) : null,
      c ? composeBar(c, types, act, render) : null,
    ),
  );
}

function controls(v) {
  const seated = v.you !== null;
  const host = seated && v.host === v.you;
  const over = v.status === "finished" || v.status === "aborted";
  return h(
    "div",
    { class: "panel row" },
    host && v.status === "round_over" ? h("button", { class: "primary", onclick: () => post("rounds") }, "Next round") : null,
    host && ["zoliky", "zhol"].includes(v.game) && ["active", "round_over"].includes(v.status)
      ? h("button", { onclick: () => post("end", "End the match now? The most rounds won wins.") }, "End match")
      : null,
    seated && !over ? h("button", { onclick: () => post("leave", v.status === "waiting" ? "Leave your seat?" : "Resign and leave?") }, v.status === "waiting" ? "Leave seat" : "Resign") : null,
    seated && !over && !v.players[v.you].left ? h("button", { onclick: handOver }, "Hand over seat") : null,
    over ? h("button", { class: "primary", onclick: openReplay }, "Replay the match") : null,
    h("span", { class: "muted" }, state.feed ? `events: ${state.feed}` : ""),
  );
}

async function openReplay() {
  try {
    state.replay = await call("GET", `/v1/matches/${state.matchId}/history`, { token: state.token });
  } catch (err) {
    state.error = errorText(err);
  }
  render();
}

function render() {
  const v = state.view;
  if (!v) return state.error && clear(app, h("div", { class: "error", role: "alert" }, state.error));
  document.getElementById("title").textContent = `${state.games.find((g) => g.id === v.game)?.name || v.game} · match ${v.id}`;
  if (state.replay) {
    return clear(app, replayEl(state.replay, v, () => ((state.replay = null), render())));
  }
  const c = state.compose;
  const targets = new Set();
  if (c && c.selected.size) for (const m of v.table.melds || []) targets.add(m.id);
  const on = {
    pile: onPile,
    extra: c?.extra?.kind,
    targets,
    meld: (ref) => (c.layOff(ref), render()),
    canSwap: !!c && c.selected.size === 1 && v.legal_actions.some((a) => a.type === "swap_joker"),
    swap: (meld) => act({ type: "swap_joker", meld, card: c.codes([...c.selected])[0] }),
    staged: c ? stagedMelds(c, (i) => c.selected.size && (c.layOff(i), render())) : [],
  };
  const open = v.players.some((p) => p.kind === "open");
  clear(
    app,
    state.tournamentId
      ? h(
          "div",
          { class: "row tournament-link" },
          h("a", { href: `/play?tournament=${state.tournamentId}`, "data-testid": "back-to-tournament" }, "← Back to tournament"),
          h("span", { class: "muted" }, `this match is part of tournament ${state.tournamentId}`),
        )
      : null,
    state.error ? h("div", { class: "error", role: "alert", "data-testid": "error" }, state.error) : null,
    v.seeded_by_client
      ? h("div", { class: "notice", "data-testid": "seeded" }, "Whoever created this match chose its seed or deck: they can know every hand.")
      : null,
    v.status === "waiting" ? h("div", { class: "notice" }, "Waiting for players. Send them the link: ", joinLink(v.id)) : null,
    state.handOver && v.you !== null
      ? h("div", { class: "notice" }, "Whoever opens this link takes your seat, and this page loses it: ", handOverLink(v.id, state.handOver))
      : null,
    v.you === null && v.status === "waiting" && open ? joinForm(v.id, () => openMatch()) : null,
    h(
      "div",
      { class: "layout" },
      h("div", {}, statusEl(v), tableEl(v, on), handEl(v), winnerEl(v), roundResultEl(v)),
      h(
        "div",
        { class: "side" },
        controls(v),
        scoresEl(v),
        h("div", { class: "panel" }, h("h3", {}, "Events"), eventLog(v)),
      ),
    ),
  );
  tickClocks();
}

// The latest events, newest first.
function eventLog(v) {
  const newest = state.log.at(-1)?.seq ?? 0;
  return h("ol", { id: "log", class: "log", reversed: true, start: newest }, [...state.log].reverse().map((e) => eventLine(v, e)));
}

let stopFollowing = () => {};
async function openMatch() {
  state.token = seats.get(state.matchId)?.token || null;
  state.view = null;
  state.log = [];
  stopFollowing();
  await refresh();
  stopFollowing = follow(
    state.matchId,
    state.token,
    0,
    (event) => {
      state.log = [...state.log, event].slice(-30);
      refresh();
    },
    (mode) => {
      state.feed = mode;
      render();
    },
  );
}

async function boot() {
  const params = new URLSearchParams(location.search);
  state.matchId = params.get("match");
  const tournamentId = params.get("tournament");
  // Ids go into the paths the page calls and the links it draws: only well-formed ones.
  if (tournamentId && /^t[0-9a-f]{15}$/.test(tournamentId)) state.tournamentId = tournamentId;
  try {
    state.games = (await call("GET", "/v1/games")).games;
  } catch (err) {
    return clear(app, h("div", { class: "error" }, errorText(err)));
  }
  if (!state.matchId && state.tournamentId) {
    // A player token handed over in the fragment (/play?tournament=ID#player=…, by the app)
    // moves into sessionStorage and out of the address bar, as a seat's #token= does.
    const player = new URLSearchParams(location.hash.slice(1)).get("player");
    if (player) {
      players.set(state.tournamentId, player);
      history.replaceState(null, "", `/play?tournament=${state.tournamentId}`);
    }
    return openTournament(app, state.tournamentId, players.get(state.tournamentId), state.games);
  }
  if (!state.matchId) {
    return clear(app, newMatchForm(state.games, (id) => (location.href = `/play?match=${id}`)));
  }
  // A seat token handed over in the fragment (/play?match=ID#token=…, e.g. by an app that
  // created the match) moves into sessionStorage and out of the address bar.
  // A hand-over link (#invite=…) is claimed at once: the seat gets a token only this page holds.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get("token");
  const invite = fragment.get("invite");
  const here = `/play?match=${state.matchId}${state.tournamentId ? `&tournament=${state.tournamentId}` : ""}`;
  if (token || invite) history.replaceState(null, "", here);
  if (token) seats.set(state.matchId, null, token);
  if (invite) {
    try {
      const claimed = await call("POST", `/v1/matches/${state.matchId}/claim`, { body: { code: invite } });
      seats.set(state.matchId, claimed.seat, claimed.token);
    } catch (err) {
      state.error = `This hand-over link no longer works: ${errorText(err)}`;
    }
  }
  await openMatch();
}

setInterval(tickClocks, 500);
boot();
