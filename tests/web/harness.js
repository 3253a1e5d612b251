// What the web tests share: a real `hoard serve --http`, the hoard program
// run against it, and one line per check with a closing 'N passed, M
// failed'.
"use strict";

const { spawn, execFileSync } = require("node:child_process");
const path = require("node:path");
const readline = require("node:readline");

// `hoard serve` of the program at `hoardPath`, with a database and state in
// `work`, on free ports, with `flags` besides; resolves with its process
// and its gRPC and web addresses.
function serve(hoardPath, work, ...flags) {
  const server = spawn(hoardPath, ["serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
                                   "--db", path.join(work, "hoard.db"), ...flags],
                       { env: { ...process.env, HOARD_STATE_DIR: path.join(work, "state") },
                         stdio: ["ignore", "pipe", "ignore"] });
  const lines = readline.createInterface({ input: server.stdout });
  return new Promise((resolve, reject) => {
    const got = [];
    lines.on("line", (line) => {
      got.push(line.split(" ").pop());
      if (got.length === 2) resolve({ server, grpc: got[0], web: got[1] });
    });
    server.on("exit", (code) => reject(new Error(`hoard serve exited with ${code}`)));
  });
}

// `hoard ARGS` against the server at `address`, as its admin (the token in
// the state directory in `work`): its output, or an error with its stderr.
function hoard(hoardPath, work, address, ...args) {
  try {
    return execFileSync(hoardPath, args, {
      env: { ...process.env, HOARD_STATE_DIR: path.join(work, "state"), HOARD_SERVER: address },
      encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    throw new Error(`hoard ${args.join(" ")}: exit ${error.status}: ${error.stderr}`);
  }
}

const counts = { passed: 0, failed: 0 };

function check(name, ok, detail) {
  if (ok) {
    counts.passed += 1;
    console.log(`ok   ${name}`);
  } else {
    counts.failed += 1;
    console.log(`FAIL ${name}`);
    if (detail !== undefined) console.log(`     ${JSON.stringify(detail)}`);
  }
}

// Prints the counts; exits 1 if any check failed.
function finish() {
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed === 0 ? 0 : 1);
}

module.exports = { serve, hoard, check, finish };
