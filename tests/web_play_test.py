#!/usr/bin/python3
"""Playing a seat over HTTP (POST /api/v1/play and /api/v1/play/answer),
end to end with a real `hoard serve --http`.

    /usr/bin/python3 tests/web_play_test.py build/hoard

Checks what the routes refuse and why: a wrong seat token, another match's
token, a spectator without credentials, a wrong bot key, a body that is no
hello, another method, another content type, a body over the limit, a
session id nobody was given, a session answered from another address, an
illegal action and a stale one; the limit on play streams per address; and
that an open seat and a bot account each play a whole match over the routes
to its end, as gRPC bots do. Prints one line per check and 'N passed, M
failed'.
"""
import http.client
import json
import os
import sys
import tempfile
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish, start_server  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: web_play_test.py PATH_TO_HOARD")
ADMIN_TOKEN = "play-test-admin"
ADMIN = (("authorization", f"Bearer {ADMIN_TOKEN}"),)
PLAYER = "127.0.0.3"
OTHER = "127.0.0.2"
STREAMS_PER_ADDRESS = 3


class Server:
    def __init__(self, work):
        self.process, self.grpc, _ = start_server(
            HOARD, work, ADMIN_TOKEN, "--http", "127.0.0.1:0",
            "--http-max-streams-per-address", str(STREAMS_PER_ADDRESS))
        web = urllib.parse.urlparse(self.process.stdout.readline().split()[-1])
        self.host, self.port = web.hostname, web.port
        self.channel = grpc.insecure_channel(self.grpc)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)

    def stop(self):
        self.channel.close()
        self.process.terminate()
        self.process.wait(timeout=60)

    def connect(self, source=PLAYER):
        return http.client.HTTPConnection(self.host, self.port, timeout=60,
                                          source_address=(source, 0))

    def match(self, game="village", time_control=None):
        """(match id, token) of a new match: seat 0 open, built-in bots on the rest."""
        players = 3 if game in ("dragons_gold", "hedonia") else 2
        seats = [arena_pb2.SeatSpec(open=True)] + [
            arena_pb2.SeatSpec(builtin="random") for _ in range(players - 1)]
        created = self.arena.CreateMatch(arena_pb2.CreateMatchRequest(
            game=game, seats=seats, seed=7,
            time_control=time_control or arena_pb2.TimeControl(decision_ms=60000)),
            metadata=ADMIN)
        return created.match_id, created.seat_tokens[0].token


def post(server, path, body, source=PLAYER, content_type="application/json"):
    """(status, parsed JSON) of a POST that answers at once."""
    connection = server.connect(source)
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    connection.request("POST", path, body=data, headers={"Content-Type": content_type})
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, text


class Play:
    """An open play stream: its events read one at a time."""

    def __init__(self, server, hello, source=PLAYER):
        self.connection = server.connect(source)
        self.connection.request("POST", "/api/v1/play", body=json.dumps(hello),
                                headers={"Content-Type": "application/json"})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.session = None
        if self.status != 200:
            self.error = json.loads(self.response.read().decode())
            return
        kind, data = self.next()
        self.session = data["session"] if kind == "session" else None

    def next(self):
        """The next (event, data), heartbeats skipped; (None, None) at the end."""
        kind = None
        while True:
            line = self.response.fp.readline()
            if not line:
                return None, None
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[len("event: "):]
            elif line.startswith("data: "):
                return kind, json.loads(line[len("data: "):])

    def decision(self):
        """The next decision request, or None once the stream ends or a
        match of the stream's is over (the stream stays open for more)."""
        while True:
            kind, data = self.next()
            if kind != "play" or "finished" in data.get("event", {}):
                return None
            if "decision" in data:
                return data["decision"]

    def close(self):
        self.response.close()
        self.connection.close()


def answer(server, session, match_id, request_id, source=PLAYER, **choice):
    return post(server, "/api/v1/play/answer",
                {"session": session, "answer": {"match_id": match_id,
                                                "request_id": str(request_id), **choice}},
                source=source)


def play_to_end(server, play):
    """Answers every decision with its first legal action; the answers' statuses."""
    statuses = set()
    while (decision := play.decision()) is not None:
        status, _ = answer(server, play.session, decision["match_id"],
                           decision["request_id"], legal_index=0)
        statuses.add(status)
    return statuses


def main():
    with tempfile.TemporaryDirectory() as work:
        server = Server(work)
        try:
            run(server)
        finally:
            server.stop()
    finish()


