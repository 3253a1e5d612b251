#!/usr/bin/python3
"""Three Hoard servers on one PostgreSQL database share a server-side
tournament, and one of them dies.

Three `hoard serve --db postgresql://…` replicas on a real PostgreSQL server
this test starts (tests/postgres.py). A tournament of 300 matches (a
search bot against the heuristic, village, two to a match) is created on one
replica; the others join it from the database. Once all three have played
some of its matches and a third of it is stored, one replica is killed with
SIGKILL. The test requires:

- the tournament ends FINISHED with exactly the scheduled 300 matches stored,
  each slot once (0 to 299), none missing;
- every replica played some of its matches before the kill, and the two
  survivors between them played the rest, including the slots the dead one
  had leased (after its leases ran out);
- the same leaderboard (JSON) read from each surviving replica, and the same
  again from the database with `hoard leaderboard --db`.

Then the two survivors share a standing ladder of built-in bots: one runs it
at a time; killed with SIGKILL, the other takes it over and the ladder goes
on, every slot stored once.

  /usr/bin/python3 tests/replicas_test.py build/hoard

HOARD_REPLICAS_MATCHES (default 300) sets the tournament's size (an even number).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from postgres import TemporaryPostgres  # noqa: E402

HOARD = os.path.abspath(sys.argv[1])
MATCHES = int(os.environ.get("HOARD_REPLICAS_MATCHES", "300"))
WORK = tempfile.mkdtemp(prefix="hoard-replicas-")
TOKENS = os.path.join(WORK, "admin-tokens")
with open(TOKENS, "w") as f:
    f.write("replicas-admin\n")


def run(args, timeout=120):
    done = subprocess.run([HOARD] + args, capture_output=True, text=True, timeout=timeout,
                          cwd=WORK)
    return done.returncode, done.stdout, done.stderr


class Replica:
    """`hoard serve` with JSON event logs, counted as they come."""

    def __init__(self, index, url):
        self.name = f"replica-{index}"
        self.log_path = os.path.join(WORK, f"{self.name}.log")
        self.finished = 0  # matches it played to the end (only the tournament's run here)
        self.process = subprocess.Popen(
            [HOARD, "serve", "--db", url, "--listen", "127.0.0.1:0", "--admin-token-file",
             TOKENS, "--state-dir", os.path.join(WORK, f"state-{index}"), "--log-format",
             "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=WORK)
        line = self.process.stdout.readline()
        if "serving on" not in line:
            raise SystemExit(f"{self.name} did not start: {line}{self.process.stderr.read()}")
        self.address = line.split()[-1]
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        with open(self.log_path, "w") as log:
            for line in self.process.stderr:
                log.write(line)
                log.flush()
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "match_finished":
                    self.finished += 1

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def main(pg):
    url = pg.new_database("fleet")
    replicas = [Replica(i, url) for i in range(3)]
    try:
        code, out, err = run(["tournament", "create", "--server", replicas[0].address,
                              "--token-file", TOKENS, "--json", "--game", "village",
                              "--players", "2", "--participant", "m=builtin:mcts-30",
                              "--participant", "h=builtin:heuristic", "--rounds",
                              str(MATCHES // 2), "--concurrency", "2"])
        check("a tournament is created on one replica", code == 0, out + err)
        if code != 0:
            return
        tid = json.loads(out)["id"]

        def stored():
            return int(pg.psql("fleet", f"SELECT count(*) FROM matches WHERE tournament_id = {tid}"))

        began = time.monotonic()
        while time.monotonic() - began < 300:
            if stored() >= MATCHES // 3 and all(r.finished > 0 for r in replicas):
                break
            time.sleep(0.2)
        played_before = [r.finished for r in replicas]
        check("every replica plays some of its matches",
              all(n > 0 for n in played_before), f"matches played: {played_before}")
        # The one that played most, killed in the middle of its matches.
        victim = max(replicas, key=lambda r: r.finished)
        in_flight = pg.psql("fleet", f"SELECT count(*) FROM slot_leases l WHERE holder LIKE "
                                     f"'%:{victim.address.rsplit(':', 1)[1]}/%' AND NOT EXISTS "
                                     f"(SELECT 1 FROM matches m WHERE m.tournament_id = "
                                     f"l.tournament_id AND m.schedule_index = l.schedule_index)")
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait(timeout=30)
        at_kill = stored()
        check(f"one replica is killed with SIGKILL in the middle ({at_kill} of {MATCHES} "
              f"stored; it holds {in_flight} unstored slots)",
              0 < at_kill < MATCHES and int(in_flight) > 0)
        survivors = [r for r in replicas if r is not victim]
        status = ""
        while time.monotonic() - began < 600:
            status = pg.psql("fleet", f"SELECT status FROM tournaments WHERE id = {tid}")
            if status != "TOURNAMENT_STATUS_RUNNING":
                break
            time.sleep(0.5)
        check("the tournament ends FINISHED", status == "TOURNAMENT_STATUS_FINISHED", status)
        counts = pg.psql("fleet", f"SELECT count(*), count(DISTINCT schedule_index), "
                                  f"min(schedule_index), max(schedule_index) FROM matches "
                                  f"WHERE tournament_id = {tid}")
        check(f"exactly the scheduled {MATCHES} matches are stored, each slot once",
              counts == f"{MATCHES}|{MATCHES}|0|{MATCHES - 1}", counts)
        check("the survivors played the rest after the kill",
              sum(r.finished for r in survivors) - sum(
                  n for r, n in zip(replicas, played_before) if r is not victim) > 0 and
              all(r.alive() for r in survivors),
              f"played: {[r.finished for r in replicas]}")
        boards = []
        for r in survivors:
            code, out, err = run(["leaderboard", "--server", r.address, "--tournament",
                                  str(tid), "--json"])
            boards.append(out if code == 0 else err)
        code, from_db, err = run(["leaderboard", "--db", url, "--tournament", str(tid),
                                  "--json"])
        same = len(set(boards)) == 1 and code == 0 and json.loads(boards[0]) == json.loads(
            from_db)
        check("each surviving replica shows the same leaderboard, the database's",
              same and json.loads(boards[0]).get("matches") == MATCHES,
              "\n".join(b[:400] for b in boards) + "\n" + from_db[:400] + err)
        shared_ladder(pg, survivors)
    finally:
        for r in replicas:
            r.stop()


def shared_ladder(pg, replicas):
    """Two replicas share a standing ladder: one runs it at a time, and the
    other takes it over when that one is killed."""
    code, out, err = run(["ladder", "create", "shared", "--server", replicas[0].address,
                          "--token-file", TOKENS, "--json", "--game", "village", "--participant",
                          "r=builtin:random", "--participant", "f=builtin:first",
                          "--participant", "h=builtin:heuristic", "--concurrency", "2"])
    check("a ladder is created on one of two replicas", code == 0, out + err)
    if code != 0:
        return
    lid = json.loads(out)["id"]

    def stored():
        return int(pg.psql("fleet", f"SELECT count(*) FROM matches WHERE tournament_id = {lid}"))

    before = [r.finished for r in replicas]
    deadline = time.monotonic() + 120
    while stored() < 100 and time.monotonic() < deadline:
        time.sleep(0.2)
    played = [r.finished - b for r, b in zip(replicas, before)]
    check("one replica runs the ladder at a time (it is leased whole)",
          stored() >= 100 and sorted(played)[0] == 0, f"played since: {played}")
    runner = replicas[0] if played[0] > 0 else replicas[1]
    other = replicas[1] if runner is replicas[0] else replicas[0]
    runner.process.send_signal(signal.SIGKILL)
    runner.process.wait(timeout=30)
    at_kill = stored()
    deadline = time.monotonic() + 120
    while stored() < at_kill + 100 and time.monotonic() < deadline:
        time.sleep(0.2)
    check("the other replica takes the ladder over when the one running it is killed",
          stored() >= at_kill + 100 and other.alive(), f"{at_kill} -> {stored()} stored")
    counts = pg.psql("fleet", f"SELECT count(*), count(DISTINCT schedule_index) FROM matches "
                              f"WHERE tournament_id = {lid}")
    total, distinct = counts.split("|")
    check("every ladder slot is stored once", total == distinct, counts)


with TemporaryPostgres() as pg:
    try:
        main(pg)
    except Exception as error:  # a broken step fails the test, never hangs it
        check("the test runs to its end", False, repr(error))
finish()
