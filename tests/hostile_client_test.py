#!/usr/bin/python3
"""A hostile client against a real `hoard serve` over real gRPC: one check per
boundary of docs/security.md. Every refusal is checked for its status code
and for what it names, and after each limit a legitimate client still gets
its match played.

    /usr/bin/python3 tests/hostile_client_test.py build/hoard

Prints one line per check and a closing 'N passed, M failed'; exits 1 if any
check failed.
"""
import hashlib
import os
import queue
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
from hoard_bot.stubs import tournament_pb2, tournament_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: hostile_client_test.py PATH_TO_HOARD")
WORK = tempfile.mkdtemp(prefix="hoard-hostile-")
STATE = os.path.join(WORK, "state")
ADMIN = "admin-of-the-league"
OTHER_ADMIN = "admin-of-another-league"
SECRET_COMMAND = "sleep-and-never-tell"  # a word of the catalog's command


def code_of(call):
    """The status code of a call (OK if it succeeded) and its details."""
    try:
        call()
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as error:
        return error.code(), error.details() or ""


def meta(token):
    return (("authorization", f"Bearer {token}"),) if token else ()


class Server:
    def __init__(self, *flags, db=True):
        self.out = open(os.path.join(WORK, f"serve-{time.monotonic_ns()}.log"), "w+")
        args = [HOARD, "serve", "--listen", "127.0.0.1:0", "--state-dir", STATE, *flags]
        if db:
            args += ["--db", os.path.join(WORK, f"hoard-{time.monotonic_ns()}.db")]
            self.db = args[-1]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.out, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("hoard: serving on "):
            self.out.seek(0)
            sys.exit(f"the server did not start: {line}{self.out.read()}")
        self.address = line.split()[-1]
        self.channel = grpc.insecure_channel(self.address)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)
        self.tournaments = tournament_pb2_grpc.TournamentsStub(self.channel)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)
        self.channel.close()


def builtin_match(server, token, seed=0):
    request = arena_pb2.CreateMatchRequest(
        game="village", seed=seed,
        seats=[arena_pb2.SeatSpec(builtin="random"), arena_pb2.SeatSpec(builtin="random")])
    return server.arena.CreateMatch(request, metadata=meta(token), timeout=30)


def open_match(server, token, seats=2):
    request = arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(open=True)] * seats,
        time_control=arena_pb2.TimeControl(decision_ms=600000, bank_ms=0, max_strikes=0))
    return server.arena.CreateMatch(request, metadata=meta(token), timeout=30)


def finished(server, match_id, timeout=30):
    """The match once it is over (built-in bots play in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id), timeout=30)
        if got.match.status != arena_pb2.MATCH_STATUS_RUNNING or time.monotonic() > deadline:
            return got
        time.sleep(0.02)


def commits(seed, salt, commitment):
    """Whether seed and salt hash to the commitment, as docs/records.md's
    recipe checks it: SHA-256 of "SEED:SALT"."""
    return bool(re.fullmatch("[0-9a-f]{64}", commitment)) and bool(
        re.fullmatch("[0-9a-f]{32}", salt)) and hashlib.sha256(
            f"{seed}:{salt}".encode()).hexdigest() == commitment


def deal_seed(master, n):
    """A tournament match's seed from the master seed, as docs/records.md
    writes it out (SplitMix64)."""
    mask = (1 << 64) - 1
    z = (master + 0x9e3779b97f4a7c15 * (n + 1)) & mask
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & mask
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & mask
    z ^= z >> 31
    return z or 1


def legit_match_plays(server, what):
    """Another admin's all-built-in match is played and found finished."""
    try:
        created = builtin_match(server, OTHER_ADMIN)
        got = finished(server, created.match_id)
        check(f"{what}: meanwhile another client's match is played",
              got.match.status == arena_pb2.MATCH_STATUS_FINISHED, got.match)
    except grpc.RpcError as error:
        check(f"{what}: meanwhile another client's match is played", False, error)


