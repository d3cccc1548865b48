// Drawing a view (GET /v1/matches/{id}) as a table. Pure drawing: every click goes to a
// handler in `on`, which main.js supplies. Nothing here calls the API.
import { back, card, cards, cardText } from "./cards.js";
import { h } from "./dom.js";

export function seatName(view, seat) {
  const p = view.players[seat];
  if (!p) return `Seat ${seat + 1}`;
  // Two bots of a level share a name ("Easy bot"): the seat number tells them apart.
  if (p.name && view.players.filter((q) => q.name === p.name).length > 1) return `${p.name} ${seat + 1}`;
  if (p.name) return p.name;
  if (p.kind === "bot") return `Bot ${seat + 1}`;
  return p.kind === "open" ? `Seat ${seat + 1} (open)` : `Seat ${seat + 1}`;
}

export function who(view, seat) {
  return seat === view.you ? "You" : seatName(view, seat);
}

// Where each seat sits around the table, seen from the viewer (spectators see from seat 0).
function positions(view) {
  const n = view.players.length;
  const me = view.you ?? 0;
  const others = Array.from({ length: n - 1 }, (_, i) => (me + 1 + i) % n);
  const areas = others.length === 1 ? ["top"] : others.length === 2 ? ["left", "right"] : ["left", "top", "right"];
  const out = {};
  others.forEach((seat, i) => {
    out[seat] = areas[Math.min(areas.length - 1, Math.floor((i * areas.length) / others.length))];
  });
  out[me] = "bottom";
  return out;
}

function seatFacts(view, p) {
  const t = view.table;
  const facts = [];
  if (p.kind === "bot") facts.push(`bot, ${p.level}`);
  if (p.kind === "open") facts.push("waiting for a player");
  if (view.game === "spades") {
    facts.push(`bid ${p.bid ?? "–"}`, `tricks ${p.tricks}`, `team ${Number(p.team) + 1}`);
    if (t.dealer === p.seat) facts.push("dealer");
  }
  if (view.game === "zoliky") {
    facts.push(p.opened ? "opened" : "not opened", `rounds won ${p.wins}`);
    if (p.cutter) facts.push("cutter");
  }
  if (view.game === "zhol") facts.push(`crowns ${p.crowns}`);
  if (view.game === "three-thirteen") {
    facts.push(`score ${p.score}`);
    if (t.dealer === p.seat) facts.push("dealer");
    if (p.went_out) facts.push("went out");
  }
  if (p.resigned) facts.push("resigned");
  if (p.left) facts.push("left");
  return facts.join(" · ");
}

function seatBox(view, p, area) {
  const backs = Array.from({ length: Math.min(p.cards, 14) }, () => back({ small: true }));
  return h(
    "div",
    { class: `seat seat-${area}${view.turn.seat === p.seat ? " turn" : ""}`, dataset: { seat: p.seat } },
    h("div", { class: "name" }, who(view, p.seat)),
    h("div", { class: "facts" }, seatFacts(view, p)),
    h("div", { class: "facts" }, `${p.cards} card${p.cards === 1 ? "" : "s"}`),
    p.seat === view.you ? null : h("div", { class: "backs" }, backs),
  );
}

function spadesCenter(view) {
  const t = view.table;
  const pos = positions(view);
  const place = { bottom: "t-bottom", top: "t-top", left: "t-left", right: "t-right" };
  const showing = t.trick.length ? t.trick : t.last_trick?.cards || [];
  const caption = t.trick.length
    ? `Trick ${t.tricks_played + 1}`
    : t.last_trick
      ? `${who(view, t.last_trick.winner)} won trick ${t.tricks_played}`
      : "Bidding";
  return h(
    "div",
    { class: "center" },
    h(
      "div",
      { class: "trick" },
      showing.map(({ seat, card: c }) => h("div", { class: place[pos[seat]] }, card(c, { classes: t.trick.length ? [] : ["dim"] }))),
      h("div", { class: "mid" }, caption, h("br"), t.spades_broken ? "spades broken" : "spades not broken"),
    ),
    h(
      "div",
      {},
      `Bids: ${t.bids.map((b, s) => `${who(view, s)} ${b ?? "–"}`).join(", ")} · `,
      `bags: team 1 ${t.bags["0"]}, team 2 ${t.bags["1"]} · target ${t.target_score}`,
    ),
  );
}

function meldBox(view, meld, on, targets) {
  const target = targets.has(meld.id);
  const swap = on.canSwap && meld.cards.includes("JK");
  return h(
    "div",
    {
      class: `meld${target ? " target" : ""}`,
      dataset: { meld: meld.id },
      onclick: target ? () => on.meld(meld.id) : undefined,
      title: target ? "lay the selected cards off here" : undefined,
    },
    h(
      "div",
      { class: "label" },
      `${meld.id ?? ""} ${meld.kind}${meld.owner !== undefined ? ` · ${who(view, meld.owner)}` : ""}`,
      swap
        ? h("button", { type: "button", onclick: (e) => (e.stopPropagation(), on.swap(meld.id)) }, "swap joker")
        : null,
    ),
    cards(meld.cards, { small: true }),
  );
}

