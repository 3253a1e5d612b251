#!/usr/bin/python3
"""Store faults as a user meets them: a database locked by another process, a
full disk, a server killed with SIGKILL. Real processes only: `hoard serve
--db`, `hoard bot` processes, a bot on the Python SDK, the `sqlite3` program.

    /usr/bin/python3 tests/store_faults_test.py build/hoard [PART...]

Parts (default: all, in this order):

  lock12      4 bots (3 `hoard bot`, 1 Python SDK bot) play 100 matches created
              over gRPC, from 2 s before to 2 s before the end of a 12 s
              BEGIN IMMEDIATE that `sqlite3` holds: matches are played to
              their end during the lock, no seat times out, answers
              illegally or forfeits, all 100 are stored afterwards, one
              match_finished line each, and no `match_finished ...
              stored=yes` line is written for a match the database does not
              hold at that moment.
  fulldisk    the database on a 4 MiB tmpfs filled up by another file (skipped,
              saying why, when the test may not mount): the server keeps
              running, matches played then are never logged stored=yes while
              absent, and once the file is deleted every one of them is
              stored.
  tournament8 a server-side tournament (a Python SDK bot against built-in ones)
              running when `sqlite3` holds the write lock for 8 s:
              GetTournament keeps answering, the tournament never shows
              FAILED and ends FINISHED, every scheduled match stored once.
  kill9       a server-side tournament of registered bots (3 `hoard bot`, 1
              Python SDK bot that logs every decision it makes); the server is
              killed with SIGKILL at a random moment and restarted 5 s later,
              10 times (once with a `hoard bot` held stopped until 4.5 s after
              the server's return, past the tournament's 3 s start timeout;
              each run also holds a match nobody joins, in flight at the
              kill): the tournament ends FINISHED with every slot stored
              once, no match id is handed out twice over all the runs, each
              `hoard bot` is connected again within 2.5 s of the server's
              return, and every action of the SDK bot's seat in each stored
              record is one it chose for that match at that step.
  liveread    a server-side tournament (an SDK bot named '-py1' against built-in
              ones) on a database in a directory hoard makes: the database, its
              -wal and -shm are 0600 and the directory 0700 under umask 022;
              while the server runs, `hoard export`, `hoard leaderboard --csv`
              and `hoard backup` read the database (its latest commits in the
              -wal file) and give what they give once it stops; '-py1' is
              written "'-py1" and `hoard ratings --input` reads it back.
  deleted     the database deleted while a server-side tournament runs and
              matches are made every 0.1 s: the server says so once
              (store_lost, naming the file and the copy it made), refuses new
              matches UNAVAILABLE, logs no stored=yes after, keeps what ends in
              the spill file (0600); with the copy put back and the server
              started again, the spilled results are stored, the tournament
              ends FINISHED with every slot stored once, and every match made
              is in the database once.

HOARD_FAULT_SCALE (default 1) scales the sizes (matches, kills); 0.3 runs a
reduced version in about a minute. HOARD_FAULT_SEED fixes the random moments.
The locks keep their lengths (12 s, 8 s): both outlast SQLite's busy timeout.
Needs the `sqlite3` program; fulldisk needs root (mount). Prints one line per
check and a closing 'N passed, M failed'; exits 1 if any check failed.
"""
import collections
import datetime
import errno
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------
# The Python SDK bot of this test (run as `store_faults_test.py --sdk-bot
# FLAGS`, FLAGS those of hoard_bot.run): a random bot that thinks a little and
# logs every decision it makes, one JSON line each (match, request, seat, the
# chosen action's index and text). Through the SDK's public API only.
#   HOARD_FAULT_BOT_LOG    the log file
#   HOARD_FAULT_BOT_THINK  mean pause per decision, in ms
#   HOARD_FAULT_BOT_SEED   the seed of its choices


def sdk_bot(argv):
    import hoard_bot
    out = open(os.environ["HOARD_FAULT_BOT_LOG"], "a", buffering=1)
    think_ms = float(os.environ.get("HOARD_FAULT_BOT_THINK", "0"))
    rng = random.Random(int(os.environ.get("HOARD_FAULT_BOT_SEED", "1")))
    lock = threading.Lock()

    def decide(decision):
        request = decision.request
        with lock:
            pause = rng.uniform(0, 2 * think_ms) / 1000.0
            choice = rng.randrange(len(decision.legal_actions))
        time.sleep(pause)
        with lock:
            out.write(json.dumps({
                "t": time.time(), "match": request.match_id, "request": request.request_id,
                "seat": request.seat, "resent": request.resent, "index": choice,
                "text": decision.texts[choice] if choice < len(decision.texts) else ""}) + "\n")
        return choice

    hoard_bot.run(decide, argv=argv, describe_actions=True)


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "--sdk-bot":
    sdk_bot(sys.argv[2:])

# ---------------------------------------------------------------------------

import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
from hoard_bot.stubs import tournament_pb2, tournament_pb2_grpc  # noqa: E402

if len(sys.argv) < 2:
    sys.exit("usage: store_faults_test.py PATH_TO_HOARD "
             "[lock12|fulldisk|tournament8|kill9|liveread|deleted ...]")
HOARD = os.path.abspath(sys.argv[1])
PARTS = sys.argv[2:] or ["lock12", "fulldisk", "tournament8", "kill9", "liveread", "deleted"]
SCALE = float(os.environ.get("HOARD_FAULT_SCALE", "1"))
SEED = int(os.environ.get("HOARD_FAULT_SEED", str(int(time.time()) % 100000)))
WORK = tempfile.mkdtemp(prefix="hoard-store-faults-")
STATE = os.path.join(WORK, "state")
TOKEN = "store-faults-admin"
ADMIN = (("authorization", f"Bearer {TOKEN}"),)
TOKENS = os.path.join(WORK, "admin-tokens")
with open(TOKENS, "w") as f:
    f.write(TOKEN + "\n")

PROCESSES = []  # every process this test started, to stop at the end
MOUNTS = []     # every tmpfs this test mounted, to unmount at the end


def scaled(full, least):
    return max(least, int(round(full * SCALE)))


def note(line):
    print(f"     {line}", flush=True)


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as error:
        return f"({path}: {error})"


def spawn(args, log_path, **kwargs):
    log = open(log_path, "a")
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, **kwargs)
    log.close()
    PROCESSES.append(process)
    return process


def end(process, timeout=30):
    """Stops a process this test started: SIGTERM, then SIGKILL."""
    if process.poll() is not None:
        return
    try:
        process.send_signal(signal.SIGCONT)  # in case it was stopped
        process.terminate()
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)
    except ProcessLookupError:
        pass