class PlayStream:
    """A raw Play stream: send messages, read what the server says."""

    def __init__(self, server):
        self.outgoing = queue.Queue()
        self.incoming = queue.Queue()
        self.call = server.arena.Play(iter(self.outgoing.get, None))
        self.status = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for message in self.call:
                self.incoming.put(message)
        except grpc.RpcError as error:
            self.status = (error.code(), error.details() or "")
        else:
            self.status = (grpc.StatusCode.OK, "")
        self.incoming.put(None)

    def register(self, name, key, max_matches=1):
        self.outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(
            register=arena_pb2.Register(name=name, key=key, max_matches=max_matches))))

    def next(self, timeout=10):
        try:
            return self.incoming.get(timeout=timeout)
        except queue.Empty:
            return None

    def ended(self, timeout=10):
        """The stream's final status once it ends, or None."""
        deadline = time.monotonic() + timeout
        while self.status is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.status

    def close(self):
        self.outgoing.put(None)
        self.call.cancel()


def main():
    tokens = os.path.join(WORK, "admin-tokens")
    with open(tokens, "w") as f:
        f.write(f"# the league's operators\n{ADMIN}\n{OTHER_ADMIN}\n")
    catalog = os.path.join(WORK, "catalog.txtpb")
    with open(catalog, "w") as f:
        f.write(f'bots {{ name: "house-first" command: "{HOARD} bot --quiet --strategy first" '
                f'environment {{ key: "NOTE" value: "{SECRET_COMMAND}" }} }}\n'
                f'bots {{ name: "sleeper" command: "sleep 600 # {SECRET_COMMAND}" }}\n')
    server = Server("--admin-token-file", tokens, "--catalog", catalog,
                    "--max-matches-per-creator", "3", "--max-tournaments-per-creator", "1",
                    "--max-tournament-matches", "200", "--max-bot-accounts", "4",
                    "--hello-timeout-ms", "500", "--bot-logs", os.path.join(WORK, "bot-logs"))
    try:
        roles(server)
        accounts(server)
        catalog_and_commands(server)
        secrets(server)
        limits(server)
    finally:
        server.stop()
    slow_reader(tokens)
    transport()
    private_reads()
    shutil.rmtree(WORK, ignore_errors=True)
    finish()


def admin_calls(server):
    """Every admin RPC, each with a harmless request."""
    a, t = server.arena, server.tournaments
    spec = tournament_pb2.TournamentSpec(game="village", participants=[
        tournament_pb2.Participant(name="r1", builtin="random"),
        tournament_pb2.Participant(name="r2", builtin="random")])
    return {
        "CreateMatch": lambda m: a.CreateMatch(arena_pb2.CreateMatchRequest(
            game="village", seats=[arena_pb2.SeatSpec(builtin="random")] * 2), metadata=m),
        "AddBot": lambda m: a.AddBot(arena_pb2.AddBotRequest(name="intruder"), metadata=m),
        "RevokeBot": lambda m: a.RevokeBot(arena_pb2.RevokeBotRequest(name="alice"), metadata=m),
        "CreateTournament": lambda m: t.CreateTournament(
            tournament_pb2.CreateTournamentRequest(spec=spec), metadata=m),
        "CancelTournament": lambda m: t.CancelTournament(
            tournament_pb2.CancelTournamentRequest(id=1), metadata=m),
        "FreezeLadder": lambda m: t.FreezeLadder(
            tournament_pb2.FreezeLadderRequest(id=1), metadata=m),
    }


def roles(server):
    alice = server.arena.AddBot(arena_pb2.AddBotRequest(name="alice"), metadata=meta(ADMIN))
    check("an admin adds a bot account and gets its key once", len(alice.key) == 32, alice)
    server.alice_key = alice.key
    for rpc, call in admin_calls(server).items():
        code, details = code_of(lambda: call(()))
        check(f"{rpc} without a token: UNAUTHENTICATED naming the admin token",
              code == grpc.StatusCode.UNAUTHENTICATED and "admin token" in details,
              f"{code} {details}")
        code, details = code_of(lambda: call(meta(f"alice:{alice.key}")))
        check(f"{rpc} with a bot's key: PERMISSION_DENIED",
              code == grpc.StatusCode.PERMISSION_DENIED and "alice" in details,
              f"{code} {details}")
        code, details = code_of(lambda: call(meta("guessed-token")))
        check(f"{rpc} with a wrong token: UNAUTHENTICATED",
              code == grpc.StatusCode.UNAUTHENTICATED, f"{code} {details}")
    code, _ = code_of(lambda: server.arena.ListGames(arena_pb2.ListGamesRequest()))
    check("reads need no token on a public server", code == grpc.StatusCode.OK, code)


