// Hoard's web app: leaderboards and tournaments, read from the server's own
// JSON API (docs/web.md). No framework and nothing from outside the server.
"use strict";

const main = document.getElementById("main");
let closeLive = () => {};  // ends the page's event stream, if any

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(`${body.code}: ${body.message}`);
  return body;
}

function showError(error) {
  main.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
}

// A rating end: "+inf" and "-inf" for unbounded ones.
function signed(value) {
  if (value === Infinity || value === "Infinity") return "+\u221e";
  if (value === -Infinity || value === "-Infinity") return "\u2212\u221e";
  const rounded = Math.round(Number(value));
  return (rounded >= 0 ? "+" : "\u2212") + Math.abs(rounded);
}

// "1 match", "2 matches"; and "doom snails" of one, "doom snail": as the
// drawings of the tables say them.
const { plural, singular } = HoardTables;

function clock(ms) {
  const s = Math.ceil(Number(ms) / 1000);
  const pad = (n) => String(n).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`
                   : `${Math.floor(s / 60)}:${pad(s % 60)}`;
}

// ---- Leaderboards ----------------------------------------------------------

// The ML interval as a bar over the table's range: a line from low to high
// (dotted where unbounded) and a diamond at the rating, with the numbers
// beside it.
// Where a rating falls on a table's axis, as a CSS length from the left.
function axisPosition(range) {
  const [lo, hi] = range;
  return (v) => `${(100 * (Math.min(Math.max(v, lo), hi) - lo)) / (hi - lo || 1)}%`;
}

// The axis every interval bar of a table is drawn on: a few round ratings
// marked over the table's range, and a line at 0 (the average player).
function intervalAxis(range) {
  const [lo, hi] = range;
  const at = axisPosition(range);
  const step = [25, 50, 100, 200, 250, 500, 1000, 2000, 5000].find((s) => (hi - lo) / s <= 4) || 10000;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    const tick = el("span", { class: "tick", "data-value": String(v), text: signed(v) });
    tick.style.left = at(v);
    ticks.push(tick);
  }
  return el("span", { class: "interval axis", "aria-hidden": "true" }, ...ticks);
}

// A probability estimated from draws, as the command line writes it:
// "97%", "0.4%", and "<0.1%" or ">99.9%" where the draws cannot tell more.
function percent(p) {
  if (p < 0.001) return "<0.1%";
  if (p > 0.999) return ">99.9%";
  return `${(100 * p).toFixed(p < 0.01 || p > 0.99 ? 1 : 0)}%`;
}

function intervalCell(row, range) {
  const at = axisPosition(range);
  const low = Number(row.ml_low), high = Number(row.ml_high), ml = Number(row.ml);
  const span = el("span", { class: "span" });
  span.style.left = at(low);
  span.style.right = `calc(100% - ${at(high)})`;
  if (!isFinite(low)) span.classList.add("open-low");
  if (!isFinite(high)) span.classList.add("open-high");
  const point = el("span", { class: "point" });
  point.style.left = at(ml);
  const zero = el("span", { class: "zero" });
  zero.style.left = at(0);
  const bar = el("span", { class: "interval", role: "img",
                           "aria-label": `ML ${signed(ml)}, 95% interval ${signed(low)} to ${signed(high)}` },
                 zero, span, point);
  // A provisional rating is marked "?", as in the command line's tables.
  const mark = row.provisional ? "?" : "";
  const cell = el("td", { class: "ml", "data-value": String(ml) }, bar,
                  el("span", { class: "ml-text",
                               text: `${signed(ml)}${mark} [${signed(low)}, ${signed(high)}]` }));
  return cell;
}

const COLUMNS = [
  { key: "rank", label: "Rank", value: (r) => r.rank },
  { key: "bot", label: "Bot", value: (r) => r.bot },
  { key: "ml", label: "ML [95% interval]", value: (r) => Number(r.ml) },
  { key: "first", label: "P(1st)", value: (r) => Number((r.rank_probabilities || [])[0] ?? -1) },
  { key: "elo", label: "Elo", value: (r) => Number(r.elo) },
  { key: "openskill", label: "OpenSkill \u03bc\u22123\u03c3",
    value: (r) => Number(r.openskill_mu) - 3 * Number(r.openskill_sigma) },
  { key: "matches", label: "Matches", value: (r) => Number(r.matches) },
  { key: "wins", label: "Wins", value: (r) => Number(r.wins) },
  { key: "forfeits", label: "Forfeits", value: (r) => Number(r.forfeits) },
];

function leaderboardTable(board) {
  const rows = board.rows.slice();
  const finite = rows.flatMap((r) => [Number(r.ml_low), Number(r.ml_high), Number(r.ml)])
                     .filter((v) => isFinite(v));
  // The finite values, with room beyond them for the unbounded ends.
  const low = Math.min(...finite, 0), high = Math.max(...finite, 0);
  const pad = 0.15 * (high - low || 1);
  const range = [low - pad, high + pad];
  let sort = { key: "rank", descending: false };
  const table = el("table", { class: "leaderboard" });
  const head = el("tr");
  for (const column of COLUMNS) {
    const th = el("th", { scope: "col", "data-key": column.key, "aria-sort": "none" },
                  el("button", { type: "button", text: column.label }));
    if (column.key === "ml") th.append(intervalAxis(range));
    th.querySelector("button").addEventListener("click", () => {
      sort = { key: column.key,
               descending: sort.key === column.key ? !sort.descending : column.key !== "bot" && column.key !== "rank" };
      draw();
    });
    head.append(th);
  }
  const body = el("tbody");
  table.append(el("thead", {}, head), body);
  function draw() {
    const column = COLUMNS.find((c) => c.key === sort.key);
    rows.sort((a, b) => {
      const x = column.value(a), y = column.value(b);
      const order = x < y ? -1 : x > y ? 1 : 0;
      return sort.descending ? -order : order;
    });
    for (const th of head.children) {
      th.setAttribute("aria-sort", th.dataset.key === sort.key
                                       ? (sort.descending ? "descending" : "ascending") : "none");
    }
    body.replaceChildren(...rows.map((r) => el("tr", { "data-bot": r.bot,
                                                         class: r.provisional ? "provisional" : "" },
      el("td", { text: String(r.rank) }),
      el("td", { class: "bot", text: r.bot }),
      intervalCell(r, range),
      el("td", { class: "first",
                 text: (r.rank_probabilities || []).length ? percent(Number(r.rank_probabilities[0])) : "" }),
      el("td", { class: "elo", text: String(Math.round(Number(r.elo))) }),
      el("td", { class: "openskill",
                 text: (Number(r.openskill_mu) - 3 * Number(r.openskill_sigma)).toFixed(2) }),
      el("td", { class: "matches", text: String(r.matches) }),
      el("td", { class: "wins", text: String(r.wins) }),
      el("td", { class: "forfeits", text: String(r.forfeits) }))));
  }
  draw();
  return el("div", { class: "scroll" }, table);
}

// Who is likely best: each bot's probability of each place in the order of
// strength (the first ten), in the board's order, shaded darker for more.
function rankTable(board) {
  const places = Math.min(board.rows.length, 10);
  const ordinal = (n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th"
                                : ["th", "st", "nd", "rd"][n % 10] || "th"}`;
  const head = el("tr", {}, el("th", { scope: "col", text: "Bot" }),
                  ...Array.from({ length: places }, (_, r) => el("th", { scope: "col", text: ordinal(r + 1) })));
  const rows = board.rows.map((row) => el("tr", { "data-bot": row.bot },
    el("th", { scope: "row", text: row.bot }),
    ...Array.from({ length: places }, (_, r) => {
      const p = Number((row.rank_probabilities || [])[r] || 0);
      const td = el("td", { class: "rank-p", "data-p": String(p), text: percent(p) });
      const shade = Math.round(255 - 150 * p);
      td.style.background = `rgb(${shade}, ${shade}, ${shade})`;
      if (p > 0.6) td.style.color = "#fff";
      return td;
    })));
  return el("div", { class: "scroll" }, el("table", { class: "ranks" },
    el("thead", {}, head), el("tbody", {}, ...rows)));
}