def cleanup():
    for process in reversed(PROCESSES):
        try:
            end(process, timeout=20)
        except Exception as error:  # keep cleaning up
            print(f"cleanup: {error}", file=sys.stderr)
    for mount in reversed(MOUNTS):
        if subprocess.run(["umount", mount], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", mount], capture_output=True)
    MOUNTS.clear()
    if os.environ.get("HOARD_FAULT_KEEP"):
        print(f"kept {WORK}", flush=True)
    else:
        shutil.rmtree(WORK, ignore_errors=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_ts(ts):
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def db_rows(path, sql, args=()):
    """A query on the database as another reader sees it (read-only)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def stored_ids(path, ids):
    ids = list(ids)
    found = set()
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        found.update(row[0] for row in db_rows(
            path, f"SELECT id FROM matches WHERE id IN ({marks})", chunk))
    return found


def wait_until(condition, timeout, step=0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


class Server:
    """`hoard serve --db` with JSON event logs, read as they come. Every start is
    a run; events keep their run. With `check_stored`, each `match_finished`
    line saying stored=yes is checked against the database as it is read."""

    def __init__(self, name, db, port=0, check_stored=True):
        self.name, self.db, self.port = name, db, port
        self.check_stored = check_stored
        self.events = []            # (run, event dict)
        self.unstored_yes = []      # (run, match id, line): stored=yes, not in the database
        self.runs = 0
        self.process = None
        self.channel = None
        self.log_path = os.path.join(WORK, f"{name}-server.log")
        self.lock = threading.Lock()

    def start(self, timeout=90):
        self.runs += 1
        run = self.runs
        args = [HOARD, "serve", "--listen", f"127.0.0.1:{self.port}", "--db", self.db,
                "--admin-token-file", TOKENS, "--state-dir", STATE, "--log-format", "json",
                "--shutdown-grace-ms", "3000"]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True, bufsize=1)
        PROCESSES.append(self.process)
        ready = threading.Event()
        holder = {}

        def read_stdout(out):
            for line in out:
                if "serving on" in line and "address" not in holder:
                    holder["address"] = line.split()[-1]
                    ready.set()
            ready.set()

        def read_stderr(err):
            with open(self.log_path, "a") as log:
                log.write(f"---- run {run} ----\n")
                for line in err:
                    log.write(line)
                    log.flush()
                    self._on_line(run, line)

        threading.Thread(target=read_stdout, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=read_stderr, args=(self.process.stderr,), daemon=True).start()
        if not ready.wait(timeout) or "address" not in holder:
            raise RuntimeError(f"{self.name}: the server did not start (run {run}):\n"
                               f"{tail(self.log_path)}")
        self.address = holder["address"]
        self.started_at = time.monotonic()
        self.channel = grpc.insecure_channel(self.address)
        grpc.channel_ready_future(self.channel).result(timeout=timeout)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)
        self.tournaments = tournament_pb2_grpc.TournamentsStub(self.channel)
        return self

    def _on_line(self, run, line):
        try:
            event = json.loads(line)
        except ValueError:
            event = {"event": "(text)", "line": line.rstrip()}
        if not isinstance(event, dict):
            return
        if self.check_stored and event.get("event") == "match_finished" and \
                event.get("stored") == "yes":
            try:
                present = event.get("match") in stored_ids(self.db, [event.get("match")])
            except sqlite3.Error as error:
                present = False
                event["db_error"] = str(error)
            if not present:
                self.unstored_yes.append((run, event.get("match"), line.rstrip()))
        with self.lock:
            self.events.append((run, event))

    def select(self, name=None, run=None):
        with self.lock:
            return [e for r, e in self.events
                    if (name is None or e.get("event") == name) and (run is None or r == run)]

    def kill9(self):
        self.process.kill()
        self.process.wait(timeout=30)
        self.channel.close()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        if self.channel is not None:
            self.channel.close()


class Locker:
    """`sqlite3 DB` holding the write lock: BEGIN IMMEDIATE and a write, then
    ROLLBACK when released."""

    def __init__(self, db):
        self.db = db
        self.process = subprocess.Popen(["sqlite3", db], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True)
        PROCESSES.append(self.process)
        self.process.stdin.write(
            ".timeout 60000\nBEGIN IMMEDIATE;\n"
            "CREATE TABLE store_faults_lock_probe (x);\n"
            "INSERT INTO store_faults_lock_probe VALUES (1);\nSELECT 'LOCKED';\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if line.strip() != "LOCKED":
            raise RuntimeError(f"sqlite3 did not take the lock: {line}"
                               f"{self.process.stdout.read()}")
        self.taken_at = time.monotonic()
        # Another writer is refused now: the lock is held.
        probe = sqlite3.connect(db, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            self.held = False
        except sqlite3.OperationalError as error:
            self.held = "locked" in str(error) or "busy" in str(error)
        finally:
            probe.close()

    def release(self):
        self.process.stdin.write("ROLLBACK;\n.quit\n")
        self.process.stdin.close()
        output = self.process.stdout.read()
        self.process.wait(timeout=60)
        self.released_at = time.monotonic()
        return output


def add_bot(server, name):
    return server.arena.AddBot(arena_pb2.AddBotRequest(name=name), metadata=ADMIN,
                               timeout=60).key


def start_hoard_bot(address, name, key, max_matches, seed):
    return spawn([HOARD, "bot", "--server", address, "--name", name, "--key", key,
                  "--max-matches", str(max_matches), "--seed", str(seed)],
                 os.path.join(WORK, f"bot-{name}.log"))


def start_sdk_bot(address, name, key, max_matches, think_ms, log, seed):
    env = dict(os.environ, HOARD_FAULT_BOT_LOG=log, HOARD_FAULT_BOT_THINK=str(think_ms),
               HOARD_FAULT_BOT_SEED=str(seed))
    return spawn([sys.executable, os.path.abspath(__file__), "--sdk-bot", "--server", address,
                  f"--name={name}", "--key", key, "--max-matches", str(max_matches)],
                 os.path.join(WORK, f"bot-{name}.log"), env=env)


def connected_bots(server):
    try:
        listed = server.arena.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN, timeout=30)
    except grpc.RpcError:
        return set()
    return {bot.name for bot in listed.bots if bot.connected}


class Creator(threading.Thread):
    """Creates `count` matches at an even pace over `window` seconds, waiting
    out RESOURCE_EXHAUSTED (and keeping what it said)."""

    def __init__(self, server, request, count, window, give_up_s):
        super().__init__(daemon=True)
        self.server, self.request, self.count, self.window = server, request, count, window
        self.give_up_s = give_up_s
        self.ids, self.latencies, self.refusals, self.errors = [], [], [], []
        self.created_at = {}

    def run(self):
        start = time.monotonic()
        for i in range(self.count):
            delay = start + i * self.window / self.count - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            asked = time.monotonic()
            while True:
                try:
                    created = self.server.arena.CreateMatch(self.request, metadata=ADMIN,
                                                            timeout=60)
                    self.ids.append(created.match_id)
                    self.created_at[created.match_id] = time.monotonic()
                    self.latencies.append(time.monotonic() - asked)
                    break
                except grpc.RpcError as error:
                    if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and \
                            time.monotonic() - asked < self.give_up_s:
                        self.refusals.append(error.details() or "")
                        time.sleep(0.1)
                        continue
                    self.errors.append(f"{error.code().name}: {error.details()}")
                    break


def seat_faults(server, ids):
    """(faults, missing): seats of the stored matches with a time-out, an illegal
    answer or a forfeit, as GetMatch tells them; matches it does not find."""
    faults, missing, statuses = [], [], collections.Counter()
    for match_id in ids:
        try:
            got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id),
                                        metadata=ADMIN, timeout=60)
        except grpc.RpcError as error:
            missing.append(f"{match_id}: {error.code().name} {error.details()}")
            continue
        statuses[arena_pb2.MatchStatus.Name(got.match.status)] += 1
        for seat in got.match.seats:
            if seat.timeouts or seat.forfeited or seat.illegal_answers:
                faults.append(f"{match_id} seat {seat.seat} ({seat.player}): "
                              f"{seat.timeouts} time-outs, {seat.illegal_answers} illegal, "
                              f"forfeited={seat.forfeited}")
    return faults, missing, statuses


def check_unstored_yes(part, server):
    check(f"{part}: every 'match_finished ... stored=yes' line names a match the database "
          "holds when the line is written",
          not server.unstored_yes,
          f"{len(server.unstored_yes)} lines logged stored=yes for a match not in "
          f"{server.db}:\n" + "\n".join(f"run {r}: {line}" for r, _, line
                                        in server.unstored_yes[:15]))


def not_stored_lines(server):
    return [e for e in server.select() if e.get("event") == "match_not_stored" or
            (e.get("event") == "(text)" and "not stored" in e.get("line", ""))]


def check_refusals_name_store(part, refusals):
    if not refusals:
        note(f"{part}: no creation was refused (RESOURCE_EXHAUSTED)")
        return
    odd = [r for r in refusals if "store" not in r.lower() and "database" not in r.lower()]
    check(f"{part}: matches refused while the store is behind are refused naming the store "
          f"({len(refusals)} refusals)", not odd,
          "refusals that do not name the store:\n" + "\n".join(sorted(set(odd))[:10]))


# ---------------------------------------------------------------------------
# a. A 12 s lock while 100 matches are played.


def part_lock12():
    count = scaled(100, 20)
    lock_s = 12.0
    db = os.path.join(WORK, "lock12.db")
    server = Server("lock12", db).start()
    hoard_bots = ["hb1", "hb2", "hb3"]
    keys = {name: add_bot(server, name) for name in hoard_bots + ["py1"]}
    for i, name in enumerate(hoard_bots):
        start_hoard_bot(server.address, name, keys[name], count, seed=SEED + i)
    start_sdk_bot(server.address, "py1", keys["py1"], count, think_ms=10,
                  log=os.path.join(WORK, "lock12-py1.jsonl"), seed=SEED)
    everyone = set(hoard_bots + ["py1"])
    if not wait_until(lambda: everyone <= connected_bots(server), 60):
        check("lock12: the bots connect", False,
              f"connected: {sorted(connected_bots(server))}\n" + tail(
                  os.path.join(WORK, "bot-py1.log")))
        server.stop()
        return
    # A tight but fair time control: these bots answer in milliseconds.
    request = arena_pb2.CreateMatchRequest(
        game="village",
        seats=[arena_pb2.SeatSpec(bot=name) for name in hoard_bots + ["py1"]],
        time_control=arena_pb2.TimeControl(decision_ms=2000, bank_ms=2000, max_strikes=3))
    # Matches are created from 2 s before the lock to 2 s before its end, so
    # that they start, play and end all through it.
    window = lock_s
    creator = Creator(server, request, count, window, give_up_s=180)
    started = time.monotonic()
    creator.start()
    time.sleep(2.0)
    locker = Locker(db)
    check("lock12: sqlite3 holds the write lock (BEGIN IMMEDIATE and a write)", locker.held)
    created_before = len(creator.ids)
    # 3 s before the lock ends: every match created 4 s before has been
    # played to its end (a match takes well under a second here).
    time.sleep(max(0.0, locker.taken_at + lock_s - 3.0 - time.monotonic()))
    looked_at = time.monotonic()
    old_enough = {m for m, t in list(creator.created_at.items()) if t < looked_at - 4.0}
    try:  # answered before the lock ends, or it counts as stuck
        running = server.arena.ListMatches(
            arena_pb2.ListMatchesRequest(status=arena_pb2.MATCH_STATUS_RUNNING, page_size=500),
            metadata=ADMIN, timeout=2.5).matches
        stuck = [f"{m.match_id}: RUNNING {looked_at - creator.created_at[m.match_id]:.1f} s "
                 f"after it was created, {m.actions} actions so far"
                 for m in running if m.match_id in old_enough]
    except grpc.RpcError as error:
        stuck = [f"ListMatches (running matches) got no answer in 2.5 s: "
                 f"{error.code().name} {error.details()}"]
    check(f"lock12: matches are played to their end while the lock is held (of the "
          f"{len(old_enough)} created 4 s or more before, none still running)",
          not stuck and old_enough, f"{len(stuck)} not ended:\n" + "\n".join(stuck[:19]))
    time.sleep(max(0.0, locker.taken_at + lock_s - time.monotonic()))
    finished_in_lock = len(server.select("match_finished"))
    output = locker.release()
    note(f"lock held {locker.released_at - locker.taken_at:.1f} s from "
         f"{locker.taken_at - started:.1f} s; {created_before} matches created before it, "
         f"{len(creator.ids) - created_before} while it was held; match_finished lines "
         f"by its end: {finished_in_lock}" + (f"; sqlite3 said: {output.strip()}"
                                             if output.strip() else ""))
    creator.join(timeout=300)
    check(f"lock12: all {count} matches are created", len(creator.ids) == count and
          not creator.errors,
          f"{len(creator.ids)} created; errors: {creator.errors[:5]}")
    if creator.latencies:
        note(f"CreateMatch took at most {1000 * max(creator.latencies):.0f} ms")
    check_refusals_name_store("lock12", creator.refusals)
    ids = list(creator.ids)
    wait_until(lambda: len(stored_ids(db, ids)) == len(ids), 60, step=0.5)
    stored = stored_ids(db, ids)
    check(f"lock12: all {len(ids)} matches are stored after the lock",
          len(stored) == len(ids),
          f"{len(stored)} of {len(ids)} in the database 60 s after the lock ended; missing: "
          f"{sorted(set(ids) - stored)[:20]}\n" + "\n".join(
              json.dumps(e) for e in not_stored_lines(server)[:10]))
    check_unstored_yes("lock12", server)
    faults, missing, statuses = seat_faults(server, ids)
    check("lock12: no seat of any match timed out, answered illegally or forfeited",
          not faults and not missing,
          f"{len(faults)} seats with faults over {len(ids)} matches:\n" +
          "\n".join((missing + faults)[:19]))
    check("lock12: every match ended FINISHED", statuses.get("MATCH_STATUS_FINISHED") == len(ids),
          f"{dict(statuses)} of {len(ids)}; not found: {len(missing)}")
    finished = [e for e in server.select("match_finished") if e.get("match") in set(ids)]
    yes = [e for e in finished if e.get("stored") == "yes"]
    per_match = collections.Counter(e.get("match") for e in finished)
    check("lock12: one match_finished line per match, each stored=yes, as many as the "
          "database holds",
          len(yes) == len(ids) == len(stored) and max(per_match.values(), default=0) == 1,
          f"{len(finished)} match_finished lines, {len(yes)} stored=yes, {len(stored)} in the "
          f"database, {len(ids)} created; lines not stored=yes: " + "\n".join(
              json.dumps(e) for e in finished if e.get("stored") != "yes")[:1500])
    server.stop()


# ---------------------------------------------------------------------------
# b. A full disk.


def fill(path):
    """Fills the file system of `path` to the last byte; the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 20, 64 << 10, 4 << 10, 512, 1):
            block = b"\0" * size
            while True:
                try:
                    f.write(block)
                    written += size
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
        try:
            os.fsync(f.fileno())
        except OSError:
            pass
    return written


def part_fulldisk():
    disk = os.path.join(WORK, "disk")
    os.makedirs(disk)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", disk],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        print(f"skip fulldisk: cannot mount a tmpfs ({(mounted.stderr or '').strip()}; "
              f"needs root or CAP_SYS_ADMIN)", flush=True)
        return
    MOUNTS.append(disk)
    count = scaled(20, 5)
    db = os.path.join(disk, "hoard.db")
    server = Server("fulldisk", db).start()
    # Warm up: a match stored while there is room.
    request = arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(builtin="random")] * 4)
    warm = server.arena.CreateMatch(request, metadata=ADMIN, timeout=60).match_id
    wait_until(lambda: warm in stored_ids(db, [warm]), 60)
    filler = os.path.join(disk, "filler")
    written = fill(filler)
    try:
        with open(os.path.join(disk, "one-more"), "wb") as f:
            f.write(b"x" * 4096)
            f.flush()
            os.fsync(f.fileno())
        full = False
    except OSError as error:
        full = error.errno == errno.ENOSPC
    check("fulldisk: the database's file system is full", full,
          subprocess.run(["df", disk], capture_output=True, text=True).stdout)
    note(f"filler: {written} bytes; database files: " + ", ".join(
        f"{name} {os.path.getsize(os.path.join(disk, name))}" for name in sorted(os.listdir(disk))
        if name.startswith("hoard.db")))
    creator = Creator(server, request, count, window=2.0, give_up_s=60)
    creator.start()
    creator.join(timeout=120)
    check(f"fulldisk: {count} matches are created while the disk is full",
          len(creator.ids) == count and not creator.errors,
          f"{len(creator.ids)} created; errors: {creator.errors[:5]}")
    ids = list(creator.ids)
    # The matches end in milliseconds; give the store time to meet the error.
    wait_until(lambda: len([e for e in server.select()
                            if e.get("match") in set(ids) and
                            e.get("event") in ("match_finished", "match_not_stored")]) >= len(ids),
               8)
    time.sleep(3)
    during = stored_ids(db, ids)
    note(f"while the disk was full: {len(during)} of {len(ids)} matches in the database; "
         f"{len(not_stored_lines(server))} 'not stored' lines")
    alive = server.process.poll() is None
    check("fulldisk: the server keeps running on a full disk", alive,
          tail(server.log_path))
    for name in ("filler", "one-more"):
        if os.path.exists(os.path.join(disk, name)):
            os.remove(os.path.join(disk, name))
    freed = time.monotonic()
    if alive:
        wait_until(lambda: len(stored_ids(db, ids)) == len(ids), 45, step=0.5)
    stored = stored_ids(db, ids)
    note(f"{len(stored)} of {len(ids)} stored {time.monotonic() - freed:.1f} s after the disk "
         "was freed")
    check_unstored_yes("fulldisk", server)
    finished_ids = {e.get("match") for e in server.select("match_finished")} & set(ids)
    check("fulldisk: once the disk has room, every match played on the full disk is stored "
          f"({len(ids)} created, {len(finished_ids)} logged match_finished)",
          len(stored) == len(ids),
          f"{len(stored)} of {len(ids)} in the database 45 s after the filler was deleted; "
          f"missing: {sorted(set(ids) - stored)[:20]}\n" + "\n".join(
              json.dumps(e) for e in not_stored_lines(server)[:10]))
    yes = [e for e in server.select("match_finished")
           if e.get("match") in set(ids) and e.get("stored") == "yes"]
    check("fulldisk: as many stored=yes lines as matches in the database",
          len(yes) == len(stored), f"{len(yes)} stored=yes lines, {len(stored)} stored")
    check_refusals_name_store("fulldisk", creator.refusals)
    server.stop()
    if subprocess.run(["umount", disk], capture_output=True).returncode == 0:
        MOUNTS.remove(disk)