def accounts(server):
    stream = PlayStream(server)
    stream.register("mallory", "any-key")
    status = stream.ended()
    check("an unknown bot cannot register (registration is closed)",
          status and status[0] == grpc.StatusCode.UNAUTHENTICATED
          and "no bot account 'mallory'" in status[1], status)
    stream = PlayStream(server)
    stream.register("alice", "not-her-key")
    status = stream.ended()
    check("a wrong key is refused", status and status[0] == grpc.StatusCode.UNAUTHENTICATED,
          status)
    stream = PlayStream(server)
    stream.register("x" * 100000, "k")
    status = stream.ended()
    check("a 100,000-character name is refused and cut short in the error",
          status and status[0] != grpc.StatusCode.OK and len(status[1]) < 300,
          status and status[1][:300])

    with open(server.db, "rb") as f:
        raw = f.read()
    for suffix in ("-wal",):
        if os.path.exists(server.db + suffix):
            with open(server.db + suffix, "rb") as f:
                raw += f.read()
    huge = arena_pb2.CreateMatchRequest(game="g" * 100000,
                                        seats=[arena_pb2.SeatSpec(builtin="random")] * 2)
    huge.options["o" * 50000] = "v" * 50000
    code, details = code_of(lambda: server.arena.CreateMatch(huge, metadata=meta(ADMIN)))
    check("a huge game id and option are refused, quoted cut short",
          code == grpc.StatusCode.INVALID_ARGUMENT and len(details) < 300, details[:300])
    log = open(server.out.name).read()
    check("the log quotes no client string whole", "x" * 1000 not in log
          and "g" * 1000 not in log)

    hashes = sqlite3.connect(server.db).execute("SELECT key_hash FROM bot_accounts").fetchall()
    check("the bot's key is nowhere in the database files, only its salted hash",
          server.alice_key.encode() not in raw and hashes
          and all(h.startswith("scrypt$") for (h,) in hashes), hashes)

    # A revoked bot's stream is closed, and it cannot come back.
    bob = server.arena.AddBot(arena_pb2.AddBotRequest(name="bob"), metadata=meta(ADMIN))
    stream = PlayStream(server)
    stream.register("bob", bob.key)
    welcome = stream.next()
    check("a bot with an account registers", welcome is not None and welcome.HasField("welcome"),
          welcome)
    revoked = server.arena.RevokeBot(arena_pb2.RevokeBotRequest(name="bob"), metadata=meta(ADMIN))
    status = stream.ended()
    check("revoking a bot closes its stream, saying why",
          revoked.streams_closed == 1 and status and "revoked" in status[1], (revoked, status))
    again = PlayStream(server)
    again.register("bob", bob.key)
    status = again.ended()
    check("a revoked bot cannot register again",
          status and status[0] == grpc.StatusCode.UNAUTHENTICATED, status)
    code, details = code_of(lambda: server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(bot="bob"), arena_pb2.SeatSpec(open=True)]),
        metadata=meta(ADMIN)))
    check("nor be given a seat", code == grpc.StatusCode.NOT_FOUND and "bob" in details,
          f"{code} {details}")


