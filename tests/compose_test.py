#!/usr/bin/python3
"""Checks docker-compose.yml and its Dockerfiles as far as can be done without
a Docker engine: scripts/compose-secrets.sh makes the secrets' files; Debian's
docker-compose accepts the file with them; every Dockerfile builds on
debian:12 in two stages, copies only paths that exist and runs an entrypoint
that exists; every command and flag the services use parses (the real `hoard`
binary, Python and Node are asked); the runtime packages exist in Debian;
ports, addresses, volumes and bot names agree across services; no token or
key is written in the file, each comes from a secret; the accounts
service's commands, run against a real server with the secrets' files, give
the bots accounts they register with; and the fleet's replicas, with their
environment, serve on a real PostgreSQL that wants the secret's password.

    /usr/bin/python3 tests/compose_test.py build/hoard
"""
import atexit
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

HOARD = os.path.realpath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: compose_test.py PATH_TO_HOARD")
REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, **kwargs)


def help_flags(*command):
    """The --flags a command's --help lists."""
    result = run([*command, "--help"])
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", result.stdout)) if result.returncode == 0 else None


WORK = tempfile.mkdtemp(prefix="compose_test.")
atexit.register(shutil.rmtree, WORK, True)
# Each secret of docker-compose.yml and its file in the secrets directory.
SECRET_FILES = {"hoard_admin_token": "admin-token", "py_bot_key": "py-bot-key",
                "node_bot_key": "node-bot-key", "postgres_password": "postgres-password"}
ADMIN_TOKEN = "/run/secrets/hoard_admin_token"


# ---- scripts/compose-secrets.sh ------------------------------------------------
def secret_files(directory):
    """What the script made in directory: {file name: (mode, contents)}, or None."""
    if not os.path.isdir(directory):
        return None
    return {name: (stat.S_IMODE(os.stat(os.path.join(directory, name)).st_mode),
                   open(os.path.join(directory, name)).read())
            for name in os.listdir(directory)}


SECRETS = os.path.join(WORK, "secrets")
made = run(["bash", "scripts/compose-secrets.sh", SECRETS])
check("compose-secrets.sh DIR runs", made.returncode == 0, made.stderr)
files = secret_files(SECRETS) or {}
check("compose-secrets.sh: DIR has mode 700",
      os.path.isdir(SECRETS) and stat.S_IMODE(os.stat(SECRETS).st_mode) == 0o700)
check("compose-secrets.sh: it makes admin-token, py-bot-key, node-bot-key and postgres-password",
      set(files) == set(SECRET_FILES.values()), sorted(files))
# 644 in a directory of mode 700: only the owner reaches them on the host, and
# the containers' own users (hoard, nobody) can read the mounted files, which
# keep their host owner and mode.
check("compose-secrets.sh: each file has mode 644 (the directory guards them)",
      files and all(mode == 0o644 for mode, _ in files.values()),
      {name: oct(mode) for name, (mode, _) in files.items()})
check("compose-secrets.sh: each file holds 32 random hex digits, each its own",
      files and all(re.fullmatch(r"[0-9a-f]{32}\n", text) for _, text in files.values())
      and len({text for _, text in files.values()}) == len(files), files)
check("compose-secrets.sh: it says what it made",
      all(f"made {os.path.join(SECRETS, name)}" in made.stdout for name in SECRET_FILES.values()),
      made.stdout)
again = run(["bash", "scripts/compose-secrets.sh", SECRETS])
check("compose-secrets.sh: run again, it leaves the files as they are",
      again.returncode == 0 and secret_files(SECRETS) == files
      and "made " + SECRETS not in again.stdout, again.stdout + again.stderr)
from_env = os.path.join(WORK, "from-env")
by_env = run(["bash", "scripts/compose-secrets.sh"], env={**os.environ, "HOARD_SECRETS": from_env})
check("compose-secrets.sh: with no DIR it uses $HOARD_SECRETS, as docker-compose.yml does",
      by_env.returncode == 0 and set(secret_files(from_env) or {}) == set(SECRET_FILES.values()),
      by_env.stdout + by_env.stderr)
