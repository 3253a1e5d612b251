#!/usr/bin/python3
"""Clients in front of several servers under one DNS name: gRPC's own
client-side balancing (round_robin), in the Python and Node SDKs and the
`hoard` program.

Three `hoard serve` on 127.0.0.1, 127.0.0.2 and 127.0.0.3, one port; a DNS
server of the test's own (tests/dns_server.py) gives the name hoard.test
those three addresses, and every client is pointed at
dns://127.0.0.1:DNSPORT/hoard.test:PORT.

- The Python SDK's channel (hoard_bot.channel) and the Node SDK's channel
  options (CHANNEL_OPTIONS) each create 30 matches over one channel: every
  server holds 5 or more of them (with gRPC's default, pick_first, one
  server would hold all 30).
- `hoard match create` reaches a server through the name; with the server of
  the first address stopped, it still does (the others answer).
- A `hoard bot` and a Python SDK bot given the name connect and play.

  /usr/bin/python3 tests/balancing_test.py build/hoard
"""
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from dns_server import DnsServer  # noqa: E402

import hoard_bot  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="hoard-balancing-")
TOKENS = os.path.join(WORK, "admin-tokens")
with open(TOKENS, "w") as f:
    f.write("balancing-admin\n")
ADMIN = (("authorization", "Bearer balancing-admin"),)
ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]


def serve(address):
    process = subprocess.Popen(
        [HOARD, "serve", "--listen", address, "--admin-token-file", TOKENS, "--open-registration",
         "--state-dir",
         os.path.join(WORK, "state-" + address.split(":")[0])],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    if "serving on" not in line:
        raise SystemExit(f"hoard serve --listen {address} did not start: {line}")
    return process, line.split()[-1]


def held(address):
    """The ids of the matches the server at `address` holds."""
    done = subprocess.run([HOARD, "match", "list", "--server", address],
                          capture_output=True, text=True, timeout=30)
    return [word for word in done.stdout.split() if word.startswith("m") and word[1:].isdigit()]


CALLS = 30


def spread(counts):
    """Whether the calls went to every server, each taking at least 5 of the
    30 (a channel's first calls may go out before all its connections are
    up; one server taking them all is what a channel without balancing
    does)."""
    return sum(counts) == CALLS and all(n >= 5 for n in counts)


def node_creates(target, count):
    script = f"""
      const grpc = require('@grpc/grpc-js');
      const sdk = require({json.dumps(os.path.join(REPO, 'bots', 'node', 'hoard-bot.js'))});
      const arena = new (sdk.loadProtocol().Arena)({json.dumps(target)},
        grpc.credentials.createInsecure(), sdk.CHANNEL_OPTIONS);
      const metadata = new grpc.Metadata();
      metadata.set('authorization', 'Bearer balancing-admin');
      (async () => {{
        for (let i = 0; i < {count}; i++) {{
          await new Promise((resolve, reject) => arena.CreateMatch(
            {{ game: 'village', seats: [{{ builtin: 'random' }}, {{ builtin: 'random' }}] }},
            metadata, (error) => error ? reject(error) : resolve()));
        }}
        arena.close();
      }})().catch((error) => {{ console.error(error.message); process.exit(1); }});
    """
    # grpc-js asks the DNS server a target names only with its "alternative
    # resolver" (otherwise the system's getaddrinfo).
    return subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60,
                          cwd=os.path.join(REPO, "bots", "node"),
                          env=dict(os.environ, GRPC_NODE_USE_ALTERNATIVE_RESOLVER="true"))


def cli_creates(target, name):
    """Checks `name`: hoard match create through `target` makes a match."""
    created = subprocess.run(
        [HOARD, "match", "create", "--server", target, "--token-file", TOKENS,
         "--seats", "builtin:random,builtin:random"], capture_output=True, text=True, timeout=30)
    check(name, created.returncode == 0 and "match m" in created.stdout,
          created.stdout + created.stderr)


def main():
    first, address = serve(f"{ADDRESSES[0]}:0")
    port = address.rsplit(":", 1)[1]
    servers = [(first, address)] + [serve(f"{a}:{port}") for a in ADDRESSES[1:]]
    try:
        with DnsServer({"hoard.test": ADDRESSES}) as dns:
            target = f"dns://127.0.0.1:{dns.port}/hoard.test:{port}"

            # The Python SDK's channel: 9 matches, 3 on each server.
            with hoard_bot.channel(target) as channel:
                stub = arena_pb2_grpc.ArenaStub(channel)
                for _ in range(CALLS):
                    stub.CreateMatch(arena_pb2.CreateMatchRequest(
                        game="village", seats=[arena_pb2.SeatSpec(builtin="random")] * 2),
                        metadata=ADMIN, timeout=30)
            counts = [len(held(a)) for _, a in servers]
            check(f"the Python SDK's channel spreads {CALLS} calls over the name's 3 addresses "
                  "(each server 5 or more; a channel to one server would take them all)",
                  spread(counts), counts)
            check("its resolver asked the DNS server for the name",
                  ("hoard.test", 1) in dns.queries, dns.queries[:5])

            node = node_creates(target, CALLS)
            now = [len(held(a)) for _, a in servers]
            check(f"the Node SDK's channel options spread {CALLS} more the same way",
                  node.returncode == 0 and spread([n - c for n, c in zip(now, counts)]),
                  (counts, now, node.stderr[-500:]))

            cli_creates(target, "hoard match create reaches a server through the name")

            bot = subprocess.Popen([HOARD, "bot", "--server", target, "--name", "walker",
                                    "--key", "walker-key-0123456789abcdef", "--strategy", "random"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   env=dict(os.environ, HOARD_STATE_DIR=os.path.join(WORK, "b")))
            time.sleep(1.5)
            check("hoard bot connects through the name", bot.poll() is None,
                  bot.stdout.read() if bot.poll() is not None else "")
            bot.terminate()
            bot.wait(timeout=30)

            # The first address's server goes: the others still answer.
            servers[0][0].terminate()
            servers[0][0].wait(timeout=30)
            cli_creates(target, "with the first address's server stopped, the name still "
                                "reaches a server")
    finally:
        for process, _ in servers:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)


try:
    main()
except Exception as error:  # a broken step fails the test, never hangs it
    check("the test runs to its end", False, repr(error))
finish()