# ---------------------------------------------------------------------------
# c. A server-side tournament through an 8 s lock.

TERMINAL = {tournament_pb2.TOURNAMENT_STATUS_FINISHED, tournament_pb2.TOURNAMENT_STATUS_FAILED,
            tournament_pb2.TOURNAMENT_STATUS_CANCELLED}


def status_name(status):
    return tournament_pb2.TournamentStatus.Name(status)


def get_tournament(server, tournament_id, timeout=30):
    return server.tournaments.GetTournament(
        tournament_pb2.GetTournamentRequest(id=tournament_id), metadata=ADMIN, timeout=timeout)


def slots_stored(db, tournament_id):
    """{schedule index: [match ids]} of the tournament's stored matches."""
    slots = collections.defaultdict(list)
    for index, match_id in db_rows(
            db, "SELECT schedule_index, id FROM matches WHERE tournament_id = ?",
            (tournament_id,)):
        slots[index].append(match_id)
    return slots


def check_slots(part, db, tournament_id, scheduled):
    slots = slots_stored(db, tournament_id)
    twice = {i: ids for i, ids in slots.items() if len(ids) > 1}
    absent = sorted(set(range(scheduled)) - set(slots))
    extra = sorted(set(slots) - set(range(scheduled)), key=str)
    check(f"{part}: each of the {scheduled} scheduled matches is stored exactly once",
          not twice and not absent and not extra,
          f"{len(slots)} slots stored; missing {len(absent)}: {absent[:20]}; "
          f"stored more than once: {dict(list(twice.items())[:10])}; unknown slots: {extra[:10]}")
    return slots


