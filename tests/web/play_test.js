// A person at the table: headless Chromium (Debian's) driven by
// puppeteer-core plays a seat of a real `hoard serve --http` by clicking.
//
//   node tests/web/play_test.js build/hoard SCREENSHOT_DIR
//
// For each game, a match with one open seat and built-in bots on the
// others: the page is given the seat's token and the whole match is played
// by clicking the legal actions (and the drawing's marked elements, where
// it has them) until it is FINISHED, with every decision answered by a
// click, none by a time-out. Also: a wrong token refused with its reason,
// an illegal action refused with its reason, the clock counting down, and
// the token never in the page's address or storage. Prints one line per
// check and a closing 'N passed, M failed'.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const puppeteer = require("puppeteer-core");
const webServer = require("./harness.js");
const { check, finish } = webServer;

const HOARD = path.resolve(process.argv[2] || "");
const SHOTS = path.resolve(process.argv[3] || "web-screenshots");
const CHROMIUM = process.env.HOARD_CHROMIUM || "/usr/bin/chromium";
const hoard = (...args) => webServer.hoard(HOARD, ...args);

const GAMES = { village: 2, dragons_gold: 3, frost_dragon: 2, hedonia: 3 };

// A match of `game`: seat 0 open, built-in bots on the others; its id and token.
function openMatch(work, grpc, game, seed) {
  const seats = ["open", ...Array(GAMES[game] - 1).fill("builtin:random")].join(",");
  const out = hoard(work, grpc, "match", "create", "--game", game, "--seats", seats,
                    "--seed", String(seed), "--decision-ms", "120000", "--bank-ms", "120000");
  return { id: /match (\S+)/.exec(out)[1], token: /seat 0 token (\S+)/.exec(out)[1] };
}

async function openPage(browser, web, matchId) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 800 });
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(String(error)));
  await page.goto(`${web}/#/play/${matchId}`);
  await page.waitForSelector("#play-token");
  return page;
}

// Where the game's drawing marks no legal action itself, an element of the
// table marked with the last one (data-action, as a drawing marks a card):
// the page must answer a click on it as on its button.
function markLastAction(page) {
  return page.evaluate(() => {
    const draw = window.tableOf;
    window.tableOf = (view, match, decision = null) => {
      const table = draw(view, match, decision);
      const legal = (decision && decision.legal_actions) || [];
      if (legal.length > 0 && !table.querySelector("[data-action]")) {
        const mark = document.createElement("span");
        mark.className = "test-mark";
        mark.textContent = legal[legal.length - 1].text;
        mark.setAttribute("data-action", String(legal[legal.length - 1].index));
        table.prepend(mark);
      }
      return table;
    };
  });
}

async function enterToken(page, token) {
  await page.type("#play-token", token);
  await page.click(".play-start");
}

// What the page shows now: "over", a decision's request id, or null.
function pageState(page) {
  return page.evaluate(() => {
    if (document.querySelector(".play-over")) return "over";
    const refused = document.querySelector(".play-status.error");
    if (refused) return `refused: ${refused.textContent}`;
    const panel = document.querySelector(".play-match");
    return panel && panel.dataset.request ? panel.dataset.request : null;
  });
}

// Plays the match to its end by clicking; the number of clicks, of those on
// the drawing, and of decisions whose drawing marked legal actions
// (`data-action`). A small LCG picks among the legal actions, and between a
// button and a marked element, the same on every run.
async function playByClicking(page, seed) {
  let random = seed;
  let clicks = 0;
  let onDrawing = 0;
  let marked = 0;
  let drawn = 0;  // decisions where the game's own drawing marked actions
  let last = null;
  for (;;) {
    const handle = await page.waitForFunction((previous) => {
      if (document.querySelector(".play-over")) return "over";
      if (document.querySelector(".play-status.error")) return "error";
      const panel = document.querySelector(".play-match");
      const request = panel && panel.dataset.request;
      return request && request !== previous ? request : false;
    }, { timeout: 60000 }, last);
    const state = await handle.jsonValue();
    if (state === "over" || state === "error") return { clicks, onDrawing, marked, drawn, state };
    last = state;
    random = (random * 1103515245 + 12345) % 2147483648;
    const marks = (await page.$$(".play-match .playable")).length;
    if (marks > 0) marked += 1;
    if ((await page.$$(".play-match svg.hoard-table [data-action]")).length > 0) drawn += 1;
    const selector = marks > 0 && random % 2 === 0 ? ".play-match .playable" : ".play-match .legal-action";
    if (selector.endsWith(".playable")) onDrawing += 1;
    await clickOne(page, selector, random);
    clicks += 1;
  }
}