// The stock, the discard pile and, in Žolíky, the cut and the closing card.
function piles(view, on) {
  const legal = view.legal_actions;
  const stockAction = legal.find((a) => a.type === "draw" && (a.pile === "stock" || a.pile === undefined));
  const discardAction = legal.find((a) => (a.type === "draw" && a.pile === "discard") || a.type === "take_discard");
  const closingAction = legal.find((a) => a.type === "take_closing");
  const t = view.table;
  const top = view.discard?.top;
  const out = [
    h(
      "div",
      { class: "pile", dataset: { pile: "stock" } },
      view.stock
        ? back({
            classes: [stockAction && "legal"],
            onclick: stockAction ? () => on.pile("stock") : undefined,
            title: "the stock",
          })
        : h("div", { class: "empty" }),
      `stock ${view.stock}`,
    ),
    h(
      "div",
      { class: "pile", dataset: { pile: "discard" } },
      top
        ? card(top, {
            classes: [discardAction && "legal", on.extra === "discard" && "taken"],
            onclick: discardAction ? () => on.pile("discard") : undefined,
          })
        : h("div", { class: "empty" }),
      `discard pile ${view.discard?.count ?? 0}`,
    ),
  ];
  if (view.game === "zoliky") {
    out.push(
      h(
        "div",
        { class: "pile", dataset: { pile: "closing" } },
        t.closing_card
          ? card(t.closing_card, {
              classes: [closingAction && "legal", on.extra === "closing" && "taken"],
              onclick: closingAction ? () => on.pile("closing") : undefined,
            })
          : h("div", { class: "empty" }),
        "closing card",
      ),
      h("div", { class: "pile" }, cards(t.cut, { small: true }), "the cut"),
    );
  }
  if (view.game === "three-thirteen") out.push(h("div", { class: "pile" }, h("b", {}, `${t.wild_rank === "T" ? "10" : t.wild_rank}s`), "are wild"));
  return h("div", { class: "piles" }, out);
}

function rummyCenter(view, on) {
  const t = view.table;
  const melds = t.melds || [];
  const staged = on.staged || [];
  const note = [];
  if (view.game === "zoliky") note.push(`turn ${t.turn_number} of the round`, "melding from turn 7", "an opening needs 42 points and a pure run");
  if (view.game === "zhol") note.push(`first to ${t.target_wins} crown${t.target_wins === 1 ? "" : "s"}`, `${t.variant} Zhol`);
  if (view.game === "three-thirteen") note.push(`round ${t.round} of ${t.rounds}, ${t.cards_dealt} cards`);
  if (t.taken && view.game === "zhol") note.push(`taken from the pile: ${cardText(t.taken)}`);
  return h(
    "div",
    { class: "center" },
    piles(view, on),
    h("div", { class: "facts" }, note.join(" · ")),
    melds.length || staged.length
      ? h("div", { class: "melds" }, melds.map((m) => meldBox(view, m, on, on.targets || new Set())), staged)
      : null,
  );
}

export function tableEl(view, on) {
  const pos = positions(view);
  const areas = { top: [], left: [], right: [] };
  for (const p of view.players) if (pos[p.seat] !== "bottom") areas[pos[p.seat]].push(seatBox(view, p, pos[p.seat]));
  return h(
    "div",
    { class: "table" },
    Object.entries(areas).map(([area, boxes]) => h("div", { class: `seat-${area}` }, boxes)),
    view.game === "spades" ? spadesCenter(view) : rummyCenter(view, on),
  );
}

export function statusEl(view) {
  let text;
  if (view.status === "waiting") text = "Waiting for players to join";
  else if (view.status === "round_over") text = "The round is over";
  else if (view.status === "finished") text = "The match is over";
  else if (view.status === "aborted") text = "The match was called off";
  else if (view.turn.seat === view.you) text = `Your turn: ${view.turn.phase}`;
  else text = `${who(view, view.turn.seat)} to play (${view.turn.phase})`;
  const mine = view.status === "active" && view.turn.seat === view.you;
  return h(
    "div",
    { class: "status", dataset: { version: view.version } },
    h("span", { class: `turn${mine ? " you" : ""}`, "data-testid": "turn" }, text),
    view.turn.deadline ? h("span", { class: "clock", "data-deadline": view.turn.deadline }, "") : null,
    h("span", { class: "muted" }, `round ${view.round} · version ${view.version}`),
  );
}

// Seconds as a countdown: "0:42", "1:05:00" past an hour, "2d 3h" past a day (a correspondence
// clock runs up to 14 days: docs/api.md, "Turn clocks").
function countdown(s) {
  const pad = (n) => String(n).padStart(2, "0");
  const [d, h, m] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return `${d}d ${h}h`;
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

// Updates every clock on the page; main.js calls it a few times a second.
export function tickClocks() {
  for (const el of document.querySelectorAll(".clock[data-deadline]")) {
    const left = Math.max(0, Number(el.dataset.deadline) - Date.now() / 1000);
    el.textContent = `${countdown(Math.floor(left))} left`;
    el.classList.toggle("low", left < 10);
  }
}