def part_tournament8():
    lock_s = 8.0
    db = os.path.join(WORK, "tournament8.db")
    server = Server("tournament8", db).start()
    key = add_bot(server, "py1")
    start_sdk_bot(server.address, "py1", key, 16, think_ms=6,
                  log=os.path.join(WORK, "tournament8-py1.jsonl"), seed=SEED)
    if not wait_until(lambda: "py1" in connected_bots(server), 60):
        check("tournament8: the SDK bot connects", False, tail(os.path.join(WORK, "bot-py1.log")))
        server.stop()
        return
    rounds = scaled(100, 30)
    spec = tournament_pb2.TournamentSpec(
        name="through a lock", game="village", players_per_match=4, rounds=rounds,
        concurrency=8, seed=SEED,
        participants=[tournament_pb2.Participant(name="py1", registered=True),
                      tournament_pb2.Participant(name="random", builtin="random"),
                      tournament_pb2.Participant(name="heuristic", builtin="heuristic"),
                      tournament_pb2.Participant(name="first", builtin="first")])
    created = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN, timeout=60)
    scheduled = created.progress.scheduled
    seen = []  # (seconds since the lock, status, finished)
    wait_until(lambda: get_tournament(server, created.id).progress.finished >= scheduled // 10,
               120, step=0.05)
    locker = Locker(db)
    at_lock = get_tournament(server, created.id)
    note(f"tournament {created.id}: {scheduled} matches; at the lock {at_lock.progress.finished} "
         f"finished, {status_name(at_lock.status)}")
    check("tournament8: the tournament is running when the lock is taken",
          locker.held and at_lock.status == tournament_pb2.TOURNAMENT_STATUS_RUNNING and
          at_lock.progress.finished < scheduled,
          f"lock held: {locker.held}; {status_name(at_lock.status)}, "
          f"{at_lock.progress.finished}/{scheduled} (make the tournament longer)")
    unanswered = []  # GetTournament calls that got no answer in 10 s

    def look():
        asked = time.monotonic()
        try:
            got = get_tournament(server, created.id, timeout=10)
        except grpc.RpcError as error:
            unanswered.append(f"{asked - locker.taken_at:+.1f} s: {error.code().name} "
                              f"{error.details()}")
            return None
        seen.append((asked - locker.taken_at, got.status, got.progress.finished, got.error))
        return got

    while time.monotonic() < locker.taken_at + lock_s:
        look()
        time.sleep(0.2)
    locker.release()
    note(f"at the lock's end: {status_name(seen[-1][1])}, {seen[-1][2]}/{scheduled} finished"
         if seen else "no answer during the lock")
    deadline = time.monotonic() + 240
    got = at_lock
    while time.monotonic() < deadline:
        got = look() or got
        if got.status in TERMINAL:
            break
        time.sleep(0.2)
    check("tournament8: GetTournament answers within 10 s all through the lock", not unanswered,
          "\n".join(unanswered[:10]))
    failed = [s for s in seen if s[1] == tournament_pb2.TOURNAMENT_STATUS_FAILED]
    check("tournament8: the tournament is never FAILED during or after the lock", not failed,
          "\n".join(f"{t:+.1f} s: {status_name(s)} {n}/{scheduled} error: {e}"
                    for t, s, n, e in failed[:5]))
    check("tournament8: the tournament ends FINISHED",
          got.status == tournament_pb2.TOURNAMENT_STATUS_FINISHED and
          got.progress.finished == scheduled,
          f"{status_name(got.status)}, {got.progress.finished}/{scheduled} finished, "
          f"{got.progress.failed} failed; error: {got.error}")
    slots = check_slots("tournament8", db, created.id, scheduled)
    # The tournament's matches are logged as stored once its runner has
    # stored them, as every other match is.
    in_db = {i for ids in slots.values() for i in ids}

    def logged_stored():
        return {e.get("match") for e in server.select("match_finished")
                if e.get("stored") == "yes"}

    # The log's reader looks each stored=yes line up in the database as it
    # reads it, and may be behind the server by a burst of lines.
    wait_until(lambda: in_db <= logged_stored(), 60, step=0.2)
    check_unstored_yes("tournament8", server)
    stored_ids_logged = logged_stored()
    check("tournament8: every stored match of the tournament is logged match_finished "
          "stored=yes", in_db and in_db <= stored_ids_logged,
          f"{len(in_db - stored_ids_logged)} of {len(in_db)} not logged stored=yes, e.g. "
          f"{sorted(in_db - stored_ids_logged)[:5]}")
    server.stop()


