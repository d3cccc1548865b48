// Starting a match (POST /v1/matches) and joining one (POST /v1/matches/{id}/join).
import { call, errorText, seats } from "./api.js";
import { h } from "./dom.js";

// One input per option, built from the game's own description in GET /v1/games.
function optionInput(name, spec) {
  const attrs = { name, "data-option": name };
  if (spec.choices) {
    return h("select", attrs, spec.choices.map((c) => h("option", { value: c, selected: c === spec.default }, c)));
  }
  if (spec.type === "boolean") return h("input", { ...attrs, type: "checkbox", checked: spec.default === true });
  return h("input", {
    ...attrs,
    type: "number",
    min: spec.minimum,
    max: spec.maximum,
    placeholder: spec.default === null ? "random" : "",
    value: spec.default ?? "",
  });
}

function readOptions(form, game) {
  const options = {};
  for (const [name, spec] of Object.entries(game.options)) {
    const input = form.querySelector(`[data-option="${name}"]`);
    if (spec.type === "boolean") options[name] = input.checked;
    else if (spec.choices) options[name] = input.value;
    else if (input.value !== "") options[name] = Number(input.value);
  }
  return options;
}

function seatLine(index, levels) {
  if (index === 0) return h("div", { class: "seat-line" }, h("b", {}, "Seat 1"), "you");
  return h(
    "div",
    { class: "seat-line" },
    h("b", {}, `Seat ${index + 1}`),
    h(
      "select",
      { "data-seat": index, "aria-label": `seat ${index + 1}` },
      levels.map((level) => h("option", { value: `bot:${level}` }, `bot (${level})`)),
      h("option", { value: "open" }, "open seat (join link)"),
    ),
  );
}

// The "new match" form; onCreated(matchId) once the match exists and the token is stored.
export function newMatchForm(games, onCreated) {
  const error = h("div");
  const seatsBox = h("div", { class: "seats-form" });
  const optionsBox = h("div", { class: "row" });
  const count = h("select", { name: "players" });
  const gameSelect = h("select", { name: "game" }, games.map((g) => h("option", { value: g.id }, g.name)));
  const name = h("input", { type: "text", name: "name", placeholder: "optional", maxlength: 40 });
  const form = h("form", { class: "panel" });
  const game = () => games.find((g) => g.id === gameSelect.value);

  const drawSeats = () => {
    const n = Number(count.value);
    seatsBox.replaceChildren(...Array.from({ length: n }, (_, i) => seatLine(i, game().bot_levels)));
  };
  const drawGame = () => {
    const g = game();
    const counts = [];
    for (let n = g.players.min; n <= g.players.max; n++) counts.push(n);
    count.replaceChildren(...counts.map((n) => h("option", { value: n, selected: n === (g.id === "spades" ? 4 : 2) }, n)));
    optionsBox.replaceChildren(
      ...Object.entries(g.options).map(([optName, spec]) =>
        h("label", { title: spec.description }, optName.replaceAll("_", " "), optionInput(optName, spec)),
      ),
    );
    drawSeats();
  };
  gameSelect.addEventListener("change", drawGame);
  count.addEventListener("change", drawSeats);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const g = game();
    const seatList = [name.value ? { kind: "human", name: name.value } : { kind: "human" }];
    for (const select of seatsBox.querySelectorAll("select[data-seat]")) {
      const [kind, level] = select.value.split(":");
      seatList.push(kind === "bot" ? { kind, level } : { kind });
    }
    try {
      const created = await call("POST", "/v1/matches", {
        body: { game: g.id, options: readOptions(form, g), seats: seatList },
      });
      seats.set(created.id, 0, created.seats[0].token);
      onCreated(created.id);
    } catch (err) {
      error.replaceChildren(h("div", { class: "error", role: "alert" }, errorText(err)));
    }
  });

  form.append(
    h("h2", {}, "New match"),
    h("div", { class: "row" }, h("label", {}, "Game", gameSelect), h("label", {}, "Players", count), h("label", {}, "Your name", name)),
    h("h3", {}, "Options"),
    optionsBox,
    h("h3", {}, "Seats"),
    seatsBox,
    error,
    h("div", { class: "row" }, h("button", { class: "primary", type: "submit" }, "Create match")),
  );
  drawGame();
  return form;
}

// Shown to a visitor without a seat while the match waits for players.
export function joinForm(matchId, onJoined) {
  const name = h("input", { type: "text", name: "name", placeholder: "optional", maxlength: 40 });
  const error = h("div");
  const form = h(
    "form",
    { class: "panel" },
    h("h2", {}, "Join this match"),
    h("div", { class: "row" }, h("label", {}, "Your name", name), h("button", { class: "primary", type: "submit" }, "Take a seat")),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const joined = await call("POST", `/v1/matches/${matchId}/join`, { body: name.value ? { name: name.value } : {} });
      seats.set(matchId, joined.seat, joined.token);
      onJoined();
    } catch (err) {
      error.replaceChildren(h("div", { class: "error", role: "alert" }, errorText(err)));
    }
  });
  return form;
}

export function joinLink(matchId) {
  return linkRow("Join link:", `${location.origin}/play?match=${matchId}`);
}

// A link to hand your seat over: it carries an invitation code, not your token, so the seat
// gets a new token when it is claimed and yours stops working (POST …/invite, …/claim).
export function handOverLink(matchId, code) {
  return linkRow("Hand-over link (good once):", `${location.origin}/play?match=${matchId}#invite=${encodeURIComponent(code)}`);
}

function linkRow(label, url) {
  const copy = h("button", { type: "button" }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Select the link and copy it";
    }
  });
  return h("div", { class: "row" }, label, h("code", { class: "link" }, url), copy);
}