function rankNote(board) {
  return el("p", { class: "muted", text: `Each bot's chance of each place in the order of strength` +
                   `${board.rows.length > 10 ? " (the first ten places)" : ""}, from ` +
                   `${Number(board.rank_samples).toLocaleString("en")} draws of the ML model's posterior.` });
}

// The head-to-head heat map: row bot's score against column bot (its
// share of their meetings: a win 1, a draw half), written in each cell and
// shaded by it, darker for more; the meetings in the cell's title.
function headToHeadMap(table) {
  const bots = table.bots;
  const cell = new Map();
  for (const pair of table.pairs) {
    const meetings = pair.wins + pair.losses + pair.draws;
    cell.set(`${pair.bot}\u0000${pair.opponent}`, { score: pair.score, meetings,
             text: `${pair.wins}-${pair.draws}-${pair.losses}` });
    cell.set(`${pair.opponent}\u0000${pair.bot}`, { score: 1 - pair.score, meetings,
             text: `${pair.losses}-${pair.draws}-${pair.wins}` });
  }
  const head = el("tr", {}, el("th", { scope: "col", text: "vs" }),
                  ...bots.map((b) => el("th", { scope: "col", text: b })));
  const rows = bots.map((bot) => el("tr", { "data-bot": bot }, el("th", { scope: "row", text: bot }),
    ...bots.map((other) => {
      const c = cell.get(`${bot}\u0000${other}`);
      if (bot === other || !c || c.meetings === 0) return el("td", { class: "h2h none", text: "\u2013" });
      const td = el("td", { class: "h2h", "data-score": String(c.score),
                            title: `${bot} against ${other}: won-drawn-lost ${c.text} in ${plural(c.meetings, "meeting")}`,
                            text: `${Math.round(100 * c.score)}%` });
      const shade = Math.round(255 - 150 * c.score);
      td.style.background = `rgb(${shade}, ${shade}, ${shade})`;
      if (c.score > 0.6) td.style.color = "#fff";
      return td;
    })));
  return el("div", { class: "scroll" }, el("table", { class: "head-to-head" },
    el("thead", {}, head), el("tbody", {}, ...rows)));
}

// The game whose match finished last: where the home page opens, so that
// the newest play is what a visitor sees first.
async function latestGame(games) {
  const newest = (await api("/api/v1/matches?page_size=1&status=MATCH_STATUS_FINISHED")).matches;
  if (newest.length && games.some((g) => g.id === newest[0].game)) return newest[0].game;
  return games.length ? games[0].id : "";
}