# ---------------------------------------------------------------------------
# d. SIGKILL and restart, again and again, under a tournament.


def read_jsonl(path):
    entries = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return entries


def part_kill9():
    kills = scaled(10, 2)
    down_s = 5.0
    start_timeout_ms = 3000
    late_by_s = start_timeout_ms / 1000.0 + 1.5
    late_run = 3 if kills >= 2 else None  # the run after the second kill
    rng = random.Random(SEED)
    # At most this many matches finish in a run before its kill, so the
    # tournament is still running at every kill.
    per_run = 25
    rounds = (kills * per_run + 80 + 3) // 4
    db = os.path.join(WORK, "kill9.db")
    port = free_port()
    server = Server("kill9", db, port=port).start()
    hoard_bots = ["hb1", "hb2", "hb3"]
    keys = {name: add_bot(server, name) for name in hoard_bots + ["py1"]}
    bots = {name: start_hoard_bot(server.address, name, keys[name], 8, seed=SEED + i)
            for i, name in enumerate(hoard_bots)}
    py_log = os.path.join(WORK, "kill9-py1.jsonl")
    bots["py1"] = start_sdk_bot(server.address, "py1", keys["py1"], 8, think_ms=8, log=py_log,
                                seed=SEED)
    everyone = set(bots)
    if not wait_until(lambda: everyone <= connected_bots(server), 60):
        check("kill9: the bots connect", False, f"connected: {sorted(connected_bots(server))}")
        server.stop()
        return
    spec = tournament_pb2.TournamentSpec(
        name="through kill -9", game="village", players_per_match=4, rounds=rounds,
        concurrency=4, seed=SEED,
        participants=[tournament_pb2.Participant(name=name, registered=True)
                      for name in hoard_bots + ["py1"]],
        fault_policy=tournament_pb2.FaultPolicy(start_timeout_ms=start_timeout_ms))
    created = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN, timeout=60)
    tid, scheduled = created.id, created.progress.scheduled
    note(f"tournament {tid}: {scheduled} matches, {kills} kills, seed {SEED}, port {port}")
    # Besides the tournament, each run holds a match nobody joins, in flight
    # at the kill: its id must not come back either.
    probe = arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(open=True), arena_pb2.SeatSpec(builtin="random")],
        time_control=arena_pb2.TimeControl(decision_ms=600000, max_strikes=0))
    running_at_kill = 0
    history = []
    killed_at = {}  # run -> wall-clock time of its kill
    stopped_bot = None
    for k in range(1, kills + 1):
        run = server.runs
        try:
            server.arena.CreateMatch(probe, metadata=ADMIN, timeout=60)
        except grpc.RpcError as error:
            history.append(f"run {run}: the probe match was refused: {error.details()}")
        target = rng.randint(1, per_run)

        def status_now():
            try:
                return get_tournament(server, tid)
            except grpc.RpcError:
                return None
        reached = wait_until(
            lambda: len(server.select("match_finished", run)) >= target or
            server.process.poll() is not None or
            (status_now() or created).status in TERMINAL, 120, step=0.02)
        status = status_now()
        if server.process.poll() is not None:
            history.append(f"run {run}: the server exited by itself "
                           f"(status {server.process.returncode})")
            break
        running = reached and status is not None and \
            status.status == tournament_pb2.TOURNAMENT_STATUS_RUNNING
        if not running:  # kill anyway, at a random moment (bots have 2.5 s to return)
            time.sleep(rng.uniform(3.0, 4.0))
        time.sleep(rng.uniform(0.0, 0.3))
        server.kill9()
        killed_at[run] = time.time()
        running_at_kill += running
        history.append(
            f"run {run}: killed after {len(server.select('match_finished', run))} "
            "match_finished lines; tournament " +
            (f"{status_name(status.status)} {status.progress.finished}/{scheduled}" +
             (f" error: {status.error}" if status.error else "") if status else "unknown"))
        if server.runs + 1 == late_run:
            stopped_bot = "hb3"
            bots[stopped_bot].send_signal(signal.SIGSTOP)
        time.sleep(down_s)
        server.start()
        if stopped_bot:
            time.sleep(late_by_s)
            bots[stopped_bot].send_signal(signal.SIGCONT)
            history.append(f"run {server.runs}: {stopped_bot} let go {late_by_s:.1f} s after "
                           "the server's return")
            stopped_bot = None
    note("\n     ".join(history[-12:]))
    check(f"kill9: the tournament is running at each of the {kills} kills",
          running_at_kill == kills, "\n".join(history))
    deadline = time.monotonic() + 300
    final = None
    while time.monotonic() < deadline:
        try:
            final = get_tournament(server, tid)
        except grpc.RpcError:
            final = None
        if final is not None and final.status in TERMINAL:
            break
        time.sleep(0.3)
    check("kill9: the tournament ends FINISHED",
          final is not None and final.status == tournament_pb2.TOURNAMENT_STATUS_FINISHED,
          (f"{status_name(final.status)}, {final.progress.finished}/{scheduled} finished, "
           f"{final.progress.failed} failed; error: {final.error}" if final else "no answer") +
          "\n" + "\n".join(history[-6:]))
    slots = check_slots("kill9", db, tid, scheduled)

    # Match ids: every match_started of every run, and the database's.
    started = collections.defaultdict(list)
    for run, event in server.events:
        if event.get("event") == "match_started":
            started[event.get("match")].append(run)
    reused = {m: runs for m, runs in started.items() if len(runs) > 1}
    in_db = {row[0] for row in db_rows(db, "SELECT id FROM matches")}
    check(f"kill9: no match id is handed out twice over {server.runs} server runs "
          f"({len(started)} ids started, {len(in_db)} stored)", not reused,
          f"{len(reused)} ids started in more than one run (id: runs): " +
          ", ".join(f"{m}: {r}" for m, r in sorted(reused.items())[:20]))
    never_started = in_db - set(started)
    if never_started:
        note(f"{len(never_started)} stored ids never logged as started: "
             f"{sorted(never_started)[:10]}")

    # Reconnection: each hoard bot's bot_connected after each server_started
    # (the last run: given up to 15 s).
    wait_until(lambda: set(hoard_bots) <= {e.get("bot") for e in
                                           server.select("bot_connected", server.runs)}, 15)
    slow = []
    worst = 0.0
    for run in range(2, server.runs + 1):
        began = [parse_ts(e["ts"]) for e in server.select("server_started", run)]
        if not began:
            continue
        for name in hoard_bots:
            if run == late_run and name == "hb3":
                continue
            back = [parse_ts(e["ts"]) for e in server.select("bot_connected", run)
                    if e.get("bot") == name]
            delay = min(back) - began[0] if back else None
            if delay is None or delay > 2.5:
                lasted = killed_at.get(run, time.time()) - began[0]
                slow.append(f"run {run}: {name} " + (
                    f"{delay:.1f} s" if delay is not None
                    else f"not connected in the {lasted:.1f} s the server ran"))
            else:
                worst = max(worst, delay)
    check(f"kill9: every hoard bot is connected again within 2.5 s of each of the "
          f"{server.runs - 1} restarts", not slow,
          "\n".join(slow[:20]) + f"\n(the others within {worst:.2f} s)")
    note(f"hoard bot reconnections, the slowest in time: {worst:.2f} s")

    # The SDK bot: every action of its seat in a stored match is the one it
    # chose for that match at that step. Its decisions are those logged since
    # the match (by this id) was last started: a match of the same id started
    # before it, in an earlier run, is another match.
    last_start = {}
    for run, event in server.events:
        if event.get("event") == "match_started":
            last_start[event.get("match")] = parse_ts(event["ts"])
    chosen = collections.defaultdict(list)  # match -> [(time, request, text)]
    for entry in read_jsonl(py_log):
        chosen[entry["match"]].append((entry["t"], entry["request"], entry["text"]))
    wrong = []
    checked = 0
    for index in sorted(slots):
        for match_id in slots[index]:
            try:
                got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id),
                                            metadata=ADMIN, timeout=60)
            except grpc.RpcError as error:
                wrong.append(f"{match_id}: GetMatch: {error.code().name} {error.details()}")
                continue
            seats = [s.seat for s in got.match.seats if s.player == "bot:py1"]
            if not seats:
                wrong.append(f"{match_id}: py1 holds no seat: "
                             f"{[s.player for s in got.match.seats]}")
                continue
            seat = seats[0]
            played = [a.text for a in got.record.actions if a.seat == seat]
            since = last_start.get(match_id, 0) - 0.5
            by_request = collections.defaultdict(list)
            for t, request, text in chosen[match_id]:
                if t >= since:
                    by_request[request].append(text)
            decided = [by_request[r] for r in sorted(by_request)]
            checked += 1
            problem = None
            for step, action in enumerate(played):
                if step >= len(decided):
                    problem = (f"its action {step + 1} of {len(played)} '{action}' was never "
                               f"chosen: it made {len(decided)} decisions in this match")
                    break
                if action not in decided[step]:
                    problem = (f"its action {step + 1} of {len(played)} is '{action}'; it "
                               f"chose {decided[step]}")
                    break
            if not problem and len(decided) != len(played):
                problem = (f"it made {len(decided)} decisions, its seat played {len(played)} "
                           "actions")
            if problem:
                earlier = len(chosen[match_id]) - sum(len(v) for v in by_request.values())
                wrong.append(f"{match_id} (slot {index}, seat {seat}): {problem}" +
                             (f" ({earlier} decisions for an earlier {match_id})"
                              if earlier else ""))
    check(f"kill9: in each of the {checked} stored matches, every action of the SDK bot's seat "
          "is one it chose for that match at that step", not wrong and checked > 0,
          f"{len(wrong)} matches differ:\n" + "\n".join(wrong[:19]))
    check_unstored_yes("kill9", server)
    server.stop()