// Clicks the element `pick` (modulo their number) of those `selector`
// finds. The page draws the seat again when the match's details come, so an
// element found may be replaced before the click reaches it: then it is
// found again (no click was made).
async function clickOne(page, selector, pick) {
  for (let attempt = 0; ; ++attempt) {
    const found = await page.$$(selector);
    try {
      return await found[pick % found.length].click();
    } catch (error) {
      if (attempt === 5 || !/detached|not clickable/i.test(String(error))) throw error;
    }
  }
}

async function main() {
  fs.mkdirSync(SHOTS, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hoard-play-"));
  const { server, grpc, web } = await webServer.serve(HOARD, work);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    // A wrong token: refused, saying why.
    const first = openMatch(work, grpc, "village", 11);
    const wrong = await openPage(browser, web, first.id);
    await enterToken(wrong, "0000000000000000");
    await wrong.waitForSelector(".play-status.error");
    const refusal = await wrong.$eval(".play-status.error", (node) => node.textContent);
    check("a wrong token is refused with its reason (401, unknown seat token)",
          refusal.includes("401") && refusal.includes("unknown seat token"), refusal);
    await wrong.close();

    // An illegal action, typed: refused with its reason, and the seat may
    // still move.
    const page = await openPage(browser, web, first.id);
    await enterToken(page, first.token);
    await page.waitForSelector(".play-match .legal-action");
    const clockBefore = await page.$eval(".play-clock", (node) => node.textContent);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const clockAfter = await page.$eval(".play-clock", (node) => node.textContent);
    check("the clock counts down while the seat decides",
          /Time left \d+:\d\d/.test(clockBefore) && clockBefore !== clockAfter,
          { clockBefore, clockAfter });
    await page.click(".typed summary");
    await page.type(".typed-action", JSON.stringify({ village: { buy: { stall: 9 } } }));
    await page.click(".typed-send");
    await page.waitForSelector(".refusal");
    const illegal = await page.$eval(".refusal", (node) => node.textContent);
    const stillOpen = await page.$$eval(".play-match .legal-action", (buttons) => buttons.length);
    check("an illegal action is refused with its reason, and the seat may still move",
          /^Refused: .{10,}/.test(illegal) && stillOpen > 0, illegal);
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) +
                                             JSON.stringify({ ...localStorage }) + location.href);
    check("the token is in neither the page's address nor its storage",
          !stored.includes(first.token), stored);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, "play-village.png") });
    const played = await playByClicking(page, 1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, "play-village-over.png") });
    await page.close();
    const results = [{ game: "village", match: first, page, played }];

    for (const [index, game] of Object.keys(GAMES).filter((g) => g !== "village").entries()) {
      const match = openMatch(work, grpc, game, 20 + index);
      const gamePage = await openPage(browser, web, match.id);
      if (game === "frost_dragon") await markLastAction(gamePage);
      await enterToken(gamePage, match.token);
      const gamePlayed = await playByClicking(gamePage, 7 + index);
      await gamePage.evaluate(() => window.scrollTo(0, 0));
      await gamePage.screenshot({ path: path.join(SHOTS, `play-${game}-over.png`) });
      await gamePage.close();
      results.push({ game, match, page: gamePage, played: gamePlayed });
    }
    for (const { game, match, page: played, played: { clicks, onDrawing, marked, drawn, state } } of results) {
      const got = await (await fetch(`${web}/api/v1/matches/${match.id}`)).json();
      const seat = got.match.seats[0];
      check(`${game}: the whole match is played by clicking until it is FINISHED`,
            state === "over" && got.match.status === "MATCH_STATUS_FINISHED" && clicks > 0 &&
            seat.answers === clicks && seat.timeouts === 0 && played.errors.length === 0 &&
            (marked === 0 || onDrawing > 0) && (game !== "frost_dragon" || onDrawing > 0) &&
            // Dragon's Gold's choices are a dragon and who attacks it, or a
            // deal: its drawing marks a thing only when one action is left.
            (game === "dragons_gold" || drawn > 0),
            { state, status: got.match.status, clicks, onDrawing, marked, drawn, answers: seat.answers,
              timeouts: seat.timeouts, errors: played.errors });
    }
  } finally {
    await browser.close();
    server.kill();
  }
  finish();
}

main().catch((error) => {
  console.log(`FAIL ${error.stack}`);
  process.exit(1);
});