async function leaderboardPage(game) {
  const games = (await api("/api/v1/games")).games;
  if (!game) game = await latestGame(games);
  const picker = el("select", { "aria-label": "Game" },
                    ...games.map((g) => el("option", { value: g.id, text: g.name })));
  picker.value = game;
  picker.addEventListener("change", () => { location.hash = `#/leaderboard/${picker.value}`; });
  const board = await api(`/api/v1/leaderboard?game=${encodeURIComponent(game)}`);
  const h2h = board.rows.length
      ? await api(`/api/v1/head-to-head?game=${encodeURIComponent(game)}`) : null;
  main.replaceChildren(
    el("h1", { text: "Leaderboard" }), el("p", {}, picker),
    board.rows.length ? leaderboardTable(board)
                      : el("p", { class: "muted", text: "No rated match of this game yet." }),
    el("p", { class: "muted", text: `${plural(board.matches, "rated match", "rated matches")}. ML: Bradley-Terry maximum ` +
              "likelihood with its 95% interval (the line), the diamond at the rating, every bar " +
              "on the axis in the column's head (the thin line: 0, the average player). P(1st): " +
              "the chance that the bot is the strongest. Elo: incremental from 1500, K=32, the " +
              "matches replayed in schedule order." +
              (board.rows.some((r) => r.provisional)
                ? " ?: provisional (fewer than 15 matches and an interval wider than 400 " +
                  "points), ranked below the established ratings."
                : "") }),
    Number(board.rank_samples) > 0 ? el("h2", { text: "Who is likely best" }) : "",
    Number(board.rank_samples) > 0 ? rankTable(board) : "",
    Number(board.rank_samples) > 0 ? rankNote(board) : "",
    h2h ? el("h2", { text: "Head to head" }) : "",
    h2h ? headToHeadMap(h2h) : "",
    h2h ? el("p", { class: "muted", text: "Each cell: the row's score against the column " +
                    "(wins, and draws as half, of their meetings), darker for more." }) : "");
}

// ---- Tournaments -----------------------------------------------------------

function statusName(status) { return String(status).replace("TOURNAMENT_STATUS_", ""); }

function isLadder(t) { return t.spec.format === "FORMAT_LADDER"; }

// "final evaluation of the top 3: 97.1% sure of their order after 214
// matches (settled)", as hoard ladder show says it; "" before a freeze.
function evaluationText(t) {
  const e = t.spec.ladder && t.spec.ladder.final_evaluation;
  if (!e) return "";
  const state = t.progress.ladder || {};
  const over = state.settled ? "settled"
    : t.status === "TOURNAMENT_STATUS_FINISHED" ? "budget spent" : "playing";
  return `final evaluation of the top ${e.top}: ` +
    `${(100 * Number(state.confidence || 0)).toFixed(1)}% sure of their order after ` +
    `${plural(state.evaluation_matches || 0, "match", "matches")} (${over}; goal ${100 * e.confidence}%, ` +
    `budget ${e.match_budget})`;
}

async function tournamentsPage() {
  const list = (await api("/api/v1/tournaments")).tournaments;
  const rows = list.map((t) => el("tr", {},
    el("td", {}, el("a", { href: `#/tournaments/${t.id}`, text: t.id })),
    el("td", { text: isLadder(t) ? `${t.spec.name} (ladder)` : t.spec.name || t.spec.game }),
    el("td", { text: statusName(t.status) }),
    el("td", { text: isLadder(t) ? String(t.progress.finished)
                                 : `${t.progress.finished} / ${t.progress.scheduled}` })));
  const table = el("table", {},
    el("thead", {}, el("tr", {}, ...["Id", "Tournament", "Status", "Matches"].map(
      (label) => el("th", { scope: "col", text: label })))),
    el("tbody", {}, ...rows));
  main.replaceChildren(el("h1", { text: "Tournaments" }),
                       list.length ? el("div", { class: "scroll" }, table)
                                   : el("p", { class: "muted", text: "No tournament yet." }));
}

function standingsTable(t) {
  const swiss = t.spec.format === "FORMAT_SWISS";
  const labels = swiss ? ["#", "Bot", "Points", "Buchholz", "Matches", "Wins", "Elo"]
                       : ["#", "Bot", "Elo", "Matches", "Wins", "Avg place"];
  const rows = t.progress.standings.map((s, i) => el("tr", { "data-bot": s.bot },
    el("td", { text: String(i + 1) }), el("td", { class: "bot", text: s.bot }),
    ...(swiss ? [s.points.toFixed(2), s.buchholz.toFixed(2), s.matches, s.wins, Math.round(s.elo)]
              : [Math.round(s.elo), s.matches, s.wins, Number(s.average_place).toFixed(2)])
        .map((v) => el("td", { text: String(v) }))));
  return el("div", { class: "scroll" }, el("table", { class: "standings" },
    el("thead", {}, el("tr", {}, ...labels.map((l) => el("th", { scope: "col", text: l })))),
    el("tbody", {}, ...rows)));
}

// A ladder never ends: its page says who is present, how it plays and its
// final evaluation, with the leaderboard kept live.
function drawLadder(t, board) {
  const p = t.progress;
  const state = p.ladder || {};
  const running = t.status === "TOURNAMENT_STATUS_RUNNING";
  const facts = [statusName(t.status), plural(p.finished, "match", "matches")];
  if (running) {
    facts.push(`${state.present || 0} of ${state.entrants || 0} entrants present`);
    facts.push(`${p.running || 0} playing`);
  }
  if (p.failed > 0) facts.push(`${p.failed} failed`);
  const evaluation = evaluationText(t);
  main.replaceChildren(
    el("h1", { text: `Ladder: ${t.spec.name}` }),
    el("p", { class: "progress-text", text: facts.join(" \u00b7 ") }),
    el("p", { class: "muted", text: `${t.spec.game}, ${t.spec.players_per_match} to a table; ` +
              (t.spec.ladder && t.spec.ladder.open ? "open to any bot: join with --ladder "
                                                    : "its listed bots join with --ladder ") +
              t.spec.name }),
    evaluation ? el("p", { class: "evaluation", text: evaluation }) : "",
    t.error ? el("p", { class: "error", text: t.error }) : "",
    el("h2", { text: running ? "Leaderboard (live)" : "Leaderboard" }),
    board && board.rows.length ? leaderboardTable(board)
                               : el("p", { class: "muted", text: "No match stored yet." }),
    board && Number(board.rank_samples) > 0 ? el("h2", { text: "Who is likely best" }) : "",
    board && Number(board.rank_samples) > 0 ? rankTable(board) : "",
    board && Number(board.rank_samples) > 0 ? rankNote(board) : "");
}