# ---------------------------------------------------------------------------
# e. Reading a running server's database; the modes of what it makes.


def mode_of(path):
    try:
        return oct(os.stat(path).st_mode & 0o777)
    except OSError as error:
        return f"({error.strerror})"


def hoard(args, env=None):
    done = subprocess.run([HOARD] + args, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))
    return done.returncode, done.stdout, done.stderr


def sdk_tournament(part, server, bot, think_ms, name, rounds):
    """A village tournament of the SDK bot `bot` (registered and started here)
    against three built-in bots; its CreateTournament reply, or None (and a
    failed check) if the bot does not connect."""
    key = add_bot(server, bot)
    start_sdk_bot(server.address, bot, key, 8, think_ms=think_ms,
                  log=os.path.join(WORK, f"{part}-{bot}.jsonl"), seed=SEED)
    if not wait_until(lambda: bot in connected_bots(server), 60):
        check(f"{part}: the SDK bot connects", False, tail(os.path.join(WORK, f"bot-{bot}.log")))
        server.stop()
        return None
    spec = tournament_pb2.TournamentSpec(
        name=name, game="village", players_per_match=4, rounds=rounds, concurrency=4, seed=SEED,
        participants=[tournament_pb2.Participant(name=bot, registered=True)] +
        [tournament_pb2.Participant(name=builtin, builtin=builtin)
         for builtin in ("random", "first", "heuristic")])
    return server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN, timeout=60)


