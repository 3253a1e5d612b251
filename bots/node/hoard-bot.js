// Hoard bots in JavaScript: write one function, run() does the rest.
//
//   const { run } = require('./hoard-bot');
//   run((decision) => Math.floor(Math.random() * decision.legalActions.length));
//
// The decide function gets a Decision (the seat's typed view, its legal
// actions, ...) and returns — or resolves to — an index into
// decision.legalActions or an Action object such as { village: { draw: {} } }.
// The client holds the Play stream and takes care of request and match ids,
// deadlines (a decision still open shortly before its deadline is answered
// with the default action, the first legal one), refusals (answered again with
// the default action), reconnects (with growing pauses; the server resends
// open requests) and several matches at once. docs/bots.md is the guide.
//
// Messages keep the field names of proto/ (legal_actions, request_id...);
// int64 fields are strings, enums their names, and each oneof has a field
// naming the member that is set (view.game === 'village').

'use strict';

const fs = require('fs');
const path = require('path');
const { parseArgs } = require('util');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// Stream statuses after which reconnecting cannot help.
const FATAL = new Set([
  grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND, grpc.status.UNIMPLEMENTED,
]);
// A decision not made this long before its deadline gets the default action.
const DEADLINE_MARGIN_MS = 150;

// The protocol, loaded from proto/ ($HOARD_PROTO_DIR, else this checkout's).
function loadProtocol(protoDir = process.env.HOARD_PROTO_DIR ||
                      path.join(__dirname, '..', '..', 'proto')) {
  const definition = protoLoader.loadSync(['hoard/v1/arena.proto', 'hoard/v1/tournament.proto'], {
    includeDirs: [protoDir], keepCase: true, longs: String, enums: String, defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).hoard.v1;
}

// One decision of one seat: what it sees and what it may do.
class Decision {
  constructor(request, game) {
    this.request = request;
    this.matchId = request.match_id;
    this.seat = request.seat;
    this.game = game || (request.view && request.view.game) || '';
    this.view = request.view && request.view.game ? request.view[request.view.game] : null;
    this.legalActions = request.legal_actions.map((legal) => legal.action);
    this.texts = request.legal_actions.map((legal) => legal.text);
    this.complete = request.legal_actions_complete;
    this.constraints = request.constraints;
    this.timeLeftMs = request.time_left_ms;
  }
}

function makeAnswer(request, choice) {
  const answer = { match_id: request.match_id, request_id: request.request_id };
  if (Number.isInteger(choice)) {
    answer.legal_index = choice;
  } else if (choice && typeof choice === 'object') {
    answer.action = choice;
  } else {
    throw new TypeError(`a bot answers an index into legalActions or an Action, not ${choice}`);
  }
  return answer;
}

class BotClient {
  // options: server, and either name + key (+ maxMatches) or matchId + seatToken;
  // matches (stop after that many have ended; 0 never), describeActions, log,
  // tlsCa (a PEM file of CAs to trust: TLS; unset: plaintext).
  constructor(decide, options) {
    const registers = Boolean(options.name || options.key);
    if (registers === Boolean(options.matchId || options.seatToken)) {
      throw new Error('give either a name and key, or a match id and seat token');
    }
    this.decide = decide;
    this.options = { maxMatches: 1, matches: 0, describeActions: false, log: () => {}, ...options };
    this.protocol = loadProtocol(options.protoDir);
    this.stopping = false;
    this.call = null;
    this.games = new Map();      // match id -> game id (from Seated)
    this.active = new Set();     // matches seated in and not yet finished
    this.answered = new Map();   // "match/request" -> the answer sent
    this.running = new Set();    // "match/request" being decided
    this.retried = new Set();    // "match/request" answered again after a refusal
    this.stats = { finished: 0, decisions: 0, refused: 0, late: 0, reconnects: 0 };
  }

  // Plays until done or stopped; rejects with the status if refused for good.
  async run() {
    // TLS when given the certificate authorities to trust (a PEM file).
    const credentials = this.options.tlsCa
      ? grpc.credentials.createSsl(fs.readFileSync(this.options.tlsCa))
      : grpc.credentials.createInsecure();
    const client = new this.protocol.Arena(this.options.server, credentials);
    let failures = 0;
    try {
      while (!this.stopping) {
        const status = await this.playOnce(client);
        if (this.stopping || status === null) return;
        if (FATAL.has(status.code)) {
          throw new Error(`the server refused the bot: ${status.details} (code ${status.code})`);
        }
        this.stats.reconnects += 1;
        const pause = Math.min(2000, 50 * 2 ** Math.min(failures, 6));
        failures += 1;
        this.options.log(`stream ended (${status.details}); reconnecting in ${pause} ms`);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      client.close();
    }
  }

  stop() {
    this.stopping = true;
    if (this.call) this.call.cancel();
  }

  hello() {
    const o = this.options;
    if (o.seatToken) {
      return { hello: { join: { match_id: o.matchId, seat_token: o.seatToken,
                                describe_actions: o.describeActions } } };
    }
    return { hello: { register: { name: o.name, key: o.key, max_matches: o.maxMatches,
                                  describe_actions: o.describeActions } } };
  }

  // One stream's life: resolves to null when done, else its final status.
  playOnce(client) {
    return new Promise((resolve) => {
      const call = client.Play();
      this.call = call;
      let settled = false;
      const settle = (status) => {
        if (settled) return;
        settled = true;
        this.call = null;
        resolve(status);
      };
      call.on('data', (message) => {
        if (this.onMessage(message)) {
          call.cancel();
          settle(null);
        }
      });
      call.on('error', (error) => settle(this.stopping ? null : error));
      call.on('end', () => settle(this.stopping ? null : {
        code: grpc.status.UNAVAILABLE, details: 'the server closed the stream' }));
      call.write(this.hello());
    });
  }

  send(message) {
    if (this.call) this.call.write(message);
  }

  // Handles one server message; true when the bot is done.
  onMessage(message) {
    switch (message.kind) {
      case 'decision':
        this.onDecision(message.decision);
        break;
      case 'answer_result':
        this.onRefusal(message.answer_result);
        break;
      case 'seated': {
        const seated = message.seated;
        this.games.set(seated.match_id, seated.game);
        this.active.add(seated.match_id);
        this.options.log(`${seated.match_id}: seated as seat ${seated.seat} of ` +
                         `${seated.players} (${seated.game})`);
        break;
      }
      case 'event': {
        const matchId = message.event.match_id;
        if (message.event.kind !== 'finished' || !this.active.has(matchId)) break;
        this.active.delete(matchId);
        this.games.delete(matchId);
        for (const key of [...this.answered.keys(), ...this.retried, ...this.running]) {
          if (key.startsWith(`${matchId}/`)) {
            this.answered.delete(key);
            this.retried.delete(key);
            this.running.delete(key);
          }
        }
        this.stats.finished += 1;
        this.options.log(`${matchId}: finished`);
        if (this.options.seatToken ||
            (this.options.matches && this.stats.finished >= this.options.matches)) {
          this.stopping = true;
          return true;
        }
        break;
      }
      case 'error':
        this.options.log(`server: ${message.error.message}`);
        break;
      default:
        break;
    }
    return false;
  }

  onDecision(request) {
    const key = `${request.match_id}/${request.request_id}`;
    if (this.answered.has(key)) {  // resent after a reconnect: the answer may be lost
      this.send({ answer: this.answered.get(key) });
      return;
    }
    if (this.running.has(key)) return;
    this.running.add(key);
    const timer = setTimeout(() => {
      if (this.commit(key, makeAnswer(request, 0))) {
        this.stats.late += 1;
        this.options.log(`${request.match_id}: no decision in time for request ` +
                         `${request.request_id}; sent the default action`);
      }
    }, Math.max(0, request.time_left_ms - DEADLINE_MARGIN_MS));
    Promise.resolve()
      .then(() => this.decide(new Decision(request, this.games.get(request.match_id))))
      .then((choice) => makeAnswer(request, choice))
      .catch((error) => {  // a bug in the bot: play the default rather than time out
        this.options.log(`${request.match_id}: the bot failed, playing the default action: ` +
                         `${error && error.stack ? error.stack : error}`);
        return makeAnswer(request, 0);
      })
      .then((answer) => {
        clearTimeout(timer);
        if (this.commit(key, answer)) this.stats.decisions += 1;
      });
  }

  // Sends `answer` unless the request was answered already.
  commit(key, answer) {
    if (!this.running.has(key)) return false;  // answered already, or its match is over
    this.running.delete(key);
    this.answered.set(key, answer);
    this.send({ answer });
    return true;
  }

  onRefusal(result) {
    if (result.accepted) return;
    this.stats.refused += 1;
    this.options.log(`${result.match_id}: answer to request ${result.request_id} refused: ` +
                     `${result.reason}`);
    const key = `${result.match_id}/${result.request_id}`;
    if (!result.may_retry || this.retried.has(key)) return;
    this.retried.add(key);
    const answer = { match_id: result.match_id, request_id: result.request_id, legal_index: 0 };
    this.answered.set(key, answer);
    this.send({ answer });
  }
}

const HELP = `flags (each defaults to its environment variable):
  --server HOST:PORT  the Hoard server ($HOARD_SERVER, else 127.0.0.1:50051)
  --name NAME         register as this bot ($HOARD_BOT_NAME)
  --key KEY           the key of the bot's account ($HOARD_BOT_KEY, else the contents
                      of the file $HOARD_BOT_KEY_FILE)
  --max-matches N     matches to play at once ($HOARD_MAX_MATCHES, else 1)
  --match ID          or join one seat of this match...
  --token TOKEN       ...with this seat token
  --matches N         stop after N matches have ended (default: never)
  --tls-ca FILE       connect with TLS, trusting the CAs in this PEM file ($HOARD_TLS_CA)
  --quiet             print nothing but errors`;

// The key in the file $HOARD_BOT_KEY_FILE names, without surrounding whitespace.
function readKeyFile(file, usage) {
  let key;
  try {
    key = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    usage(`cannot read $HOARD_BOT_KEY_FILE ${file}: ${error.code || error.message}`);
  }
  if (!key) usage(`$HOARD_BOT_KEY_FILE ${file} is empty`);
  return key;
}

// Runs `decide` as a bot configured by command-line flags and HOARD_*
// variables; exits the process (0 done, 1 refused by the server, 2 bad flags).
function run(decide, { argv = process.argv.slice(2), describeActions = false } = {}) {
  const program = path.basename(process.argv[1] || 'bot');
  const usage = (message) => {
    process.stderr.write(`${program}: ${message}\n${HELP}\n`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: {
      server: { type: 'string' }, name: { type: 'string' }, key: { type: 'string' },
      'max-matches': { type: 'string' }, match: { type: 'string' }, token: { type: 'string' },
      matches: { type: 'string' }, 'tls-ca': { type: 'string' }, quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    } }));
  } catch (error) {
    usage(error.message);
  }
  if (values.help) {
    process.stdout.write(`usage: ${program} [flags]\n${HELP}\n`);
    process.exit(0);
  }
  const env = process.env;
  const number = (text, flag) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) usage(`--${flag} needs a whole number, not '${text}'`);
    return n;
  };
  const options = {
    server: values.server || env.HOARD_SERVER || '127.0.0.1:50051',
    maxMatches: number(values['max-matches'] || env.HOARD_MAX_MATCHES || '1', 'max-matches'),
    matches: number(values.matches || '0', 'matches'),
    tlsCa: values['tls-ca'] || env.HOARD_TLS_CA || '',
    describeActions,
    log: values.quiet ? () => {} : (line) => process.stderr.write(`${program}: ${line}\n`),
  };
  if (values.match || values.token) {
    if (!values.match || !values.token) usage('joining a seat needs both --match and --token');
    Object.assign(options, { matchId: values.match, seatToken: values.token });
  } else {
    Object.assign(options, { name: values.name || env.HOARD_BOT_NAME || '',
                             key: values.key || env.HOARD_BOT_KEY || '' });
    if (!options.key && env.HOARD_BOT_KEY_FILE) {
      options.key = readKeyFile(env.HOARD_BOT_KEY_FILE, usage);
    }
    if (!options.name || !options.key) {
      usage('give --name and --key (or $HOARD_BOT_NAME and $HOARD_BOT_KEY or ' +
            '$HOARD_BOT_KEY_FILE), or --match and --token');
    }
  }
  const client = new BotClient(decide, options);
  process.on('SIGTERM', () => client.stop());
  process.on('SIGINT', () => client.stop());
  client.run().then(() => {
    const s = client.stats;
    options.log(`done: ${s.finished} matches, ${s.decisions} decisions, ${s.refused} refused, ` +
                `${s.late} late, ${s.reconnects} reconnects`);
    process.exit(0);
  }, (error) => {
    process.stderr.write(`${program}: ${error.message}\n`);
    process.exit(1);
  });
}

module.exports = { run, BotClient, Decision, loadProtocol };