secret_values = [text.strip() for _, text in files.values()]

# ---- docker-compose itself -------------------------------------------------
raw_text = open(os.path.join(REPO, "docker-compose.yml")).read()
raw = yaml.safe_load(raw_text)
config = run(["docker-compose", "-f", "docker-compose.yml", "config"],
             env={**os.environ, "HOARD_SECRETS": SECRETS})
check("docker-compose config accepts docker-compose.yml with the secrets compose-secrets.sh made",
      config.returncode == 0, config.stderr)
if config.returncode != 0:
    sys.exit(1)
compose = yaml.safe_load(config.stdout)
services = compose["services"]
check("it defines the server, the bots' accounts, the Python and Node bots, the "
      "tournament runner, and the fleet's PostgreSQL and replicas",
      set(services) == {"server", "accounts", "python-bot", "node-bot", "tournament",
                        "postgres", "replica"},
      sorted(services))
server, runner, accounts = services["server"], services["tournament"], services["accounts"]

# ---- Dockerfiles -----------------------------------------------------------
def parse_dockerfile(path):
    """Instructions as (keyword, argument) with continuation lines joined."""
    text = open(path).read().replace("\\\n", " ")
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, argument = line.partition(" ")
            instructions.append((keyword.upper(), argument.strip()))
    return instructions


def package_of(path):
    """The Debian package that installed `path` ("" if none)."""
    done = run(["dpkg", "-S", os.path.realpath(path)])
    if done.returncode != 0:
        done = run(["dpkg", "-S", path])
    return done.stdout.split(":", 1)[0] if done.returncode == 0 else ""


def check_hoard_packages(build_stage, runtime):
    """The build stage installs every pkg-config module CMake requires; the
    runtime stage (with what its packages depend on, and what every Debian
    system has) holds every shared library the built hoard links."""
    installed = []
    for keyword, argument in build_stage:
        if keyword == "RUN" and "apt-get install" in argument:
            words = argument.split("apt-get install", 1)[1].split("&&")[0].split()
            installed += [w for w in words if not w.startswith("-")]
    modules = set()
    for root, _, files in os.walk(REPO):
        if "CMakeLists.txt" in files and "/build" not in root and "node_modules" not in root:
            text = open(os.path.join(root, "CMakeLists.txt")).read()
            for match in re.finditer(r"pkg_check_modules\(\w+ REQUIRED IMPORTED_TARGET ([\w+.-]+)\)",
                                     text):
                modules.add(match.group(1))
    missing = []
    for module in sorted(modules):
        pcdir = run(["pkg-config", "--variable=pcfiledir", module]).stdout.strip()
        provider = package_of(os.path.join(pcdir, module + ".pc"))
        if provider not in installed:
            missing.append(f"{module} ({provider or 'no package'})")
    check("hoard image: its build stage installs every pkg-config module CMake requires "
          f"({', '.join(sorted(modules))})", modules and not missing, missing)
    covered = set(runtime)
    depends = run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                   "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + runtime)
    covered |= {line.strip() for line in depends.stdout.splitlines()
                if line.strip() and not line.startswith(" ") and not line.startswith("<")}
    linked = run(["ldd", HOARD]).stdout
    uncovered = []
    for line in linked.splitlines():
        if "=>" not in line or "not found" in line:
            continue
        path = line.split("=>", 1)[1].split("(")[0].strip()
        package = package_of(path)
        if not package or package in covered:
            continue
        priority = run(["dpkg-query", "-W", "-f=${Priority}", package]).stdout.strip()
        if priority not in ("required", "important"):
            uncovered.append(f"{os.path.basename(path)} ({package})")
    check("hoard image: its runtime stage holds every library hoard links", not uncovered,
          uncovered)