def run(server):
    match_id, token = server.match()
    other_match, other_token = server.match()

    status, body = post(server, "/api/v1/play",
                        {"join": {"match_id": match_id, "seat_token": "not-a-token"}})
    check("a wrong seat token is refused 401, saying so",
          status == 401 and body["code"] == "UNAUTHENTICATED" and "unknown seat token" in body["message"],
          f"{status} {body}")
    status, body = post(server, "/api/v1/play",
                        {"join": {"match_id": match_id, "seat_token": other_token}})
    check("another match's seat token is refused 403, naming the match",
          status == 403 and body["code"] == "PERMISSION_DENIED" and match_id in body["message"],
          f"{status} {body}")
    status, body = post(server, "/api/v1/play", {})
    check("a spectator (a hello without credentials) is refused 401",
          status == 401 and "no credentials" in body["message"], f"{status} {body}")
    status, body = post(server, "/api/v1/play", {"watch": match_id})
    check("a body that is no hello is refused 400, saying why",
          status == 400 and "hoard.v1.Hello" in body["message"], f"{status} {body}")
    status, body = post(server, "/api/v1/play", "seat_token=x",
                        content_type="application/x-www-form-urlencoded")
    check("another content type is refused 415 (a form cannot post a hello)",
          status == 415 and "application/json" in body["message"], f"{status} {body}")
    status, body = post(server, "/api/v1/play", {"join": {"seat_token": "x" * 70000}})
    check("a body over the limit is refused 413", status == 413, f"{status}")
    connection = server.connect()
    connection.request("GET", "/api/v1/play")
    response = connection.getresponse()
    response.read()
    check("GET /api/v1/play is 405 with Allow: POST",
          response.status == 405 and response.getheader("Allow") == "POST",
          f"{response.status} {response.getheader('Allow')}")
    connection.close()
    status, body = post(server, "/api/v1/matches", {})
    check("POST on a read route is still 405", status == 405, f"{status}")
    status, body = answer(server, "0123456789abcdef0123456789abcdef", match_id, 1, legal_index=0)
    check("an answer naming no session is refused 401",
          status == 401 and "no open play session" in body["message"], f"{status} {body}")

    play = Play(server, {"join": {"match_id": match_id, "seat_token": token}})
    check("the holder of the token opens the seat's stream", play.status == 200 and play.session,
          f"{play.status}")
    first = play.decision()
    check("the stream carries the seat's decision: its view, legal actions in words, clock",
          first is not None and first["view"] and first["legal_actions"][0]["text"]
          and int(first["time_left_ms"]) > 0, json.dumps(first)[:300])
    status, body = answer(server, play.session, match_id, first["request_id"], source=OTHER,
                          legal_index=0)
    check("the session answered from another address is refused 403",
          status == 403 and body["code"] == "PERMISSION_DENIED", f"{status} {body}")
    status, body = answer(server, play.session, match_id, first["request_id"], legal_index=999)
    check("an illegal action is refused 400 with its reason",
          status == 400 and body["code"] == "INVALID_ARGUMENT" and body["message"],
          f"{status} {body}")
    status, body = answer(server, play.session, match_id, first["request_id"], legal_index=0)
    check("a legal action is accepted", status == 200 and body["accepted"], f"{status} {body}")
    status, body = answer(server, play.session, match_id, first["request_id"], legal_index=0)
    check("the same request answered twice is refused 400 (it is no longer open)",
          status == 400 and body["code"] == "FAILED_PRECONDITION", f"{status} {body}")

    # The limit on streams per address holds play streams too.
    held = [Play(server, {"join": {"match_id": other_match, "seat_token": other_token}})
            for _ in range(STREAMS_PER_ADDRESS - 1)]
    extra = Play(server, {"join": {"match_id": other_match, "seat_token": other_token}})
    check(f"a client address holds at most {STREAMS_PER_ADDRESS} play streams (503 past them)",
          all(p.status == 200 for p in held) and extra.status == 503
          and "event streams" in extra.error["message"], f"{[p.status for p in held]} {extra.status}")
    elsewhere = Play(server, {"join": {"match_id": other_match, "seat_token": other_token}},
                     source=OTHER)
    check("another address still opens one", elsewhere.status == 200, f"{elsewhere.status}")
    for p in held + [elsewhere]:
        p.close()

    statuses = play_to_end(server, play)
    play.close()
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
    check("the open seat plays its match to the end over the routes",
          got.match.status == arena_pb2.MATCH_STATUS_FINISHED and statuses == {200}
          and got.match.seats[0].timeouts == 0, f"{got.match.status} {statuses}")

    deadline = time.monotonic() + 5
    while True:
        again = Play(server, {"join": {"match_id": other_match, "seat_token": other_token}})
        if again.status != 503 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    check("closed play streams give their places back within 5 s", again.status == 200,
          f"{again.status}")
    again.close()

    # A bot account: its key in the hello, as a gRPC bot's register.
    key = server.arena.AddBot(arena_pb2.AddBotRequest(name="person"), metadata=ADMIN).key
    status, body = post(server, "/api/v1/play", {"register": {"name": "person", "key": "wrong"}})
    check("a wrong bot key is refused 401", status == 401 and body["code"] == "UNAUTHENTICATED",
          f"{status} {body}")
    status, body = post(server, "/api/v1/play", {"register": {"name": "person", "key": "wrong2"}})
    check("and another wrong key at once is held back (429, saying when)",
          status == 429 and body["code"] == "RESOURCE_EXHAUSTED" and PLAYER in body["message"], f"{status} {body}")
    time.sleep(1.0)  # past the wrong key's back-off
    bot = Play(server, {"register": {"name": "person", "key": key}})
    kind, welcome = bot.next()
    check("the bot's key opens its stream, welcomed by name",
          bot.status == 200 and welcome.get("welcome", {}).get("bot") == "person",
          f"{bot.status} {welcome}")
    created = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game="frost_dragon", seats=[arena_pb2.SeatSpec(bot="person"),
                                    arena_pb2.SeatSpec(builtin="random")],
        time_control=arena_pb2.TimeControl(decision_ms=60000)), metadata=ADMIN)
    statuses = play_to_end(server, bot)
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id))
    check("the bot account plays its match to the end over the routes",
          got.match.status == arena_pb2.MATCH_STATUS_FINISHED and statuses == {200},
          f"{got.match.status} {statuses}")
    bot.close()


if __name__ == "__main__":
    main()