def wait_for_tournament(server, tournament_id, timeout):
    got = get_tournament(server, tournament_id)
    deadline = time.monotonic() + timeout
    while got.status not in TERMINAL and time.monotonic() < deadline:
        time.sleep(0.2)
        got = get_tournament(server, tournament_id)
    return got


def part_liveread():
    data = os.path.join(WORK, "liveread", "data")  # missing: hoard makes it
    db = os.path.join(data, "hoard.db")
    old_umask = os.umask(0o022)  # the usual one, which leaves new files 0644
    try:
        server = Server("liveread", db).start()
    finally:
        os.umask(old_umask)
    # A bot whose name a spreadsheet would take for a formula.
    created = sdk_tournament("liveread", server, "-py1", 1, "read while it runs", scaled(20, 8))
    if created is None:
        return
    got = wait_for_tournament(server, created.id, 240)
    check("liveread: the tournament ends FINISHED",
          got.status == tournament_pb2.TOURNAMENT_STATUS_FINISHED,
          f"{status_name(got.status)}, {got.progress.finished} finished; error: {got.error}")
    modes = {name: mode_of(os.path.join(data, name)) for name in ("hoard.db", "hoard.db-wal",
                                                                  "hoard.db-shm")}
    check("liveread: the database, its -wal and its -shm are 0600 (under umask 022)",
          set(modes.values()) == {"0o600"}, f"{modes}")
    check("liveread: the directory hoard made for it is 0700",
          mode_of(data) == "0o700" and mode_of(os.path.dirname(data)) == "0o700",
          f"{data}: {mode_of(data)}; {os.path.dirname(data)}: {mode_of(os.path.dirname(data))}")
    wal = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
    note(f"while the server runs, {db}-wal holds {wal} bytes")
    reads = {
        "export": ["export", "--db", db, "--tournament", str(created.id)],
        "leaderboard": ["leaderboard", "--db", db, "--game", "village", "--csv"],
    }
    live = {name: hoard(args) for name, args in reads.items()}
    backup = os.path.join(WORK, "liveread-backup.db")
    backed = hoard(["backup", "--db", db, "--output", backup])
    for name, (code, out, err) in live.items():
        check(f"liveread: hoard {name} reads the database of a running server",
              code == 0 and out.count("\n") > 1, f"exit {code}\n{err}{out[:500]}")
    check("liveread: hoard backup copies it, 0600", backed[0] == 0 and
          mode_of(backup) == "0o600", f"exit {backed[0]}, mode {mode_of(backup)}\n{backed[2]}")
    scheduled = got.progress.scheduled
    export_rows = [line for line in live["export"][1].splitlines()[1:] if line]
    check("liveread: the export holds every seat of every match, the bot named '-py1' written "
          "as text (\"'-py1\")",
          len(export_rows) == 4 * scheduled and
          all(line.split(",")[1] in ('"\'-py1"', "random", "first", "heuristic")
              for line in export_rows) and any('"\'-py1"' in line for line in export_rows),
          f"{len(export_rows)} rows for {scheduled} matches:\n" + "\n".join(export_rows[:8]))
    results = os.path.join(WORK, "liveread-results.csv")
    with open(results, "w") as f:
        f.write(live["export"][1])
    code, out, err = hoard(["ratings", "--input", results, "--system", "elo"])
    csv_code, csv_out, csv_err = hoard(["ratings", "--input", results, "--system", "elo", "--csv"])
    check("liveread: hoard ratings --input reads the export back with the bot's own name, "
          "and its --csv writes it as text again",
          code == 0 and "-py1" in out and "'-py1" not in out and csv_code == 0 and
          '"\'-py1"' in csv_out, f"exit {code}\n{err}{out}\nexit {csv_code}\n{csv_err}{csv_out}")
    server.stop()
    after = {name: hoard(args) for name, args in reads.items()}
    for name in reads:
        check(f"liveread: hoard {name} gives the same rows while the server runs as after it "
              "stops", live[name][1] == after[name][1] and after[name][0] == 0,
              f"while it ran:\n{live[name][1][:600]}\nafter:\n{after[name][1][:600]}"
              f"{after[name][2]}")
    code, out, err = hoard(["leaderboard", "--db", backup, "--game", "village", "--csv"])
    check("liveread: the backup holds the same leaderboard", out == after["leaderboard"][1],
          f"exit {code}\n{err}{out[:600]}")