images = {}  # image name -> parsed Dockerfile
for name, service in services.items():
    if "build" not in service:
        continue
    build = service["build"]
    dockerfile = os.path.join(build["context"], build["dockerfile"])
    check(f"{name}: its Dockerfile {build['dockerfile']} exists", os.path.isfile(dockerfile))
    if not os.path.isfile(dockerfile):
        continue
    steps = parse_dockerfile(dockerfile)
    images[service.get("image", name)] = steps
    froms = [argument for keyword, argument in steps if keyword == "FROM"]
    check(f"{name}: a debian:12 build stage and a debian:12-slim runtime stage",
          len(froms) == 2 and froms[0] == "debian:12 AS build" and froms[1] == "debian:12-slim",
          froms)
    missing = []
    for keyword, argument in steps:
        if keyword == "COPY" and not argument.startswith("--from"):
            for source in shlex.split(argument)[:-1]:
                if not os.path.exists(os.path.join(build["context"], source)):
                    missing.append(source)
    check(f"{name}: everything it copies exists", not missing, missing)
    last_stage = steps[max(i for i, (k, _) in enumerate(steps) if k == "FROM"):]
    packages = []
    for keyword, argument in last_stage:
        if keyword == "RUN" and "apt-get install" in argument:
            words = argument.split("apt-get install", 1)[1].split("&&")[0].split()
            packages += [w for w in words if not w.startswith("-")]
    unknown = [p for p in packages if run(["apt-cache", "show", p]).returncode != 0]
    check(f"{name}: its runtime packages exist in Debian ({', '.join(packages)})",
          packages and not unknown, unknown)
    if service.get("image") == "hoard:latest":
        build_stage = steps[:max(i for i, (k, _) in enumerate(steps) if k == "FROM")]
        check_hoard_packages(build_stage, packages)

# ---- commands parse ----------------------------------------------------------
serve_flags = help_flags(HOARD, "serve")
environment = server.get("environment", {})
unknown = [v for v in environment if v.startswith("HOARD_SERVE_")
           and "--" + v[len("HOARD_SERVE_"):].lower().replace("_", "-") not in serve_flags]
check("server: every HOARD_SERVE_ variable is a flag of hoard serve", not unknown, unknown)
check("server: its command is hoard serve", server["command"] == ["serve"], server["command"])
entrypoint = [a for k, a in images.get(server["image"], []) if k == "ENTRYPOINT"]
check("server image: the entrypoint is the hoard program", entrypoint == ['["hoard"]'], entrypoint)

health = server["healthcheck"]["test"]
check("server: the health check asks hoard health over gRPC",
      health[:3] == ["CMD", "hoard", "health"] and set(health[3::2]) <= (help_flags(HOARD, "health") or set()),
      health)

tournament_flags = help_flags(HOARD, "tournament")
command = runner["command"]
check("tournament: it runs the server's image", runner.get("image") == server.get("image"))
check("tournament: every flag it uses is a flag of hoard tournament",
      command[0] == "tournament" and {a for a in command if a.startswith("--")} <= tournament_flags,
      command)
options = dict(zip(command[1::2], command[2::2]))
# The image copies tournament/examples to /etc/hoard/tournaments.
spec = options["--config"].replace("/etc/hoard/tournaments/", "tournament/examples/")
printed = run([HOARD, "tournament", "--print-spec", "--config", spec])
check("tournament: its league spec parses", printed.returncode == 0, printed.stderr)

python_bot = run(["/usr/bin/python3", "bots/python/examples/random_bot.py", "--help"])
check("python-bot: its entrypoint runs (--help)", python_bot.returncode == 0, python_bot.stderr)
node_bot = run(["node", "bots/node/examples/random-bot.js", "--help"])
check("node-bot: its entrypoint runs (--help)", node_bot.returncode == 0, node_bot.stderr)

