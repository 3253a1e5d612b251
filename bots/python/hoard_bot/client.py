"""A Hoard bot client: one function from what a seat sees to its answer.

The client holds the Play stream, registers the bot (or joins one seat with
its token), answers each decision request with the bot's function, and takes
care of what every bot needs:

* request ids and match ids on every answer;
* refusals: when the server refuses an answer and the request is still open
  (`may_retry`), the function is asked again, with the refused answers and
  the server's reasons in `decision.refused`, so the bot can correct itself
  while time remains; after 3 refusals of one request the default action
  (the first legal one) is sent instead;
* the default action is sent only when the bot asks for it (returns
  `DEFAULT`), when its function returns None or raises (logged with the
  traceback: a bug costs a move, not the match), after 3 refusals, and when
  time runs out: a decision still running shortly before its deadline is
  answered with the default action, and the late result is dropped. Each
  default sent in place of the bot's own decision says why
  (Answer.default_reason: failed, refused, late): the server counts them,
  and `hoard check-bot` fails a bot that needs them often;
* reconnects: a broken stream is opened again on a new channel, after
  pauses that grow from 0.1 s to at most 1 s (and start again at 0.1 s once a
  server has welcomed the bot), so the bot is back within about a second of
  its server; a status that reconnecting cannot help (a wrong key, an unknown
  seat...) stops it instead;
* resent requests: the server sends the requests still open again after a
  reconnect, marked `resent`, and the client answers each with the answer it
  gave before (which may have been lost with the stream), or decides it if it
  gave none. A request not marked `resent` is always decided afresh, even if
  its match and request ids were seen before: a server that lost its matches
  may hand the same ids out again;
* memory: what the client keeps of a match (its answers, to send again, and
  its requests, to ask again) is forgotten when the match ends or is aborted,
  or when the server says it does not know the match; at most a few requests
  per match and a few matches per match slot are kept, so matches that
  vanished with a crashed server are forgotten too;
* several matches at once: decisions run on a pool of max_matches threads;
* the play-by-play: each seat hears the events of its matches (MatchEvent:
  every action as it is played, a sealed answer first as "answered
  (sealed)" and then revealed, faults, the end), on the stream or inside
  its decision requests (`events="stream"`, the default, or
  `"in_requests"`; `"none"` hears only the end). The client keeps each
  seat's events in order, a resent request's repeated ones taken once, and
  gives them to every decision (`decision.events`, oldest first), so a bot
  that keeps nothing still knows what the others played; `on_event` is
  called with each event as it arrives (for those inside a request, before
  the decision is asked). A match's events are forgotten with the rest of
  it, and at most `events_kept` are kept per seat, the oldest dropped first
  (`decision.events_dropped` counts them).
"""

import collections
import random
import threading
import time
import traceback
from concurrent import futures

import grpc

from hoard_bot.stubs import arena_pb2, arena_pb2_grpc

# Stream statuses after which reconnecting cannot help.
_FATAL = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
          grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
          grpc.StatusCode.UNIMPLEMENTED}
# A decision not made this long before its deadline gets the default action.
_DEADLINE_MARGIN_S = 0.15
# Pauses between attempts to reconnect: doubling from the first to the last.
_FIRST_PAUSE_S = 0.1
_LONGEST_PAUSE_S = 1.0
# Each channel its own connection, retried at most this far apart, so that a
# new channel never inherits an old one's long backoff.
# A name with several addresses (replicas behind one DNS name) has its calls
# spread over them, each to the next (gRPC's round_robin).
_CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1),
                    ("grpc.initial_reconnect_backoff_ms", 100),
                    ("grpc.max_reconnect_backoff_ms", 1000),
                    ("grpc.lb_policy_name", "round_robin")]


def channel(server, credentials=None):
    """A channel to `server` as the bots make theirs: reconnecting within a
    second, calls spread over every address of a name (round_robin); TLS
    with `credentials` (grpc.ssl_channel_credentials), else plaintext.
    `server` is HOST:PORT or any gRPC target (dns:///NAME:PORT, ...)."""
    if credentials:
        return grpc.secure_channel(server, credentials, _CHANNEL_OPTIONS)
    return grpc.insecure_channel(server, _CHANNEL_OPTIONS)