def wait_tournament(server, tid, statuses, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = server.tournaments.GetTournament(tournament_pb2.GetTournamentRequest(id=tid),
                                               metadata=meta(ADMIN))
        if got.status in statuses:
            return got
        time.sleep(0.1)
    return got


def catalog_and_commands(server):
    def create(*participants, seed=5):
        spec = tournament_pb2.TournamentSpec(game="village", players_per_match=2, seed=seed,
                                             participants=list(participants),
                                             fault_policy=tournament_pb2.FaultPolicy(
                                                 start_timeout_ms=15000))
        return server.tournaments.CreateTournament(
            tournament_pb2.CreateTournamentRequest(spec=spec), metadata=meta(ADMIN))

    marker = os.path.join(WORK, "pwned")
    code, details = code_of(lambda: create(
        tournament_pb2.Participant(name="r", builtin="random"),
        tournament_pb2.Participant(name="evil", command=f"touch {marker}")))
    time.sleep(0.5)
    check("a command in a tournament created over gRPC is refused, and nothing runs",
          code == grpc.StatusCode.INVALID_ARGUMENT and "catalog" in details
          and not os.path.exists(marker), f"{code} {details}")
    code, details = code_of(lambda: create(
        tournament_pb2.Participant(name="r", builtin="random"),
        tournament_pb2.Participant(name="x", catalog="not-in-catalog")))
    check("an unknown catalog bot is refused",
          code == grpc.StatusCode.INVALID_ARGUMENT and "not-in-catalog" in details,
          f"{code} {details}")
    code, details = code_of(lambda: create(
        tournament_pb2.Participant(name="r", builtin="random"),
        tournament_pb2.Participant(name="nobody", registered=True)))
    check("a registered participant needs a bot account (no name to squat)",
          code == grpc.StatusCode.INVALID_ARGUMENT and "no bot account 'nobody'" in details,
          f"{code} {details}")
    code, details = code_of(lambda: create(
        tournament_pb2.Participant(name="r", builtin="random"),
        tournament_pb2.Participant(name="alice", catalog="house-first")))
    check("a catalog participant may not take the name of someone's account",
          code == grpc.StatusCode.INVALID_ARGUMENT and "alice" in details, f"{code} {details}")

    created = create(tournament_pb2.Participant(name="r", builtin="random"),
                     tournament_pb2.Participant(name="house", catalog="house-first"))
    # While it runs, someone tries to take the launched bot's name.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not any(
            b.name == "house" for b in server.arena.ListBots(arena_pb2.ListBotsRequest()).bots):
        time.sleep(0.05)
    squatter = PlayStream(server)
    squatter.register("house", "my-own-key")
    status = squatter.ended()
    check("squatting a launched participant's name is refused",
          status and status[0] == grpc.StatusCode.UNAUTHENTICATED, status)
    done = wait_tournament(server, created.id, (tournament_pb2.TOURNAMENT_STATUS_FINISHED,
                                                tournament_pb2.TOURNAMENT_STATUS_FAILED))
    check("a catalog bot is launched by name and plays the tournament",
          done.status == tournament_pb2.TOURNAMENT_STATUS_FINISHED
          and done.progress.finished == 2, done)
    shown = b"".join(m.SerializeToString() for m in (
        server.tournaments.ListTournaments(tournament_pb2.ListTournamentsRequest()),
        server.tournaments.ListTournaments(tournament_pb2.ListTournamentsRequest(),
                                           metadata=meta(ADMIN)),
        server.tournaments.GetTournament(tournament_pb2.GetTournamentRequest(id=created.id))))
    check("the catalog's commands are never sent to clients",
          SECRET_COMMAND.encode() not in shown and b"--strategy first" not in shown)