# ---- ports, addresses, volumes and names agree -------------------------------
listen = environment["HOARD_SERVE_LISTEN"]
port = listen.rsplit(":", 1)[1]
check("server: it listens on all interfaces", listen.startswith("0.0.0.0:"), listen)
published = [str(p["target"]) if isinstance(p, dict) else str(p).split(":")[-1]
             for p in server.get("ports", [])]
http = environment["HOARD_SERVE_HTTP"]
http_port = http.rsplit(":", 1)[1]
check("server: its web face listens on all interfaces", http.startswith("0.0.0.0:"), http)
check("server: the published ports are the ones it listens on (gRPC, then the web)",
      published == [port, http_port], published)
exposed = [a for k, a in images.get(server["image"], []) if k == "EXPOSE"]
check("server image: EXPOSE names the same ports", exposed == [f"{port} {http_port}"], exposed)
check("server: the health check asks the port it listens on",
      health[health.index("--server") + 1].endswith(":" + port), health)
address = f"server:{port}"
for name in ("python-bot", "node-bot"):
    env = services[name]["environment"]
    check(f"{name}: it connects to {address}", env.get("HOARD_SERVER") == address, env)
    check(f"{name}: it waits for a healthy server",
          services[name]["depends_on"]["server"]["condition"] == "service_healthy")
    check(f"{name}: it has a name", env.get("HOARD_BOT_NAME"))
check("tournament: it plays on the server", options["--server"] == address, options)


def mounts(service):
    result = {}
    for volume in service.get("volumes", []):
        source, target = (volume["source"], volume["target"]) if isinstance(volume, dict) \
            else volume.split(":")[:2]
        result[target] = source
    return result


declared = set(compose.get("volumes") or {})
server_mounts, runner_mounts = mounts(server), mounts(runner)
data = [t for t, s in server_mounts.items() if s in declared]
check("server: a named volume is mounted", len(data) == 1, server_mounts)
if data:
    check("server: its database lies on that volume",
          environment["HOARD_SERVE_DB"].startswith(data[0] + "/"), environment["HOARD_SERVE_DB"])
    check("tournament: it mounts the same volume, and keeps its results on it",
          runner_mounts.get(data[0]) == server_mounts[data[0]]
          and options["--db"].startswith(data[0] + "/"), (runner_mounts, options["--db"]))
registered = re.findall(r'participants \{ name: "([^"]+)" registered: true', open(
    os.path.join(REPO, spec)).read())
bots = sorted(services[n]["environment"]["HOARD_BOT_NAME"] for n in ("python-bot", "node-bot"))
check("the league's registered participants are the bots the services register",
      sorted(registered) == bots, (registered, bots))


# ---- secrets: no token or key in the file ------------------------------------
def service_secrets(service):
    return {s["source"] if isinstance(s, dict) else s for s in service.get("secrets", [])}


declared_secrets = compose.get("secrets") or {}
check("the secrets hoard_admin_token, py_bot_key, node_bot_key and postgres_password are declared",
      set(declared_secrets) == set(SECRET_FILES), sorted(declared_secrets))
check("each secret is a file of the secrets directory ($HOARD_SECRETS)",
      all(os.path.realpath(declared_secrets.get(name, {}).get("file", ""))
          == os.path.realpath(os.path.join(SECRETS, file)) for name, file in SECRET_FILES.items()),
      declared_secrets)
raw_secrets = raw.get("secrets") or {}
check("the secrets directory is ./secrets unless $HOARD_SECRETS names another",
      all(raw_secrets.get(name, {}).get("file") == "${HOARD_SECRETS:-./secrets}/" + file
          for name, file in SECRET_FILES.items()), raw_secrets)
check("the file interpolates no variable but HOARD_SECRETS (no key from the environment)",
      set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", raw_text.replace("$$", ""))) <= {"HOARD_SECRETS"},
      re.findall(r"\$\{?[A-Za-z_][A-Za-z0-9_]*", raw_text.replace("$$", "")))
