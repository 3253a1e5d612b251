// The web app in a real browser: headless Chromium (Debian's) driven by
// puppeteer-core, against a real `hoard serve --http`.
//
//   node tests/web/browser_test.js build/hoard SCREENSHOT_DIR [DOCS_DIR]
//
// Plays a tournament of built-in bots, then checks what a user sees: the
// leaderboard lists its bots with their intervals and sorts by a column;
// the tournament page shows it finished with its standings and leaderboard;
// a running tournament's page advances by itself; a phone-sized screen has
// no sideways scrolling; each game's table is drawn, live and replayed, on a
// desktop and a phone; axe-core finds no serious accessibility violation.
// Saves a screenshot of each page (and into DOCS_DIR, docs/web, each game's
// live page and replay, desktop and phone). Prints one line per check and a
// closing 'N passed, M failed'.
"use strict";

const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const puppeteer = require("puppeteer-core");
const webServer = require("./harness.js");
const { check, finish } = webServer;

const HOARD = path.resolve(process.argv[2] || "");
const SHOTS = path.resolve(process.argv[3] || "web-screenshots");
const DOCS = process.argv[4] ? path.resolve(process.argv[4]) : null;
const AXE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const DESKTOP = { width: 1280, height: 800 }, PHONE = { width: 390, height: 844 };
const CHROMIUM = process.env.HOARD_CHROMIUM || "/usr/bin/chromium";
const serve = (work) => webServer.serve(HOARD, work);
const hoard = (...args) => webServer.hoard(HOARD, ...args);

async function rowsOf(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => rows.map((row) => ({
    bot: row.dataset.bot,
    cells: [...row.children].map((cell) => cell.textContent),
    interval: row.querySelector(".interval") !== null,
  })));
}

// The violations axe-core finds on the page as it stands whose impact is
// serious or critical: [{id, impact, nodes}].
async function seriousViolations(page) {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })));
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

// A screenshot of the page as a desktop and as a phone shows it, named
// NAME.png and NAME-phone.png, into the screenshots and the docs; the page is
// left at the desktop's size.
async function shotsOf(page, name, ready) {
  for (const [size, suffix] of [[DESKTOP, ""], [PHONE, "-phone"]]) {
    await page.setViewport(size);
    await ready();
    for (const dir of DOCS ? [SHOTS, DOCS] : [SHOTS]) {
      await page.screenshot({ path: path.join(dir, `${name}${suffix}.png`), fullPage: true });
    }
  }
  await page.setViewport(DESKTOP);
}

