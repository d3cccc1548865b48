// Composing a Žolíky turn by selecting cards: new melds, lay-offs, a joker swap, taking the
// discard or the closing card. The result is one action body as docs/api.md lists them; the
// service checks it and answers with the rule broken, in words, if it is not legal.
import { card, cards } from "./cards.js";
import { h } from "./dom.js";

export class Compose {
  constructor(hand) {
    this.hand = [...hand];
    this.selected = new Set(); // indices into this.cards()
    this.extra = null; // null | {kind: "discard" | "closing", card}
    this.melds = []; // lists of indices
    this.layOffs = []; // {meld: "m2" | index of a new meld, idx: [indices]}
  }

  cards() {
    return this.extra ? [...this.hand, this.extra.card] : this.hand;
  }

  used() {
    return new Set([...this.melds.flat(), ...this.layOffs.flatMap((l) => l.idx)]);
  }

  toggle(i) {
    if (this.used().has(i)) return;
    if (this.selected.has(i)) this.selected.delete(i);
    else this.selected.add(i);
  }

  takeExtra(kind, code) {
    const same = this.extra?.kind === kind;
    this.clear();
    if (!same) this.extra = { kind, card: code };
  }

  newMeld() {
    this.melds.push([...this.selected]);
    this.selected.clear();
  }

  layOff(meld) {
    this.layOffs.push({ meld, idx: [...this.selected] });
    this.selected.clear();
  }

  clear() {
    this.selected.clear();
    this.extra = null;
    this.melds = [];
    this.layOffs = [];
  }

  staged() {
    return this.melds.length + this.layOffs.length > 0;
  }

  codes(indices) {
    const all = this.cards();
    return indices.map((i) => all[i]);
  }

  // The action body for the "put down" button, given the action types legal now.
  body(types) {
    const melds = this.melds.map((m) => this.codes(m));
    const layOffs = this.layOffs.map((l) => ({ meld: l.meld, cards: this.codes(l.idx) }));
    if (this.extra?.kind === "discard") return { type: "take_discard", melds, lay_offs: layOffs };
    if (this.extra?.kind === "closing") {
      const [discard] = this.codes([...this.selected]);
      return { type: "take_closing", melds, lay_offs: layOffs, discard: discard ?? "" };
    }
    if (!melds.length && layOffs.length === 1 && types.has("lay_off") && typeof layOffs[0].meld === "string") {
      return { type: "lay_off", meld: layOffs[0].meld, cards: layOffs[0].cards };
    }
    return { type: "meld", melds, lay_offs: layOffs };
  }
}

// The staged new melds, shown on the table so lay-offs can target them too.
export function stagedMelds(compose, onMeld) {
  return compose.melds.map((m, i) =>
    h(
      "div",
      { class: "meld staged target", dataset: { staged: i }, onclick: () => onMeld(i), title: "lay the selected cards off here" },
      h("div", { class: "label" }, `new meld ${i + 1}`),
      cards(compose.codes(m), { small: true }),
    ),
  );
}

// Buttons under the hand while composing; `act(body)` posts an action.
export function composeBar(compose, types, act, redraw) {
  const selected = compose.selected.size;
  const canMeld = types.has("meld") || types.has("take_discard") || types.has("take_closing");
  const extra = compose.extra;
  const putDownLabel = extra?.kind === "discard"
    ? "Take the discard and put down"
    : extra?.kind === "closing"
      ? "Take the closing card, put down and discard the selected card"
      : "Put down";
  const single = selected === 1 ? compose.codes([...compose.selected])[0] : null;
  return h(
    "div",
    { class: "compose" },
    canMeld
      ? h("button", { type: "button", disabled: selected < 3, onclick: () => (compose.newMeld(), redraw()) }, "New meld from selection")
      : null,
    canMeld || types.has("lay_off")
      ? h("span", { class: "muted" }, selected ? "or click a meld on the table to lay the selection off" : "select cards to meld")
      : null,
    compose.staged() || extra
      ? h("button", { type: "button", class: "primary", disabled: !compose.staged(), onclick: () => act(compose.body(types)) }, putDownLabel)
      : null,
    types.has("discard") && !compose.staged() && !extra
      ? h("button", { type: "button", class: "primary", disabled: !single, onclick: () => act({ type: "discard", card: single }) }, single ? ["Discard ", card(single, { small: true })] : "Discard (select one card)")
      : null,
    compose.staged() || selected || extra ? h("button", { type: "button", onclick: () => (compose.clear(), redraw()) }, "Clear") : null,
  );
}
