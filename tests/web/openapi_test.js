// The web API's OpenAPI document against the API itself, with a real
// `hoard serve --http`.
//
//   node tests/web/openapi_test.js build/hoard
//
// The document served at /openapi.json must be valid OpenAPI 3
// (@apidevtools/swagger-parser), and every response the server gives must
// match the schema the document names for it (ajv), made strict for the
// test: an object may carry no property its schema leaves out. Plays a
// tournament, a match of each game and a match left running, then reads
// every JSON path of the document, the event streams' data lines and the
// errors. Prints one line per check and a closing 'N passed, M failed'.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const SwaggerParser = require("@apidevtools/swagger-parser");
const Ajv = require("ajv");
const webServer = require("./harness.js");
const { check, finish } = webServer;

const HOARD = path.resolve(process.argv[2] || "");
const serve = (work) => webServer.serve(HOARD, work, "--shutdown-grace-ms", "0");
const hoard = (...args) => webServer.hoard(HOARD, ...args);

// The document with every message's object schema closed: a property the
// schema does not name fails (a map's schema, additionalProperties already,
// stays open to its keys).
function strict(document) {
  const copy = structuredClone(document);
  for (const schema of Object.values(copy.components.schemas)) {
    if (schema.type === "object" && schema.properties && !("additionalProperties" in schema)) {
      schema.additionalProperties = false;
    }
  }
  return copy;
}

// The JSON schema of a path's 200 response, as the document names it.
function responseSchema(document, route, method = "get") {
  if (!document.paths[route][method]) return null;
  let response = document.paths[route][method].responses["200"];
  if (response.$ref) response = document.components.responses[response.$ref.split("/").pop()];
  const json = (response.content || {})["application/json"];
  return json ? json.schema : null;
}

async function read(url) {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get("content-type") || "",
           body: await response.text() };
}

// The data lines of a finished stream's events, by event name.
async function streamed(url) {
  const { body } = await read(url);
  const events = [];
  for (const block of body.split("\n\n")) {
    const name = (block.match(/^event: (.*)$/m) || [])[1];
    const data = (block.match(/^data: (.*)$/m) || [])[1];
    if (name) events.push({ name, data: JSON.parse(data) });
  }
  return events;
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hoard-openapi-"));
  const { server, grpc, web } = await serve(work);
  try {
    await run(work, grpc, web);
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.on("exit", resolve));
    fs.rmSync(work, { recursive: true, force: true });
  }
  finish();
}

