// Scores, the last round's result, the winner, and the event log, drawn from a view.
import { cards, cardText } from "./cards.js";
import { h } from "./dom.js";
import { seatName, who } from "./table.js";

function scoreLabel(view, key) {
  if (view.game !== "spades") return who(view, Number(key));
  const team = Number(key);
  return `Team ${team + 1} (${who(view, team)} & ${who(view, team + 2)})`;
}

const SCORE_MEANING = {
  spades: "points",
  zoliky: "rounds won",
  zhol: "crowns",
  "three-thirteen": "points (lowest wins)",
};

export function scoresEl(view) {
  return h(
    "div",
    { class: "panel" },
    h("h3", {}, "Scores"),
    h(
      "table",
      { class: "scores" },
      h("tr", {}, h("th", {}, ""), h("th", {}, SCORE_MEANING[view.game] || "score")),
      Object.entries(view.scores).map(([key, value]) => h("tr", {}, h("td", {}, scoreLabel(view, key)), h("td", {}, value))),
    ),
  );
}

// Every game reports its round differently; each becomes rows of (seat, cards, points).
function resultRows(view, rr) {
  if (view.game === "spades") {
    return Object.entries(rr.teams).map(([key, t]) => ({
      label: scoreLabel(view, key),
      detail: [
        `bid ${t.contract}, took ${t.contract_tricks}${t.made === null ? "" : t.made ? ", made" : ", set"}`,
        t.nil_points ? `Nil ${t.nil_points > 0 ? "+" : ""}${t.nil_points}` : "",
        `bags ${t.bags}${t.bag_penalty ? ` (penalty ${t.bag_penalty})` : ""}`,
      ]
        .filter(Boolean)
        .join("; "),
      points: `${t.points} this hand, total ${t.total}`,
    }));
  }
  if (view.game === "zoliky") {
    return Object.entries(rr.hands).map(([seat, hand]) => ({
      label: who(view, Number(seat)),
      cards: hand,
      points: `${rr.points[seat]} left in hand`,
    }));
  }
  if (view.game === "zhol") {
    return rr.hands.map((p) => ({
      label: who(view, p.seat),
      cards: p.cards,
      detail: p.melds.length ? `melds: ${p.melds.map((m) => m.cards.map(cardText).join(" ")).join(" | ")}` : "",
    }));
  }
  return (rr.players || []).map((p) => ({
    label: who(view, p.seat),
    cards: p.hand,
    points: `${p.points} this round, total ${p.total}`,
  }));
}

export function roundResultEl(view, hostButtons) {
  const rr = view.round_result;
  if (!rr || (view.status === "active" && !view.winners)) return null;
  const winners = rr.winners || [];
  const headline = winners.length
    ? `${winners.map((s) => who(view, s)).join(" and ")} won round ${rr.round}`
    : `Round ${rr.round} had no winner`;
  return h(
    "div",
    { class: "panel", "data-testid": "round-result" },
    h("h3", {}, headline),
    h(
      "table",
      { class: "scores" },
      resultRows(view, rr).map((row) =>
        h("tr", {}, h("td", {}, row.label), h("td", {}, row.cards ? cards(row.cards, { small: true }) : null, row.detail || ""), h("td", {}, row.points || "")),
      ),
    ),
    hostButtons,
  );
}

export function winnerEl(view) {
  if (view.status !== "finished") return null;
  const names = (view.winners || []).map((s) => who(view, s));
  const text = names.length ? `${names.join(" and ")} won the match!` : "The match ended without a winner.";
  return h("div", { class: "panel winner", "data-testid": "winner" }, text);
}

// The events that move one card, and their verb.
const ONE_CARD = {
  play: "played",
  discard: "discarded",
  take_discard: "took the discard",
  take_closing: "took the closing card",
};

// One event of GET …/events (or the stream) in words, cards drawn small.
export function eventLine(view, e) {
  const actor = e.seat !== undefined && e.seat !== null ? seatName(view, e.seat) : "";
  const small = (list) => cards(list, { small: true });
  const parts = actor ? [actor] : [];
  switch (e.type) {
    case "bid":
      parts.push(`bid ${e.tricks}`);
      break;
    case "play":
    case "discard":
    case "take_discard":
    case "take_closing":
      parts.push(ONE_CARD[e.type], small([e.card]));
      break;
    case "draw":
      parts.push(`drew from the ${e.pile || "stock"}`, e.card ? small([e.card]) : null);
      break;
    case "meld":
      parts.push("put down", small(e.meld.cards));
      break;
    case "lay_off":
      parts.push(`laid off on ${e.meld}`, small(e.cards));
      break;
    case "swap_joker":
      parts.push(`swapped a joker in ${e.meld} for`, small([e.card]));
      break;
    case "trick":
      parts.push("won the trick");
      break;
    default:
      parts.push(e.type.replaceAll("_", " "));
  }
  // Each part its own span: adjacent text would merge into one flex item, without the gap.
  return h("li", {}, h("span", { class: "row tight" }, parts.map((p) => (typeof p === "string" ? h("span", {}, p) : p))));
}