def secrets(server):
    created = open_match(server, ADMIN)
    check("the admin who creates a match is told its seed", created.seed != 0, created)
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id))
    listed = server.arena.ListMatches(arena_pb2.ListMatchesRequest())
    watch = server.arena.WatchMatch(arena_pb2.WatchMatchRequest(match_id=created.match_id))
    first = next(watch)
    watch.cancel()
    check("no response about a running match tells a non-admin its seed",
          got.match.seed == 0 and not got.HasField("record")
          and all(m.seed == 0 for m in listed.matches
                  if m.status == arena_pb2.MATCH_STATUS_RUNNING)
          and first.snapshot.match.seed == 0, got)
    # Its commitment to the deal is public from the start; the salt is not.
    seat = PlayStream(server)
    seat.outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(join=arena_pb2.Join(
        match_id=created.match_id, seat_token=created.seat_tokens[0].token))))
    told = [seat.next() for _ in range(2)]
    seat.close()
    seated = next((m.seated for m in told if m and m.WhichOneof("kind") == "seated"), None)
    check("a running match's deal commitment is public: to its creator, readers, spectators "
          "and the seat told it has started",
          re.fullmatch("[0-9a-f]{64}", created.seed_commitment) is not None
          and got.match.seed_commitment == created.seed_commitment
          and first.snapshot.match.seed_commitment == created.seed_commitment
          and seated is not None and seated.seed_commitment == created.seed_commitment
          and any(m.seed_commitment == created.seed_commitment for m in listed.matches),
          (created.seed_commitment, got.match, seated))
    check("no response about a running match tells a non-admin its salt",
          got.match.seed_salt == "" and first.snapshot.match.seed_salt == ""
          and all(m.seed_salt == "" for m in listed.matches
                  if m.status == arena_pb2.MATCH_STATUS_RUNNING), got.match)
    played = finished(server, builtin_match(server, ADMIN).match_id)
    check("a finished match tells anyone its seed and salt, which hash to its commitment, "
          "and so does its record",
          played.match.status == arena_pb2.MATCH_STATUS_FINISHED
          and commits(played.match.seed, played.match.seed_salt, played.match.seed_commitment)
          and played.record.seed == played.match.seed
          and played.record.seed_salt == played.match.seed_salt
          and played.record.seed_commitment == played.match.seed_commitment, played.match)

    spec = tournament_pb2.TournamentSpec(
        game="village", players_per_match=2, rounds=30, concurrency=1,
        format=tournament_pb2.FORMAT_DUPLICATE,
        participants=[tournament_pb2.Participant(name="p1", builtin="random"),
                      # A bot that thinks: the tournament outlasts the checks.
                      tournament_pb2.Participant(name="p2", builtin="mcts-20ms")])
    tournament = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=meta(ADMIN))
    check("a tournament created with seed 0 gets a random one, told to its admin",
          tournament.spec.seed != 0, tournament.spec)
    public = server.tournaments.GetTournament(
        tournament_pb2.GetTournamentRequest(id=tournament.id))
    listed = server.tournaments.ListTournaments(tournament_pb2.ListTournamentsRequest())
    watched = next(server.tournaments.WatchTournament(
        tournament_pb2.WatchTournamentRequest(id=tournament.id)))
    check("a running tournament's seed is told to no non-admin",
          public.spec.seed == 0 and watched.spec.seed == 0
          and all(t.spec.seed == 0 for t in listed.tournaments if t.id == tournament.id),
          public.spec)
    check("a running tournament's commitment to its seed is public, its salt is not",
          commits(tournament.spec.seed, tournament.seed_salt, tournament.seed_commitment)
          and public.seed_commitment == tournament.seed_commitment
          and watched.seed_commitment == tournament.seed_commitment
          and public.seed_salt == "" and watched.seed_salt == ""
          and all(t.seed_salt == "" for t in listed.tournaments if t.id == tournament.id),
          public)
    # Its finished matches replay deals that others of their block will use.
    deadline = time.monotonic() + 30
    results = None
    while time.monotonic() < deadline:
        results = server.tournaments.ListResults(
            tournament_pb2.ListResultsRequest(tournament_id=tournament.id))
        if results.matches:
            break
        time.sleep(0.05)
    match_id = results.matches[0].match_id if results and results.matches else ""
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id)) if match_id else None
    check("a running tournament's finished matches keep their seed and record from non-admins",
          results and results.matches
          and all(m.seed == 0 and m.seed_salt == "" and m.seed_commitment
                  for m in results.matches)
          and got.match.seed == 0 and got.match.seed_salt == "" and got.match.seed_commitment
          and not got.HasField("record"), got)
    admin_view = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id),
                                       metadata=meta(ADMIN)) if match_id else None
    check("an admin sees them", admin_view and admin_view.match.seed != 0
          and admin_view.HasField("record"), admin_view)
    server.tournaments.CancelTournament(tournament_pb2.CancelTournamentRequest(id=tournament.id),
                                        metadata=meta(ADMIN))
    wait_tournament(server, tournament.id, (tournament_pb2.TOURNAMENT_STATUS_CANCELLED,))
    public = server.tournaments.GetTournament(
        tournament_pb2.GetTournamentRequest(id=tournament.id))
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
    check("once the tournament is over, its seed and its matches' records are public",
          public.spec.seed == tournament.spec.seed and got.match.seed != 0
          and got.HasField("record"), public.spec)
    check("and their salts, which hash to the commitments published before",
          public.seed_salt == tournament.seed_salt
          and public.seed_commitment == tournament.seed_commitment
          and commits(got.match.seed, got.match.seed_salt, got.match.seed_commitment)
          and got.record.seed_salt == got.match.seed_salt, (public, got.match))
    check("each match's seed derives from the tournament's as docs/records.md says "
          "(duplicate: from its block)",
          got.match.seed == deal_seed(public.spec.seed, got.match.schedule_index // 2),
          (public.spec.seed, got.match.schedule_index, got.match.seed))


def limits(server):
    # Matches per creator: the creator of three never-ending matches gets no
    # fourth; another creator still plays.
    running = [open_match(server, ADMIN) for _ in range(2)]  # one is open from secrets()
    code, details = code_of(lambda: open_match(server, ADMIN))
    check("a fourth running match of one creator: RESOURCE_EXHAUSTED naming the limit",
          code == grpc.StatusCode.RESOURCE_EXHAUSTED and "--max-matches-per-creator" in details,
          f"{code} {details}")
    legit_match_plays(server, "matches per creator")
    del running

    spec = tournament_pb2.TournamentSpec(
        game="village", players_per_match=2, rounds=150,
        participants=[tournament_pb2.Participant(name="a", builtin="random"),
                      tournament_pb2.Participant(name="b", builtin="random")])
    code, details = code_of(lambda: server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=meta(OTHER_ADMIN)))
    check("a tournament over --max-tournament-matches: RESOURCE_EXHAUSTED naming the limit",
          code == grpc.StatusCode.RESOURCE_EXHAUSTED and "--max-tournament-matches" in details,
          f"{code} {details}")
    spec.rounds = 50
    spec.concurrency = 1
    first = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=meta(OTHER_ADMIN))
    spec.seed = 99
    code, details = code_of(lambda: server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=meta(OTHER_ADMIN)))
    check("a second running tournament of one creator: RESOURCE_EXHAUSTED naming the limit",
          code == grpc.StatusCode.RESOURCE_EXHAUSTED
          and "--max-tournaments-per-creator" in details, f"{code} {details}")
    server.tournaments.CancelTournament(tournament_pb2.CancelTournamentRequest(id=first.id),
                                        metadata=meta(OTHER_ADMIN))

    names = []
    code, details = grpc.StatusCode.OK, ""
    for i in range(10):
        code, details = code_of(lambda: server.arena.AddBot(
            arena_pb2.AddBotRequest(name=f"filler{i}"), metadata=meta(ADMIN)))
        if code != grpc.StatusCode.OK:
            break
        names.append(i)
    check("bot accounts past --max-bot-accounts: RESOURCE_EXHAUSTED naming the limit",
          code == grpc.StatusCode.RESOURCE_EXHAUSTED and "--max-bot-accounts" in details,
          f"{code} {details} after {len(names)}")

    silent = PlayStream(server)
    status = silent.ended(timeout=5)
    check("a stream that never says hello is closed after --hello-timeout-ms",
          status and status[0] == grpc.StatusCode.DEADLINE_EXCEEDED
          and "--hello-timeout-ms" in status[1], status)
    legit_match_plays(server, "hello deadline")