# Refused answers to one request after which the default action is sent.
MAX_REFUSALS = 3
# Answers kept to send again: a stream has at most one open request per seat
# it holds, so a few per match; and the matches of max_matches slots a few
# times over, for those that vanish without an end (a server that crashed).
_ANSWERS_KEPT_PER_MATCH = 8
_MATCHES_KEPT_PER_SLOT = 4
_MATCHES_KEPT_AT_LEAST = 64
# Events kept per seat of a match: a match tells a few per action, far fewer.
EVENTS_KEPT = 100_000
# The `events` option: how the stream hears the play (Register.events).
_EVENT_DELIVERIES = {"stream": arena_pb2.EVENT_DELIVERY_STREAM,
                     "in_requests": arena_pb2.EVENT_DELIVERY_IN_REQUESTS,
                     "none": arena_pb2.EVENT_DELIVERY_NONE}


class BotError(Exception):
    """The server refused the bot for good (a wrong key, an unknown seat...)."""


class _Default:
    """The type of DEFAULT."""

    def __repr__(self):
        return "hoard_bot.DEFAULT"


# Returned by a decide function: play the default action (the first legal one).
DEFAULT = _Default()


class Refusal(collections.namedtuple("Refusal", "answer reason code")):
    """An answer the server refused.

    Attributes:
      answer: what the decide function returned (an index or a hoard.v1.Action).
      reason: why, in words ("legal_index 9 is out of range...", "the shares
        give out 3 gold, but the treasure holds 2...").
      code: the gRPC status code (3 INVALID_ARGUMENT for an illegal action).
    """

    __slots__ = ()


class Decision:
    """One decision of one seat: what it sees and what it may do.

    Attributes:
      request: the DecisionRequest as it came (hoard.v1.DecisionRequest).
      match_id, seat: the match and the seat deciding.
      game: the game id ("village", "dragons_gold", ...).
      view: the seat's view of the game, typed (for example a VillageView).
      legal_actions: the legal actions (hoard.v1.Action), the first one the
        default; every legal action when `complete`, else examples.
      texts: each legal action in words, when the bot asked for them.
      complete: whether legal_actions lists every legal action.
      constraints: when not complete, what makes an action legal, in words.
      time_left_ms: the time left to answer, bank included (less than the
        request's when the function is asked again after a refusal).
      refused: the answers to this request the server refused, oldest first,
        each a Refusal(answer, reason, code); empty when first asked.
      events: the events of the match this seat was told so far, oldest first
        (hoard.v1.MatchEvent: action_taken, fault); empty with events="none".
      events_dropped: how many of the oldest events were dropped to keep at
        most `events_kept` (0 in any match of a sane length).
      seed_commitment: the match's commitment to its deal, told when the seat
        was taken (Seated.seed_commitment): SHA-256 of "SEED:SALT" as 64 hex
        digits, fixed before the first move. Once the match is over its
        record carries the seed and salt that hash to it (docs/records.md);
        empty if the server told none.
    """

    def __init__(self, request, game, refused=(), time_left_ms=None, events=(),
                 events_dropped=0, seed_commitment=""):
        self.request = request
        self.match_id = request.match_id
        self.seat = request.seat
        self.game = game or request.view.WhichOneof("game") or ""
        self.view = getattr(request.view, request.view.WhichOneof("game")) \
            if request.view.WhichOneof("game") else None
        self.legal_actions = [legal.action for legal in request.legal_actions]
        self.texts = [legal.text for legal in request.legal_actions]
        self.complete = request.legal_actions_complete
        self.constraints = request.constraints
        self.time_left_ms = request.time_left_ms if time_left_ms is None else time_left_ms
        self.refused = list(refused)
        self.events = list(events)
        self.events_dropped = events_dropped
        self.seed_commitment = seed_commitment


def _default(match_id, request_id, reason):
    """The default action (the first legal one), sent in place of the bot's
    own decision, and why: the server counts these (hoard check-bot)."""
    return arena_pb2.Answer(match_id=match_id, request_id=request_id, legal_index=0,
                            default_reason=reason)