async function run(work, grpc, web) {
  // What the API will be read about: a finished tournament, a finished
  // match of each game, and a match whose open seat waits.
  hoard(work, grpc, "tournament", "create", "--game", "village", "--players", "3",
        "--format", "duplicate", "--rounds", "2", "--seed", "4",
        "--participant", "h=builtin:heuristic", "--participant", "r=builtin:random",
        "--participant", "f=builtin:first", "--watch", "--quiet");
  const finished = {};
  for (const game of ["village", "dragons_gold", "frost_dragon", "hedonia"]) {
    const created = hoard(work, grpc, "match", "create", "--game", game, "--seed", "3",
                          "--seats", "builtin:random,builtin:random,builtin:random");
    finished[game] = created.match(/m\d+/)[0];
  }
  const created = hoard(work, grpc, "match", "create", "--game", "village",
                       "--seats", "builtin:random,open", "--decision-ms", "120000", "--bank-ms", "0");
  const running = created.match(/m\d+/)[0];
  const seatToken = created.match(/seat 1 token (\S+)/)[1];
  for (const id of Object.values(finished)) {
    for (let i = 0; i < 300 && !hoard(work, grpc, "match", "get", id).includes("FINISHED"); ++i) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // The document.
  const served = await read(`${web}/openapi.json`);
  const document = JSON.parse(served.body);
  let valid = null;
  try {
    await SwaggerParser.validate(structuredClone(document));
  } catch (error) {
    valid = String(error);
  }
  check("/openapi.json is a valid OpenAPI 3 document (swagger-parser)", valid === null, valid);
  const schemas = document.components.schemas;
  // Besides them, the play routes' own two: an answer's body and a play
  // stream's first event.
  check("its schemas are the hoard.v1 messages and the play routes' two, each a typed object or enum",
        Object.keys(schemas).length > 50 && Object.entries(schemas).every(([name, schema]) =>
          (name.startsWith("hoard.v1.") || name === "PlayAnswer" || name === "PlaySession") &&
          ((schema.type === "object" && schema.properties) ||
           (schema.type === "string" && schema.enum))), Object.keys(schemas).length);
  check("a 64-bit id is a string, an enum its names, a record's actions an array of integers",
        schemas["hoard.v1.Tournament"].properties.id.type === "string" &&
        schemas["hoard.v1.MatchStatus"].enum.includes("MATCH_STATUS_FINISHED") &&
        schemas["hoard.v1.MatchRecord"].properties.actions.type === "array",
        [schemas["hoard.v1.Tournament"].properties.id, schemas["hoard.v1.MatchRecord"].properties.actions]);

  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat("int32", { type: "number", validate: (n) => n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat("byte", /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addSchema(strict(document), "openapi.json");
  const validator = (schema) => ajv.compile({ $ref: `openapi.json${schema.$ref}` });

  // Every JSON path of the document, read with each kind of answer it has.
  const games = Object.keys(finished);
  const targets = {
    "/api/v1/games": [""],
    "/api/v1/bots": [""],
    "/api/v1/matches": ["", "?status=MATCH_STATUS_RUNNING", "?game=hedonia&page_size=1"],
    "/api/v1/matches/{match_id}": [...Object.values(finished), running, "m1"],
    "/api/v1/matches/{match_id}/replay": games.flatMap((g) => [finished[g], `${finished[g]}?seat=0`]),
    "/api/v1/tournaments": [""],
    "/api/v1/tournaments/{id}": ["1"],
    "/api/v1/leaderboard": ["?game=village", "?game=village&tournament_id=1",
                            "?game=village&system=RATING_SYSTEM_ELO",
                            "?game=village&system=RATING_SYSTEM_OPENSKILL", "?game=hedonia"],
    "/api/v1/head-to-head": ["?game=village", "?game=village&tournament_id=1"],
    "/api/v1/results": ["?game=village", "?tournament_id=1&page_size=2"],
  };
  const url = (route, target) => {
    if (route.includes("{")) {
      const [id, query = ""] = target.split("?");
      return route.replace(/\{[a-z_]+\}/, id) + (query ? `?${query}` : "");
    }
    return route + target;
  };
  const documented = Object.keys(document.paths).filter((route) => responseSchema(document, route) &&
                                                                  responseSchema(document, route).$ref);
  check("every JSON path of the document is read by this test",
        documented.sort().join(" ") === Object.keys(targets).sort().join(" "), documented);
  for (const route of documented) {
    const validate = validator(responseSchema(document, route));
    const failures = [];
    let read200 = 0;
    for (const target of targets[route] || []) {
      const answer = await read(web + url(route, target));
      if (answer.status !== 200 || !answer.type.startsWith("application/json")) {
        failures.push({ target, status: answer.status, body: answer.body.slice(0, 300) });
        continue;
      }
      read200 += 1;
      if (!validate(JSON.parse(answer.body))) failures.push({ target, errors: validate.errors.slice(0, 5) });
    }
    check(`${route}: each answer (${read200}) matches its schema, ${responseSchema(document, route).$ref.split("/").pop()}`,
          failures.length === 0 && read200 > 0, failures);
  }

  // What the reads covered: the schemas of records, views and standings
  // were met with content, not only with empty lists.
  const replay = JSON.parse((await read(`${web}/api/v1/matches/${finished.frost_dragon}/replay?seat=0`)).body);
  const record = JSON.parse((await read(`${web}/api/v1/matches/${finished.hedonia}`)).body);
  const live = JSON.parse((await read(`${web}/api/v1/matches/${running}`)).body);
  check("the replays read have steps with a game's view, a finished match its record, a running one none",
        replay.steps.length > 5 && replay.steps[1].view.frost_dragon !== undefined &&
        record.record.actions.length > 5 && live.match.status === "MATCH_STATUS_RUNNING" &&
        live.record === undefined, { steps: replay.steps.length, live: live.match.status });

  // A schema that would pass anything proves nothing: an answer with a
  // renamed field, a number for a 64-bit string or a bad enum name fails.
  const tournament = JSON.parse((await read(`${web}/api/v1/tournaments/1`)).body);
  const validateTournament = validator(responseSchema(document, "/api/v1/tournaments/{id}"));
  const renamed = structuredClone(tournament);
  renamed.identifier = renamed.id;
  delete renamed.id;
  const numbered = { ...tournament, id: 1 };
  const misnamed = { ...tournament, status: "FINISHED" };
  check("the schemas refuse a renamed field, a 64-bit id as a number and an unknown enum name",
        validateTournament(tournament) && !validateTournament(renamed) &&
        !validateTournament(numbered) && !validateTournament(misnamed));

  // The event streams: each data line is the message the document names.
  const validateEvent = validator({ $ref: "#/components/schemas/hoard.v1.MatchEvent" });
  const validateTournamentEvent = validator({ $ref: "#/components/schemas/hoard.v1.Tournament" });
  for (const [route, validate, kind] of [
    [`/api/v1/matches/${finished.dragons_gold}/events`, validateEvent, "match"],
    ["/api/v1/tournaments/1/events", validateTournamentEvent, "tournament"]]) {
    const events = await streamed(web + route);
    const bad = events.filter((e) => e.name === kind && !validate(e.data));
    check(`${route}: each ${kind} event's data matches its schema`,
          events.length > 1 && events.at(-1).name === "end" && bad.length === 0 &&
          events.some((e) => e.name === kind), { events: events.map((e) => e.name), errors: validate.errors });
  }

  // Errors.
  const validateError = ajv.compile(document.components.responses.Error.content["application/json"].schema);
  const errors = [];
  for (const target of ["/api/v1/matches/m999999", "/api/v1/matches?state=RUNNING",
                        "/api/v1/leaderboard", "/api/v1/nothing"]) {
    const answer = await read(web + target);
    if (answer.status < 400 || !validateError(JSON.parse(answer.body))) errors.push({ target, ...answer });
  }
  check("errors (404, 400) match the Error response", errors.length === 0, errors);

  // The play routes: a seat's stream and an answer, as the document says.
  const post = (route, body, signal) => fetch(web + route, {
    method: "POST", body: JSON.stringify(body), signal, headers: { "Content-Type": "application/json" } });
  const opened = new AbortController();
  const stream = await post("/api/v1/play", { join: { match_id: running, seat_token: seatToken } },
                            opened.signal);
  const reader = stream.body.getReader();
  let text = "";
  while (!/event: play\ndata: .*"decision"/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const played = text.split("\n\n").filter((block) => block.startsWith("event: ")).map((block) => ({
    name: block.match(/^event: (.*)$/m)[1], data: JSON.parse(block.match(/^data: (.*)$/m)[1]) }));
  const validateSession = validator({ $ref: "#/components/schemas/PlaySession" });
  const validateMessage = validator({ $ref: "#/components/schemas/hoard.v1.ServerMessage" });
  const decision = (played.find((e) => e.data.decision) || { data: {} }).data.decision;
  check("/api/v1/play: the session event and each play event match their schemas",
        stream.status === 200 && played[0].name === "session" && validateSession(played[0].data) &&
        played.slice(1).every((e) => e.name === "play" && validateMessage(e.data)) && decision,
        { status: stream.status, events: played.map((e) => e.name), errors: validateMessage.errors });
  const answered = await post("/api/v1/play/answer", { session: played[0].data.session,
    answer: { match_id: running, request_id: decision.request_id, legal_index: 0 } });
  const validateResult = validator(responseSchema(document, "/api/v1/play/answer", "post"));
  const refused = await post("/api/v1/play", { join: { match_id: running, seat_token: "nope" } });
  check("/api/v1/play/answer: the result matches hoard.v1.AnswerResult; a refused hello the Error",
        answered.status === 200 && validateResult(await answered.json()) && refused.status === 401 &&
        validateError(await refused.json()), validateResult.errors);
  opened.abort();
}

main().catch((error) => {
  console.log(`FAIL ${error.stack}`);
  process.exit(1);
});