def slow_reader(tokens):
    """A client that does not read its stream: the server queues a bounded
    number of bytes for it, then ends it; everyone else goes on."""
    server = Server("--admin-token-file", tokens, "--max-queued-bytes", "8192")
    # Thirty participants: each progress update (at most five a second)
    # carries thirty standings, a couple of KiB; a few seconds of them fill
    # the queue. The tournament lasts long enough for that on any machine
    # (half of them heuristic, whose matches are hosted: random against
    # first alone would be played through in seconds); it is cancelled once
    # the slow reader is cut.
    spec = tournament_pb2.TournamentSpec(
        game="village", players_per_match=2, rounds=100, concurrency=2,
        participants=[tournament_pb2.Participant(name=f"p{i}",
                                                 builtin="random" if i % 2 else "heuristic")
                      for i in range(30)])
    created = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=meta(ADMIN))
    # A small HTTP/2 window: what the client does not read stays on the server.
    slow = grpc.insecure_channel(server.address, options=[("grpc.http2.lookahead_bytes", 1024),
                                                          ("grpc.http2.bdp_probe", 0)])
    updates = tournament_pb2_grpc.TournamentsStub(slow).WatchTournament(
        tournament_pb2.WatchTournamentRequest(id=created.id))
    next(updates)
    legit_match_plays(server, "a slow reader")
    # Not read while the tournament plays on (a few seconds of updates).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.tournaments.GetTournament(
            tournament_pb2.GetTournamentRequest(id=created.id),
            metadata=meta(ADMIN)).progress.finished < 20000:
        time.sleep(0.2)
    code, details = code_of(lambda: list(updates))
    check("a client that reads too slowly: RESOURCE_EXHAUSTED naming --max-queued-bytes",
          code == grpc.StatusCode.RESOURCE_EXHAUSTED and "--max-queued-bytes" in details,
          f"{code} {details}")
    at_cut = server.tournaments.GetTournament(
        tournament_pb2.GetTournamentRequest(id=created.id), metadata=meta(ADMIN))
    time.sleep(1)
    later = server.tournaments.GetTournament(
        tournament_pb2.GetTournamentRequest(id=created.id), metadata=meta(ADMIN))
    check("and the tournament it watched went on",
          later.status == tournament_pb2.TOURNAMENT_STATUS_RUNNING and
          later.progress.finished > at_cut.progress.finished, later.progress)
    server.tournaments.CancelTournament(
        tournament_pb2.CancelTournamentRequest(id=created.id), metadata=meta(ADMIN))
    wait_tournament(server, created.id, (tournament_pb2.TOURNAMENT_STATUS_CANCELLED,))
    slow.close()
    server.stop()


