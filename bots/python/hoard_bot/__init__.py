"""Hoard bots in Python: write one function, `hoard_bot.run` does the rest.

    import random
    import hoard_bot

    def decide(decision):
        return random.randrange(len(decision.legal_actions))

    hoard_bot.run(decide)

`decide` gets a Decision (the seat's typed view, its legal actions, ...) and
returns an index into decision.legal_actions, a hoard.v1.Action (built with
the helpers of `hoard_bot.actions`: `actions.village.draw()`,
`actions.dragons_gold.propose({0: {"gold": 2}, 2: {"silver": 1}})`...) or
`hoard_bot.DEFAULT` for the default action. If the server refuses the answer,
`decide` is asked again with the refusals in `decision.refused` (the answer
and the server's reason) while time remains; a third refusal of the same
request plays the default action. `decision.events` holds what the seat was
told of its match so far (every action as played, sealed answers once
revealed, faults), oldest first, and `run(decide, on_event=fn)` calls `fn`
with each of those events as it arrives. docs/bots.md is the guide.

SIGTERM and SIGINT stop the bot: it closes its stream and exits with status
0, within STOP_WITHIN_S even if a decision is still running; a second signal
while it stops ends it at once.
"""

import argparse
import os
import signal
import sys
import threading
import time

try:
    import grpc  # noqa: F401
    import google.protobuf  # noqa: F401
except ImportError as _missing:
    _usual = "/usr/bin/python3"
    raise SystemExit(
        f"hoard_bot needs Python's grpc and protobuf modules, and {sys.executable} has no "
        f"{_missing.name}: run the bot with "
        + (f"{_usual}, which has them with Debian's packages python3-grpcio and "
           "python3-protobuf" if sys.executable != _usual and os.path.exists(_usual) else
           "a Python that has them (Debian: apt install python3-grpcio python3-protobuf)")
        + " (docs/bots.md)") from None

from hoard_bot import actions
from hoard_bot.client import (DEFAULT, EVENTS_KEPT, MAX_REFUSALS, BotClient, BotError, Decision,
                              Refusal, channel, random_choice)
from hoard_bot.stubs import StubError, arena_pb2

__all__ = ["run", "actions", "BotClient", "BotError", "DEFAULT", "Decision", "EVENTS_KEPT",
           "MAX_REFUSALS", "Refusal", "STOP_WITHIN_S", "StubError", "arena_pb2", "channel",
           "random_choice"]