def _answer(request, choice):
    answer = arena_pb2.Answer(match_id=request.match_id, request_id=request.request_id)
    if choice is DEFAULT:
        answer.legal_index = 0
    elif isinstance(choice, arena_pb2.Action):
        answer.action.CopyFrom(choice)
    elif isinstance(choice, int) and not isinstance(choice, bool):
        answer.legal_index = choice
    else:
        raise TypeError(f"a bot answers an index into legal_actions, a hoard.v1.Action or "
                        f"DEFAULT, not {type(choice).__name__}")
    return answer


def _outcome(event):
    """", seat 1: score 28, place 2 of 4" for the seat a finished event was sent to."""
    match = event.finished.match
    if not event.HasField("seat") or match.status != arena_pb2.MATCH_STATUS_FINISHED:
        return ""
    for info in match.seats:
        if info.seat == event.seat:
            return (f", seat {info.seat}: score {info.score:g}, place {info.rank} of "
                    f"{len(match.seats)}")
    return ""


class _Asked:
    """A request the bot's function decides, kept to ask it again if refused."""

    def __init__(self, request, game):
        self.request = request
        self.game = game
        self.deadline = time.monotonic() + request.time_left_ms / 1000.0
        self.refused = []   # a Refusal per refused answer, oldest first
        self.choice = None  # what the function returned for the answer last sent


class _Told:
    """The events one seat of a match was told, oldest first, bounded."""

    def __init__(self, most):
        self.events = collections.deque(maxlen=most)
        self.dropped = 0                          # the oldest, dropped to keep `most`
        self.taken = collections.OrderedDict()    # request id -> its events taken, oldest first

    def add(self, event):
        if len(self.events) == self.events.maxlen:
            self.dropped += 1
        self.events.append(event)

    def take(self, request):
        """The events of `request` not yet taken, added to the history.

        A request carries the events since the seat's previous request; sent
        again (resent), it carries them again, with any newer ones after them.
        """
        request_id = request.request_id
        seen = self.taken.get(request_id, 0) if request.resent else 0
        fresh = request.events[seen:]
        self.taken[request_id] = max(seen, len(request.events))
        self.taken.move_to_end(request_id)
        while len(self.taken) > _ANSWERS_KEPT_PER_MATCH:
            self.taken.popitem(last=False)
        for event in fresh:
            self.add(event)
        return fresh


class _Match:
    """What the client keeps of one match it plays, until the match ends."""

    def __init__(self, events_kept):
        self.game = ""
        self.seed_commitment = ""                 # Seated.seed_commitment
        self.events_kept = events_kept
        self.told = {}                            # seat -> _Told
        self.answers = collections.OrderedDict()  # request id -> Answer sent, oldest first
        self.asked = collections.OrderedDict()    # request id -> _Asked, oldest first
        self.running = {}                         # request id -> token of its decision
        self.retried = set()                      # request ids not asked, answered again

    def told_to(self, seat):
        told = self.told.get(seat)
        if told is None:
            told = self.told[seat] = _Told(self.events_kept)
        return told

    def keep(self, request_id, answer):
        self.answers[request_id] = answer
        self.answers.move_to_end(request_id)
        while len(self.answers) > _ANSWERS_KEPT_PER_MATCH:
            self.answers.popitem(last=False)

    def remember(self, asked):
        request_id = asked.request.request_id
        self.asked[request_id] = asked
        self.asked.move_to_end(request_id)
        while len(self.asked) > _ANSWERS_KEPT_PER_MATCH:
            self.asked.popitem(last=False)


class _Stream:
    """The outgoing half of one Play stream: messages queued for the generator."""

    def __init__(self, hello):
        self._cond = threading.Condition()
        self._queue = [hello]
        self._closed = False

    def send(self, message):
        with self._cond:
            if not self._closed:
                self._queue.append(message)
                self._cond.notify()

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify()

    def messages(self):
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                message = self._queue.pop(0)
            yield message