def transport():
    server = Server(db=False)
    port = server.address.rsplit(":", 1)[1]
    second = subprocess.run([HOARD, "serve", "--listen", f"127.0.0.1:{port}",
                             "--state-dir", STATE], capture_output=True, text=True, timeout=30)
    check("a second server on a port in use exits non-zero, saying so",
          second.returncode != 0 and "cannot listen on" in second.stderr
          and "in use" in second.stderr, second.stderr[-500:])
    bad = subprocess.run([HOARD, "serve", "--listen", "127.0.0.1:99999"], capture_output=True,
                         text=True, timeout=30)
    check("--listen with a port past 65535 is refused",
          bad.returncode == 2 and "port from 0 to 65535" in bad.stderr, bad.stderr)
    made = os.path.join(STATE, "admin-token")
    mode = os.stat(made).st_mode & 0o777 if os.path.exists(made) else None
    check("a server with no admin token makes one, mode 0600, and says where",
          mode == 0o600 and made in open(server.out.name).read(), mode)
    with open(made) as f:
        token = f.read().strip()
    code, _ = code_of(lambda: builtin_match(server, token))
    check("that token is the admin's", code == grpc.StatusCode.OK, code)

    for method in ("/hoard.v1.Arena/GetMatch", "/hoard.v1.Arena/CreateMatch",
                   "/hoard.v1.Arena/PlayMatch"):
        garbage = server.channel.unary_unary(method, request_serializer=None,
                                             response_deserializer=None)
        code, details = code_of(lambda: garbage(b"\xff\xff\xff\xff\x0f", timeout=10))
        check(f"bytes that are no message ({method}): INVALID_ARGUMENT",
              code == grpc.StatusCode.INVALID_ARGUMENT, f"{code} {details}")
    watch = server.channel.unary_stream("/hoard.v1.Arena/WatchMatch", request_serializer=None,
                                        response_deserializer=None)
    code, details = code_of(lambda: list(watch(b"\xff\xff\xff\xff\x0f", timeout=10)))
    check("bytes that are no message (WatchMatch, a stream): INVALID_ARGUMENT",
          code == grpc.StatusCode.INVALID_ARGUMENT, f"{code} {details}")
    play = server.channel.stream_stream("/hoard.v1.Arena/Play", request_serializer=None,
                                        response_deserializer=None)
    code, details = code_of(lambda: list(play(iter([b"\xff\xff\xff\xff\x0f"]), timeout=10)))
    check("bytes that are no message on a Play stream: INVALID_ARGUMENT, saying so",
          code == grpc.StatusCode.INVALID_ARGUMENT and "BotMessage" in details,
          f"{code} {details}")
    code, _ = code_of(lambda: server.arena.ListGames(arena_pb2.ListGamesRequest(), timeout=10))
    check("the server keeps serving after them", code == grpc.StatusCode.OK, code)
    server.stop()


def private_reads():
    server = Server("--private", db=False)
    code, details = code_of(lambda: server.arena.ListGames(arena_pb2.ListGamesRequest()))
    check("--private: a read without a token is UNAUTHENTICATED",
          code == grpc.StatusCode.UNAUTHENTICATED, f"{code} {details}")
    with open(os.path.join(STATE, "read-token")) as f:
        reader = f.read().strip()
    code, _ = code_of(lambda: server.arena.ListGames(arena_pb2.ListGamesRequest(),
                                                     metadata=meta(reader)))
    check("--private: the read token reads", code == grpc.StatusCode.OK, code)
    code, _ = code_of(lambda: builtin_match(server, reader))
    check("--private: the read token creates nothing (PERMISSION_DENIED)",
          code == grpc.StatusCode.PERMISSION_DENIED, code)
    server.stop()


if __name__ == "__main__":
    main()