async function main() {
  fs.mkdirSync(SHOTS, { recursive: true });
  if (DOCS) fs.mkdirSync(DOCS, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hoard-browser-"));
  const { server, grpc, web } = await serve(work);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    hoard(work, grpc, "tournament", "create", "--game", "village", "--players", "3",
          "--format", "duplicate", "--rounds", "5", "--seed", "4",
          "--participant", "heuristic=builtin:heuristic", "--participant", "random=builtin:random",
          "--participant", "first=builtin:first", "--watch", "--quiet");
    const page = await browser.newPage();
    await page.setViewport(DESKTOP);
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    // What the server's Content-Security-Policy blocks, as the console and
    // the page's own violation events report it.
    const violations = [];
    page.on("console", (message) => {
      if (/Content.Security.Policy|CSP violation/i.test(message.text())) violations.push(message.text());
    });
    await page.evaluateOnNewDocument(() => {
      document.addEventListener("securitypolicyviolation", (event) =>
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
    });

    // A newcomer's path: the main job's tournament, then the server's
    // address: the home page opens on the game just played.
    const newcomer = await browser.newPage();
    await newcomer.goto(`${web}/`);
    await newcomer.waitForSelector("table.leaderboard tbody tr");
    const home = { game: await newcomer.$eval("select", (s) => s.value),
                   rows: (await rowsOf(newcomer, "table.leaderboard")).length,
                   first: (await (await fetch(`${web}/api/v1/games`)).json()).games[0].id };
    await newcomer.close();
    check("the home page opens on the leaderboard of the game whose matches are newest",
          home.game === "village" && home.rows === 3, home);

    // The leaderboard of the game.
    const landing = await page.goto(`${web}/#/leaderboard/village`);
    const policy = landing.headers()["content-security-policy"] || "";
    check("the app is served with a content security policy that forbids inline script and framing",
          policy.includes("script-src 'self'") && !policy.includes("unsafe") &&
          policy.includes("frame-ancestors 'none'") && landing.headers()["x-frame-options"] === "DENY",
          landing.headers());
    await page.waitForSelector("table.leaderboard tbody tr");
    let rows = await rowsOf(page, "table.leaderboard");
    check("the leaderboard lists the tournament's bots",
          rows.map((r) => r.bot).sort().join(" ") === "first heuristic random", rows);
    check("each with its ML rating and interval, drawn and written",
          rows.every((r) => r.interval && /[+\u2212]\d+\?? \[[+\u2212]\d+, [+\u2212]\d+\]/
                                                .test(r.cells[2])), rows.map((r) => r.cells[2]));
    const board = await (await fetch(`${web}/api/v1/leaderboard?game=village`)).json();
    const provisional = board.rows.filter((r) => r.provisional).map((r) => r.bot).sort();
    const marked = rows.filter((r) => /\d\? \[/.test(r.cells[2])).map((r) => r.bot).sort();
    const firstMarked = rows.findIndex((r) => /\d\? \[/.test(r.cells[2]));
    check("provisional ratings are marked ? as the API says, below every established one",
          marked.join(" ") === provisional.join(" ") &&
          (firstMarked < 0 || rows.slice(firstMarked).every((r) => /\d\? \[/.test(r.cells[2]))),
          { marked, provisional, order: rows.map((r) => r.cells[2]) });
    const best = rows.reduce((a, b) => (Number(b.cells[2].match(/^[+\u2212]?\d+/)[0].replace("\u2212", "-")) >
                                        Number(a.cells[2].match(/^[+\u2212]?\d+/)[0].replace("\u2212", "-")) ? b : a));
    check("the heuristic has the best rating", best.bot === "heuristic", rows.map((r) => r.cells[2]));
    const heat = await page.$$eval("table.head-to-head tbody tr", (trs) => trs.map((tr) => ({
      bot: tr.dataset.bot,
      cells: [...tr.querySelectorAll("td")].map((td) => ({ text: td.textContent, score: td.dataset.score })) })));
    const heuristicRow = heat.find((r) => r.bot === "heuristic");
    check("the head-to-head heat map: every pair, each cell written, the heuristic's full",
          heat.length === 3 && heat.every((r) => r.cells.length === 3) && heuristicRow &&
          heuristicRow.cells.filter((c) => c.text === "100%").length === 2, heat);
    // One axis for every bar: each diamond sits where the axis in the
    // column's head puts its rating.
    const geometry = await page.evaluate(() => {
      const centre = (node) => { const r = node.getBoundingClientRect(); return r.left + r.width / 2; };
      return {
        ticks: [...document.querySelectorAll("th[data-key='ml'] .axis .tick")].map((t) => ({
          value: Number(t.dataset.value), x: centre(t) })),
        points: [...document.querySelectorAll("table.leaderboard tbody tr")].map((tr) => ({
          bot: tr.dataset.bot, ml: Number(tr.querySelector("td.ml").dataset.value),
          x: centre(tr.querySelector(".interval .point")) })),
      };
    });
    const [t0, t1] = [geometry.ticks[0], geometry.ticks[geometry.ticks.length - 1]];
    const onAxis = (v) => t0.x + (v - t0.value) * (t1.x - t0.x) / (t1.value - t0.value);
    check("every interval bar is drawn on the one axis in the column's head",
          geometry.ticks.length >= 2 && geometry.points.length === 3 &&
          geometry.points.every((p) => Math.abs(p.x - onAxis(p.ml)) < 2), geometry);
    // Who is likely best: P(1st) in the table, every place in its own table.
    const firsts = rows.map((r) => r.cells[3]);
    const heuristicFirst = Number(board.rows.find((r) => r.bot === "heuristic").rank_probabilities[0]);
    check("each bot's chance of being first, as the API gives it",
          firsts.every((text) => /^(<0\.1|>99\.9|\d+(\.\d)?)%$/.test(text)) && heuristicFirst > 0.9 &&
          board.rows.reduce((sum, r) => sum + Number(r.rank_probabilities[0]), 0) > 0.999 &&
          Number(board.rank_samples) > 0, { firsts, heuristicFirst });
    const ranks = await rowsOf(page, "table.ranks");
    check("the table of places: a row per bot, a column per place, each row summing to 100%",
          ranks.length === 3 && ranks.every((r) => r.cells.length === 4) &&
          board.rows.every((r) => Math.abs(r.rank_probabilities.reduce((a, b) => a + Number(b), 0) - 1) < 1e-9),
          ranks);
    await page.screenshot({ path: path.join(SHOTS, "leaderboard-village.png"), fullPage: true });
    const leaderboardAxe = await seriousViolations(page);
    check("axe-core: the leaderboard has no serious or critical accessibility violation",
          leaderboardAxe.length === 0, leaderboardAxe);

    // Sorted by Elo, then the other way.
    await page.click('th[data-key="elo"] button');
    rows = await rowsOf(page, "table.leaderboard");
    const elo = rows.map((r) => Number(r.cells[4]));
    check("a click on Elo sorts by it, highest first",
          elo.every((v, i) => i === 0 || elo[i - 1] >= v) &&
          await page.$eval('th[data-key="elo"]', (th) => th.getAttribute("aria-sort")) === "descending",
          elo);
    await page.click('th[data-key="elo"] button');
    rows = await rowsOf(page, "table.leaderboard");
    const again = rows.map((r) => Number(r.cells[4]));
    check("a second click sorts it the other way", again.every((v, i) => i === 0 || again[i - 1] <= v),
          again);

    // The finished tournament.
    await page.goto(`${web}/#/tournaments/1`);
    await page.waitForSelector("table.standings tbody tr");
    await page.waitForSelector("table.leaderboard tbody tr");
    const progress = await page.$eval(".progress-text", (p) => p.textContent);
    check("the tournament page: finished, 15 of 15 matches",
          progress.includes("FINISHED") && progress.includes("15 / 15 matches"), progress);
    const standings = await rowsOf(page, "table.standings");
    check("its standings list the three bots", standings.length === 3, standings);
    const leaderboardElo = Object.fromEntries((await rowsOf(page, "table.leaderboard"))
                                                .map((r) => [r.bot, r.cells[4]]));
    check("the standings show the leaderboard's Elo for every bot",
          standings.every((r) => r.cells[2] === leaderboardElo[r.bot]), { standings, leaderboardElo });
    await page.screenshot({ path: path.join(SHOTS, "tournament-finished.png"), fullPage: true });

    // A tournament running now: its page advances by itself. (The heuristic
    // keeps its matches hosted: random against first alone would play
    // through all 40,000 before the page is read twice.)
    hoard(work, grpc, "tournament", "create", "--game", "village", "--players", "2",
          "--rounds", "20000", "--concurrency", "1",
          "--participant", "a=builtin:random", "--participant", "b=builtin:heuristic");
    await page.goto(`${web}/#/tournaments/2`);
    await page.waitForSelector(".progress-text");
    const finishedNow = async () => page.$eval(".bar", (bar) => Number(bar.getAttribute("aria-valuenow")));
    const first = await finishedNow();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const later = await finishedNow();
    const text = await page.$eval(".progress-text", (p) => p.textContent);
    check("a running tournament's page advances without a reload",
          later > first && text.includes("RUNNING") && text.includes("matches/s"),
          { first, later, text });
    await page.screenshot({ path: path.join(SHOTS, "tournament-live.png"), fullPage: true });
    hoard(work, grpc, "tournament", "cancel", "2");

    // A ladder: who plays and its leaderboard, kept live.
    hoard(work, grpc, "ladder", "create", "web-ladder", "--game", "village", "--concurrency", "1",
          "--participant", "a=builtin:random", "--participant", "b=builtin:first",
          "--participant", "c=builtin:heuristic");
    await page.goto(`${web}/#/tournaments/3`);
    await page.waitForSelector("table.leaderboard tbody tr");
    const ladderText = async () => page.$eval(".progress-text", (p) => p.textContent);
    const playedNow = async () => Number((await ladderText()).match(/(\d+) match/)[1]);
    const before = await playedNow();
    // The leaderboard is read again every few seconds: all three soon.
    await page.waitForFunction(
      () => document.querySelectorAll("table.leaderboard tbody tr").length === 3,
      { timeout: 20000 }).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const heading = await page.$eval("h1", (h) => h.textContent);
    const ladderBoard = await rowsOf(page, "table.leaderboard");
    check("a ladder's page: who is present, its live leaderboard, advancing without a reload",
          heading === "Ladder: web-ladder" && (await ladderText()).includes("3 of 3 entrants present")
          && (await playedNow()) > before && ladderBoard.length === 3,
          { heading, text: await ladderText(), before, ladderBoard });
    await page.screenshot({ path: path.join(SHOTS, "ladder-live.png"), fullPage: true });
    hoard(work, grpc, "ladder", "close", "web-ladder");
    // Its last match ends before the pages below list matches.
    for (let i = 0; i < 100 && !hoard(work, grpc, "ladder", "show", "web-ladder")
                                  .includes("CANCELLED"); ++i) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The matches, filtered; a finished one's play by play.
    await page.goto(`${web}/#/matches?game=village&status=MATCH_STATUS_FINISHED`);
    await page.waitForSelector("table.matches tbody tr");
    const listed = await page.$$eval("table.matches tbody tr", (rows) => rows.map((row) => ({
      game: row.querySelector(".game").textContent, status: row.querySelector(".status").textContent })));
    check("the matches page lists the finished village matches, and only them",
          listed.length >= 15 && listed.every((m) => m.game === "village" && m.status === "FINISHED"),
          listed.slice(0, 3));
    await page.screenshot({ path: path.join(SHOTS, "matches.png"), fullPage: true });
    // A page at a time, newest first: Older leads to older ones, Newer back.
    const pageOf = async () => page.$$eval("table.matches tbody tr", (rows) => rows.map(
      (row) => Number(row.dataset.match.slice(1))));
    const links = async () => page.$$eval(".paging a", (as) => as.map((a) => a.textContent));
    const pageQuery = "game=village&status=MATCH_STATUS_FINISHED&page_size=5";
    await page.goto(`${web}/#/matches?${pageQuery}`);
    // The address changes only after its hash: the list before it stays
    // until the page is drawn again.
    await page.waitForFunction(() => {
      const rows = document.querySelectorAll("table.matches tbody tr").length;
      return rows > 0 && rows <= 5;
    }, { timeout: 5000 }).catch(() => {});
    const newest = await pageOf();
    const newestLinks = await links();
    const newestListed = (await (await fetch(`${web}/api/v1/matches?${pageQuery}`)).json()).matches;
    await page.click(".paging a.older");
    await page.waitForFunction((first) => {
      const row = document.querySelector("table.matches tbody tr");
      return row && row.dataset.match !== first;
    }, {}, `m${newest[0]}`);
    const older = await pageOf();
    const olderLinks = await links();
    check("the matches page: the newest first, five to a page, with only an Older link",
          newest.length === 5 && newest.every((m, i) => i === 0 || newest[i - 1] > m) &&
          newest[0] === Number(newestListed[0].match_id.slice(1)) &&
          newestLinks.length === 1 && newestLinks[0].startsWith("Older"), { newest, newestLinks });
    check("Older matches: the next five, all older, and a Newer link back",
          older.length === 5 && older[0] < newest[4] && older.every((m, i) => i === 0 || older[i - 1] > m) &&
          olderLinks.some((t) => t.startsWith("\u2190 Newer")) && olderLinks.some((t) => t.startsWith("Older")),
          { older, olderLinks });
    await page.click(".paging a.newer");
    await page.waitForFunction((first) => {
      const row = document.querySelector("table.matches tbody tr");
      return row && row.dataset.match === first;
    }, {}, `m${newest[0]}`);
    const back = await pageOf();
    check("Newer matches: back to the newest five, with no Newer link",
          back.join() === newest.join() && (await links()).every((t) => t.startsWith("Older")), back);
    await page.click("table.matches tbody tr a");
    await page.waitForSelector("ol.log li");
    const played = await page.$$eval("ol.log li", (items) => items.length);
    const status = await page.$eval(".match-status", (p) => p.textContent);
    check("a finished match's page: its final table and every action",
          status.startsWith("FINISHED") && played > 10, { status, played });
    await page.screenshot({ path: path.join(SHOTS, "match-finished.png"), fullPage: true });

    // The replay viewer, on the finished tournament's first match (three
    // seats): to the end, then a seat's perspective at a middle step.
    const replayed = JSON.parse(hoard(work, grpc, "match", "get", "m1", "--record"));
    const finalScores = replayed.scores;
    await page.goto(`${web}/#/matches/m1/replay`);
    await page.waitForSelector(".step-text");
    await page.click("button.last-step");
    const endText = await page.$eval(".final-scores", (p) => p.textContent);
    const steps = replayed.actions.length;
    check("the replay viewer steps to the end and shows the final scores",
          (await page.$eval(".step-text", (p) => p.textContent)).startsWith(`Step ${steps} of ${steps}`) &&
          finalScores.every((score, seat) => endText.includes(`seat ${seat} `) && endText.includes(` ${score} (#`)),
          { endText, finalScores });
    // Its deal commitment, hashed again in the browser from the seed and salt.
    const verifiedText = (p) => p.waitForFunction(
        () => (document.querySelector(".deal-commitment") || { textContent: "" })
            .textContent.startsWith("Deal commitment verified"), { timeout: 5000 })
        .then(() => p.$eval(".deal-commitment", (line) => line.textContent), () => "");
    const verified = await verifiedText(page);
    check("the replay page checks the deal commitment in the browser: verified",
          /^[0-9a-f]{64}$/.test(replayed.seed_commitment) &&
          verified.includes(`"${replayed.seed}:${replayed.seed_salt}"`) &&
          verified.includes(replayed.seed_commitment), { verified, commitment: replayed.seed_commitment });
    // Where the browser has no crypto.subtle (plain http to another host),
    // the page says so and gives the command that checks it.
    const insecure = await browser.newPage();
    await insecure.evaluateOnNewDocument(() => {
      Object.defineProperty(Crypto.prototype, "subtle", { get: () => undefined });
    });
    await insecure.goto(`${web}/#/matches/m1/replay`);
    await insecure.waitForSelector(".deal-commitment");
    const unchecked = await insecure.$eval(".deal-commitment", (line) => line.textContent);
    check("without crypto.subtle the replay page says it cannot check the commitment, and how to",
          unchecked.includes("cannot check it here") &&
          unchecked.includes(`printf '%s:%s' ${replayed.seed} ${replayed.seed_salt} | sha256sum`),
          unchecked);
    await insecure.close();
    await page.screenshot({ path: path.join(SHOTS, "replay-end.png"), fullPage: true });
    await page.goto(`${web}/#/matches/m1/replay?step=5`);
    await page.waitForFunction(
        () => (document.querySelector(".step-text") || { textContent: "" }).textContent.startsWith("Step 5 of"));
    // A drawn thing's facts in words are its <title>.
    const handsAt = () => page.$$eval(".player", (players) => players.map((p) => ({
      seat: p.dataset.seat, hand: p.querySelector(".hand > title").textContent })));
    const spectator = await handsAt();
    await page.select("select.perspective", "2");
    await page.waitForFunction(() => document.querySelector(".step-text").textContent.includes("seen by seat 2"));
    const seat2 = await handsAt();
    const counted = (h) => /^Hand: \d+ cards$/.test(h.hand);
    check("step 5 by link; a spectator sees no hand",
          (await page.$eval(".step-text", (p) => p.textContent)).startsWith("Step 5 of") &&
          spectator.length === 3 && spectator.every(counted), spectator);
    check("seat 2's perspective shows seat 2's hand, and only its",
          seat2.length === 3 && !counted(seat2[2]) && counted(seat2[0]) && counted(seat2[1]) &&
          page.url().endsWith("replay?step=5&seat=2"), { seat2, url: page.url() });
    await page.screenshot({ path: path.join(SHOTS, "replay-seat2.png"), fullPage: true });

    // The replay's controls: the arrow keys step, the space bar plays and
    // pauses, the speed is chosen, and the move list jumps to a step.
    const stepShown = () => page.$eval(".step-text", (p) => Number(p.textContent.match(/^Step (\d+) of/)[1]));
    await page.$eval("h1", (h1) => { document.activeElement.blur(); h1.focus(); });
    await page.keyboard.press("ArrowRight");
    const afterRight = await stepShown();
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    const afterLeft = await stepShown();
    check("the arrow keys step forward and back", afterRight === 6 && afterLeft === 4, { afterRight, afterLeft });
    // Each step is animated briefly where it changed the table, and not at
    // all for a reader who asks for reduced motion.
    const animated = () => page.evaluate(() => [...document.querySelectorAll(
        "svg.hoard-table .entered, svg.hoard-table .changed")].map((n) => getComputedStyle(n).animationName));
    await page.keyboard.press("ArrowRight");
    const moving = await animated();
    await page.emulateMediaFeatures([{ name: "prefers-reduced-motion", value: "reduce" }]);
    await page.keyboard.press("ArrowRight");
    const still = await animated();
    await page.emulateMediaFeatures([]);
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    check("a step animates what it changed on the table, and nothing for prefers-reduced-motion",
          moving.length > 0 && moving.every((name) => name === "hoard-step") &&
          still.length > 0 && still.every((name) => name === "none") && (await stepShown()) === 4,
          { moving, still });
    await page.keyboard.press("Space");
    const playing = await page.$eval("button.play", (b) => b.textContent);
    await page.keyboard.press("Space");
    const paused = await page.$eval("button.play", (b) => b.textContent);
    check("the space bar plays and pauses", playing.includes("Pause") && paused.includes("Play"), { playing, paused });
    const movesListed = await page.$$eval(".moves .move", (items) => items.map((b) => b.textContent));
    await page.click(`.moves .move[data-step="${steps - 3}"]`);
    const jumped = await stepShown();
    const current = await page.$eval(".moves .move[aria-current]", (b) => Number(b.dataset.step));
    check("the move list holds the deal and every action, and a click jumps to its step",
          movesListed.length === steps + 1 && movesListed[0] === "the deal" &&
          movesListed[1] === `seat ${replayed.actions[0].seat || 0}: ${replayed.actions[0].text}` &&
          jumped === steps - 3 && current === steps - 3 && page.url().includes(`step=${steps - 3}&`),
          { listed: movesListed.length, first: movesListed.slice(0, 2), jumped, current });
    const speeds = await page.$$eval("select.speed option", (options) => options.map((o) => o.value));
    await page.select("select.speed", "8");
    await page.click("button.play");
    const ended = await page.waitForFunction((n) => document.querySelector(".step-text").textContent
        .startsWith(`Step ${n} of ${n}`) && document.querySelector("button.play").textContent.includes("Play"),
        { timeout: 10000 }, steps).then(() => true, () => false);
    check("a speed is chosen, and play goes on to the last step and stops there",
          speeds.length >= 3 && speeds.includes("1") && speeds.includes("8") && ended, { speeds, ended });

    // The self-contained replay file, with the network off.
    const record = path.join(work, "m1.json");
    fs.writeFileSync(record, JSON.stringify(replayed));
    const html = path.join(SHOTS, "replay-m1.html");
    fs.writeFileSync(html, execFileSync(HOARD, ["replay", "html", record], { encoding: "utf8" }));
    const offline = await browser.newPage();
    const requests = [];
    offline.on("request", (request) => requests.push(request.url()));
    await offline.setOfflineMode(true);
    await offline.goto(`file://${html}`);
    await offline.waitForSelector(".step-text");
    await offline.click("button.last-step");
    const offlineEnd = await offline.$eval(".final-scores", (p) => p.textContent);
    await offline.select("select.perspective", "1");
    await offline.click("button.first-step");
    const offlineHands = await offline.$$eval(".player .hand > title", (items) => items.map((p) => p.textContent));
    const offlineVerified = await verifiedText(offline);
    check("hoard replay html checks the deal commitment with no server",
          offlineVerified.includes(replayed.seed_commitment), offlineVerified);
    check("hoard replay html: one file that replays offline, every perspective in it",
          offlineEnd.startsWith("Final: ") && !/^Hand: \d+ cards$/.test(offlineHands[1]) &&
          /^Hand: \d+ cards$/.test(offlineHands[0]) &&
          requests.every((url) => url.startsWith("file://")), { offlineEnd, offlineHands, requests });
    await offline.screenshot({ path: path.join(SHOTS, "replay-file.png"), fullPage: true });
    await offline.close();

    // The end of a match as its replay's last step draws it: a Frost
    // Dragon's Treasure match the deck ended names the quest that could not
    // begin, not as a quest played; a Dragon's Gold match the turn cap ended
    // counts the turns played, not one more. (These seeds end so.)
    for (const [game, flags, ending] of [
      ["frost_dragon", ["--players", "4", "--seed", "1"],
       /^The deck ran out before quest \d+ could begin \(\d+ cards? left for 4 adventurers\) .* ended: deck exhausted$/],
      ["dragons_gold", ["--players", "3", "--seed", "1", "--option", "max_turns=30"],
       /^Phase: over \u00b7 turn 30 \u00b7 .* ended: turn cap$/]]) {
      const ended = path.join(work, `${game}-ended.json`);
      execFileSync(HOARD, ["play", "--game", game, "--bots", "random", "--quiet", "--record", ended, ...flags],
                   { stdio: "ignore" });
      const endHtml = path.join(SHOTS, `replay-${game}-ended.html`);
      // Every step's view of a long match: more than execFileSync's usual 1 MB.
      fs.writeFileSync(endHtml, execFileSync(HOARD, ["replay", "html", ended],
                                             { encoding: "utf8", maxBuffer: 256 << 20 }));
      const endPage = await browser.newPage();
      await endPage.goto(`file://${endHtml}`);
      await endPage.waitForSelector(".step-text");
      await endPage.click("button.last-step");
      const state = await endPage.$eval(`.table.${game} .state`, (p) => p.textContent);
      check(`${game}: the last step of a match ${game === "frost_dragon" ? "the deck ended" : "the turn cap ended"} ` +
            "says how it ended", ending.test(state), state);
      await endPage.close();
    }

    // Every game's table, in a replay: a spectator sees no hand; a seat's
    // perspective shows its own and changes no other.
    let sealedDecisions = 0;
    for (const [game, kind] of [["dragons_gold", ".dragon"], ["frost_dragon", ".map .space"],
                                ["hedonia", ".gap"], ["village", ".favor .space"]]) {
      const created = hoard(work, grpc, "match", "create", "--game", game, "--seed", "9",
                            "--seats", "builtin:random,builtin:random,builtin:random");
      const matchId = created.match(/m\d+/)[0];
      for (let i = 0; i < 100 && !hoard(work, grpc, "match", "get", matchId).includes("FINISHED"); ++i) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const handsSeenBy = async (seat) => {
        await page.goto(`${web}/#/matches/${matchId}/replay?step=12` + (seat >= 0 ? `&seat=${seat}` : ""));
        await page.waitForFunction((s, id) => {
          const text = (document.querySelector(".step-text") || { textContent: "" }).textContent;
          const title = (document.querySelector("h1") || { textContent: "" }).textContent;
          return title.startsWith(`Replay of ${id}:`) && text.startsWith("Step 12 of") &&
                 text.endsWith(s < 0 ? "seen by a spectator" : `seen by seat ${s}`);
        }, {}, seat, matchId);
        // Each hand's facts (its title), and how many things of it are
        // drawn face down.
        return page.$$eval(`.table.${game} .player`, (players) => players.map((p) => ({
          fact: p.querySelector(".hand > title").textContent,
          faceDown: p.querySelectorAll(".hand .face-down .back").length })));
      };
      const spectatorHands = await handsSeenBy(-1);
      const drawn = await page.$$eval(`.table.${game} ${kind}`, (items) => items.length);
      await page.screenshot({ path: path.join(SHOTS, `replay-${game}-spectator.png`), fullPage: true });
      const seat1Hands = await handsSeenBy(1);
      const spectator = spectatorHands.map((h) => h.fact), seat1 = seat1Hands.map((h) => h.fact);
      await page.screenshot({ path: path.join(SHOTS, `replay-${game}-seat1.png`), fullPage: true });
      // Hands are drawn face down where the viewer may not see them: a hand
      // of N cards (or tokens, or objects) the view does not show, and only
      // such a hand.
      const hidden = (h) => /^(Hand|Treasure): [1-9]\d* (cards?|tokens?)$/.test(h.fact);
      check(`${game}: hands the viewer may not see are drawn face down, and only those`,
            spectatorHands.some(hidden) && spectatorHands.every((h) => hidden(h) === (h.faceDown > 0)) &&
            seat1Hands[1].faceDown === 0 && !hidden(seat1Hands[1]) &&
            seat1Hands.every((h, i) => i === 1 || hidden(h) === (h.faceDown > 0)), { spectatorHands, seat1Hands });
      // The drawing scales to a phone and stays legible there: no text
      // drawn smaller than 9 px, no sideways scrolling.
      const shot = `${game.replace(/_/g, "-")}-replay`;
      await shotsOf(page, shot, async () => page.waitForSelector(`.table.${game} svg.hoard-table`));
      await page.setViewport(PHONE);
      const phone = await page.evaluate(() => {
        const svg = document.querySelector("svg.hoard-table");
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const sizes = [...svg.querySelectorAll("text")].map((t) => scale * parseFloat(getComputedStyle(t).fontSize));
        return { width: svg.getBoundingClientRect().width, smallest: Math.min(...sizes),
                 overflow: document.documentElement.scrollWidth - window.innerWidth };
      });
      await page.setViewport(DESKTOP);
      check(`${game}: on a 390 px phone the drawing fits the screen and no text is under 9 px`,
            phone.width <= 390 && phone.width > 300 && phone.smallest >= 9 && phone.overflow <= 0, phone);
      const replayAxe = await seriousViolations(page);
      check(`axe-core: ${game}'s replay has no serious or critical accessibility violation`,
            replayAxe.length === 0, replayAxe);
      // A thing that is a legal action is marked to be clicked: the drawing
      // given a key's action index marks that thing, and only it.
      const marked = await page.evaluate(async (g, id) => {
        const replay = await (await fetch(`/api/v1/matches/${id}/replay?seat=1`)).json();
        const key = { village: "stall:1", dragons_gold: "dragon:0", frost_dragon: "space:3", hedonia: "gap:0" }[g];
        const svg = HoardTables[g](replay.steps[12].view[g], { seats: [] }, { actions: { [key]: 7 } });
        const actionable = [...svg.querySelectorAll("[data-action]")];
        return { key, marked: actionable.map((n) => ({ thing: n.dataset.thing, action: n.dataset.action,
                                                       role: n.getAttribute("role"), tabindex: n.getAttribute("tabindex") })) };
      }, game, matchId);
      check(`${game}: a legal action's thing carries its index (data-action), as a button`,
            marked.marked.length === 1 && marked.marked[0].thing === marked.key && marked.marked[0].action === "7" &&
            marked.marked[0].role === "button" && marked.marked[0].tabindex === "0", marked);
      // What the hand-drawn table leaves out is listed below it, from the
      // protocol; and the table any game gets from the protocol alone shows
      // every field of the view, repeated messages as rows, enums by name.
      const fromProtocol = await page.evaluate(async (g, id) => {
        const replay = await (await fetch(`/api/v1/matches/${id}/replay?seat=1`)).json();
        const view = replay.steps[12].view[g];
        const rest = [...document.querySelectorAll(".rest-of-view > dl > dd")].map((dd) => dd.dataset.field);
        const table = protocolTable(g, view);
        const top = [...table.querySelectorAll(":scope > dl > dd")].map((dd) => dd.dataset.field);
        const players = table.querySelector(":scope > dl > dd[data-field=players] table");
        // Shown in place of the hand-drawn one, for the screenshot.
        document.querySelector(".replay-table").replaceChildren(table);
        return { rest, top, fields: VIEW_SCHEMA.messages[VIEW_SCHEMA.views[g]].map((f) => f.name),
                 held: Object.keys(view), players: players ? players.querySelectorAll(":scope > tbody > tr").length : 0,
                 text: table.textContent };
      }, game, matchId);
      await page.screenshot({ path: path.join(SHOTS, `replay-${game}-from-protocol.png`), fullPage: true });
      // Every step of every perspective, rebuilt from the changes the viewer
      // fetches, is the whole view the server gives step by step.
      const rebuilt = await page.evaluate(async (id) => {
        const canonical = (v) => JSON.stringify(v, (key, value) => value && typeof value === "object" &&
            !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))) : value);
        const out = [];
        for (const seat of [-1, 0, 1, 2]) {
          const query = seat >= 0 ? `seat=${seat}` : "";
          const whole = await (await fetch(`/api/v1/matches/${id}/replay?${query}`)).text();
          const changed = await (await fetch(`/api/v1/matches/${id}/replay?changes_only=true&${query}`)).text();
          const views = replayViews(JSON.parse(changed));
          const steps = JSON.parse(whole).steps;
          const differ = steps.map((s, i) => i).filter((i) => canonical(views[i]) !== canonical(steps[i].view));
          out.push({ seat, steps: steps.length, differ, whole: whole.length, changed: changed.length });
        }
        return out;
      }, matchId);
      check(`${game}: every step of every perspective, rebuilt from the changes, is the whole view, ` +
            "in a fraction of the bytes",
            rebuilt.length === 4 && rebuilt.every((r) => r.steps > 12 && r.differ.length === 0 &&
                                                         r.changed * 5 < r.whole), rebuilt);
      // A sealed answer (a Dragon's Gold vote, a Hedonia claim) reads as
      // sealed until the last answer of its decision is in; that step tells
      // them all.
      if (game === "dragons_gold" || game === "hedonia") {
        const played = JSON.parse(hoard(work, grpc, "match", "get", matchId, "--record")).actions;
        const sealed = await page.evaluate(async (id) => {
          const replay = await (await fetch(`/api/v1/matches/${id}/replay?changes_only=true&seat=1`)).json();
          const first = replay.steps.findIndex((s) => s.text === "answered (sealed)");
          const reveal = replay.steps.findIndex((s, i) => i >= first && (s.revealed || []).length);
          return { first, reveal, answers: first < 0 ? [] : replay.steps[reveal].revealed.map((r) => r.text) };
        }, matchId);
        if (sealed.first > 0) {
          sealedDecisions += 1;
          const shownAt = async (i) => {
            await page.click(`.moves .move[data-step="${i}"]`);
            return page.$eval(".step-text", (p) => p.textContent);
          };
          const before = await shownAt(sealed.first);
          const after = await shownAt(sealed.reveal);
          const answer = { seat: 0, ...played[sealed.first - 1] };  // seat 0 is left out of the JSON
          check(`${game}: a sealed answer is shown only once its decision is complete`,
                before === `Step ${sealed.first} of ${played.length} \u00b7 seat ${answer.seat}: answered (sealed) ` +
                           "\u00b7 seen by seat 1" &&
                sealed.reveal > sealed.first && after.includes(" \u00b7 revealed: ") &&
                after.includes(`seat ${answer.seat}: ${answer.text}`) && sealed.answers.includes(answer.text),
                { sealed, before, after, answer });
        }
      }
      const shownByHand = { village: ["favor", "players"], dragons_gold: ["dragons", "players"],
                            frost_dragon: ["map", "players"], hedonia: ["gaps", "players"] }[game];
      check(`${game}: the fields its table does not show are listed below it, and only those`,
            fromProtocol.rest.includes("rules") &&
            shownByHand.every((field) => !fromProtocol.rest.includes(field)), fromProtocol.rest);
      check(`${game}: the table from the protocol shows every field the view holds, in the ` +
            ".proto's order, a row per player, enums by name",
            fromProtocol.top.length > 5 &&
            fromProtocol.top.join() === fromProtocol.fields.filter((f) => fromProtocol.held.includes(f)).join() &&
            fromProtocol.players === 3 && !/[A-Z]{3,}_[A-Z_]{3,}/.test(fromProtocol.text),
            { top: fromProtocol.top, players: fromProtocol.players,
              enums: fromProtocol.text.match(/[A-Z]{3,}_[A-Z_]{3,}/g) });
      // The game's leaderboard and matches pages too: a screenshot of each.
      await page.goto(`${web}/#/leaderboard/${game}`);
      await page.waitForFunction((g) => {
        const rows = document.querySelectorAll("table.leaderboard tbody tr");
        return rows.length > 0 && document.querySelector("select").value === g;
      }, {}, game);
      await page.screenshot({ path: path.join(SHOTS, `leaderboard-${game}.png`), fullPage: true });
      await page.goto(`${web}/#/matches?game=${game}`);
      await page.waitForFunction((g) => {
        const cells = [...document.querySelectorAll("table.matches tbody td.game")];
        return cells.length > 0 && cells.every((td) => td.textContent === g);
      }, {}, game);
      await page.screenshot({ path: path.join(SHOTS, `matches-${game}.png`), fullPage: true });
      check(`${game}: its table is drawn, and seat 1's view shows its hand and no other`,
            drawn > 0 && spectator.length === 3 && seat1.length === 3 &&
            seat1[1] !== spectator[1] && seat1[0] === spectator[0] && seat1[2] === spectator[2],
            { drawn, spectator, seat1 });
    }

    check("a sealed decision was replayed (Dragon's Gold or Hedonia)", sealedDecisions > 0, sealedDecisions);

    // Each game's live page: a match that waits on its open seat, its table
    // drawn as it stands, on a desktop and a phone, checked by axe-core.
    for (const game of ["village", "dragons_gold", "frost_dragon", "hedonia"]) {
      const liveId = hoard(work, grpc, "match", "create", "--game", game, "--seed", "5",
                           "--seats", "builtin:random,builtin:random,open", "--decision-ms", "15000",
                           "--bank-ms", "0", "--max-strikes", "1").match(/m\d+/)[0];
      await page.goto(`${web}/#/matches/${liveId}`);
      const ready = () => page.waitForFunction((g) => {
        const status = document.querySelector(".match-status");
        return status && status.textContent.includes("RUNNING (live)") &&
               document.querySelector(`.table.${g} svg.hoard-table .player`) !== null;
      }, { timeout: 10000, polling: 50 }, game);
      const shown = await ready().then(() => page.evaluate((g) => ({
        state: document.querySelector(`.table.${g} .state`).textContent,
        players: document.querySelectorAll(`.table.${g} .player`).length,
        titled: [...document.querySelectorAll(`.table.${g} [data-thing]`)].every(
          (n) => (n.querySelector(":scope > title") || { textContent: "" }).textContent.length > 0) }), game), () => null);
      await shotsOf(page, `${game.replace(/_/g, "-")}-live`, ready);
      const liveAxe = await seriousViolations(page);
      check(`${game}: its live page draws the table with a seat each, every drawn thing titled`,
            shown !== null && shown.players === 3 && shown.state.length > 0 && shown.titled, shown);
      check(`axe-core: ${game}'s live page has no serious or critical accessibility violation`,
            liveAxe.length === 0, liveAxe);
    }

    // A match whose open seat nobody takes, watched live: it advances as its
    // seat times out, forfeits, and the match ends.
    const made = hoard(work, grpc, "match", "create", "--game", "village",
                       "--seats", "builtin:random,open", "--decision-ms", "1500",
                       "--bank-ms", "0", "--max-strikes", "2");
    const id = made.match(/m\d+/)[0];
    await page.goto(`${web}/#/matches/${id}`);
    // Its first decision waits 1.5 s for the open seat: the page is live.
    await page.waitForFunction(
        () => (document.querySelector(".match-status") || {}).textContent === undefined ? false
            : document.querySelector(".match-status").textContent.includes("RUNNING (live)"),
        { timeout: 10000, polling: 50 });
    const liveText = await page.$eval(".match-status", (p) => p.textContent);
    // Every hand the page shows while the match runs, kept as it changes.
    await page.evaluate(() => {
      window.handsShownLive = [];
      const keep = () => {
        // The table the page draws says when the match is over.
        const table = document.querySelector(".table.village");
        if (!table || table.dataset.over === "true") return;
        for (const hand of document.querySelectorAll(".player .hand > title")) {
          window.handsShownLive.push(hand.textContent);
        }
      };
      keep();
      new MutationObserver(keep).observe(document.getElementById("main"),
                                         { childList: true, subtree: true });
    });
    await page.waitForSelector(".table.village .favor .space");
    const table = await page.evaluate(() => ({
      favor: document.querySelectorAll(".favor .space").length,
      stalls: document.querySelectorAll(".market .stall").length,
      players: document.querySelectorAll(".player").length }));
    check("a live village match draws its table: the Favor's six spaces, four stalls, two players",
          table.favor === 6 && table.stalls === 4 && table.players === 2, table);
    await page.screenshot({ path: path.join(SHOTS, "match-live.png"), fullPage: true });
    await page.waitForFunction(
        () => document.querySelector(".match-status").textContent.startsWith("FINISHED"),
        { timeout: 30000 });
    const log = await page.$$eval("ol.log li", (items) => items.map((li) => li.textContent));
    const hands = await page.evaluate(() => window.handsShownLive);
    check("while it runs, no hand's cards are shown: only how many",
          hands.length > 0 && hands.every((text) => /^Hand: \d+ cards?$/.test(text)),
          hands.filter((text) => !/^Hand: \d+ cards?$/.test(text)).slice(0, 3));
    const finalHands = await page.$$eval(".player .hand > title", (items) => items.map((p) => p.textContent));
    check("once it is over, the hands are shown",
          finalHands.length === 2 && finalHands.every((text) => !/^Hand: \d+ cards?$/.test(text)),
          finalHands);
    check("a live match's page advances by itself to the end",
          liveText.includes("RUNNING (live)") && log.some((line) => line.includes("timeout")) &&
          log.some((line) => line.includes("forfeit")) && log.length > 10, { liveText, log: log.slice(0, 6) });

    // A running match opened after its start: its page shows the play from
    // the first action, then follows it.
    const lateMatch = hoard(work, grpc, "match", "create", "--game", "village",
                        "--seats", "builtin:random,open", "--decision-ms", "1500",
                        "--bank-ms", "0", "--max-strikes", "3").match(/m\d+/)[0];
    let playedBefore = 0;
    for (let i = 0; i < 200 && playedBefore < 3; ++i) {
      playedBefore = (await (await fetch(`${web}/api/v1/matches/${lateMatch}`)).json()).match.actions;
      if (playedBefore < 3) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await page.goto(`${web}/#/matches/${lateMatch}`);
    await page.waitForFunction((n) => {
      const status = document.querySelector(".match-status");
      return status && status.textContent.includes("RUNNING (live)") &&
             document.querySelectorAll("ol.log li").length >= n;
    }, { timeout: 10000, polling: 50 }, playedBefore);
    const opened = await page.evaluate(() => ({
      status: document.querySelector(".match-status").textContent,
      log: [...document.querySelectorAll("ol.log li")].map((li) => li.textContent) }));
    check("a running match opened after several actions shows them from action 1, live",
          playedBefore >= 3 && opened.status.includes("RUNNING (live)") &&
          opened.log[0].startsWith("1. seat ") && opened.log[playedBefore - 1].startsWith(`${playedBefore}. seat `),
          { playedBefore, opened });
    await page.screenshot({ path: path.join(SHOTS, "match-live-from-start.png"), fullPage: true });
    await page.waitForFunction(
        () => document.querySelector(".match-status").textContent.startsWith("FINISHED"),
        { timeout: 30000 });
    const followed = await page.$$eval("ol.log li", (items) => items.map((li) => li.textContent));
    check("then follows it to the end",
          followed.length > opened.log.length && followed.some((line) => line.includes("forfeit")),
          followed.slice(-4));

    // A phone-sized screen: no sideways scrolling of the page.
    await page.setViewport({ width: 375, height: 667 });
    await page.goto(`${web}/#/leaderboard/village`);
    await page.waitForSelector("table.leaderboard tbody tr");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check("on a phone-sized screen the page does not scroll sideways", overflow <= 0, overflow);
    await page.screenshot({ path: path.join(SHOTS, "leaderboard-phone.png"), fullPage: true });

    // A page for what does not exist says so.
    await page.goto(`${web}/#/tournaments/99`);
    await page.waitForSelector(".error");
    const error = await page.$eval(".error", (p) => p.textContent);
    check("an unknown tournament: its page says so", error.includes("no tournament 99"), error);
    check("no script error on any page", errors.length === 0, errors);
    check("nothing on any page breaks the content security policy", violations.length === 0,
          violations);
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    fs.rmSync(work, { recursive: true, force: true });
  }
  finish();
}

main().catch((error) => {
  console.log(`FAIL ${error.stack}`);
  process.exit(1);
});