function drawTournament(t, board) {
  if (isLadder(t)) return drawLadder(t, board);
  const p = t.progress;
  const fraction = p.scheduled > 0 ? p.finished / p.scheduled : 1;
  const fill = el("div");
  fill.style.width = `${100 * fraction}%`;
  const running = t.status === "TOURNAMENT_STATUS_RUNNING";
  const facts = [`${statusName(t.status)}`, `${p.finished} / ${p.scheduled} matches`,
                 `${Math.round(100 * fraction)}%`];
  if (running) {
    facts.push(`${Number(p.matches_per_second).toFixed(1)} matches/s`);
    if (Number(p.eta_ms) > 0) facts.push(`ETA ${clock(p.eta_ms)}`);
  }
  if (p.failed > 0) facts.push(`${p.failed} failed`);
  if (t.spec.format === "FORMAT_SWISS") facts.push(`Swiss round ${p.round} of ${t.spec.rounds}`);
  main.replaceChildren(
    el("h1", { text: `Tournament ${t.id}: ${t.spec.name || t.spec.game}` }),
    el("p", { class: "progress-text", text: facts.join(" \u00b7 ") }),
    el("div", { class: "bar", role: "progressbar", "aria-valuemin": "0",
                "aria-valuemax": String(p.scheduled), "aria-valuenow": String(p.finished) }, fill),
    t.error ? el("p", { class: "error", text: t.error }) : "",
    el("h2", { text: running ? "Standings (live)" : "Standings" }), standingsTable(t),
    el("p", { class: "muted", text: "Elo: incremental from 1500, K=32, the matches finished so " +
              "far replayed in schedule order, as in the leaderboard." }),
    board && board.rows.length ? el("h2", { text: "Leaderboard" }) : "",
    board && board.rows.length ? leaderboardTable(board) : "",
    board && Number(board.rank_samples) > 0 ? el("h2", { text: "Who is likely best" }) : "",
    board && Number(board.rank_samples) > 0 ? rankTable(board) : "",
    board && Number(board.rank_samples) > 0 ? rankNote(board) : "",
    board && board.h2h ? el("h2", { text: "Head to head" }) : "",
    board && board.h2h ? headToHeadMap(board.h2h) : "");
}

async function tournamentPage(id) {
  let t = await api(`/api/v1/tournaments/${id}`);
  const finish = async () => {
    const board = await api(`/api/v1/leaderboard?game=${encodeURIComponent(t.spec.game)}` +
                            `&tournament_id=${t.id}`);
    board.h2h = await api(`/api/v1/head-to-head?game=${encodeURIComponent(t.spec.game)}` +
                          `&tournament_id=${t.id}`);
    drawTournament(t, board);
  };
  if (t.status !== "TOURNAMENT_STATUS_RUNNING") return finish();
  // A ladder's leaderboard is live: read again at most every few seconds,
  // and drawn only while this page is still the one shown.
  let live = true;
  closeLive = () => { live = false; };
  let board = null;
  let boardAt = 0;
  const ladderBoard = async () => {
    if (!isLadder(t) || Date.now() - boardAt < 3000) return;
    boardAt = Date.now();
    const read = await api(`/api/v1/leaderboard?game=${encodeURIComponent(t.spec.game)}` +
                           `&tournament_id=${t.id}`);
    if (!live) return;
    board = read;
    drawTournament(t, board);
  };
  drawTournament(t, null);
  await ladderBoard();
  if (!live) return;
  const events = new EventSource(`/api/v1/tournaments/${id}/events`);
  closeLive = () => { live = false; events.close(); };
  events.addEventListener("tournament", (e) => {
    t = JSON.parse(e.data);
    drawTournament(t, board);
    ladderBoard().catch(showError);
  });
  events.addEventListener("end", () => { events.close(); finish().catch(showError); });
  events.addEventListener("error", (e) => {
    if (e.data) showError(new Error(JSON.parse(e.data).message));
  });
}

// ---- Matches ---------------------------------------------------------------

function matchStatus(status) { return String(status).replace("MATCH_STATUS_", ""); }

// Who holds each seat, and how they stand: "builtin:random 28 (1st)".
function seatsText(match) {
  return match.seats.map((s) => {
    const result = matchStatus(match.status) === "FINISHED" ? ` ${s.score} (#${s.rank})` : "";
    return `${s.player || "open"}${result}`;
  }).join(", ");
}

async function matchesPage(query) {
  const games = (await api("/api/v1/games")).games;
  const params = new URLSearchParams(query);
  const ask = new URLSearchParams({ page_size: "50" });
  for (const name of ["game", "status", "bot", "page_size", "page_token"]) {
    if (params.get(name)) ask.set(name, params.get(name));
  }
  const list = await api(`/api/v1/matches?${ask}`);
  const game = el("select", { "aria-label": "Game", name: "game" },
                  el("option", { value: "", text: "Every game" }),
                  ...games.map((g) => el("option", { value: g.id, text: g.name })));
  game.value = params.get("game") || "";
  const status = el("select", { "aria-label": "Status", name: "status" },
                    ...[["", "Any status"], ["MATCH_STATUS_RUNNING", "Running"],
                        ["MATCH_STATUS_FINISHED", "Finished"], ["MATCH_STATUS_ABORTED", "Aborted"]]
                      .map(([value, text]) => el("option", { value, text })));
  status.value = params.get("status") || "";
  const refilter = () => {
    const next = new URLSearchParams();
    if (game.value) next.set("game", game.value);
    if (status.value) next.set("status", status.value);
    location.hash = `#/matches?${next}`;
  };
  game.addEventListener("change", refilter);
  status.addEventListener("change", refilter);
  const rows = list.matches.map((m) => el("tr", { "data-match": m.match_id },
    el("td", {}, el("a", { href: `#/matches/${m.match_id}`, text: m.match_id })),
    el("td", { class: "game", text: m.game }),
    el("td", { class: "status", text: matchStatus(m.status) }),
    el("td", { text: String(m.actions) }),
    el("td", { class: "seats", text: seatsText(m) })));
  const table = el("table", { class: "matches" },
    el("thead", {}, el("tr", {}, ...["Match", "Game", "Status", "Actions", "Seats"].map(
      (label) => el("th", { scope: "col", text: label })))),
    el("tbody", {}, ...rows));
  // Newest first; the server's tokens lead to the newer and the older page.
  const pageLink = (token, cls, text) => {
    if (!token) return "";
    const to = new URLSearchParams(params);
    to.set("page_token", token);
    return el("a", { class: cls, href: `#/matches?${to}`, text });
  };
  const newer = pageLink(list.newer_page_token, "newer", "\u2190 Newer matches");
  const older = pageLink(list.next_page_token, "older", "Older matches \u2192");
  const paging = newer || older ? el("p", { class: "paging" }, newer, newer && older ? " \u00b7 " : "", older) : "";
  main.replaceChildren(el("h1", { text: "Matches" }), el("p", {}, game, " ", status),
    el("p", { class: "muted", text: "Newest first." }),
    rows.length ? el("div", { class: "scroll" }, table)
                : el("p", { class: "muted", text: "No match matches." }),
    paging);
}