check("the file holds no token or key: no long hex string, no placeholder key",
      not re.search(r"[0-9a-fA-F]{16,}|change-me", raw_text))
check("no secret's value appears in docker-compose config's output",
      not any(value in config.stdout for value in secret_values))
SECRET_NAMES = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD")
for name, service in services.items():
    env = service.get("environment") or {}
    named = {v: env[v] for v in env if SECRET_NAMES.search(v)}
    check(f"{name}: no key or token in its environment, only files of /run/secrets/",
          all(v.endswith("_FILE") and str(value).startswith("/run/secrets/")
              for v, value in named.items()), named)
    used = set(re.findall(r"/run/secrets/([A-Za-z0-9_.-]+)", json.dumps(service)))
    check(f"{name}: every /run/secrets/ file it reads is a secret it is given",
          used <= service_secrets(service) and service_secrets(service) <= set(declared_secrets),
          (sorted(used), sorted(service_secrets(service))))

check("server: it reads its admin tokens from the secret (HOARD_SERVE_ADMIN_TOKEN_FILE)",
      environment.get("HOARD_SERVE_ADMIN_TOKEN_FILE") == ADMIN_TOKEN
      and "hoard_admin_token" in service_secrets(server), environment)
check("tournament: it sends the admin token of the secret (--token-file)",
      options.get("--token-file") == ADMIN_TOKEN and "hoard_admin_token" in service_secrets(runner),
      options)
bot_secret = {}  # bot name -> the secret holding its key
for name in ("python-bot", "node-bot"):
    service = services[name]
    env = service["environment"]
    key_file = env.get("HOARD_BOT_KEY_FILE", "")
    secret = key_file[len("/run/secrets/"):]
    bot_secret[env.get("HOARD_BOT_NAME")] = secret
    check(f"{name}: it reads its key from its secret (HOARD_BOT_KEY_FILE), not HOARD_BOT_KEY",
          "HOARD_BOT_KEY" not in env and key_file.startswith("/run/secrets/")
          and service_secrets(service) == {secret} and secret in declared_secrets, env)
    check(f"{name}: it starts once the accounts are made",
          service["depends_on"].get("accounts", {}).get("condition")
          == "service_completed_successfully", service["depends_on"])
check("each bot has a secret of its own, not the admin token's",
      len(set(bot_secret.values())) == 2 and "hoard_admin_token" not in bot_secret.values(),
      bot_secret)

# ---- the accounts service ------------------------------------------------------
check("accounts: it runs the server's image", accounts.get("image") == server.get("image"))
check("accounts: a shell runs its script", accounts.get("entrypoint") == ["/bin/sh", "-c"]
      and len(accounts.get("command", [])) == 1, (accounts.get("entrypoint"), accounts.get("command")))
check("accounts: it waits for a healthy server and runs once",
      accounts.get("depends_on", {}).get("server", {}).get("condition") == "service_healthy"
      and accounts.get("restart") == "no", (accounts.get("depends_on"), accounts.get("restart")))
script = accounts.get("command", [""])[0].replace("$$", "$")  # compose's escape of $
syntax = run(["sh", "-n", "-c", script])
check("accounts: its script is valid sh", syntax.returncode == 0, syntax.stderr)
bots_flags = help_flags(HOARD, "bots") or set()
made_accounts = {}
for line in script.splitlines():
    words = shlex.split(line)
    if not words or words[0] != "hoard":
        continue
    redirects = [w for w in words if w.startswith(">")]
    words = [w for w in words if not w.startswith(">")]
    flags = {w for w in words if w.startswith("--")}
    check(f"accounts: '{' '.join(words[:4])}' is hoard bots add with flags hoard bots --help lists",
          words[1:3] == ["bots", "add"] and len(words) > 3 and flags <= bots_flags,
          (words, sorted(flags - bots_flags)))
    bot = words[3] if len(words) > 3 else ""
    values = {w: words[i + 1] for i, w in enumerate(words[:-1])
              if w in ("--key", "--key-file", "--server", "--token-file")}
    made_accounts[bot] = values
    check(f"accounts: {bot}: on the server, with the admin token of the secret, "
          "replacing the key of an account made by an earlier start",
          values.get("--server") == address and values.get("--token-file") == ADMIN_TOKEN
          and "--replace" in flags, words)
    check(f"accounts: {bot}: the key is read from the secret its bot reads, off the command line",
          values.get("--key-file") == f"/run/secrets/{bot_secret.get(bot)}"
          and "--key" not in values, values)
    check(f"accounts: {bot}: the key it is given is not printed", redirects == [">/dev/null"],
          redirects)
