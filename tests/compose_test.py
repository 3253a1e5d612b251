#!/usr/bin/python3
"""Checks docker-compose.yml and its Dockerfiles as far as can be done without
a Docker engine: Debian's docker-compose accepts the file; every Dockerfile
builds on debian:12 in two stages, copies only paths that exist and runs an
entrypoint that exists; every command and flag the services use parses (the
real `hoard` binary, Python and Node are asked); the runtime packages exist in
Debian; and ports, addresses, volumes and bot names agree across services.

    /usr/bin/python3 tests/compose_test.py build/hoard
"""
import os
import re
import shlex
import subprocess
import sys

import yaml

HOARD = os.path.realpath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: compose_test.py PATH_TO_HOARD")
REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}" + (f"\n     {detail}" if detail else ""))


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, **kwargs)


def help_flags(*command):
    """The --flags a command's --help lists."""
    result = run([*command, "--help"])
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", result.stdout)) if result.returncode == 0 else None


# ---- docker-compose itself -------------------------------------------------
config = run(["docker-compose", "-f", "docker-compose.yml", "config"],
             env={**os.environ, "PY_BOT_KEY": "", "NODE_BOT_KEY": ""})
check("docker-compose config accepts docker-compose.yml", config.returncode == 0, config.stderr)
if config.returncode != 0:
    sys.exit(1)
compose = yaml.safe_load(config.stdout)
services = compose["services"]
check("it defines the server, the Python and Node bots and the tournament runner",
      set(services) == {"server", "python-bot", "node-bot", "tournament"}, sorted(services))
server, runner = services["server"], services["tournament"]

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
check("server: the published port is the one it listens on", published == [port], published)
exposed = [a for k, a in images.get(server["image"], []) if k == "EXPOSE"]
check("server image: EXPOSE names the same port", exposed == [port], exposed)
check("server: the health check asks the port it listens on",
      health[health.index("--server") + 1].endswith(":" + port), health)
address = f"server:{port}"
for name in ("python-bot", "node-bot"):
    env = services[name]["environment"]
    check(f"{name}: it connects to {address}", env.get("HOARD_SERVER") == address, env)
    check(f"{name}: it waits for a healthy server",
          services[name]["depends_on"]["server"]["condition"] == "service_healthy")
    check(f"{name}: it has a name and a key", env.get("HOARD_BOT_NAME") and env.get("HOARD_BOT_KEY"))
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

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
