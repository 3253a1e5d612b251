// Hoard bots in JavaScript: write one function, run() does the rest.
//
//   const { run } = require('./hoard-bot');
//   run((decision) => Math.floor(Math.random() * decision.legalActions.length));
//
// The decide function gets a Decision (the seat's typed view, its legal
// actions, ...) and returns — or resolves to — an index into
// decision.legalActions, an Action object such as { village: { draw: {} } }
// (actions.js builds every game's: actions.village.draw(),
// actions.dragons_gold.propose({ 0: { gold: 2 }, 2: { silver: 1 } }), ...)
// or DEFAULT, for the default action (the first legal one). The client holds
// the Play stream and takes care of request and match ids and several
// matches at once. docs/bots.md is the guide.
//
// Refusals: when the server refuses an answer and the request is still open
// (may_retry), the decide function is called again, with the refused answers
// and the server's reasons in decision.refused ({ answer, reason, code }),
// so the bot can correct itself while time remains; after 3 refusals of one
// request the default action is sent instead. The default action is sent
// only then, when the bot returns DEFAULT, when its function returns nothing
// or throws (logged: a bug costs a move, not the match), and when time runs
// out: a decision still open shortly before its deadline is answered with the
// default action, and its late result is dropped. Each default sent in place
// of the bot's own decision says why (Answer.default_reason: failed, refused,
// late): the server counts them, and `hoard check-bot` fails a bot that needs
// them often.
//
// Reconnects: a broken stream is opened again on a new channel, after pauses
// that grow from 100 ms to at most 1 s (and start again at 100 ms once a
// server has welcomed the bot), so the bot is back within about a second of
// its server; a status reconnecting cannot help (a wrong key...) stops it.
// The server then sends the requests still open again, marked `resent`: each
// is answered with the answer given before (it may have been lost with the
// stream), or decided if none was. A request not marked `resent` is always
// decided afresh, even with match and request ids seen before: a server that
// lost its matches may hand the same ids out again. What the client keeps of
// a match (its answers, to send again, and its requests, to ask again) is
// forgotten when the match ends or is aborted, or when the server says it
// does not know the match, and is bounded: a few requests per match, a few
// matches per match slot (matches that vanished with a crashed server).
//
// The play-by-play: each seat hears the events of its matches (MatchEvent:
// every action as it is played, a sealed answer first as "answered
// (sealed)" and then revealed, faults, the end), on the stream or inside its
// decision requests (option events: 'stream', the default, or
// 'in_requests'; 'none' hears only the end). The client keeps each seat's
// events in order, a resent request's repeated ones taken once, and gives
// them to every decision (decision.events, oldest first), so a bot that
// keeps nothing still knows what the others played; the option onEvent is
// called with each event as it arrives (for those inside a request, before
// the decision is asked; what it throws is logged). A match's events are
// forgotten with the rest of it, and at most eventsKept (default 100,000)
// are kept per seat, the oldest dropped first (decision.eventsDropped
// counts them).
//
// Signals: run() stops on SIGTERM and SIGINT: the stream is cancelled and
// the process exits with status 0 within STOP_WITHIN_MS (1 s); a second
// signal while it stops ends it at once. The handlers run on the event loop:
// a decide function that holds the loop (a long synchronous search) holds
// the stop up until it returns, so think in slices or in a worker thread.
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
const makeActions = require('./actions');

// Stream statuses after which reconnecting cannot help.
const FATAL = new Set([
  grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND, grpc.status.UNIMPLEMENTED,
]);
// A decision not made this long before its deadline gets the default action.
const DEADLINE_MARGIN_MS = 150;
// Pauses between attempts to reconnect: doubling from the first to the last.
const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 1000;
// Each channel its own connection, retried at most this far apart, so that a
// new channel never inherits an old one's long backoff.
// A name with several addresses (replicas behind one DNS name) has its calls
// spread over them, each to the next (gRPC's round_robin).
const CHANNEL_OPTIONS = {
  'grpc.use_local_subchannel_pool': 1,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};