class BotClient:
    """Plays as a bot until `matches` matches have ended (0: until stopped)."""

    def __init__(self, decide, *, server, name="", key="", match_id="", seat_token="",
                 max_matches=1, matches=0, describe_actions=False, reconnect=True, log=None,
                 tls_ca="", events="stream", on_event=None, events_kept=EVENTS_KEPT,
                 ladders=(), challenges="accept"):
        if bool(name or key) == bool(match_id or seat_token):
            raise ValueError("give either a name and key, or a match id and seat token")
        if events not in _EVENT_DELIVERIES:
            raise ValueError(f"events is one of {', '.join(map(repr, _EVENT_DELIVERIES))}, "
                             f"not {events!r}")
        if on_event is not None and not callable(on_event):
            raise TypeError(f"on_event is a function of a MatchEvent, not "
                            f"{type(on_event).__name__}")
        if isinstance(events_kept, bool) or not isinstance(events_kept, int) or events_kept < 1:
            raise ValueError(f"events_kept is a whole number of at least 1, not {events_kept!r}")
        self._events = _EVENT_DELIVERIES[events]
        self._on_event = on_event
        self._events_kept = events_kept
        self._decide = decide
        self._server = server
        # TLS when given the certificate authorities to trust (a PEM file).
        self._credentials = None
        if tls_ca:
            with open(tls_ca, "rb") as pem:
                self._credentials = grpc.ssl_channel_credentials(root_certificates=pem.read())
        self._name, self._key = name, key
        self._match_id, self._seat_token = match_id, seat_token
        self._max_matches = max(1, max_matches)
        # The ladders the bot joins: it plays their matches while connected.
        self._ladders = list(ladders)
        # How it answers other bots' challenges: "accept" (while it has a
        # free slot), "decline", or a function of the ChallengeOffer that
        # returns whether to accept.
        if challenges not in ("accept", "decline") and not callable(challenges):
            raise ValueError(f"challenges is 'accept', 'decline' or a function of a "
                             f"ChallengeOffer, not {challenges!r}")
        self._challenges = challenges
        # Own challenges waiting for their result: id -> (Event, [result]).
        self._challenged = {}
        self._next_challenge = 1
        self._playing = set()  # ids of the matches seated and not finished
        self._matches = matches
        self._describe = describe_actions
        self._reconnect = reconnect
        self._log = log or (lambda line: None)
        self._pool = futures.ThreadPoolExecutor(max_workers=self._max_matches)
        self._lock = threading.Lock()
        self._stream = None            # the current _Stream
        self._call = None              # the current call, to cancel it
        self._welcomed = False         # whether the current stream was welcomed
        # match id -> _Match, least recently used first; guarded by _lock.
        self._kept = collections.OrderedDict()
        self._most_kept = max(_MATCHES_KEPT_AT_LEAST, _MATCHES_KEPT_PER_SLOT * self._max_matches)
        self._stopping = False
        self._stopped = threading.Event()  # wakes a pause before reconnecting
        self.finished = 0              # matches ended
        self.decisions = 0
        self.refused = 0
        self.reconnects = 0
        self.late = 0

    # ---- life cycle -----------------------------------------------------------

    def run(self):
        """Plays; returns when done or stopped, raises BotError if refused for good."""
        pause = _FIRST_PAUSE_S
        try:
            while not self._stopping:
                status = self._play_once()
                if self._stopping or status is None:
                    return
                code, details = status
                if code in _FATAL or not self._reconnect:
                    raise BotError(f"{code.name}: {details}")
                if self._welcomed:  # the server was there: try again soon
                    pause = _FIRST_PAUSE_S
                self.reconnects += 1
                self._log(f"stream ended ({code.name}: {details}); reconnecting in {pause:.2f}s")
                self._stopped.wait(pause)
                pause = min(_LONGEST_PAUSE_S, 2 * pause)
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def stop(self):
        """Ends run() soon; callable from any thread, not from a signal handler
        (it takes the client's lock, which the interrupted thread may hold):
        hoard_bot.run stops on SIGTERM and SIGINT without that risk."""
        self._stopping = True
        self._stopped.set()
        with self._lock:
            if self._stream is not None:
                self._stream.close()
            if self._call is not None:
                self._call.cancel()

    def _hello(self):
        if self._seat_token:
            return arena_pb2.BotMessage(hello=arena_pb2.Hello(join=arena_pb2.Join(
                match_id=self._match_id, seat_token=self._seat_token,
                describe_actions=self._describe, events=self._events)))
        return arena_pb2.BotMessage(hello=arena_pb2.Hello(register=arena_pb2.Register(
            name=self._name, key=self._key, max_matches=self._max_matches,
            describe_actions=self._describe, events=self._events, ladders=list(self._ladders))))

    def _play_once(self):
        """One stream's life: None when done, else (status code, details)."""
        stream = _Stream(self._hello())
        self._welcomed = False
        # A new channel each time: one that failed to connect waits out a
        # backoff that grows far beyond our pauses before it tries again.
        with channel(self._server, self._credentials) as opened:
            call = arena_pb2_grpc.ArenaStub(opened).Play(stream.messages())
            with self._lock:
                if self._stopping:
                    return None
                self._stream, self._call = stream, call
            try:
                for message in call:
                    if self._on_message(message):
                        return None
                return (grpc.StatusCode.UNAVAILABLE, "the server closed the stream")
            except grpc.RpcError as error:
                if self._stopping:
                    return None
                return (error.code(), error.details())
            finally:
                stream.close()
                with self._lock:
                    self._stream = self._call = None

    # ---- messages -------------------------------------------------------------

    def _send(self, message):
        with self._lock:
            if self._stream is not None:
                self._stream.send(message)

    def challenge(self, opponents, game, *, options=None, rated=True, timeout=30.0):
        """Asks `opponents` (bot names) to one match with this bot of `game`;
        returns the ChallengeResult (accepted, match_id, or the reason it was
        not), or None if none came within `timeout` seconds. The match, if
        accepted, is played by `decide` as any other. Call from any thread
        but the one running run(), while it runs."""
        done = threading.Event()
        box = []
        with self._lock:
            challenge_id = f"{self._name}-{self._next_challenge}"
            self._next_challenge += 1
            self._challenged[challenge_id] = (done, box)
        self._send(arena_pb2.BotMessage(challenge=arena_pb2.Challenge(
            challenge_id=challenge_id, opponents=list(opponents), game=game,
            options=dict(options or {}), rated=rated)))
        done.wait(timeout)
        with self._lock:
            self._challenged.pop(challenge_id, None)
        return box[0] if box else None

    def set_ladders(self, ladders):
        """Joins these ladders (by name) and leaves the others the bot is in,
        without reconnecting: a ladder left seats the bot in no new match.
        Kept for the hellos of later reconnections too."""
        with self._lock:
            self._ladders = list(ladders)
        self._send(arena_pb2.BotMessage(ladders=arena_pb2.Ladders(names=list(ladders))))

    def _on_offer(self, offer):
        """Answers another bot's challenge by the policy."""
        if callable(self._challenges):
            try:
                accept = bool(self._challenges(offer))
            except Exception:
                self._log(f"challenge {offer.challenge_id}: the policy failed:\n"
                          f"{traceback.format_exc()}")
                accept = False
        elif self._challenges == "accept":
            with self._lock:
                accept = len(self._playing) < self._max_matches
        else:
            accept = False
        self._log(f"challenge {offer.challenge_id} from {offer.challenger} ({offer.game}"
                  f"{', rated' if offer.rated else ''}): {'accepted' if accept else 'declined'}")
        self._send(arena_pb2.BotMessage(challenge_answer=arena_pb2.ChallengeAnswer(
            challenge_id=offer.challenge_id, accept=accept)))

    def _on_challenge_result(self, result):
        with self._lock:
            waiting = self._challenged.get(result.challenge_id)
        if waiting is not None:
            waiting[1].append(result)
            waiting[0].set()
        elif not result.accepted:
            self._log(f"challenge {result.challenge_id} did not start: {result.reason}")

    def _on_message(self, message):
        """Handles one server message; True when the bot is done."""
        kind = message.WhichOneof("kind")
        if kind == "challenge_offer":
            self._on_offer(message.challenge_offer)
        elif kind == "challenge_result":
            self._on_challenge_result(message.challenge_result)
        elif kind == "decision":
            self._on_decision(message.decision)
        elif kind == "answer_result":
            self._on_refusal(message.answer_result)
        elif kind == "welcome":
            self._welcomed = True
        elif kind == "seated":
            seated = message.seated
            with self._lock:
                match = self._match(seated.match_id)
                self._playing.add(seated.match_id)
                match.game = seated.game
                match.seed_commitment = seated.seed_commitment
            self._log(f"{seated.match_id}: seated as seat {seated.seat} of {seated.players} "
                      f"({seated.game}), deal commitment {seated.seed_commitment or 'none'}")
        elif kind == "event":
            return self._on_match_event(message.event)
        elif kind == "error":
            error = message.error
            self._log(f"server: {error.message}")
            if error.match_id and error.code == grpc.StatusCode.NOT_FOUND.value[0]:
                with self._lock:  # the server has no such match (any more)
                    self._kept.pop(error.match_id, None)
        return False

    def _tell(self, event):
        """Calls on_event; its failure is logged and the play goes on."""
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception:
            self._log(f"{event.match_id}: on_event failed:\n{traceback.format_exc()}")

    def _on_match_event(self, event):
        """Handles a MatchEvent of the stream; True when the bot is done."""
        if event.WhichOneof("kind") != "finished":
            with self._lock:
                self._match(event.match_id).told_to(
                    event.seat if event.HasField("seat") else None).add(event)
            self._tell(event)
            return False
        self._tell(event)
        match_id = event.match_id
        with self._lock:
            known = self._kept.pop(match_id, None) is not None
            self._playing.discard(match_id)
        if not known:  # a second seat's news of the same match
            return False
        self.finished += 1
        aborted = event.finished.match.status == arena_pb2.MATCH_STATUS_ABORTED
        self._log(f"{match_id}: {'aborted' if aborted else 'finished'}{_outcome(event)}")
        if self._seat_token or (self._matches and self.finished >= self._matches):
            self._stopping = True
            self.stop()
            return True
        return False

    def _match(self, match_id):
        """The match's _Match, made if new, now the most recently used.

        REQUIRES: _lock held.
        """
        match = self._kept.get(match_id)
        if match is None:
            match = self._kept[match_id] = _Match(self._events_kept)
            while len(self._kept) > self._most_kept:
                self._kept.popitem(last=False)
        self._kept.move_to_end(match_id)
        return match

    def _on_decision(self, request):
        # The request's events (with in_requests), heard before it is decided.
        with self._lock:
            fresh = self._match(request.match_id).told_to(request.seat).take(request)
        for event in fresh:
            self._tell(event)
        with self._lock:
            match = self._match(request.match_id)
            if request.resent:
                # Sent again after a reconnect: the answer may have been lost
                # with the stream, and the server expects that same answer.
                asked = match.asked.get(request.request_id)
                if asked is not None:  # the time left, as the server counts it now
                    asked.deadline = time.monotonic() + request.time_left_ms / 1000.0
                answer = match.answers.get(request.request_id)
                if answer is not None:
                    if self._stream is not None:
                        self._stream.send(arena_pb2.BotMessage(answer=answer))
                    return
                if request.request_id in match.running:  # sent once decided
                    return
            # Not resent: a new request, even with known ids (a restarted
            # server may reuse a match id). Whatever was sent or is being
            # decided for those ids belongs to another request.
            match.answers.pop(request.request_id, None)
            match.retried.discard(request.request_id)
            asked = _Asked(request, match.game)
            match.remember(asked)
            self._ask(match, asked)

    def _ask(self, match, asked):
        """Runs the bot's function on `asked`, with a timer for its deadline.

        REQUIRES: _lock held.
        """
        request = asked.request
        token = match.running[request.request_id] = object()
        left = asked.deadline - time.monotonic()
        told = match.told_to(request.seat)
        decision = Decision(request, asked.game, asked.refused,
                            time_left_ms=max(0, int(left * 1000)) if asked.refused else None,
                            events=told.events, events_dropped=told.dropped,
                            seed_commitment=match.seed_commitment)
        timer = threading.Timer(max(0.0, left - _DEADLINE_MARGIN_S), self._on_deadline,
                                args=(asked, token))
        timer.daemon = True
        timer.start()
        self._pool.submit(self._decide_and_answer, asked, decision, token, timer)

    def _decide_and_answer(self, asked, decision, token, timer):
        request = asked.request
        try:
            choice = self._decide(decision)
            if choice is None:
                self._log(f"{request.match_id}: the bot decided nothing for request "
                          f"{request.request_id}; playing the default action")
                choice = DEFAULT
                answer = _default(request.match_id, request.request_id,
                                  arena_pb2.DEFAULT_REASON_FAILED)
            else:
                answer = _answer(request, choice)
        except Exception:  # a bug in the bot: play the default rather than time out
            self._log(f"{request.match_id}: the bot failed, playing the default action:\n"
                      f"{traceback.format_exc()}")
            choice = DEFAULT
            answer = _default(request.match_id, request.request_id,
                              arena_pb2.DEFAULT_REASON_FAILED)
        timer.cancel()
        if self._commit(asked, token, answer, choice):
            self.decisions += 1
        else:
            self._log(f"{request.match_id}: decision for request {request.request_id} came "
                      "after its deadline or its match's end, and was dropped")

    def _on_deadline(self, asked, token):
        request = asked.request
        if self._commit(asked, token, _default(request.match_id, request.request_id,
                                               arena_pb2.DEFAULT_REASON_LATE), DEFAULT):
            self.late += 1
            self._log(f"{request.match_id}: no decision in time for request "
                      f"{request.request_id}; sent the default action")

    def _commit(self, asked, token, answer, choice):
        """Sends `answer` if the decision `token` names is still awaited."""
        request = asked.request
        with self._lock:
            match = self._kept.get(request.match_id)
            # Answered already, its match is over, or a newer request took its ids.
            if match is None or match.running.get(request.request_id) is not token:
                return False
            del match.running[request.request_id]
            match.keep(request.request_id, answer)
            asked.choice = choice
            if self._stream is not None:
                self._stream.send(arena_pb2.BotMessage(answer=answer))
        return True

    def _on_refusal(self, result):
        if result.accepted:
            return
        self.refused += 1
        self._log(f"{result.match_id}: answer to request {result.request_id} refused: "
                  f"{result.reason}")
        with self._lock:
            match = self._match(result.match_id)
            asked = match.asked.get(result.request_id)
            if not result.may_retry:  # the request is closed
                match.asked.pop(result.request_id, None)
                return
            if result.request_id in match.running:  # being decided again already
                return
            if asked is None:
                # A request this client did not decide, or has forgotten:
                # the default action, once.
                if result.request_id in match.retried:
                    return
                match.retried.add(result.request_id)
                self._send_default(match, result.match_id, result.request_id)
                return
            asked.refused.append(Refusal(asked.choice, result.reason, result.code))
            if asked.choice is DEFAULT:  # nothing better to send
                return
            left_s = asked.deadline - time.monotonic() - _DEADLINE_MARGIN_S
            if len(asked.refused) >= MAX_REFUSALS or left_s <= 0:
                asked.choice = DEFAULT
                self._send_default(match, result.match_id, result.request_id)
                self._log(f"{result.match_id}: {len(asked.refused)} answers to request "
                          f"{result.request_id} refused"
                          f"{'' if left_s > 0 else ' and no time left'}; sent the default action")
                return
            self._ask(match, asked)

    def _send_default(self, match, match_id, request_id):
        """The default action in place of a refused answer. REQUIRES: _lock held."""
        answer = _default(match_id, request_id, arena_pb2.DEFAULT_REASON_REFUSED)
        match.keep(request_id, answer)
        if self._stream is not None:
            self._stream.send(arena_pb2.BotMessage(answer=answer))


def random_choice(decision, rng=random):
    """A uniformly random legal action (an index), for bots that do not care."""
    return rng.randrange(len(decision.legal_actions))