// ---- Tables: each game's drawn in tables.js ------------------------------

// ---- Any game's table, from the protocol ----------------------------------

// The shape of every game's view (service/web/view_schema.h: its fields in
// the .proto's order, nested messages, repeated fields, enums), read from the
// protocol by the server, which puts it here when it serves this file.
const VIEW_SCHEMA = /*HOARD_VIEW_SCHEMA*/null;

const INTEGER_TYPES = new Set(["int32", "int64", "uint32", "uint64", "sint32", "sint64",
                               "fixed32", "fixed64", "sfixed32", "sfixed64"]);

function fieldLabel(name) { return name.replace(/_/g, " "); }

// An enum's value in words: "VILLAGE_CARD_SWORD" is "sword", an unset one "–".
function enumText(type, value) {
  const prefix = VIEW_SCHEMA.enums[type].prefix;
  const name = String(value);
  if (name.endsWith("_UNSPECIFIED")) return "\u2013";
  return (name.startsWith(prefix) ? name.slice(prefix.length) : name).replace(/_/g, " ").toLowerCase();
}

// A message of counts only (every field one whole number), as "2 swords, 1 wild".
function isCountsMessage(type) {
  const fields = VIEW_SCHEMA.messages[type];
  return fields.length > 0 && fields.every((f) => !f.repeated && INTEGER_TYPES.has(f.type));
}

function countsText(type, value) {
  const parts = VIEW_SCHEMA.messages[type].filter((f) => Number((value || {})[f.name]) > 0)
                                          .map((f) => `${value[f.name]} ${Number(value[f.name]) === 1
                                              ? singular(fieldLabel(f.name)) : fieldLabel(f.name)}`);
  return parts.length ? parts.join(", ") : "none";
}

function scalarText(field, value) {
  if (field.type === "enum") return enumText(field.of, value);
  if (field.type === "message") return countsText(field.of, value);
  if (field.type === "bool") return value ? "yes" : "no";
  if (field.type === "double" || field.type === "float") return String(Number(Number(value).toFixed(3)));
  return String(value);
}

// One field's value: words for a scalar, an enum or counts; a list of the
// fields of a message; a table of repeated messages.
function fieldView(field, value) {
  const nested = field.type === "message" && !isCountsMessage(field.of);
  if (field.repeated) {
    if (!value || !value.length) return el("span", { class: "muted", text: "none" });
    if (nested) return messageRows(field.of, value);
    return el("span", { text: value.map((v) => scalarText(field, v)).join(", ") });
  }
  return nested ? messageList(field.of, value) : el("span", { text: scalarText(field, value) });
}

// A message as its fields in the .proto's order, but those in `skip` and
// those it does not hold.
function messageList(type, value, skip = new Set()) {
  const list = el("dl", { class: "structured", "data-type": type });
  for (const field of VIEW_SCHEMA.messages[type]) {
    if (skip.has(field.name) || value[field.name] === undefined) continue;
    list.append(el("dt", { text: fieldLabel(field.name) }),
                el("dd", { "data-field": field.name }, fieldView(field, value[field.name])));
  }
  return list;
}

// Repeated messages as a table: a row each, a column per field any holds.
function messageRows(type, items) {
  const fields = VIEW_SCHEMA.messages[type].filter((f) => items.some((item) => item[f.name] !== undefined));
  return el("div", { class: "scroll" }, el("table", { class: "structured", "data-type": type },
    el("thead", {}, el("tr", {}, ...fields.map((f) => el("th", { scope: "col", text: fieldLabel(f.name) })))),
    el("tbody", {}, ...items.map((item) => el("tr", {}, ...fields.map((f) => el("td", { "data-field": f.name },
      item[f.name] === undefined ? "" : fieldView(f, item[f.name]))))))));
}

// Without the schema (a copy of this file not served by Hoard), a view laid
// out as it comes.
function structuredView(value) {
  if (value === null || typeof value !== "object") return el("span", { text: String(value) });
  if (Array.isArray(value)) {
    if (!value.length) return el("span", { class: "muted", text: "none" });
    if (value.every((v) => v === null || typeof v !== "object")) return el("span", { text: value.join(", ") });
    return el("ol", { class: "structured" }, ...value.map((v) => el("li", {}, structuredView(v))));
  }
  const list = el("dl", { class: "structured" });
  for (const [key, v] of Object.entries(value)) {
    list.append(el("dt", { text: fieldLabel(key) }), el("dd", {}, structuredView(v)));
  }
  return list;
}

