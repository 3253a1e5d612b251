#!/usr/bin/env node
// How big a `hoard replay html` file is, and how long it takes to open.
//
//   node scripts/replay_bench.js build/hoard [RUNS]
//
// Plays one seeded match of each game (four seats, seed 1, random bots:
// `hoard play --game G --players 4 --seed 1 --record FILE`), writes its
// replay with `hoard replay html FILE`, and prints for each game: the
// actions, the record's bytes, the replay page's bytes, the bytes of the
// replay data it carries beyond the web app it embeds, and that as a
// multiple of the record. Then what the web app's replay page fetches for
// one seat of such a match from `hoard serve --http`. Then opens the Frost Dragon's Treasure replay in headless Chromium
// (puppeteer-core from tests/web; npm ci there first) RUNS times (default 5)
// and prints the median and slowest time from the start of navigation to
// the first step's table drawn.
"use strict";

const { execFileSync, spawn } = require("node:child_process");
const readline = require("node:readline");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const puppeteer = require(path.join(__dirname, "..", "tests", "web", "node_modules", "puppeteer-core"));

const HOARD = path.resolve(process.argv[2] || "build/hoard");
const RUNS = Number(process.argv[3] || 5);
const CHROMIUM = process.env.HOARD_CHROMIUM || "/usr/bin/chromium";

// The replay data a page carries beyond the app it embeds: the gzipped
// base64 of HOARD_REPLAY_GZIP, or the JSON of HOARD_REPLAY (written before
// replays were gzipped).
function replayData(html) {
  const match = html.match(/window\.HOARD_REPLAY_GZIP = "([^"]*)";<\/script>/) ||
                html.match(/window\.HOARD_REPLAY = ([^]*?);<\/script>/);
  return match ? match[1].length : NaN;
}

// What the web app's replay page fetches for one seat of a finished
// Frost Dragon's Treasure match (four random bots, seed 1) from `hoard
// serve --http`: the whole views, and the changes (changes_only=true).
async function fetchedBytes(work, env) {
  const server = spawn(HOARD, ["serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
                               "--db", path.join(work, "hoard.db")], { env, stdio: ["ignore", "pipe", "ignore"] });
  try {
    const [grpc, web] = await new Promise((resolve, reject) => {
      const got = [];
      readline.createInterface({ input: server.stdout }).on("line", (line) => {
        got.push(line.split(" ").pop());
        if (got.length === 2) resolve(got);
      });
      server.on("exit", (code) => reject(new Error(`hoard serve exited with ${code}`)));
    });
    const hoard = (...args) => execFileSync(HOARD, args, { env: { ...env, HOARD_SERVER: grpc }, encoding: "utf8" });
    const id = hoard("match", "create", "--game", "frost_dragon", "--seed", "1", "--seats",
                     Array(4).fill("builtin:random").join(",")).match(/m\d+/)[0];
    while (!hoard("match", "get", id).includes("FINISHED")) await new Promise((r) => setTimeout(r, 200));
    const bytes = async (query) => {
      const response = await fetch(`${web}/api/v1/matches/${id}/replay?seat=0${query}`);
      return response.ok ? (await response.text()).length : `refused (${response.status})`;
    };
    return { whole: await bytes(""), changes: await bytes("&changes_only=true"),
             record: hoard("match", "get", id, "--record").length };
  } finally {
    server.kill();
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "replay-bench-"));
  const env = { ...process.env, HOARD_STATE_DIR: path.join(work, "state") };
  const run = (...args) => execFileSync(HOARD, args, { env, maxBuffer: 1 << 30 });
  const pages = {};
  console.log("game          actions  record B    page B    data B  data/record");
  for (const game of ["village", "dragons_gold", "frost_dragon", "hedonia"]) {
    const record = path.join(work, `${game}.json`);
    run("play", "--game", game, "--players", "4", "--seed", "1", "--quiet", "--record", record);
    const html = path.join(work, `${game}.html`);
    fs.writeFileSync(html, run("replay", "html", record));
    pages[game] = html;
    const actions = JSON.parse(fs.readFileSync(record, "utf8")).actions.length;
    const recordBytes = fs.statSync(record).size;
    const htmlBytes = fs.statSync(html).size;
    const dataBytes = replayData(fs.readFileSync(html, "utf8"));
    console.log(`${game.padEnd(13)} ${String(actions).padStart(7)} ${String(recordBytes).padStart(9)} ` +
                `${String(htmlBytes).padStart(9)} ${String(dataBytes).padStart(9)} ` +
                `${(dataBytes / recordBytes).toFixed(1).padStart(12)}`);
  }
  try {
    const fetched = await fetchedBytes(work, env);
    console.log(`frost_dragon replay fetched for seat 0: ${fetched.whole} B of whole views, ` +
                `${fetched.changes} B of changes (its record: ${fetched.record} B)`);
  } catch (error) {
    console.log(`frost_dragon replay fetched for seat 0: not measured (${String(error.message).split("\n")[0]})`);
  }
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: "new",
                                           args: ["--no-sandbox", "--disable-gpu"] });
  const times = [];
  try {
    for (let i = 0; i < RUNS; ++i) {
      const page = await browser.newPage();
      // The first step drawn: the moment its table enters the page, by the
      // page's own clock from the start of navigation.
      await page.evaluateOnNewDocument(() => {
        new MutationObserver((_, observer) => {
          if (!document.querySelector(".replay-table .table")) return;
          window.firstStepDrawn = performance.now();
          observer.disconnect();
        }).observe(document, { childList: true, subtree: true });
      });
      await page.goto(`file://${pages.frost_dragon}`, { waitUntil: "load", timeout: 120000 });
      await page.waitForFunction(() => window.firstStepDrawn !== undefined, { timeout: 120000 });
      times.push(await page.evaluate(() => window.firstStepDrawn));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  times.sort((a, b) => a - b);
  console.log(`frost_dragon replay opened to its first step drawn in ${(times[times.length >> 1] / 1000).toFixed(2)} s ` +
              `(median of ${RUNS}; slowest ${(times[times.length - 1] / 1000).toFixed(2)} s)`);
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