check("accounts: it makes an account for each bot service, and only those",
      sorted(made_accounts) == bots, (sorted(made_accounts), bots))

# ---- the accounts' commands, on a real server with the secrets' files --------------
# The script as the containers run it, with the secrets' files of SECRETS in
# place of /run/secrets and a server of this test's in place of server:50051.
bin_dir = os.path.join(WORK, "bin")
os.makedirs(bin_dir)
os.symlink(HOARD, os.path.join(bin_dir, "hoard"))
local_env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
             "HOARD_STATE_DIR": os.path.join(WORK, "state")}
for variable in ("HOARD_TOKEN", "HOARD_BOT_KEY", "HOARD_BOT_KEY_FILE", "HOARD_TLS_CA"):
    local_env.pop(variable, None)


def local(text, live):
    for secret, file in SECRET_FILES.items():
        text = text.replace(f"/run/secrets/{secret}", os.path.join(SECRETS, file))
    return text.replace(address, live)


serving = subprocess.Popen(
    [HOARD, "serve", "--listen", "127.0.0.1:0", "--admin-token-file",
     os.path.join(SECRETS, SECRET_FILES["hoard_admin_token"])],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=WORK, env=local_env)
atexit.register(serving.kill)
first = serving.stdout.readline()
live = first.rsplit(" ", 1)[-1].strip() if first.startswith("hoard: serving on ") else ""
check("a server reading the admin token file compose-secrets.sh made starts", live, first)
if live:
    outputs = ""
    for start in ("first", "second"):
        result = run(["sh", "-c", local(script, live)], env=local_env)
        outputs += result.stdout + result.stderr
        check(f"accounts: its script succeeds on the {start} start", result.returncode == 0,
              result.stdout + result.stderr)
    check("accounts: its output holds no key or token",
          not any(value in outputs for value in secret_values), outputs)

    def bot_list():
        result = run([HOARD, "bots", "list", "--server", live, "--token-file",
                      os.path.join(SECRETS, SECRET_FILES["hoard_admin_token"])], env=local_env)
        return {line.split()[0]: line.split()[1] for line in result.stdout.splitlines() if line.split()}

    check("accounts: the server has each bot's account", set(bots) <= set(bot_list()), bot_list())
    entrypoints = {"python-bot": ["/usr/bin/python3", "bots/python/examples/random_bot.py"],
                   "node-bot": ["node", "bots/node/examples/random-bot.js"]}
    for name, entrypoint in entrypoints.items():
        env = {**local_env, **{v: local(str(value), live)
                               for v, value in services[name]["environment"].items()}}
        bot = env["HOARD_BOT_NAME"]
        process = subprocess.Popen(entrypoint + ["--quiet"], cwd=REPO, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        state, deadline = None, time.monotonic() + 20
        while time.monotonic() < deadline and process.poll() is None:
            state = bot_list().get(bot)
            if state == "connected":
                break
            time.sleep(0.2)
        exited = process.poll()
        process.terminate()
        try:
            _, errors = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            _, errors = process.communicate()
        check(f"{name}: with its environment it registers as {bot}, its key read from "
              "HOARD_BOT_KEY_FILE", state == "connected" and exited is None,
              f"state {state}, exit {exited}: {errors.strip()}")
serving.terminate()
try:
    serving.wait(timeout=15)
except subprocess.TimeoutExpired:
    serving.kill()

# ---- the fleet: PostgreSQL and three replicas ----------------------------------
postgres, replica = services["postgres"], services["replica"]
check("fleet: both services are in the profile fleet (a plain `up` starts neither)",
      postgres.get("profiles") == ["fleet"] and replica.get("profiles") == ["fleet"],
      (postgres.get("profiles"), replica.get("profiles")))
check("fleet: PostgreSQL 15 on Debian 12 (postgres:15-bookworm)",
      postgres.get("image") == "postgres:15-bookworm", postgres.get("image"))
check("replica: three of the server's image, each hoard serve",
      replica.get("scale") == 3 and replica.get("image") == server.get("image")
      and replica.get("command") == ["serve"], (replica.get("scale"), replica.get("image")))
replica_env = replica.get("environment", {})
unknown = [v for v in replica_env if v.startswith("HOARD_SERVE_")
           and "--" + v[len("HOARD_SERVE_"):].lower().replace("_", "-") not in serve_flags]
check("replica: every HOARD_SERVE_ variable is a flag of hoard serve", not unknown, unknown)
pg_env = postgres.get("environment", {})
db_url = re.fullmatch(r"postgresql://([^@:/]+)@([^:/]+):(\d+)/(\w+)", replica_env.get("HOARD_SERVE_DB", ""))
check("replica: its database is the postgres service's, as its user and database",
      db_url is not None and db_url.group(2) == "postgres" and db_url.group(3) == "5432"
      and db_url.group(1) == pg_env.get("POSTGRES_USER") and db_url.group(4) == pg_env.get("POSTGRES_DB"),
      (replica_env.get("HOARD_SERVE_DB"), pg_env))
check("replica: the database's password comes from the secret PostgreSQL reads",
      replica_env.get("HOARD_DB_PASSWORD_FILE") == "/run/secrets/postgres_password"
      and pg_env.get("POSTGRES_PASSWORD_FILE") == "/run/secrets/postgres_password"
      and "postgres_password" in service_secrets(replica) and "postgres_password" in service_secrets(postgres),
      (replica_env, pg_env))
check("replica: it starts once PostgreSQL is healthy, with no host port (three share none)",
      replica.get("depends_on", {}).get("postgres", {}).get("condition") == "service_healthy"
      and not replica.get("ports") and postgres.get("healthcheck", {}).get("test", [""])[1:2] == ["pg_isready"],
      (replica.get("depends_on"), replica.get("ports")))
check("replica: healthy when hoard health says so",
      replica.get("healthcheck", {}).get("test") == server["healthcheck"]["test"],
      replica.get("healthcheck"))

# The replica's environment on a real PostgreSQL that wants the password of the
# secret's file (the address's host replaced by the test's socket).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from postgres import TemporaryPostgres  # noqa: E402
password = open(os.path.join(SECRETS, SECRET_FILES["postgres_password"])).read().strip()
with TemporaryPostgres() as pg:
    url = pg.password_user("fleet", password, "fleet")
    time.sleep(0.5)  # the server reloads its rules
    env = {**local_env,
           **{k: local(str(v), "") for k, v in replica_env.items()},
           "HOARD_SERVE_DB": url, "HOARD_SERVE_LISTEN": "127.0.0.1:0",
           "HOARD_SERVE_STATE_DIR": os.path.join(WORK, "replica-state")}
    started = subprocess.Popen([HOARD, "serve"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=WORK, env=env)
    line = started.stdout.readline()
    started.terminate()
    _, errors = started.communicate(timeout=30)
    check("replica: with its environment and the secret's password it serves on PostgreSQL",
          line.startswith("hoard: serving on "), line + errors[-1000:])
    check("replica: its log never shows the password", password not in errors + line)

finish()
