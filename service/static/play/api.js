// The public API as the page uses it: every call, the seat's token, errors in words, events.
// Nothing here knows a game: an app developer can lift this file as it is.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `the service answered ${status}`);
    this.status = status;
    this.code = body?.error || "http_error";
    this.details = body?.errors || null;
  }
}

// One request. A 429 is retried after its Retry-After (the service limits requests a second).
export async function call(method, path, { body, token, headers: extra = {} } = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = { Accept: "application/json", ...extra };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = `Bearer ${token}`;
    const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (resp.status === 429 && attempt < 5) {
      await sleep(1000 * Number(resp.headers.get("Retry-After") || 1));
      continue;
    }
    const data = await resp.json().catch(() => null);
    if (!resp.ok) throw new ApiError(resp.status, data);
    return data;
  }
}

// An error as a sentence for the player, with the field errors of a 422 when there are any.
// A re-read of what changed (the feed only says *that* something did): `read` runs again while
// calls came in during it, so a burst of calls collapses into one more read. The returned
// function resolves true for the call that read, false for one folded into a running read; a
// read that throws rejects that call.
export function collapsing(read) {
  let running = false;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      return false;
    }
    running = true;
    try {
      do {
        again = false;
        await read();
      } while (again);
    } finally {
      running = false;
    }
    return true;
  };
}

export function errorText(err) {
  if (!(err instanceof ApiError)) return `Network problem: ${err.message}`;
  let text = err.message;
  if (err.details) text += ` (${JSON.stringify(err.details)})`;
  return text;
}

// The seat's token lives in sessionStorage: it survives a reload, not the tab.
export const seats = {
  get(matchId) {
    const raw = sessionStorage.getItem(`cardtable:${matchId}`);
    return raw ? JSON.parse(raw) : null;
  },
  set(matchId, seat, token) {
    sessionStorage.setItem(`cardtable:${matchId}`, JSON.stringify({ seat, token }));
  },
  forget(matchId) {
    sessionStorage.removeItem(`cardtable:${matchId}`);
  },
};

// A tournament player's token (ctp_..., handed over as /play?tournament=ID#player=…) lives in
// sessionStorage too, one per tournament. It also acts on the seats bound to that player, so the
// page uses it as the bearer of the player's tournament matches.
export const players = {
  get(tournamentId) {
    return sessionStorage.getItem(`cardtable:tournament:${tournamentId}`);
  },
  set(tournamentId, token) {
    sessionStorage.setItem(`cardtable:tournament:${tournamentId}`, token);
  },
};

// Follow a player's own feed (GET /v1/me/events, long-poll) from now on: onReady() once "now"
// is known (read what the feed will tell about from then: nothing falls in between),
// onEntries(entries) for each non-empty answer, onIdle() when a wait ends with nothing new.
// A 401 (the token rotated, the player erased) stops following and reaches onGone(err).
// Returns a stop function.
export function followPlayer(token, onEntries, { onReady = () => {}, onIdle = () => {}, onGone = () => {} } = {}) {
  let stopped = false;
  (async () => {
    let after = null;
    while (!stopped) {
      try {
        if (after === null) {
          // Start from now: `last` is the newest entry's seq (docs/api.md, "A player's events").
          after = (await call("GET", "/v1/me/events?after=0&limit=1", { token })).last;
          onReady();
          continue;
        }
        const answer = await call("GET", `/v1/me/events?after=${after}&wait=25`, { token });
        if (stopped) return;
        if (answer.events.length) {
          after = answer.events.at(-1).seq;
          onEntries(answer.events);
        } else {
          onIdle();
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return onGone(err);
        await sleep(2000);
      }
    }
  })();
  return () => {
    stopped = true;
  };
}

// Server-Sent Events read with fetch(), because EventSource cannot send the Authorization
// header (events are redacted per seat). Resolves with the last seq when the server closes
// the stream (it does every 5 minutes); throws when the stream cannot be read at all.
async function streamOnce(url, token, after, onEvent, signal) {
  const headers = { Accept: "text/event-stream", "Last-Event-ID": String(after) };
  if (token) headers.Authorization = `Bearer ${token}`;
  const resp = await fetch(url, { headers, signal });
  if (!resp.ok || !resp.body) throw new ApiError(resp.status, await resp.json().catch(() => null));
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return after;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (!data) continue; // the retry: line or a keep-alive comment
      const event = JSON.parse(data);
      after = event.seq;
      onEvent(event);
    }
  }
}

// Follow a match's events from `after`: SSE first, long-poll (/events?wait=) when the stream
// fails twice in a row (a proxy that buffers, an old browser). Returns a stop function.
export function follow(matchId, token, after, onEvent, onMode = () => {}) {
  const controller = new AbortController();
  const base = `/v1/matches/${matchId}`;
  (async () => {
    let failures = 0;
    while (!controller.signal.aborted && failures < 2) {
      try {
        onMode("stream");
        after = await streamOnce(`${base}/stream`, token, after, onEvent, controller.signal);
        failures = 0;
      } catch (err) {
        if (controller.signal.aborted) return;
        failures += 1;
        await sleep(1000);
      }
    }
    onMode("long-poll");
    while (!controller.signal.aborted) {
      try {
        const answer = await call("GET", `${base}/events?after=${after}&wait=25`, { token });
        for (const event of answer.events) {
          after = event.seq;
          onEvent(event);
        }
      } catch (err) {
        await sleep(2000);
      }
    }
  })();
  return () => controller.abort();
}