// Any game's view as the protocol has it: what a game with no table drawn
// by hand shows. (A spectator's view holds only what a spectator may see.)
function protocolTable(game, view) {
  const type = VIEW_SCHEMA && VIEW_SCHEMA.views[game];
  return el("div", { class: `table ${game} from-protocol` },
            type ? messageList(type, view) : structuredView(view));
}

// The games whose tables are drawn (tables.js), and the fields of their
// views the drawings show; tableOf lists the others below the table.
const DRAWN_TABLES = {
  village: { draw: HoardTables.village, shows: ["observer", "favor", "favor_values", "market", "deck_size",
                                                "discard", "players", "current_seat", "over", "end_reason"] },
  dragons_gold: { draw: HoardTables.dragons_gold, shows: ["observer", "dragons", "pile_size", "bag_size",
                                                          "object_deck_size", "players", "phase", "current_seat",
                                                          "turns", "negotiation", "market", "end_reason"] },
  frost_dragon: { draw: HoardTables.frost_dragon, shows: ["observer", "map", "quest", "phase", "trump", "end_reason",
                                                          "challenge", "players", "seat_to_act"] },
  hedonia: { draw: HoardTables.hedonia, shows: ["observer", "round", "rounds", "phase", "clockwise", "deck_size",
                                                "king", "gaps", "players", "active_seat"] },
};

// A game's table: its state in a sentence, the drawing, and the rest of the
// view in words.
// `decision`: the seat's decision request, when the page plays the seat;
// the things on the drawing that stand for one legal action are marked.
function tableOf(view, match, decision = null) {
  if (!view) return el("p", { class: "muted", text: "No view of the table yet." });
  const [game, body] = Object.entries(view)[0] || [];
  const drawn = DRAWN_TABLES[game];
  if (!drawn) return protocolTable(game, body);
  const actions = decision ? HoardTables.actionKeys(game, decision.seat || 0, decision.legal_actions) : undefined;
  const drawing = drawn.draw(body, match, { actions });
  const table = el("div", { class: `table ${game}`, "data-over": drawing.dataset.over },
                   el("p", { class: "state", text: drawing.querySelector("desc").textContent }), drawing);
  const type = VIEW_SCHEMA && VIEW_SCHEMA.views[game];
  const rest = type ? messageList(type, body, new Set(drawn.shows)) : null;
  if (rest && rest.children.length) {
    table.append(el("details", { class: "rest-of-view" },
                    el("summary", { text: "The rest of the view" }), rest));
  }
  return table;
}

// Puts `next` in place of what `container` holds, showing what the step
// changed in the drawing that was there.
function replaceShowingStep(container, ...next) {
  const before = container.querySelector("svg.hoard-table");
  container.replaceChildren(...next);
  HoardTables.animate(before, container.querySelector("svg.hoard-table"));
}

// One line of a match's log: what a spectator was told.
function logLine(event) {
  if (event.action_taken) {
    const a = event.action_taken;
    return `${event.step}. seat ${a.seat}: ${a.text || "(hidden until revealed)"}` +
           (a.by_default ? " (played by default)" : "");
  }
  if (event.fault) return `seat ${event.fault.seat}: ${String(event.fault.kind).replace("KIND_", "").toLowerCase()}`;
  if (event.finished) return "the match is over";
  return null;
}

// The match's commitment to its deal (docs/records.md): public from the
// start; once the seed and salt are told, checked here, as
//   printf '%s:%s' SEED SALT | sha256sum
// does: SHA-256 of "SEED:SALT". crypto.subtle exists only in a secure
// context (https, localhost, a file); elsewhere the line says so and gives
// the command.
function dealCommitment(match) {
  const line = el("p", { class: "deal-commitment" });
  const commitment = match.seed_commitment;
  if (!commitment) {
    line.textContent = "This deal carries no commitment: nothing shows it was fixed before play.";
    return line;
  }
  if (!match.seed_salt) {
    const when = matchStatus(match.status) === "ABORTED" ? "never told: the match was aborted"
        : match.sealed ? "told once its tournament is over" : "told once the match is over";
    line.textContent = `Deal commitment ${commitment}: its seed and salt are ${when}.`;
    return line;
  }
  const text = `${match.seed}:${match.seed_salt}`;
  const recipe = `printf '%s:%s' ${match.seed} ${match.seed_salt} | sha256sum`;
  if (!window.crypto || !window.crypto.subtle) {
    line.textContent = `Deal commitment ${commitment}. This browser cannot check it here ` +
        `(it needs https or localhost); check it with: ${recipe}`;
    return line;
  }
  line.textContent = `Deal commitment ${commitment}: checking…`;
  crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then((digest) => {
    const made = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    const verified = made === commitment;
    line.classList.add(verified ? "verified" : "error");
    line.textContent = verified
        ? `Deal commitment verified: SHA-256 of "${text}" is ${commitment}, ` +
          "the commitment published before the first move."
        : `Deal commitment does not match: SHA-256 of "${text}" is ${made}, ` +
          `not the commitment ${commitment}.`;
  });
  return line;
}

