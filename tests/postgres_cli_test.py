#!/usr/bin/python3
"""Hoard on PostgreSQL, as a user meets it: every command that takes --db
takes a postgresql:// address, against a real server this test starts
(tests/postgres.py: initdb into a temporary directory as an unprivileged
user).

- `hoard tournament --db postgresql://…` plays and stores a tournament; run
  again, it is already finished and stores nothing twice; its leaderboard
  reads the same from `hoard leaderboard --db`; `hoard export` writes its
  results and records, and `hoard replay verify` accepts a record.
- `hoard serve --db postgresql://…` runs a tournament created over gRPC,
  restarts on the same database and still lists both tournaments.
- An address that holds a password (user:PASSWORD@ or ?password=) is
  refused, exit 2, by every command, with one line saying where the
  password goes, never showing it; HOARD_SERVE_DB is refused the same way.
- A password comes from a file (HOARD_DB_PASSWORD_FILE); a wrong or
  missing one is refused with a clear error.
- A database of another program is refused and left as it was; an
  unreachable one is named with a clear error; `hoard backup` points to
  PostgreSQL's own tools.

  /usr/bin/python3 tests/postgres_cli_test.py build/hoard
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from postgres import TemporaryPostgres  # noqa: E402

HOARD = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="hoard-pg-cli-")
SECRET = "pw-never-shown"
TOKEN = "postgres-cli-admin"
TOKENS = os.path.join(WORK, "admin-tokens")
with open(TOKENS, "w") as f:
    f.write(TOKEN + "\n")


def run(args, timeout=300, env=None):
    done = subprocess.run([HOARD] + args, capture_output=True, text=True, timeout=timeout,
                          cwd=WORK, env=dict(os.environ, HOARD_STATE_DIR=f"{WORK}/state",
                                             **(env or {})))
    return done.returncode, done.stdout, done.stderr


def rows(table_text):
    """The leaderboard's rows ("1    a   ...")."""
    return [line.split()[:4] for line in table_text.splitlines()
            if line[:1].isdigit() and len(line.split()) > 6]


SPEC = ["--game", "village", "--players", "2", "--participant", "a=builtin:random",
        "--participant", "b=builtin:first", "--rounds", "60", "--quiet"]


def cli_tournament(pg):
    url = pg.new_database("cli")
    # The password from the environment, as libpq reads it (this server
    # trusts its local users, so it is not asked for).
    code, out, err = run(["tournament", "--db", url] + SPEC, env={"PGPASSWORD": SECRET})
    check("a tournament runs on PostgreSQL and stores all 120 matches",
          code == 0 and "120 of 120 matches stored in postgresql://hoard@/cli" in out,
          out + err)
    check("its output never shows the password", SECRET not in out + err)
    stored = pg.psql("cli", "SELECT count(*), count(DISTINCT schedule_index) FROM matches "
                            "WHERE tournament_id = 1")
    check("the database holds each scheduled slot once", stored == "120|120", stored)
    seats = pg.psql("cli", "SELECT count(*) FROM bot_matches")
    records = pg.psql("cli", "SELECT count(record) FROM matches")
    check("with every seat's bot and every record", seats == "240" and records == "120",
          f"seats {seats}, records {records}")
    code2, out2, err2 = run(["tournament", "--db", url] + SPEC)
    again = pg.psql("cli", "SELECT count(*) FROM matches")
    check("run again, it is already finished and stores nothing twice",
          code2 == 0 and "FINISHED, 120 of 120 matches stored" in out2 and again == "120",
          out2 + err2 + again)
    code3, board, err3 = run(["leaderboard", "--db", url, "--tournament", "1"])
    check("hoard leaderboard --db postgresql://… reads the same leaderboard",
          code3 == 0 and rows(board) and rows(board) == rows(out), board + err3 + out)
    code4, csv, err4 = run(["export", "--db", url, "--tournament", "1",
                            "--records", f"{WORK}/records.jsonl", "--results", "-"])
    check("hoard export writes a result row per seat",
          code4 == 0 and len(csv.strip().splitlines()) == 1 + 240, csv[:300] + err4)
    with open(f"{WORK}/records.jsonl") as f:
        first = f.readline()
    with open(f"{WORK}/record.json", "w") as f:
        f.write(first)
    code5, out5, err5 = run(["replay", "verify", f"{WORK}/record.json"])
    check("a record read back from PostgreSQL replays exactly", code5 == 0, out5 + err5)


