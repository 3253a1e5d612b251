// Playing a seat from the browser (docs/web.md, "Playing a seat"): the
// holder of an open seat's token, or of a bot account's key, opens the
// seat's Play stream with POST /api/v1/play and answers its decisions with
// POST /api/v1/play/answer. The token or key is sent in the request's body
// only, and kept in this page's memory only: never in its address, never in
// storage. Uses app.js's helpers (el, api, tableOf, logLine, clock, plural,
// closeLive), which are loaded by the time a page is drawn.
"use strict";

// The Server-Sent Events of a fetch response's body: calls
// onEvent(kind, data) for each, until the body ends.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let kind = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) kind = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) onEvent(kind, JSON.parse(data));
    }
  }
}

async function postJson(path, body, signal) {
  return fetch(path, { method: "POST", body: JSON.stringify(body), signal,
                       headers: { "Content-Type": "application/json", Accept: "application/json" } });
}

// The form that asks for the seat's token (or the bot's name and key).
function playForm(matchId, onSubmit) {
  const match = el("input", { id: "play-match", name: "match", autocomplete: "off", value: matchId });
  const token = el("input", { id: "play-token", name: "token", type: "password", autocomplete: "off" });
  const name = el("input", { id: "play-bot", name: "bot", autocomplete: "off" });
  const key = el("input", { id: "play-key", name: "key", type: "password", autocomplete: "off" });
  const form = el("form", { class: "play-form" },
    el("fieldset", {},
      el("legend", { text: "An open seat" }),
      el("label", { for: "play-match", text: "Match" }), match,
      el("label", { for: "play-token", text: "Seat token" }), token),
    el("fieldset", {},
      el("legend", { text: "Or a bot account" }),
      el("label", { for: "play-bot", text: "Bot name" }), name,
      el("label", { for: "play-key", text: "Key" }), key),
    el("button", { type: "submit", class: "play-start", text: "Take the seat" }));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const hello = token.value
      ? { join: { match_id: match.value.trim(), seat_token: token.value.trim() } }
      : { register: { name: name.value.trim(), key: key.value.trim() } };
    token.value = "";
    key.value = "";
    onSubmit(hello);
  });
  return form;
}

// What one match of the stream shows: the table, the decision and its
// clock, the play by play.
function seatPanel(seated) {
  return {
    seated, match: null, view: null, decision: null, log: [], refusal: "", over: null,
    node: el("section", { class: "play-match", "data-match": seated.match_id }),
  };
}

function drawSeat(panel, answer) {
  const { seated, decision } = panel;
  const match = panel.match || { match_id: seated.match_id, game: seated.game,
                                 seats: Array.from({ length: seated.players }, (_, seat) => ({ seat })) };
  const parts = [el("h2", { text: `Match ${seated.match_id}: ${seated.game}, seat ${seated.seat}` })];
  if (panel.over) {
    const mine = panel.over.seats.find((s) => s.seat === seated.seat) || {};
    parts.push(el("p", { class: "play-over", role: "status",
                         text: `The match is over: your seat scored ${mine.score}, rank ${mine.rank}.` }),
               el("p", {}, el("a", { href: `#/matches/${seated.match_id}/replay?seat=${seated.seat}`,
                                     text: "Replay it as your seat saw it" })));
  } else if (decision) {
    parts.push(el("p", { class: "play-turn", role: "status", text: "Your move." }),
               el("p", { class: "play-clock", "aria-live": "off" }));
  } else {
    parts.push(el("p", { class: "play-turn muted", role: "status", text: "Waiting for the other seats." }));
  }
  if (panel.refusal) parts.push(el("p", { class: "refusal", role: "alert", text: panel.refusal }));
  const table = tableOf(panel.view, match, decision);
  parts.push(table);
  if (decision) {
    // The drawing's own marks: an element for a legal action carries its index.
    for (const node of table.querySelectorAll("[data-action]")) {
      const index = Number(node.getAttribute("data-action"));
      if (!decision.legal_actions.some((a) => a.index === index)) continue;
      node.classList.add("playable");
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      node.addEventListener("click", () => answer(panel, { legal_index: index }));
      node.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); answer(panel, { legal_index: index }); }
      });
    }
    const complete = decision.legal_actions_complete;
    parts.push(el("h3", { text: complete ? "Your legal actions" : "Some of your legal actions" }));
    if (!complete && decision.constraints) {
      parts.push(el("p", { class: "constraints", text: `Any action that follows these rules is legal: ${decision.constraints}` }));
    }
    parts.push(el("ol", { class: "legal-actions" }, ...decision.legal_actions.map((a) => {
      const button = el("button", { type: "button", class: "legal-action", "data-index": String(a.index),
                                    text: a.text || JSON.stringify(a.action) });
      button.addEventListener("click", () => answer(panel, { legal_index: a.index }));
      return el("li", {}, button);
    })));
    // Any action, typed: the way to one the list leaves out.
    const typed = el("textarea", { id: `typed-${seated.match_id}`, class: "typed-action", rows: "2",
                                   spellcheck: "false" });
    const send = el("button", { type: "button", class: "typed-send", text: "Send this action" });
    send.addEventListener("click", () => {
      let action;
      try {
        action = JSON.parse(typed.value);
      } catch (error) {
        panel.refusal = `That is no JSON: ${error.message}`;
        return drawSeat(panel, answer);
      }
      answer(panel, { action });
    });
    parts.push(el("details", { class: "typed" },
      el("summary", { text: "Another action, as JSON (hoard.v1.Action)" }),
      el("label", { for: `typed-${seated.match_id}`, text: "Action" }), typed, send));
  }
  parts.push(el("h3", { text: "Play by play" }),
             el("ol", { class: "log" }, ...panel.log.map((line) => el("li", { text: line }))));
  panel.node.replaceChildren(...parts);
  HoardTables.hitAreas(panel.node);
  panel.node.dataset.request = decision ? decision.request_id : "";
  tickClock(panel);
}