function drawMatch(match, log, live, view) {
  const seats = el("table", { class: "seats" },
    el("thead", {}, el("tr", {}, ...["Seat", "Player", "Score", "Rank", "Time-outs"].map(
      (label) => el("th", { scope: "col", text: label })))),
    el("tbody", {}, ...match.seats.map((s) => el("tr", {},
      el("td", { text: String(s.seat) }), el("td", { class: "bot", text: s.player || "open" }),
      el("td", { text: matchStatus(match.status) === "RUNNING" ? "–" : String(s.score) }),
      el("td", { text: matchStatus(match.status) === "RUNNING" ? "–" : String(s.rank) }),
      el("td", { text: String(s.timeouts) + (s.forfeited ? " (forfeited)" : "") })))));
  const finished = matchStatus(match.status) === "FINISHED";
  replaceShowingStep(main,
    el("h1", { text: `Match ${match.match_id}: ${match.game}` }),
    finished ? el("p", {}, el("a", { class: "replay-link", href: `#/matches/${match.match_id}/replay`,
                                     text: "Replay it step by step" })) : "",
    el("p", { class: "match-status", text: `${matchStatus(match.status)}${live ? " (live)" : ""}` +
              ` · ${plural(match.actions, "action")}` }),
    dealCommitment(match),
    el("div", { class: "scroll" }, seats),
    live || view ? tableOf(view, match) : "",
    el("h2", { text: "Play by play" }),
    el("ol", { class: "log" }, ...log.map((line) => el("li", { text: line }))));
}

// Every action of a finished match's record, as its play by play.
function recordLog(record) {
  return record && record.actions ? record.actions.map((a, i) => `${i + 1}. seat ${a.seat}: ${a.text}`) : [];
}

// A running match from its start: the stream gives the table as it stands,
// then the play so far as its spectators were told it (from_start), then
// each event as it comes.
async function matchPage(id) {
  const got = await api(`/api/v1/matches/${encodeURIComponent(id)}`);
  let match = got.match;
  if (matchStatus(match.status) !== "RUNNING") return drawMatch(match, recordLog(got.record), false);
  const log = [];
  let view = null;
  drawMatch(match, log, true, view);
  const events = new EventSource(`/api/v1/matches/${encodeURIComponent(id)}/events?from_start=true`);
  closeLive = () => events.close();
  events.addEventListener("match", (e) => {
    const event = JSON.parse(e.data);
    if (event.snapshot) match = event.snapshot.match;
    if (event.finished && event.finished.match) match = event.finished.match;
    if (event.step > match.actions) match.actions = event.step;
    if (event.view && Object.keys(event.view).length) view = event.view;
    const line = logLine(event);
    if (line) log.push(line);
    drawMatch(match, log, true, view);
  });
  events.addEventListener("end", async () => {
    events.close();
    try {
      const ended = await api(`/api/v1/matches/${encodeURIComponent(id)}`);
      match = ended.match;
      // Over before the stream opened: its record tells what the stream did not.
      const record = recordLog(ended.record);
      const told = log.filter((line) => /^\d+\. /.test(line)).length;
      drawMatch(match, told < record.length ? record : log, false, view);
    } catch (error) {
      showError(error);
    }
  });
}

// ---- Replays ---------------------------------------------------------------

// The view a change (ReplayStep.change, docs/records.md) turns `before` into:
// {"=": value} is the value itself; any other object merges into an object
// key by key (null removes a key), or splices an array ("@": [at, remove,
// items...]) and changes its elements by index; anything else replaces.
// What the change leaves alone is shared with `before`, never altered.
function changedView(before, change) {
  if (change === undefined) return before;
  if (change === null || typeof change !== "object" || Array.isArray(change)) return change;
  if ("=" in change) return change["="];
  if (Array.isArray(before)) {
    const after = before.slice();
    if (change["@"]) {
      const [at, remove, ...items] = change["@"];
      after.splice(at, remove, ...items);
    }
    for (const [key, value] of Object.entries(change)) {
      if (key !== "@") after[Number(key)] = changedView(after[Number(key)], value);
    }
    return after;
  }
  const after = before !== null && typeof before === "object" ? { ...before } : {};
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete after[key];
    else after[key] = changedView(after[key], value);
  }
  return after;
}

// Every step's view of a replay: as it came (ReplayStep.view), or each
// step's change applied to the view before it (changes_only).
function replayViews(replay) {
  let view = {};
  return replay.steps.map((s) => (view = s.view !== undefined ? s.view : changedView(view, s.change)));
}

// What the table was told at a step: the action in words (a sealed answer
// as "answered (sealed)"), and every answer its sealed decision revealed.
function stepText(s) {
  if (!s.step) return "the deal";
  const revealed = (s.revealed || []).map((r) => `seat ${r.seat || 0}: ${r.text}`);
  return `seat ${s.seat || 0}: ${s.text}` + (revealed.length ? ` \u00b7 revealed: ${revealed.join("; ")}` : "");
}

// A perspective of a replay file (hoard replay html): what the table was
// told at each step is written once, in the spectator's steps.
function fileReplay(data, seat) {
  const replay = data.replays[String(seat)];
  const told = data.replays["-1"].steps;
  return { ...replay, steps: replay.steps.map((s, i) => ({ ...told[i], step: i, view: s.view, change: s.change })) };
}

// A replay file's data (hoard replay html): JSON, gzipped, in base64.
async function replayFileData(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const json = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(json).text());
}

const REPLAY_SPEEDS = [["0.5", "\u00bdx"], ["1", "1x"], ["2", "2x"], ["4", "4x"], ["8", "8x"]];