# After SIGTERM or SIGINT the process ends within this long: normally at once,
# and with status 0 even when a decision still runs (a thread cannot be
# interrupted) or something else holds the exit up. Below the 2 s a
# tournament's launcher waits before SIGKILL.
STOP_WITHIN_S = 1.0
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _parser(description):
    env = os.environ.get
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=env("HOARD_SERVER") or "127.0.0.1:50051",
                        metavar="HOST:PORT",
                        help="the Hoard server, HOST:PORT (default $HOARD_SERVER, else "
                             "127.0.0.1:50051)")
    parser.add_argument("--name", default=env("HOARD_BOT_NAME", ""),
                        help="register as this bot (default $HOARD_BOT_NAME)")
    parser.add_argument("--key", default=env("HOARD_BOT_KEY", ""),
                        help="the key of the bot's account (default $HOARD_BOT_KEY, else the "
                             "contents of the file $HOARD_BOT_KEY_FILE)")
    parser.add_argument("--max-matches", type=int, metavar="N",
                        default=int(env("HOARD_MAX_MATCHES") or 1),
                        help="matches to play at once (default $HOARD_MAX_MATCHES, else 1)")
    parser.add_argument("--ladder", action="append", metavar="NAME",
                        default=[name for name in env("HOARD_LADDER", "").split(",") if name],
                        help="join this ladder: play its matches while connected (repeat for "
                             "several; default $HOARD_LADDER, names separated by commas)")
    parser.add_argument("--challenges", choices=("accept", "decline"),
                        default=env("HOARD_CHALLENGES", "accept"),
                        help="answer other bots' challenges: accept while a match slot is free "
                             "(default; $HOARD_CHALLENGES) or decline")
    parser.add_argument("--match", default="", metavar="ID",
                        help="instead of registering, join one seat of this match (with "
                             "--token)")
    parser.add_argument("--token", default="", metavar="TOKEN",
                        help="the seat token CreateMatch gave for that seat")
    parser.add_argument("--matches", type=int, default=0, metavar="N",
                        help="stop after this many matches have ended (default: never)")
    parser.add_argument("--tls-ca", default=env("HOARD_TLS_CA", ""), metavar="PEM",
                        help="connect with TLS, trusting the certificate authorities in this "
                             "PEM file (default $HOARD_TLS_CA; plaintext if unset)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return parser


def _read_key_file(parser, path):
    """The key in the file $HOARD_BOT_KEY_FILE names, without surrounding whitespace."""
    try:
        with open(path, encoding="utf-8") as file:
            key = file.read().strip()
    except OSError as error:
        parser.error(f"cannot read $HOARD_BOT_KEY_FILE {path}: {error.strerror or error}")
    if not key:
        parser.error(f"$HOARD_BOT_KEY_FILE {path} is empty")
    return key


def _exit_now(status):
    """Ends the process at once, after a bounded try at flushing its output
    (another thread may hold a stream's lock for good)."""
    def flush():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    flusher = threading.Thread(target=flush, daemon=True)
    flusher.start()
    flusher.join(0.2)
    os._exit(status)


def _stop_on_signals(client):
    """SIGTERM and SIGINT stop `client`, and end the process within STOP_WITHIN_S.

    A Python signal handler runs in the main thread between two of its
    bytecodes, maybe while that thread holds one of the client's locks, so
    neither the handler nor anything it calls may take a lock. Python's own
    C handler writes the signal's number to a pipe (signal.set_wakeup_fd), a
    thread waiting on the pipe stops the client, and the Python handler only
    restores the default action, so a second signal ends the process.
    """
    readable, writable = os.pipe()
    os.set_blocking(writable, False)

    def stopper():
        # Each signal with a Python handler writes its number: the bot's
        # own handlers of other signals do not stop it.
        try:
            while os.read(readable, 1)[0] not in _STOP_SIGNALS:
                pass
        except (OSError, IndexError):
            return
        client.stop()
        # The main thread exits long before, unless a decision or a stuck
        # call holds it up.
        time.sleep(STOP_WITHIN_S)
        _exit_now(0)

    def restore_defaults(*_):
        for signum in _STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)

    threading.Thread(target=stopper, name="hoard-bot-stop", daemon=True).start()
    signal.set_wakeup_fd(writable, warn_on_full_buffer=False)
    for signum in _STOP_SIGNALS:
        signal.signal(signum, restore_defaults)


def run(decide, argv=None, description=None, **options):
    """Runs `decide` as a bot configured by command-line flags and HOARD_* variables.

    `options` are BotClient's keyword options the flags do not set, such as
    describe_actions, events ("stream", "in_requests" or "none": how the
    seats hear the play) and on_event (a function called with each event).
    Exits the process: status 0 when done or stopped by SIGTERM or SIGINT
    (within STOP_WITHIN_S), 1 when the server refuses the bot, 2 for bad
    flags.
    """
    parser = _parser(description or "A Hoard bot.")
    args = parser.parse_args(argv)
    joins = bool(args.match or args.token)
    if joins:
        args.name = args.key = ""
        if not (args.match and args.token):
            parser.error("joining a seat needs both --match and --token")
    else:
        if not args.key and os.environ.get("HOARD_BOT_KEY_FILE"):
            args.key = _read_key_file(parser, os.environ["HOARD_BOT_KEY_FILE"])
        if not (args.name and args.key):
            parser.error("give --name and --key (or $HOARD_BOT_NAME and $HOARD_BOT_KEY or "
                         "$HOARD_BOT_KEY_FILE), or --match and --token")
    program = os.path.basename(sys.argv[0]) or "bot"

    def log(line):
        if not args.quiet:
            print(f"{program}: {line}", file=sys.stderr, flush=True)

    client = BotClient(decide, server=args.server, name=args.name, key=args.key,
                       match_id=args.match, seat_token=args.token,
                       max_matches=args.max_matches, matches=args.matches,
                       ladders=args.ladder, challenges=options.pop("challenges",
                                                                   args.challenges),
                       log=log, tls_ca=args.tls_ca, **options)
    _stop_on_signals(client)
    try:
        client.run()
    except BotError as error:
        print(f"{program}: the server refused the bot: {error}", file=sys.stderr)
        sys.exit(1)
    log(f"done: {client.finished} matches, {client.decisions} decisions, "
        f"{client.refused} refused, {client.late} late, {client.reconnects} reconnects")
    sys.exit(0)
