// Cards as DOM elements. Codes are rank + suit ("QH", "TS") or "JK" for a joker (docs/api.md).
// Every card the page draws carries data-card=<code>, so a test can list what the page shows.
import { h } from "./dom.js";

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

export function rankText(code) {
  return code[0] === "T" ? "10" : code[0];
}

export function cardText(code) {
  return code === "JK" ? "Joker" : rankText(code) + SUITS[code[1]];
}

export function cardName(code) {
  if (code === "JK") return "joker";
  return `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;
}

function colour(code) {
  if (code === "JK") return "joker";
  return code[1] === "H" || code[1] === "D" ? "red" : "black";
}

// A face-up card; with onclick it is a <button> so it can be reached with the keyboard too.
export function card(code, { small = false, classes = [], onclick, title } = {}) {
  const joker = code === "JK";
  const corner = joker ? "JOKER" : [rankText(code), h("br"), SUITS[code[1]]];
  return h(
    onclick ? "button" : "div",
    {
      class: ["card", colour(code), small && "small", ...classes].filter(Boolean).join(" "),
      dataset: { card: code },
      title: title || cardName(code),
      "aria-label": cardName(code),
      onclick,
    },
    h("span", { class: "corner" }, corner),
    h("span", { class: "pip" }, joker ? "★" : SUITS[code[1]]),
    h("span", { class: "corner bottom" }, corner),
  );
}

export function cards(codes, options = {}) {
  return h("div", { class: "cards" }, (codes || []).map((c) => card(c, options)));
}

// A face-down card: only a count is known (another player's hand, the stock).
export function back({ small = false, classes = [], onclick, title } = {}) {
  const cls = ["card", "back", small && "small", ...classes].filter(Boolean).join(" ");
  return h(onclick ? "button" : "div", { class: cls, onclick, title, "aria-label": title });
}