# ---------------------------------------------------------------------------
# f. The database deleted under a running server.


class Matchmaker(threading.Thread):
    """Creates matches of built-in bots every 0.1 s until told to stop,
    keeping the ids made and the refusals met."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.ids, self.refusals = [], []
        self.stopping = threading.Event()

    def run(self):
        request = arena_pb2.CreateMatchRequest(
            game="village", seats=[arena_pb2.SeatSpec(builtin="random")] * 4)
        while not self.stopping.wait(0.1):
            try:
                self.ids.append(self.server.arena.CreateMatch(request, metadata=ADMIN,
                                                              timeout=60).match_id)
            except grpc.RpcError as error:
                self.refusals.append((time.monotonic(), error.code(), error.details() or ""))


def part_deleted():
    db = os.path.join(WORK, "deleted.db")
    spill = db + ".unstored"
    rescued = db + ".rescued"
    # A fixed port: the SDK bot finds the server again after its restart.
    server = Server("deleted", db, port=free_port(), check_stored=False).start()
    created = sdk_tournament("deleted", server, "py1", 6, "through a deleted file",
                             scaled(60, 20))
    if created is None:
        return
    scheduled = created.progress.scheduled
    maker = Matchmaker(server)
    maker.start()
    wait_until(lambda: get_tournament(server, created.id).progress.finished >= scheduled // 4,
               120, step=0.05)
    at_delete = get_tournament(server, created.id)
    os.remove(db)
    deleted_at = time.monotonic()
    note(f"deleted {db} with {at_delete.progress.finished}/{scheduled} tournament matches and "
         f"{len(maker.ids)} other matches made")
    lost = wait_until(lambda: server.select("store_lost"), 10)
    check("deleted: the server says once that its database was deleted, naming it and the copy",
          len(lost) == 1 and f"{db} was deleted" in lost[0].get("error", "") and
          rescued in lost[0].get("error", ""), f"{lost}\n{tail(server.log_path)}")
    # New matches are refused from then on, saying why.
    refused = wait_until(lambda: [r for r in maker.refusals if r[0] > deleted_at], 10)
    time.sleep(2)
    maker.stopping.set()
    maker.join(timeout=60)
    check("deleted: new matches are refused UNAVAILABLE, naming the deleted file",
          refused and all(code == grpc.StatusCode.UNAVAILABLE and f"{db} was deleted" in details
                          for _, code, details in refused),
          f"{[(c.name, d) for _, c, d in refused[:3]]}")
    check("deleted: no file is made in its place while the server runs", not os.path.exists(db))
    # Every match made ends in one line: stored=yes before the deletion, kept
    # in the spill file after.
    ids = set(maker.ids)
    def ended():
        return {e.get("match") for e in server.select()
                if e.get("event") in ("match_finished", "match_not_stored")}

    check(f"deleted: each of the {len(ids)} matches made is logged as it ended",
          wait_until(lambda: ended() >= ids, 30), f"not logged: {sorted(ids - ended())[:10]}")
    lost_at = next((i for i, (r, e) in enumerate(server.events) if e.get("event") == "store_lost"),
                   len(server.events))
    late_yes = [e for r, e in server.events[lost_at:]
                if e.get("event") == "match_finished" and e.get("stored") == "yes"]
    check("deleted: no match is logged stored=yes once the database is gone", not late_yes,
          "\n".join(json.dumps(e) for e in late_yes[:5]))
    kept = [e for e in server.select("match_not_stored") if e.get("match") in ids]
    check("deleted: the matches that ended since are logged stored=no, kept in the spill file",
          all(e.get("kept") == spill for e in kept), "\n".join(json.dumps(e) for e in kept[:5]))
    server.stop()
    check("deleted: the copy and the spill file are 0600",
          mode_of(rescued) == "0o600" and (not kept or mode_of(spill) == "0o600"),
          f"{rescued}: {mode_of(rescued)}; {spill}: {mode_of(spill)}")
    # The operator puts the copy back and starts again.
    os.rename(rescued, db)
    server.start()
    recovered = server.select("results_recovered", run=2)
    check(f"deleted: the next start stores the {len(kept)} results kept in the spill file",
          (not kept and not recovered) or
          (recovered and recovered[0].get("matches") == str(len(kept))),
          f"{recovered}\n{tail(server.log_path)}")
    got = wait_for_tournament(server, created.id, 240)
    check("deleted: the tournament goes on after the restart and ends FINISHED",
          got.status == tournament_pb2.TOURNAMENT_STATUS_FINISHED,
          f"{status_name(got.status)}, {got.progress.finished}/{scheduled} finished, "
          f"{got.progress.failed} failed; error: {got.error}")
    check_slots("deleted", db, created.id, scheduled)
    stored = stored_ids(db, ids)
    check(f"deleted: every one of the {len(ids)} other matches made is in the database",
          stored == ids, f"missing: {sorted(ids - stored)[:20]}")
    every = [row[0] for row in db_rows(db, "SELECT id FROM matches")]
    check("deleted: no match id is given twice", len(every) == len(set(every)),
          f"{len(every)} rows, {len(set(every))} ids")
    server.stop()


def main():
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: sys.exit("stopped by a signal"))
    print(f"store faults: parts {' '.join(PARTS)}; HOARD_FAULT_SCALE={SCALE}, "
          f"HOARD_FAULT_SEED={SEED}", flush=True)
    parts = {"lock12": part_lock12, "fulldisk": part_fulldisk,
             "tournament8": part_tournament8, "kill9": part_kill9,
             "liveread": part_liveread, "deleted": part_deleted}
    try:
        if shutil.which("sqlite3") is None:
            sys.exit("store_faults_test: the sqlite3 program is needed (apt-get install sqlite3)")
        unknown = [name for name in PARTS if name not in parts]
        if unknown:
            sys.exit(f"unknown parts {' '.join(unknown)} (parts: {' '.join(parts)})")
        for name in PARTS:
            began = time.monotonic()
            try:
                parts[name]()
            except Exception:  # one part's failure must not hide the others
                check(f"{name}: runs to the end", False, traceback.format_exc())
            note(f"{name}: {time.monotonic() - began:.0f} s")
            # Stop what the part left running (its bots), before the next part.
            for process in PROCESSES:
                end(process, timeout=20)
    finally:
        cleanup()
    finish()


if __name__ == "__main__":
    main()
