#!/usr/bin/python3
"""Bad databases are refused before they are touched.

Each case gives `hoard serve`, `hoard leaderboard` and `hoard tournament` a
database that Hoard must not use — another program's SQLite file, a file that
is no database, a corrupt page, a newer schema in rollback mode, a read-only
file — and requires a clear error, a non-zero exit, and the file's bytes
unchanged (sha256). A failed `hoard backup` leaves nothing at its output path,
and a good database still opens (read-only for the leaderboard, which then
writes nothing either).

  /usr/bin/python3 tests/bad_database_test.py build/hoard
"""

import hashlib
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

HOARD = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="hoard-bad-db-")
os.chmod(WORK, 0o755)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(args, user=None, timeout=60, state=None):
    command = [HOARD] + args
    if user is not None:
        command = ["setpriv", "--reuid", str(user.pw_uid), "--regid", str(user.pw_gid),
                   "--clear-groups", "--"] + command
    env = dict(os.environ, HOARD_STATE_DIR=state or os.path.join(WORK, "state"))
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=WORK)
    return done.returncode, done.stdout + done.stderr


def make_hoard_db(path):
    code, out = run(["tournament", "--db", path, "--game", "village", "--players", "2",
                     "--participant", "a=builtin:random", "--participant", "b=builtin:first",
                     "--rounds", "2", "--quiet"])
    if code != 0:
        raise SystemExit(f"cannot make a Hoard database: {out}")
    # One file, as a server leaves it once stopped.
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()


def refused(name, path, expect, commands=("serve", "leaderboard", "tournament"), user=None,
            state=None, side_files=False):
    """Every command refuses `path` naming `expect`, and leaves it as it was.
    Unless `side_files` (a Hoard database may be opened to be checked), not
    even a -wal, -shm or -journal file appears beside it."""
    before = digest(path)
    for command in commands:
        if command == "serve":
            args = ["serve", "--db", path, "--listen", "127.0.0.1:0"]
        elif command == "leaderboard":
            args = ["leaderboard", "--db", path, "--game", "village"]
        else:
            args = ["tournament", "--db", path, "--game", "village", "--players", "2",
                    "--participant", "a=builtin:random", "--participant", "b=builtin:first",
                    "--rounds", "1", "--quiet"]
        try:
            code, out = run(args, user=user, state=state)
        except subprocess.TimeoutExpired:
            code, out = None, "still running after 60 s: it served on a bad database"
        check(f"{name}: hoard {command} refuses it ({expect})",
                     code not in (0, None) and expect in out, out)
        check(f"{name}: hoard {command} leaves its bytes unchanged",
                     digest(path) == before, f"sha256 before {before}, after {digest(path)}")
    for suffix in () if side_files else ("-wal", "-shm", "-journal"):
        check(f"{name}: no {suffix} file appears beside it",
                     not os.path.exists(path + suffix), path + suffix)


# Another program's SQLite file: never adopted.
other = os.path.join(WORK, "notes.db")
with sqlite3.connect(other) as db:
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.execute("INSERT INTO notes (text) VALUES ('mine')")
refused("another program's SQLite file", other, "is not a Hoard database")

# Marked as another program's.
marked = os.path.join(WORK, "marked.db")
with sqlite3.connect(marked) as db:
    db.execute("PRAGMA application_id = 12345")
    db.execute("CREATE TABLE t (x)")
refused("a file marked as another program's", marked, "application id 12345")

# No database at all.
noise = os.path.join(WORK, "noise.db")
with open(noise, "wb") as f:
    f.write(os.urandom(8192))
refused("a file of random bytes", noise, "is not a Hoard database")

# A Hoard database with a corrupt page.
good = os.path.join(WORK, "good.db")
make_hoard_db(good)
corrupt = os.path.join(WORK, "corrupt.db")
shutil.copy(good, corrupt)
size = os.path.getsize(corrupt)
with open(corrupt, "r+b") as f:
    page = 4096
    f.seek(page * (size // page // 2))  # a page's header, in the middle of the file
    f.write(b"\xde\xad\xbe\xef" * 64)
refused("a Hoard database with a corrupt page", corrupt, "integrity check", side_files=True)

# A newer schema, in rollback mode: refused before it is switched to WAL.
future = os.path.join(WORK, "future.db")
shutil.copy(good, future)
with sqlite3.connect(future) as db:
    db.execute("PRAGMA journal_mode = DELETE").fetchall()
    db.execute("PRAGMA user_version = 99")
refused("a database of a newer schema", future, "newer than this build")
check("the newer database is still in rollback mode",
             sqlite3.connect(future).execute("PRAGMA journal_mode").fetchone()[0] == "delete")

# A read-only file, for a user that may not write it (root may write anything).
nobody = pwd.getpwnam("nobody")
readonly_dir = os.path.join(WORK, "ro")
os.mkdir(readonly_dir)
readonly = os.path.join(readonly_dir, "hoard.db")
shutil.copy(good, readonly)
os.chmod(readonly, 0o444)
os.chown(readonly_dir, nobody.pw_uid, nobody.pw_gid)
refused("a read-only database", readonly, "is read-only", commands=("serve", "tournament"),
        user=nobody, state=os.path.join(readonly_dir, "state"), side_files=True)

# The read-only leaderboard reads a good database and writes nothing.
before = digest(good)
code, out = run(["leaderboard", "--db", good, "--game", "village"])
check("hoard leaderboard reads a good database", code == 0 and "rated matches" in out, out)
check("hoard leaderboard writes nothing to it", digest(good) == before)

# A failed backup leaves nothing at its output path.
copy = os.path.join(WORK, "copy.db")
code, out = run(["backup", "--db", corrupt, "--output", copy])
check("hoard backup of a corrupt database fails", code != 0, out)
check("a failed backup leaves no file at its output path",
             not os.path.exists(copy) and
             not any(name.startswith("copy.db") for name in os.listdir(WORK)),
             " ".join(sorted(os.listdir(WORK))))
code, out = run(["backup", "--db", good, "--output", copy])
check("hoard backup of a good database succeeds", code == 0 and os.path.exists(copy), out)

shutil.rmtree(WORK, ignore_errors=True)
finish()