// The decision's time left, counted down from when the request came.
function tickClock(panel) {
  const line = panel.node.querySelector(".play-clock");
  if (!line || !panel.decision) return;
  const left = Math.max(0, panel.decision.time_left_ms - (performance.now() - panel.decision.received));
  line.textContent = left > 0
    ? `Time left ${clock(left)} (bank ${clock(panel.decision.bank_ms)} included)`
    : "Time is up: the server plays the default action for your seat.";
  line.classList.toggle("late", left < 5000);
}

async function playPage(matchId) {
  main.replaceChildren(
    el("h1", { text: "Play a seat" }),
    el("p", { class: "muted", text: "Enter the seat's token (given when its match was created), or a bot " +
             "account's name and key. They are sent to this server only, and kept by this page only " +
             "while it is open." }),
    el("div", { class: "play-status", role: "status" }),
    playForm(matchId, start));

  function status(text, error = false) {
    const line = main.querySelector(".play-status");
    line.textContent = text;
    line.classList.toggle("error", error);
    line.setAttribute("role", error ? "alert" : "status");
  }

  async function start(hello) {
    const controller = new AbortController();
    closeLive = () => controller.abort();
    const panels = new Map();
    let session = null;
    const timer = setInterval(() => panels.forEach(tickClock), 250);
    const stopTimer = () => clearInterval(timer);
    controller.signal.addEventListener("abort", stopTimer);

    async function answer(panel, choice) {
      const decision = panel.decision;
      if (!decision) return;
      const response = await postJson("/api/v1/play/answer", { session,
        answer: { match_id: decision.match_id, request_id: decision.request_id, ...choice } });
      const body = await response.json();
      if (response.ok) {
        if (panel.decision === decision) panel.decision = null;
        panel.refusal = "";
      } else {
        panel.refusal = `Refused: ${body.message}`;
      }
      drawSeat(panel, answer);
    }

    function onPlay(message) {
      if (message.welcome) {
        status(message.welcome.bot ? `Connected as ${message.welcome.bot}; waiting for a seat.`
                                   : "Connected; waiting for the seat.");
        main.querySelector(".play-form").remove();
      }
      if (message.seated) {
        const panel = seatPanel(message.seated);
        panels.set(message.seated.match_id, panel);
        main.append(panel.node);
        status(`Playing seat ${message.seated.seat} of match ${message.seated.match_id}.`);
        api(`/api/v1/matches/${encodeURIComponent(message.seated.match_id)}`)
          .then((got) => { panel.match = got.match; drawSeat(panel, answer); }).catch(() => {});
        drawSeat(panel, answer);
      }
      const matchId = (message.decision || message.event || message.error || {}).match_id;
      const panel = panels.get(matchId);
      if (!panel) {
        if (message.error) status(`The server says: ${message.error.message}`, true);
        return;
      }
      if (message.decision) {
        panel.decision = { ...message.decision, received: performance.now(),
                           time_left_ms: Number(message.decision.time_left_ms),
                           bank_ms: Number(message.decision.bank_ms) };
        panel.view = message.decision.view;
        panel.refusal = "";
      }
      if (message.event) {
        const event = message.event;
        if (event.view && Object.keys(event.view).length) panel.view = event.view;
        const line = logLine(event);
        if (line) panel.log.push(line);
        if (event.finished) {
          panel.over = event.finished.match;
          panel.match = event.finished.match;
          panel.decision = null;
        } else if (event.action_taken && panel.decision && event.action_taken.seat === panel.seated.seat &&
                   event.action_taken.by_default) {
          panel.decision = null;  // the server played for the seat
        }
      }
      if (message.error) panel.refusal = `The server says: ${message.error.message}`;
      drawSeat(panel, answer);
      // A seat joined by its token has nothing more to play once its match is over.
      if (hello.join && [...panels.values()].every((p) => p.over)) {
        status("The match is over.");
        controller.abort();
      }
    }

    status("Connecting…");
    try {
      const response = await postJson("/api/v1/play", hello, controller.signal);
      if (!response.ok) {
        const body = await response.json();
        return status(`Refused (${response.status}): ${body.message}`, true);
      }
      await readEvents(response, (kind, data) => {
        if (kind === "session") session = data.session;
        else if (kind === "play") onPlay(data);
        else if (kind === "error") status(`The stream ended: ${data.message}`, true);
        else if (kind === "end") status("The stream ended.");
      });
    } catch (error) {
      if (!controller.signal.aborted) status(`The connection was lost: ${error.message}`, true);
    } finally {
      stopTimer();
    }
  }
}
