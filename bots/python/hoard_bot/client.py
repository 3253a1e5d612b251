"""A Hoard bot client: one function from what a seat sees to its answer.

The client holds the Play stream, registers the bot (or joins one seat with
its token), answers each decision request with the bot's function, and takes
care of what every bot needs:

* request ids and match ids on every answer;
* deadlines: a decision still running shortly before its deadline is
  answered with the default action (the first legal one), and the late result
  is dropped;
* refusals: a refused answer that may be retried is answered again with the
  default action, and the reason is logged;
* reconnects: a broken stream is opened again with growing pauses; the
  server then resends the requests still open;
* several matches at once: decisions run on a pool of max_matches threads.
"""

import random
import sys
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


class BotError(Exception):
    """The server refused the bot for good (a wrong key, an unknown seat...)."""


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
      time_left_ms: the time the seat has to answer, bank included.
    """

    def __init__(self, request, game):
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
        self.time_left_ms = request.time_left_ms


def _answer(request, choice):
    answer = arena_pb2.Answer(match_id=request.match_id, request_id=request.request_id)
    if isinstance(choice, arena_pb2.Action):
        answer.action.CopyFrom(choice)
    elif isinstance(choice, int) and not isinstance(choice, bool):
        answer.legal_index = choice
    else:
        raise TypeError(f"a bot answers an index into legal_actions or a hoard.v1.Action, "
                        f"not {type(choice).__name__}")
    return answer


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
                 tls_ca=""):
        if bool(name or key) == bool(match_id or seat_token):
            raise ValueError("give either a name and key, or a match id and seat token")
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
        self._matches = matches
        self._describe = describe_actions
        self._reconnect = reconnect
        self._log = log or (lambda line: None)
        self._pool = futures.ThreadPoolExecutor(max_workers=self._max_matches)
        self._lock = threading.Lock()
        self._stream = None            # the current _Stream
        self._call = None              # the current call, to cancel it
        self._games = {}               # match id -> game id (from Seated)
        self._active = set()           # matches seated in and not yet finished
        self._answered = {}            # (match id, request id) -> Answer sent
        self._running = set()          # (match id, request id) being decided
        self._retried = set()          # (match id, request id) answered again after a refusal
        self._stopping = False
        self.finished = 0              # matches ended
        self.decisions = 0
        self.refused = 0
        self.reconnects = 0
        self.late = 0

    # ---- life cycle -----------------------------------------------------------

    def run(self):
        """Plays; returns when done or stopped, raises BotError if refused for good."""
        failures = 0
        try:
            while not self._stopping:
                status = self._play_once()
                if self._stopping or status is None:
                    return
                code, details = status
                if code in _FATAL or not self._reconnect:
                    raise BotError(f"{code.name}: {details}")
                self.reconnects += 1
                pause = min(2.0, 0.05 * (2 ** min(failures, 6)))
                failures += 1
                self._log(f"stream ended ({code.name}: {details}); reconnecting in {pause:.2f}s")
                time.sleep(pause)
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def stop(self):
        """Ends run() soon; callable from any thread."""
        self._stopping = True
        with self._lock:
            if self._stream is not None:
                self._stream.close()
            if self._call is not None:
                self._call.cancel()

    def _hello(self):
        if self._seat_token:
            return arena_pb2.BotMessage(hello=arena_pb2.Hello(join=arena_pb2.Join(
                match_id=self._match_id, seat_token=self._seat_token,
                describe_actions=self._describe)))
        return arena_pb2.BotMessage(hello=arena_pb2.Hello(register=arena_pb2.Register(
            name=self._name, key=self._key, max_matches=self._max_matches,
            describe_actions=self._describe)))

    def _play_once(self):
        """One stream's life: None when done, else (status code, details)."""
        stream = _Stream(self._hello())
        channel = grpc.secure_channel(self._server, self._credentials) if self._credentials \
            else grpc.insecure_channel(self._server)
        with channel:
            call = arena_pb2_grpc.ArenaStub(channel).Play(stream.messages())
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

    def _on_message(self, message):
        """Handles one server message; True when the bot is done."""
        kind = message.WhichOneof("kind")
        if kind == "decision":
            self._on_decision(message.decision)
        elif kind == "answer_result":
            self._on_refusal(message.answer_result)
        elif kind == "seated":
            seated = message.seated
            self._games[seated.match_id] = seated.game
            self._active.add(seated.match_id)
            self._log(f"{seated.match_id}: seated as seat {seated.seat} of {seated.players} "
                      f"({seated.game})")
        elif kind == "event" and message.event.WhichOneof("kind") == "finished":
            match_id = message.event.match_id
            if match_id not in self._active:  # a second seat's news of the same match
                return False
            self._active.discard(match_id)
            self._games.pop(match_id, None)
            with self._lock:
                self._answered = {k: v for k, v in self._answered.items() if k[0] != match_id}
                self._retried = {k for k in self._retried if k[0] != match_id}
                self._running = {k for k in self._running if k[0] != match_id}
            self.finished += 1
            self._log(f"{match_id}: finished")
            if self._seat_token or (self._matches and self.finished >= self._matches):
                self._stopping = True
                self.stop()
                return True
        elif kind == "error":
            self._log(f"server: {message.error.message}")
        return False

    def _on_decision(self, request):
        key = (request.match_id, request.request_id)
        with self._lock:
            if key in self._answered:  # resent after a reconnect: the answer may be lost
                if self._stream is not None:
                    self._stream.send(arena_pb2.BotMessage(answer=self._answered[key]))
                return
            if key in self._running:
                return
            self._running.add(key)
        budget = max(0.0, request.time_left_ms / 1000.0 - _DEADLINE_MARGIN_S)
        timer = threading.Timer(budget, self._on_deadline, args=(request,))
        timer.daemon = True
        timer.start()
        self._pool.submit(self._decide_and_answer, request, timer)

    def _decide_and_answer(self, request, timer):
        try:
            choice = self._decide(Decision(request, self._games.get(request.match_id)))
            answer = _answer(request, choice)
        except Exception:  # a bug in the bot: play the default rather than time out
            self._log(f"{request.match_id}: the bot failed, playing the default action:\n"
                      f"{traceback.format_exc()}")
            answer = _answer(request, 0)
        timer.cancel()
        if self._commit(request, answer):
            self.decisions += 1
        else:
            self._log(f"{request.match_id}: decision for request {request.request_id} came "
                      "after its deadline or its match's end, and was dropped")

    def _on_deadline(self, request):
        if self._commit(request, _answer(request, 0)):
            self.late += 1
            self._log(f"{request.match_id}: no decision in time for request "
                      f"{request.request_id}; sent the default action")

    def _commit(self, request, answer):
        """Sends `answer` unless the request was answered already."""
        key = (request.match_id, request.request_id)
        with self._lock:
            if key not in self._running:  # answered already, or its match is over
                return False
            self._running.discard(key)
            self._answered[key] = answer
            if self._stream is not None:
                self._stream.send(arena_pb2.BotMessage(answer=answer))
        return True

    def _on_refusal(self, result):
        if result.accepted:
            return
        self.refused += 1
        self._log(f"{result.match_id}: answer to request {result.request_id} refused: "
                  f"{result.reason}")
        key = (result.match_id, result.request_id)
        with self._lock:
            retried = key in self._retried
            self._retried.add(key)
        if result.may_retry and not retried:
            answer = arena_pb2.Answer(match_id=result.match_id, request_id=result.request_id,
                                      legal_index=0)
            with self._lock:
                self._answered[(result.match_id, result.request_id)] = answer
            self._send(arena_pb2.BotMessage(answer=answer))


def random_choice(decision, rng=random):
    """A uniformly random legal action (an index), for bots that do not care."""
    return rng.randrange(len(decision.legal_actions))
