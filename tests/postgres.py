"""A PostgreSQL server of a test's own, from Debian's postgresql package:
initdb into a fresh temporary directory (as the unprivileged user "nobody"
when the test runs as root: PostgreSQL refuses to run as root), listening
only on a Unix socket in that directory; stopped and removed at the end.

    with TemporaryPostgres() as pg:
        url = pg.new_database("results")   # postgresql://hoard@/results?host=…

db/testing/temporary_postgres.h does the same for the C++ tests.
"""
import glob
import os
import pwd
import shutil
import subprocess
import tempfile


def _bin():
    if os.environ.get("HOARD_POSTGRES_BIN"):
        return os.environ["HOARD_POSTGRES_BIN"]
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: (len(p), p))
    if not found:
        raise SystemExit("PostgreSQL's server programs are not installed "
                         "(Debian package postgresql; scripts/setup.sh installs it)")
    return os.path.dirname(found[-1])


class TemporaryPostgres:
    def __init__(self, fsync=False):
        """fsync: flush to disk as a real server does (tests leave it off)."""
        self.fsync = fsync
        self.bin = _bin()
        self.dir = tempfile.mkdtemp(prefix="hoard-pg-")
        self.as_user = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
            self.as_user = ["runuser", "-u", "nobody", "--"]
        self.started = False

    def _run(self, args):
        done = subprocess.run(self.as_user + args, capture_output=True, text=True)
        if done.returncode != 0:
            log = ""
            if os.path.exists(os.path.join(self.dir, "server.log")):
                with open(os.path.join(self.dir, "server.log")) as f:
                    log = f.read()[-2000:]
            raise SystemExit(f"{args[0]} failed:\n{done.stdout}{done.stderr}{log}")

    def __enter__(self):
        data = os.path.join(self.dir, "data")
        self._run([f"{self.bin}/initdb", "-D", data, "-U", "hoard", "-A", "trust",
                   "-E", "UTF8", "--locale=C", "--no-sync"])
        self._run([f"{self.bin}/pg_ctl", "-D", data, "-w", "-t", "60",
                   "-l", os.path.join(self.dir, "server.log"),
                   "-o", f"-c listen_addresses='' -c unix_socket_directories={self.dir} "
                         f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=200",
                   "start"])
        self.started = True
        return self

    def __exit__(self, *_):
        if self.started:
            subprocess.run(self.as_user + [f"{self.bin}/pg_ctl", "-D",
                                           os.path.join(self.dir, "data"), "-m", "immediate",
                                           "-w", "stop"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database):
        return f"postgresql://hoard@/{database}?host={self.dir}"

    def psql(self, database, sql):
        """One query's answer as text (psql -At)."""
        done = subprocess.run(["psql", "-At", "-c", sql, self.url(database)],
                              capture_output=True, text=True, check=True)
        return done.stdout.strip()

    def password_user(self, user, password, database):
        """A user who must give `password` (scram-sha-256), owning a new
        `database`; returns its address (without the password)."""
        self.psql("postgres", f"CREATE ROLE {user} LOGIN PASSWORD '{password}'")
        self.psql("postgres", f'CREATE DATABASE "{database}" OWNER {user}')
        hba = os.path.join(self.dir, "data", "pg_hba.conf")
        with open(hba) as f:
            rules = f.read()
        with open(hba, "w") as f:
            f.write(f"local all {user} scram-sha-256\n" + rules)
        self._run([f"{self.bin}/pg_ctl", "-D", os.path.join(self.dir, "data"), "reload"])
        return f"postgresql://{user}@/{database}?host={self.dir}"

    def new_database(self, name):
        self.psql("postgres", f'CREATE DATABASE "{name}"')
        return self.url(name)