// Refused answers to one request after which the default action is sent.
const MAX_REFUSALS = 3;
// Returned by a decide function: play the default action (the first legal one).
const DEFAULT = Symbol('hoard-bot DEFAULT');
// Answers kept to send again: a stream has at most one open request per seat
// it holds, so a few per match; and the matches of maxMatches slots a few
// times over, for those that vanish without an end (a server that crashed).
const ANSWERS_KEPT_PER_MATCH = 8;
const MATCHES_KEPT_PER_SLOT = 4;
const MATCHES_KEPT_AT_LEAST = 64;
// Events kept per seat of a match: a match tells a few per action, far fewer.
const EVENTS_KEPT = 100000;
// The events option: how the stream hears the play (Register.events).
const EVENT_DELIVERIES = {
  stream: 'EVENT_DELIVERY_STREAM',
  in_requests: 'EVENT_DELIVERY_IN_REQUESTS',
  none: 'EVENT_DELIVERY_NONE',
};

// The folder of the protocol's hoard/v1/*.proto: $HOARD_PROTO_DIR, else
// this checkout's proto/.
function defaultProtoDir() {
  return process.env.HOARD_PROTO_DIR || path.join(__dirname, '..', '..', 'proto');
}

// The protocol, loaded from proto/ (defaultProtoDir()).
function loadProtocol(protoDir = defaultProtoDir()) {
  const definition = protoLoader.loadSync(['hoard/v1/arena.proto', 'hoard/v1/tournament.proto'], {
    includeDirs: [protoDir], keepCase: true, longs: String, enums: String, defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).hoard.v1;
}

// One decision of one seat: what it sees and what it may do. timeLeftMs is
// the time left to answer, bank included (less than the request's when the
// function is asked again); refused lists the answers to this request the
// server refused, oldest first: { answer (what decide returned), reason,
// code (a gRPC status code) }, empty when first asked. events are the
// events of the match this seat was told so far, oldest first (MatchEvent:
// action_taken, fault), and eventsDropped how many of the oldest were
// dropped to keep at most eventsKept (0 in any match of a sane length).
// seedCommitment is the match's commitment to its deal, told when the seat
// was taken (Seated.seed_commitment): SHA-256 of "SEED:SALT" as 64 hex
// digits, fixed before the first move; once the match is over its record
// carries the seed and salt that hash to it (docs/records.md). Empty if the
// server told none.
class Decision {
  constructor(request, game, refused = [], timeLeftMs = undefined, events = [],
              eventsDropped = 0, seedCommitment = '') {
    this.request = request;
    this.matchId = request.match_id;
    this.seat = request.seat;
    this.game = game || (request.view && request.view.game) || '';
    this.view = request.view && request.view.game ? request.view[request.view.game] : null;
    this.legalActions = request.legal_actions.map((legal) => legal.action);
    this.texts = request.legal_actions.map((legal) => legal.text);
    this.complete = request.legal_actions_complete;
    this.constraints = request.constraints;
    this.timeLeftMs = timeLeftMs === undefined ? request.time_left_ms : timeLeftMs;
    this.refused = refused.slice();
    this.events = events.slice();
    this.eventsDropped = eventsDropped;
    this.seedCommitment = seedCommitment;
  }
}

// The default action (the first legal one), sent in place of the bot's own
// decision, and why.
function defaultAnswer(matchId, requestId, reason) {
  return { match_id: matchId, request_id: requestId, legal_index: 0, default_reason: reason };
}

function makeAnswer(request, choice) {
  const answer = { match_id: request.match_id, request_id: request.request_id };
  if (choice === DEFAULT) {
    answer.legal_index = 0;
  } else if (Number.isInteger(choice)) {
    answer.legal_index = choice;
  } else if (choice && typeof choice === 'object') {
    answer.action = choice;
  } else {
    throw new TypeError('a bot answers an index into legalActions, an Action or DEFAULT, ' +
                        `not ${String(choice)}`);
  }
  return answer;
}

// A request the decide function decides, kept to ask it again if refused.
class Asked {
  constructor(request, game) {
    this.request = request;
    this.game = game;
    this.deadline = performance.now() + request.time_left_ms;
    this.refused = [];         // { answer, reason, code } per refused answer, oldest first
    this.choice = undefined;   // what decide returned for the answer last sent
  }
}

// The events one seat of a match was told, oldest first, bounded.
class Told {
  constructor(most) {
    this.most = most;
    this.events = [];
    this.dropped = 0;          // the oldest, dropped to keep `most`
    this.taken = new Map();    // request id -> its events taken, oldest first
  }

  add(event) {
    this.events.push(event);
    if (this.events.length > this.most) {
      this.events.shift();
      this.dropped += 1;
    }
  }

  // The events of `request` not yet taken, added to the history. A request
  // carries the events since the seat's previous request; sent again
  // (resent), it carries them again, with any newer ones after them.
  take(request) {
    const requestId = request.request_id;
    const seen = request.resent ? this.taken.get(requestId) || 0 : 0;
    const fresh = request.events.slice(seen);
    this.taken.delete(requestId);
    this.taken.set(requestId, Math.max(seen, request.events.length));
    if (this.taken.size > ANSWERS_KEPT_PER_MATCH) {
      this.taken.delete(this.taken.keys().next().value);
    }
    for (const event of fresh) this.add(event);
    return fresh;
  }
}

// What the client keeps of one match it plays, until the match ends.
class KeptMatch {
  constructor(eventsKept) {
    this.game = '';
    this.seedCommitment = '';  // Seated.seed_commitment
    this.eventsKept = eventsKept;
    this.told = new Map();     // seat -> Told
    this.answers = new Map();  // request id -> the answer sent, oldest first
    this.asked = new Map();    // request id -> Asked, oldest first
    this.running = new Map();  // request id -> the token of its decision
    this.retried = new Set();  // request ids not asked, answered again after a refusal
  }

  toldTo(seat) {
    let told = this.told.get(seat);
    if (!told) {
      told = new Told(this.eventsKept);
      this.told.set(seat, told);
    }
    return told;
  }

  keep(requestId, answer) {
    this.answers.delete(requestId);
    this.answers.set(requestId, answer);
    if (this.answers.size > ANSWERS_KEPT_PER_MATCH) {
      this.answers.delete(this.answers.keys().next().value);
    }
  }

  remember(asked) {
    const requestId = asked.request.request_id;
    this.asked.delete(requestId);
    this.asked.set(requestId, asked);
    if (this.asked.size > ANSWERS_KEPT_PER_MATCH) {
      this.asked.delete(this.asked.keys().next().value);
    }
  }
}

class BotClient {
  // options: server, and either name + key (+ maxMatches, and ladders: the
  // names of the ladders to join) or matchId + seatToken;
  // matches (stop after that many have ended; 0 never), describeActions, log,
  // tlsCa (a PEM file of CAs to trust: TLS; unset: plaintext), events
  // ('stream', 'in_requests' or 'none'), onEvent (called with each
  // MatchEvent), eventsKept (per seat of a match).
  constructor(decide, options) {
    const registers = Boolean(options.name || options.key);
    if (registers === Boolean(options.matchId || options.seatToken)) {
      throw new Error('give either a name and key, or a match id and seat token');
    }
    this.decide = decide;
    this.options = { maxMatches: 1, matches: 0, describeActions: false, ladders: [], log: () => {},
                     events: 'stream', onEvent: null, eventsKept: EVENTS_KEPT,
                     challenges: 'accept', ...options };
    const policy = this.options.challenges;
    if (policy !== 'accept' && policy !== 'decline' && typeof policy !== 'function') {
      throw new TypeError(`challenges is 'accept', 'decline' or a function of a ` +
                          `ChallengeOffer, not ${policy}`);
    }
    this.challenged = new Map();  // own challenge id -> resolve of its result
    this.nextChallenge = 1;
    this.playing = new Set();     // ids of the matches seated and not finished
    if (!Object.hasOwn(EVENT_DELIVERIES, this.options.events)) {
      throw new RangeError(`events is one of ${Object.keys(EVENT_DELIVERIES).join(', ')}, ` +
                           `not '${this.options.events}'`);
    }
    if (this.options.onEvent && typeof this.options.onEvent !== 'function') {
      throw new TypeError(`onEvent is a function of a MatchEvent, not ${this.options.onEvent}`);
    }
    if (!Number.isInteger(this.options.eventsKept) || this.options.eventsKept < 1) {
      throw new RangeError(`eventsKept is a whole number of at least 1, not ` +
                           `${this.options.eventsKept}`);
    }
    this.protocol = loadProtocol(options.protoDir);
    this.stopping = false;
    this.call = null;
    this.welcomed = false;       // whether the current stream was welcomed
    this.wake = null;            // ends a pause before reconnecting
    this.kept = new Map();       // match id -> KeptMatch, least recently used first
    this.mostKept = Math.max(MATCHES_KEPT_AT_LEAST,
                             MATCHES_KEPT_PER_SLOT * Math.max(1, this.options.maxMatches));
    this.stats = { finished: 0, decisions: 0, refused: 0, late: 0, reconnects: 0 };
  }

  // Plays until done or stopped; rejects with the status if refused for good.
  async run() {
    // TLS when given the certificate authorities to trust (a PEM file).
    const credentials = this.options.tlsCa
      ? grpc.credentials.createSsl(fs.readFileSync(this.options.tlsCa))
      : grpc.credentials.createInsecure();
    let pause = FIRST_PAUSE_MS;
    while (!this.stopping) {
      // A new channel each time: one that failed to connect waits out a
      // backoff that grows far beyond our pauses before it tries again.
      const client = new this.protocol.Arena(this.options.server, credentials, CHANNEL_OPTIONS);
      let status;
      try {
        status = await this.playOnce(client);
      } finally {
        client.close();
      }
      if (this.stopping || status === null) return;
      if (FATAL.has(status.code)) {
        throw new Error(`the server refused the bot: ${status.details} (code ${status.code})`);
      }
      if (this.welcomed) pause = FIRST_PAUSE_MS;  // the server was there: try again soon
      this.stats.reconnects += 1;
      this.options.log(`stream ended (${status.details}); reconnecting in ${pause} ms`);
      await new Promise((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, pause);
      });
      this.wake = null;
      pause = Math.min(LONGEST_PAUSE_MS, 2 * pause);
    }
  }

  stop() {
    this.stopping = true;
    if (this.call) this.call.cancel();
    if (this.wake) this.wake();
  }

  hello() {
    const o = this.options;
    if (o.seatToken) {
      return { hello: { join: { match_id: o.matchId, seat_token: o.seatToken,
                                describe_actions: o.describeActions,
                                events: EVENT_DELIVERIES[o.events] } } };
    }
    return { hello: { register: { name: o.name, key: o.key, max_matches: o.maxMatches,
                                  describe_actions: o.describeActions,
                                  events: EVENT_DELIVERIES[o.events], ladders: o.ladders } } };
  }

  // One stream's life: resolves to null when done, else its final status.
  playOnce(client) {
    return new Promise((resolve) => {
      const call = client.Play();
      this.call = call;
      this.welcomed = false;
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

  // Asks `opponents` (bot names) to one match with this bot of `game`;
  // resolves to the ChallengeResult (accepted, match_id, or the reason it
  // was not), or null if none came within timeoutMs. An accepted match is
  // played by decide as any other. Call while run() runs.
  challenge(opponents, game, { options = {}, rated = true, timeoutMs = 30000 } = {}) {
    const challengeId = `${this.options.name}-${this.nextChallenge++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.challenged.delete(challengeId); resolve(null); },
                               timeoutMs);
      this.challenged.set(challengeId, (result) => { clearTimeout(timer); resolve(result); });
      this.send({ challenge: { challenge_id: challengeId, opponents, game, options, rated } });
    });
  }

  // Joins these ladders (by name) and leaves the others, without
  // reconnecting: a ladder left seats the bot in no new match. Kept for the
  // hellos of later reconnections too.
  setLadders(ladders) {
    this.options.ladders = [...ladders];
    this.send({ ladders: { names: [...ladders] } });
  }

  // Answers another bot's challenge by the policy.
  async onOffer(offer) {
    const policy = this.options.challenges;
    let accept = false;
    if (typeof policy === 'function') {
      try {
        accept = Boolean(await policy(offer));
      } catch (error) {
        this.options.log(`challenge ${offer.challenge_id}: the policy failed: ${error.stack}`);
      }
    } else {
      accept = policy === 'accept' && this.playing.size < this.options.maxMatches;
    }
    this.options.log(`challenge ${offer.challenge_id} from ${offer.challenger} (${offer.game}` +
                     `${offer.rated ? ', rated' : ''}): ${accept ? 'accepted' : 'declined'}`);
    this.send({ challenge_answer: { challenge_id: offer.challenge_id, accept } });
  }

  // Handles one server message; true when the bot is done.
  onMessage(message) {
    switch (message.kind) {
      case 'challenge_offer':
        this.onOffer(message.challenge_offer);
        break;
      case 'challenge_result': {
        const result = message.challenge_result;
        const resolve = this.challenged.get(result.challenge_id);
        if (resolve) {
          this.challenged.delete(result.challenge_id);
          resolve(result);
        } else if (!result.accepted) {
          this.options.log(`challenge ${result.challenge_id} did not start: ${result.reason}`);
        }
        break;
      }
      case 'decision':
        this.onDecision(message.decision);
        break;
      case 'answer_result':
        this.onRefusal(message.answer_result);
        break;
      case 'welcome':
        this.welcomed = true;
        break;
      case 'seated': {
        const seated = message.seated;
        const match = this.match(seated.match_id);
        this.playing.add(seated.match_id);
        match.game = seated.game;
        match.seedCommitment = seated.seed_commitment || '';
        this.options.log(`${seated.match_id}: seated as seat ${seated.seat} of ` +
                         `${seated.players} (${seated.game}), deal commitment ` +
                         `${seated.seed_commitment || 'none'}`);
        break;
      }
      case 'event': {
        const event = message.event;
        const matchId = event.match_id;
        if (event.kind !== 'finished') {
          this.match(matchId).toldTo(event._seat ? event.seat : null).add(event);
          this.tell(event);
          break;
        }
        this.tell(event);
        this.playing.delete(matchId);
        if (!this.kept.delete(matchId)) break;  // a second seat's news of the same match
        this.stats.finished += 1;
        const match = event.finished.match;
        const aborted = match && match.status === 'MATCH_STATUS_ABORTED';
        this.options.log(`${matchId}: ${aborted ? 'aborted' : 'finished'}`);
        if (this.options.seatToken ||
            (this.options.matches && this.stats.finished >= this.options.matches)) {
          this.stopping = true;
          return true;
        }
        break;
      }
      case 'error': {
        const error = message.error;
        this.options.log(`server: ${error.message}`);
        // The server has no such match (any more).
        if (error.match_id && error.code === grpc.status.NOT_FOUND) this.kept.delete(error.match_id);
        break;
      }
      default:
        break;
    }
    return false;
  }

  // Calls onEvent; what it throws (or rejects with) is logged and the play
  // goes on.
  tell(event) {
    const onEvent = this.options.onEvent;
    if (!onEvent) return;
    const failed = (error) => this.options.log(
      `${event.match_id}: onEvent failed: ${error && error.stack ? error.stack : error}`);
    try {
      const result = onEvent(event);
      if (result && typeof result.then === 'function') result.then(null, failed);
    } catch (error) {
      failed(error);
    }
  }

  // The match's KeptMatch, made if new, now the most recently used.
  match(matchId) {
    let match = this.kept.get(matchId);
    if (match) {
      this.kept.delete(matchId);
    } else {
      match = new KeptMatch(this.options.eventsKept);
      if (this.kept.size >= this.mostKept) this.kept.delete(this.kept.keys().next().value);
    }
    this.kept.set(matchId, match);
    return match;
  }

  onDecision(request) {
    const match = this.match(request.match_id);
    const requestId = request.request_id;
    // The request's events (with in_requests), heard before it is decided.
    for (const event of match.toldTo(request.seat).take(request)) this.tell(event);
    if (request.resent) {
      // Sent again after a reconnect: the answer may have been lost with the
      // stream, and the server expects that same answer.
      const asked = match.asked.get(requestId);
      // The time left, as the server counts it now.
      if (asked) asked.deadline = performance.now() + request.time_left_ms;
      const answer = match.answers.get(requestId);
      if (answer) {
        this.send({ answer });
        return;
      }
      if (match.running.has(requestId)) return;  // sent once decided
    }
    // Not resent: a new request, even with known ids (a restarted server may
    // reuse a match id). Whatever was sent or is being decided for those ids
    // belongs to another request.
    match.answers.delete(requestId);
    match.retried.delete(requestId);
    const asked = new Asked(request, match.game);
    match.remember(asked);
    this.ask(match, asked);
  }

  // Runs the decide function on `asked`, with a timer for its deadline.
  ask(match, asked) {
    const request = asked.request;
    const token = {};
    match.running.set(request.request_id, token);
    const left = asked.deadline - performance.now();
    const told = match.toldTo(request.seat);
    const decision = new Decision(request, asked.game, asked.refused,
                                  asked.refused.length ? Math.max(0, left) : undefined,
                                  told.events, told.dropped, match.seedCommitment);
    const timer = setTimeout(() => {
      if (this.commit(asked, token,
                      defaultAnswer(request.match_id, request.request_id, 'DEFAULT_REASON_LATE'),
                      DEFAULT)) {
        this.stats.late += 1;
        this.options.log(`${request.match_id}: no decision in time for request ` +
                         `${request.request_id}; sent the default action`);
      }
    }, Math.max(0, left - DEADLINE_MARGIN_MS));
    let choice = DEFAULT;
    Promise.resolve()
      .then(() => this.decide(decision))
      .then((decided) => {
        if (decided === undefined || decided === null) {
          this.options.log(`${request.match_id}: the bot decided nothing for request ` +
                           `${request.request_id}; playing the default action`);
          return defaultAnswer(request.match_id, request.request_id, 'DEFAULT_REASON_FAILED');
        }
        const answer = makeAnswer(request, decided);
        choice = decided;
        return answer;
      })
      .catch((error) => {  // a bug in the bot: play the default rather than time out
        this.options.log(`${request.match_id}: the bot failed, playing the default action: ` +
                         `${error && error.stack ? error.stack : error}`);
        return defaultAnswer(request.match_id, request.request_id, 'DEFAULT_REASON_FAILED');
      })
      .then((answer) => {
        clearTimeout(timer);
        if (this.commit(asked, token, answer, choice)) {
          this.stats.decisions += 1;
        } else {
          this.options.log(`${request.match_id}: decision for request ${request.request_id} ` +
                           "came after its deadline or its match's end, and was dropped");
        }
      });
  }

  // Sends `answer` if the decision `token` names is still awaited.
  commit(asked, token, answer, choice) {
    const request = asked.request;
    const match = this.kept.get(request.match_id);
    // Answered already, its match is over, or a newer request took its ids.
    if (!match || match.running.get(request.request_id) !== token) return false;
    match.running.delete(request.request_id);
    match.keep(request.request_id, answer);
    asked.choice = choice;
    this.send({ answer });
    return true;
  }

  onRefusal(result) {
    if (result.accepted) return;
    this.stats.refused += 1;
    const requestId = result.request_id;
    this.options.log(`${result.match_id}: answer to request ${requestId} refused: ` +
                     `${result.reason}`);
    const match = this.match(result.match_id);
    const asked = match.asked.get(requestId);
    if (!result.may_retry) {  // the request is closed
      match.asked.delete(requestId);
      return;
    }
    if (match.running.has(requestId)) return;  // being decided again already
    if (!asked) {
      // A request this client did not decide, or has forgotten: the default
      // action, once.
      if (match.retried.has(requestId)) return;
      match.retried.add(requestId);
      this.sendDefault(match, result.match_id, requestId);
      return;
    }
    asked.refused.push({ answer: asked.choice, reason: result.reason, code: result.code });
    if (asked.choice === DEFAULT) return;  // nothing better to send
    const left = asked.deadline - performance.now() - DEADLINE_MARGIN_MS;
    if (asked.refused.length >= MAX_REFUSALS || left <= 0) {
      asked.choice = DEFAULT;
      this.sendDefault(match, result.match_id, requestId);
      this.options.log(`${result.match_id}: ${asked.refused.length} answers to request ` +
                       `${requestId} refused${left > 0 ? '' : ' and no time left'}; ` +
                       'sent the default action');
      return;
    }
    this.ask(match, asked);
  }

  // The default action in place of a refused answer.
  sendDefault(match, matchId, requestId) {
    const answer = defaultAnswer(matchId, requestId, 'DEFAULT_REASON_REFUSED');
    match.keep(requestId, answer);
    this.send({ answer });
  }
}

const HELP = `flags (each defaults to its environment variable):
  --server HOST:PORT  the Hoard server ($HOARD_SERVER, else 127.0.0.1:50051)
  --name NAME         register as this bot ($HOARD_BOT_NAME)
  --key KEY           the key of the bot's account ($HOARD_BOT_KEY, else the contents
                      of the file $HOARD_BOT_KEY_FILE)
  --max-matches N     matches to play at once ($HOARD_MAX_MATCHES, else 1)
  --ladder NAME       join this ladder: play its matches while connected (repeat for
                      several; $HOARD_LADDER, names separated by commas)
  --challenges WHAT   answer other bots' challenges: accept while a match slot is free
                      (default; $HOARD_CHALLENGES) or decline
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

// After SIGTERM or SIGINT the process ends within this long, with status 0:
// below the 2 s a tournament's launcher waits before SIGKILL.
const STOP_WITHIN_MS = 1000;

// Runs `decide` as a bot configured by command-line flags and HOARD_*
// variables; exits the process (0 done or stopped by SIGTERM or SIGINT, 1
// refused by the server, 2 bad flags).
// clientOptions are BotClient's options the flags do not set, such as
// describeActions, events ('stream', 'in_requests' or 'none': how the seats
// hear the play) and onEvent (called with each event).
function run(decide, { argv = process.argv.slice(2), ...clientOptions } = {}) {
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
      ladder: { type: 'string', multiple: true }, challenges: { type: 'string' },
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
    challenges: values.challenges || env.HOARD_CHALLENGES || 'accept',
    ...clientOptions,
    log: values.quiet ? () => {} : (line) => process.stderr.write(`${program}: ${line}\n`),
  };
  if (!['accept', 'decline'].includes(options.challenges) &&
      typeof options.challenges !== 'function') {
    usage(`--challenges is accept or decline, not '${options.challenges}'`);
  }
  if (values.match || values.token) {
    if (!values.match || !values.token) usage('joining a seat needs both --match and --token');
    Object.assign(options, { matchId: values.match, seatToken: values.token });
  } else {
    Object.assign(options, { name: values.name || env.HOARD_BOT_NAME || '',
                             key: values.key || env.HOARD_BOT_KEY || '',
                             ladders: values.ladder ||
                                      (env.HOARD_LADDER || '').split(',').filter(Boolean) });
    if (!options.key && env.HOARD_BOT_KEY_FILE) {
      options.key = readKeyFile(env.HOARD_BOT_KEY_FILE, usage);
    }
    if (!options.name || !options.key) {
      usage('give --name and --key (or $HOARD_BOT_NAME and $HOARD_BOT_KEY or ' +
            '$HOARD_BOT_KEY_FILE), or --match and --token');
    }
  }
  const client = new BotClient(decide, options);
  // The handlers run on the event loop, between callbacks, so stop() is
  // safe in them. Once one has run, both are removed: a second signal gets
  // the default action and ends the process at once.
  const onStopSignal = () => {
    process.removeListener('SIGTERM', onStopSignal);
    process.removeListener('SIGINT', onStopSignal);
    client.stop();
    // Normally run() ends at once; this bounds a stream that would not close.
    setTimeout(() => process.exit(0), STOP_WITHIN_MS).unref();
  };
  process.on('SIGTERM', onStopSignal);
  process.on('SIGINT', onStopSignal);
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

// Typed actions of every game (actions.js), read from this checkout's
// protocol ($HOARD_PROTO_DIR, else proto/) when first used.
const actions = makeActions(defaultProtoDir);

module.exports = {
  run, actions, BotClient, Decision, DEFAULT, EVENTS_KEPT, MAX_REFUSALS, STOP_WITHIN_MS,
  loadProtocol, CHANNEL_OPTIONS,
};
