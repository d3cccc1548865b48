// Replaying a finished match from GET …/history, one event at a time. The history holds every
// event unredacted (hands included), so the replay can show every hand face up.
import { cards } from "./cards.js";
import { h } from "./dom.js";
import { eventLine } from "./results.js";
import { who } from "./table.js";

function remove(hand, list) {
  for (const code of list) {
    const i = hand.indexOf(code);
    if (i >= 0) hand.splice(i, 1);
  }
}

// The table after events[0..upto]: hands, discard pile, current trick, melds.
function replayState(history, upto) {
  const s = { hands: {}, pile: [], trick: [], melds: new Map(), closing: null };
  for (const e of history.events.slice(0, upto + 1)) {
    const secret = e.secret || {};
    const mine = e.seat !== undefined && e.seat !== null ? (s.hands[e.seat] ||= []) : [];
    switch (e.type) {
      case "deal":
        s.pile = e.discard ? [e.discard] : [];
        s.trick = [];
        s.melds = new Map();
        for (const [seat, part] of Object.entries(secret)) s.hands[seat] = [...part.hand];
        break;
      case "cut":
        s.closing = e.closing_card;
        break;
      case "draw":
        if (e.pile === "discard") s.pile.pop();
        mine.push(e.card || secret[e.seat]?.card);
        break;
      case "take_discard":
        s.pile.pop();
        mine.push(e.card);
        break;
      case "take_closing":
        s.closing = null;
        mine.push(e.card);
        break;
      case "discard":
        remove(mine, [e.card]);
        if (e.onto === undefined || e.onto === null) s.pile.push(e.card);
        break;
      case "play":
        if (s.trick.length === 4) s.trick = [];
        remove(mine, [e.card]);
        s.trick.push(e.card);
        break;
      case "meld":
        remove(mine, e.meld.cards);
        s.melds.set(e.meld.id, e.meld);
        break;
      case "lay_off":
        remove(mine, e.cards || [e.card]);
        if (e.result) s.melds.set(e.meld, e.result);
        break;
      case "swap_joker":
        remove(mine, [e.card]);
        mine.push("JK");
        s.melds.set(e.meld, e.result);
        break;
      default:
    }
  }
  return s;
}

export function replayEl(history, view, close) {
  const box = h("div", { class: "panel replay", "data-testid": "replay" });
  let step = 0;
  const last = history.events.length - 1;
  const draw = () => {
    const s = replayState(history, step);
    const e = history.events[step];
    const { secret, ...shown } = e;
    box.replaceChildren(
      h("h2", {}, `Replay: event ${step + 1} of ${last + 1}`),
      h(
        "div",
        { class: "row" },
        h("button", { onclick: () => ((step = 0), draw()), disabled: step === 0 }, "« Start"),
        h("button", { onclick: () => ((step = Math.max(0, step - 1)), draw()), disabled: step === 0 }, "◀ Back"),
        h("button", { class: "primary", onclick: () => ((step = Math.min(last, step + 1)), draw()), disabled: step === last }, "Next ▶"),
        h("button", { onclick: () => ((step = last), draw()), disabled: step === last }, "End »"),
        h("button", { onclick: close }, "Back to the table"),
      ),
      h("ul", { class: "log" }, eventLine(view, e)),
      h("div", { class: "event" }, JSON.stringify(shown)),
      h(
        "div",
        { class: "hands" },
        Object.entries(s.hands).map(([seat, hand]) => h("div", {}, h("b", {}, who(view, Number(seat))), cards(hand, { small: true }))),
        s.trick.length ? h("div", {}, h("b", {}, "Trick"), cards(s.trick, { small: true })) : null,
        s.pile.length ? h("div", {}, h("b", {}, `Discard pile (${s.pile.length}), top`), cards(s.pile.slice(-1), { small: true })) : null,
        s.melds.size ? h("div", {}, h("b", {}, "Melds"), h("div", { class: "row" }, [...s.melds.values()].map((m) => cards(m.cards, { small: true })))) : null,
      ),
      h("p", { class: "muted" }, `seed ${history.seed}; the initial deck, the options and every event are in GET /v1/matches/${history.id}/history.`),
    );
  };
  draw();
  return box;
}