// A finished match step by step, as a seat or a spectator saw it: step
// buttons, play and pause at a chosen speed, a slider, the list of moves
// (each a jump to its step), a link to the step, the perspective, and the
// deal's commitment, checked; the arrow keys step back and forward and the
// space bar plays and pauses. `data` is given when the page carries its
// replays and match itself (hoard replay html); otherwise they are asked of
// the server, each step as the change from the one before.
async function replayPage(id, query, data) {
  const params = new URLSearchParams(query);
  let observer = params.has("seat") ? Number(params.get("seat")) : -1;
  let step = Number(params.get("step") || 0);
  const load = async (seat) => {
    const replay = data ? fileReplay(data, seat)
        : await api(`/api/v1/matches/${encodeURIComponent(id)}/replay?changes_only=true` +
                    (seat >= 0 ? `&seat=${seat}` : ""));
    return { replay, views: replayViews(replay) };
  };
  let { replay, views } = await load(observer);
  const commitment = dealCommitment(
      data ? data.match : (await api(`/api/v1/matches/${encodeURIComponent(id)}`)).match);
  let timer = null;
  const last = () => replay.steps.length - 1;
  const match = () => ({ match_id: replay.match_id, status: "MATCH_STATUS_FINISHED",
                         seats: replay.seats.map((player, seat) => ({ seat, player })) });
  const perspective = el("select", { "aria-label": "Perspective", class: "perspective" },
    el("option", { value: "-1", text: "Spectator" }),
    ...replay.seats.map((player, seat) => el("option", { value: String(seat), text: `Seat ${seat}: ${player}` })));
  const speed = el("select", { "aria-label": "Speed", class: "speed" },
    ...REPLAY_SPEEDS.map(([value, text]) => el("option", { value, text })));
  speed.value = "1";
  const slider = el("input", { type: "range", min: "0", "aria-label": "Step", class: "slider" });
  const button = (label, text, action) => {
    const b = el("button", { type: "button", "aria-label": label, class: label.toLowerCase().replace(/ /g, "-"), text });
    b.addEventListener("click", action);
    return b;
  };
  const start = () => {
    clearInterval(timer);
    timer = setInterval(() => { if (step >= last()) stop(); else go(step + 1); }, 400 / Number(speed.value));
    play.textContent = "|| Pause";
  };
  const play = button("Play", "\u25b6 Play", () => {
    if (timer) return stop();
    if (step >= last()) go(0);
    start();
  });
  const stop = () => { clearInterval(timer); timer = null; play.textContent = "\u25b6 Play"; };
  speed.addEventListener("change", () => { if (timer) start(); });
  const controls = el("p", { class: "controls" },
    button("First step", "|\u25c0", () => go(0)), " ",
    button("Step back", "\u25c0", () => go(step - 1)), " ", play, " ",
    button("Step forward", "\u25b6", () => go(step + 1)), " ",
    button("Last step", "\u25b6|", () => go(last())), " ", slider, " ", speed, " ", perspective);
  const where = el("p", { class: "step-text" });
  const link = el("a", { class: "step-link", text: "Link to this step" });
  const board = el("div", { class: "replay-table" });
  const scores = el("p", { class: "final-scores" });
  const moves = el("ol", { class: "moves", start: "0", "aria-label": "Moves" });
  const drawMoves = () => moves.replaceChildren(...replay.steps.map((s, i) => {
    const jump = el("button", { type: "button", class: "move", "data-step": String(i), text: stepText(s) });
    jump.addEventListener("click", () => { stop(); go(i); });
    return el("li", {}, jump);
  }));
  // The arrow keys and the space bar, but where a control takes them itself.
  const onKey = (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (event.key === "ArrowLeft") go(step - 1);
    else if (event.key === "ArrowRight") go(step + 1);
    else if (event.key === " " && tag !== "BUTTON") play.click();
    else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  closeLive = () => { stop(); document.removeEventListener("keydown", onKey); };
  slider.addEventListener("input", () => go(Number(slider.value)));
  perspective.addEventListener("change", async () => {
    observer = Number(perspective.value);
    try {
      ({ replay, views } = await load(observer));
      drawMoves();
      go(step);
    } catch (error) {
      showError(error);
    }
  });
  function go(to) {
    step = Math.max(0, Math.min(last(), to));
    slider.max = String(last());
    slider.value = String(step);
    perspective.value = String(observer);
    where.textContent = `Step ${step} of ${last()} \u00b7 ${stepText(replay.steps[step])}` +
        ` \u00b7 seen by ${observer < 0 ? "a spectator" : `seat ${observer}`}`;
    const hash = `#/matches/${replay.match_id}/replay?step=${step}` + (observer >= 0 ? `&seat=${observer}` : "");
    link.setAttribute("href", hash);
    if (!data) history.replaceState(null, "", hash);
    replaceShowingStep(board, tableOf(views[step], match()));
    scores.textContent = step === last()
        ? "Final: " + replay.seats.map((p, i) => `seat ${i} ${p} ${replay.scores[i]} (#${replay.ranks[i]})`).join(", ")
        : "";
    for (const item of moves.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
    const current = moves.children[step];
    if (current) {
      current.firstChild.setAttribute("aria-current", "step");
      moves.scrollTop = Math.max(0, current.offsetTop - moves.clientHeight / 2);
    }
  }
  drawMoves();
  main.replaceChildren(el("h1", { text: `Replay of ${replay.match_id}: ${replay.game}` }),
                       commitment, controls, where, link, scores,
                       el("div", { class: "replay" }, board,
                          el("nav", { class: "move-list", "aria-label": "Move list" }, el("h2", { text: "Moves" }), moves)));
  go(step);
}

// ---- Routing ---------------------------------------------------------------

async function route() {
  closeLive();
  closeLive = () => {};
  const [where, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = where.split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "matches" && parts[1] && parts[2] === "replay") await replayPage(parts[1], query);
    else if (parts[0] === "matches" && parts[1]) await matchPage(parts[1]);
    else if (parts[0] === "matches") await matchesPage(query);
    else if (parts[0] === "play") await playPage(parts[1] || "");
    else if (parts[0] === "tournaments" && parts[1]) await tournamentPage(parts[1]);
    else if (parts[0] === "tournaments") await tournamentsPage();
    else await leaderboardPage(parts[0] === "leaderboard" ? parts[1] : "");
  } catch (error) {
    showError(error);
  }
}

if (window.HOARD_REPLAY_GZIP) {
  // A self-contained replay file (hoard replay html): no server.
  replayFileData(window.HOARD_REPLAY_GZIP)
      .then((data) => replayPage(data.match_id, location.hash.split("?")[1] || "", data)).catch(showError);
} else {
  window.addEventListener("hashchange", route);
  route();
}