def served_tournaments(pg):
    url = pg.new_database("served")
    with open(f"{WORK}/served-pw", "w") as f:
        f.write(SECRET + "\n")
    log_path = f"{WORK}/serve.log"

    def serve():
        log = open(log_path, "a")
        process = subprocess.Popen(
            [HOARD, "serve", "--db", url, "--listen", "127.0.0.1:0",
             "--admin-token-file", TOKENS, "--state-dir", f"{WORK}/state", "--log-format",
             "json"], stdout=subprocess.PIPE, stderr=log, text=True, cwd=WORK,
            env=dict(os.environ, HOARD_DB_PASSWORD_FILE=f"{WORK}/served-pw"))
        line = process.stdout.readline()
        return process, line.split()[-1] if "serving on" in line else None

    server, address = serve()
    check("hoard serve starts on a PostgreSQL database", address is not None,
          open(log_path).read())
    if address is None:
        server.kill()
        return
    code, out, err = run(["tournament", "create", "--server", address, "--token-file", TOKENS,
                          "--watch"] + SPEC[:-1])
    check("a tournament created over gRPC runs on it to the end",
          code == 0 and "FINISHED" in out, out + err)
    stored = pg.psql("served", "SELECT count(*) FROM matches")
    check("and each of its matches is stored in PostgreSQL", stored == "120", stored)
    server.terminate()
    server.wait(timeout=60)
    server, address = serve()
    code2, listed, err2 = run(["tournament", "list", "--server", address, "--json"])
    check("restarted on the same database, the server lists the tournament",
          code2 == 0 and "FINISHED" in listed, listed + err2)
    server.terminate()
    server.wait(timeout=60)
    with open(log_path) as f:
        log = f.read()
    started = [json.loads(line) for line in log.splitlines()
               if line.startswith("{") and '"server_started"' in line]
    check("its log names the database without the password",
          started and all(e.get("db", "").startswith("postgresql://hoard@/served")
                          for e in started) and SECRET not in log, log[-2000:])


def refusals(pg):
    other = pg.new_database("other")
    pg.psql("other", "CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (7)")
    for command in (["tournament"] + SPEC, ["leaderboard", "--game", "village"]):
        code, out, err = run([command[0], "--db", pg.url("other")] + command[1:])
        check(f"hoard {command[0]} refuses another program's database",
              code != 0 and "not a Hoard database" in err + out, out + err)
    tables = pg.psql("other", "SELECT string_agg(tablename, ',') FROM pg_tables "
                              "WHERE schemaname = 'public'")
    check("and leaves it as it was", tables == "invoices", tables)
    code, out, err = run(["leaderboard", "--game", "village", "--db",
                          "postgresql://hoard@/x?host=/nonexistent&connect_timeout=3"])
    check("an unreachable database is named",
          code != 0 and "cannot connect to postgresql://hoard@/x" in err, err)
    for address in (f"postgresql://hoard:{SECRET}@/x?host=/nonexistent",
                    f"postgresql://hoard@/x?host=/nonexistent&password={SECRET}"):
        for command in (["leaderboard", "--game", "village"], ["serve"], ["tournament"] + SPEC):
            code, out, err = run(command + ["--db", address])
            check(f"hoard {command[0]} refuses a password in its --db address (exit 2), "
                  "saying where it goes, without showing it",
                  code == 2 and "HOARD_DB_PASSWORD_FILE" in err and "PGPASSWORD" in err and
                  SECRET not in out + err and len(err.strip().splitlines()) == 1,
                  f"exit {code}: {err}")
    code, out, err = run(["serve", "--listen", "127.0.0.1:0"],
                         env={"HOARD_SERVE_DB": f"postgresql://hoard:{SECRET}@/x?host=/none"})
    check("hoard serve refuses a password in HOARD_SERVE_DB too, without showing it",
          code != 0 and "HOARD_DB_PASSWORD_FILE" in err and SECRET not in out + err,
          f"exit {code}: {err}")
    code, out, err = run(["backup", "--db", pg.url("cli"), "--output", f"{WORK}/copy.db"])
    check("hoard backup points to PostgreSQL's own tools",
          code != 0 and "pg_dump" in err and not os.path.exists(f"{WORK}/copy.db"), err)


def password_file(pg):
    url = pg.password_user("player", SECRET, "guarded")
    time.sleep(0.5)  # the reload
    with open(f"{WORK}/pw", "w") as f:
        f.write(SECRET + "\n")
    with open(f"{WORK}/wrong", "w") as f:
        f.write("not-it\n")
    spec = SPEC[:SPEC.index("--rounds")] + ["--rounds", "5", "--quiet"]
    code, out, err = run(["tournament", "--db", url] + spec)
    check("a database that needs a password refuses a command without one",
          code != 0 and "cannot connect to postgresql://player@/guarded" in err, out + err)
    code, out, err = run(["tournament", "--db", url] + spec,
                         env={"HOARD_DB_PASSWORD_FILE": f"{WORK}/wrong"})
    check("and one with a wrong password, naming neither",
          code != 0 and "password authentication failed" in err and "not-it" not in err,
          out + err)
    code, out, err = run(["tournament", "--db", url] + spec,
                         env={"HOARD_DB_PASSWORD_FILE": f"{WORK}/pw"})
    check("HOARD_DB_PASSWORD_FILE gives the password from a file",
          code == 0 and "10 of 10 matches stored" in out and SECRET not in out + err, out + err)
    code, out, err = run(["leaderboard", "--db", url, "--game", "village"],
                         env={"HOARD_DB_PASSWORD_FILE": f"{WORK}/missing"})
    check("a password file that cannot be read is named",
          code != 0 and f"cannot read a password from {WORK}/missing" in err, err)


with TemporaryPostgres() as pg:
    for part in (cli_tournament, served_tournaments, refusals, password_file):
        try:
            part(pg)
        except Exception as error:  # a part that breaks fails, the others still run
            check(f"{part.__name__} runs to its end", False, repr(error))
finish()
