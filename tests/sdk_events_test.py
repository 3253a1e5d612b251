#!/usr/bin/python3
"""The Python and Node SDKs tell a bot the play of its matches: each decision
carries the events its seat was told so far (`decision.events`), and a
callback hears each event as it arrives, however the stream receives them
(EventDelivery).

    /usr/bin/python3 tests/sdk_events_test.py build/hoard [NODE]

NODE is the node program (default: the one on PATH). Each SDK runs an events
bot (written by this test) that answers the first legal action and prints a
JSON line per event its callback hears and per decision, with the decision's
events. Checked for each SDK:

Against a fake Arena server in this process, which sends what a real one
would, event by event:
- the hello asks for the delivery the bot chose (stream, in_requests, none);
- stream: the events sent on the stream reach the callback and the next
  decision, in order; a callback that raises is logged and the play goes on;
- in_requests: a request's events reach the callback before the decision;
  a resent request's events that were taken before are not taken again,
  twice over, and a resent request never seen has all of its events taken;
- a match's events are forgotten once it ends: the same match id seated
  again starts with none;
- at most `events_kept` events are kept per seat, the oldest dropped and
  counted.

Against a real `hoard serve`, a Hedonia match (its claims are sealed) of the
bot, joined with a seat token, and two built-in random bots, for each
delivery:
- stream: the callback hears every action of the other seats, in the
  record's order, then the end; each decision's events are what the callback
  had heard by then; every event has the seat's view; every decision gives
  the deal commitment the seat was told when seated, the record's;
- in_requests: the callback hears exactly the last decision's events (and
  the end), without views, the actions of the other seats in the record's
  order, and the same actions as the stream's match of the same seed up to
  its last decision;
- both: every sealed claim of another seat is told as "answered (sealed)"
  and then revealed at the same step;
- none: no decision carries events, and the callback hears only the end.

Prints one line per check and a closing 'N passed, M failed'; exits 1 if any
check failed.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 2:
    sys.exit("usage: sdk_events_test.py PATH_TO_HOARD [NODE]")
import grpc  # noqa: E402
import sdk_resume_test as fake  # noqa: E402  (its fake Arena server)
import sdk_think_test as real  # noqa: E402  (its `hoard serve` and tail)
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2  # noqa: E402

NODE = sys.argv[2] if len(sys.argv) > 2 else shutil.which("node")
WORK = real.WORK
KEPT = 6               # events_kept of the bots against the fake server
GAME, SEED = "hedonia", 5
TIME_CONTROL = arena_pb2.TimeControl(decision_ms=10000, bank_ms=0, max_strikes=0)
MATCH_TIMEOUT_S = 120
SEALED = "answered (sealed)"

PYTHON_BOT = """
import json, sys, threading
sys.path.insert(0, %r)
import hoard_bot
from hoard_bot.stubs import arena_pb2

MODE, KEPT = sys.argv.pop(1), int(sys.argv.pop(1))


def said(event):
    kind = event.WhichOneof("kind")
    who, text, sealed = -1, "", False
    if kind == "action_taken":
        taken = event.action_taken
        who, text, sealed = taken.seat, taken.text, not taken.HasField("action")
    elif kind == "fault":
        who, text = event.fault.seat, arena_pb2.SeatFault.Kind.Name(event.fault.kind)
    elif kind == "finished":
        text = arena_pb2.MatchStatus.Name(event.finished.match.status)
    return {"match": event.match_id, "step": event.step, "kind": kind, "who": who,
            "text": text, "sealed": sealed,
            "seat": event.seat if event.HasField("seat") else None,
            "view": event.HasField("view")}


# The callback (the stream's thread) and decide (a pool thread) both print:
# one line at a time.
PRINTING = threading.Lock()


def show(line):
    with PRINTING:
        print(json.dumps(line), flush=True)


def on_event(event):
    show({"type": "event", **said(event)})
    if event.action_taken.text == "raise":
        raise RuntimeError("the callback fails on purpose")


def decide(decision):
    show({"type": "decision", "match": decision.match_id,
          "request": decision.request.request_id,
          "events": [said(event) for event in decision.events],
          "dropped": decision.events_dropped, "commitment": decision.seed_commitment})
    return 0


options = {"events_kept": KEPT} if KEPT else {}
hoard_bot.run(decide, events=MODE, on_event=on_event, **options)
"""

NODE_BOT = """
'use strict';
const { run } = require(%r);

const [mode, kept] = process.argv.slice(2, 4);

function said(event) {
  let who = -1;
  let text = '';
  let sealed = false;
  if (event.kind === 'action_taken') {
    const taken = event.action_taken;
    [who, text, sealed] = [taken.seat, taken.text, !taken.action];
  } else if (event.kind === 'fault') {
    [who, text] = [event.fault.seat, event.fault.kind];
  } else if (event.kind === 'finished') {
    text = event.finished.match.status;
  }
  return { match: event.match_id, step: event.step, kind: event.kind, who, text, sealed,
           seat: event._seat ? event.seat : null, view: Boolean(event.view) };
}

const show = (line) => process.stdout.write(`${JSON.stringify(line)}\\n`);

function onEvent(event) {
  show({ type: 'event', ...said(event) });
  if (event.kind === 'action_taken' && event.action_taken.text === 'raise') {
    throw new Error('the callback fails on purpose');
  }
}

function decide(decision) {
  show({ type: 'decision', match: decision.matchId, request: Number(decision.request.request_id),
         events: decision.events.map(said), dropped: decision.eventsDropped,
         commitment: decision.seedCommitment });
  return 0;
}

const options = Number(kept) ? { eventsKept: Number(kept) } : {};
run(decide, { argv: process.argv.slice(4), events: mode, onEvent, ...options });
"""


def bot_commands():
    """The events bot of each SDK to test, by SDK: the command before its flags."""
    python = os.path.join(WORK, "events_bot.py")
    with open(python, "w") as f:
        f.write(PYTHON_BOT % os.path.join(REPO, "bots", "python"))
    commands = {"python": ["/usr/bin/python3", python]}
    if NODE is None or shutil.which(NODE) is None or not os.path.isdir(
            os.path.join(REPO, "bots", "node", "node_modules", "@grpc", "grpc-js")):
        check("node and the Node SDK's packages are installed (bash scripts/setup.sh)", False)
        return commands
    node = os.path.join(WORK, "events-bot.js")
    with open(node, "w") as f:
        f.write(NODE_BOT % os.path.join(REPO, "bots", "node", "hoard-bot.js"))
    commands["node"] = [NODE, node]
    return commands


def printed(path):
    """The bot's JSON lines so far."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def told(lines, since=0):
    """The (step, kind, who, text) of each event the callback heard from line `since` on."""
    return [key(line) for line in lines[since:] if line["type"] == "event"]


def key(event):
    return (event["step"], event["kind"], event["who"], event["text"])


def decisions(lines):
    return [line for line in lines if line["type"] == "decision"]


# ---- against the fake server ---------------------------------------------------------

def action(match_id, step, seat, text, sealed=False, to_seat=None):
    event = arena_pb2.MatchEvent(match_id=match_id, step=step, action_taken=arena_pb2.ActionTaken(
        seat=seat, text=text))
    if not sealed:
        event.action_taken.action.village.draw.SetInParent()
    if to_seat is not None:
        event.seat = to_seat
        event.view.village.deck_size = 40 - step
    return event


def keys(events):
    return [(e.step, e.WhichOneof("kind"), e.action_taken.seat, e.action_taken.text)
            for e in events]


def ask(stream, match_id, request_id, events=(), resent=False):
    """Sends a request carrying `events`; whether the bot answered it."""
    stream.send(decision=arena_pb2.DecisionRequest(
        match_id=match_id, request_id=request_id, seat=0, resent=resent, time_left_ms=60000,
        legal_actions=[arena_pb2.LegalAction(index=0)], legal_actions_complete=True,
        events=events))
    message, _ = stream.receive()
    return message is not None and message.WhichOneof("kind") == "answer" and \
        message.answer.request_id == request_id


def started(sdk, command, mode, arena, port, log):
    """Starts the bot against the fake server: (process, stream, hello)."""
    with open(log, "w") as out:
        bot = subprocess.Popen(command + [mode, str(KEPT), "--server", f"127.0.0.1:{port}",
                                          "--name", fake.BOT, "--key", "any-key"],
                               stdout=out, stderr=open(log + ".err", "w"))
    stream, hello, _ = fake.accept(arena)
    delivery = {"stream": arena_pb2.EVENT_DELIVERY_STREAM,
                "in_requests": arena_pb2.EVENT_DELIVERY_IN_REQUESTS,
                "none": arena_pb2.EVENT_DELIVERY_NONE}[mode]
    check(f"{sdk} fake {mode}: the hello asks for {arena_pb2.EventDelivery.Name(delivery)}",
          hello is not None and hello.hello.register.events == delivery,
          hello or real.tail(log + ".err"))
    return bot, stream


def on_stream(sdk, stream, log):
    e1, e2 = action("s1", 1, 1, "draw", to_seat=0), action("s1", 2, 2, "raise", to_seat=0)
    fake.welcome(stream, "s1")
    stream.send(event=e1)
    stream.send(event=e2)
    answered = ask(stream, "s1", 1)
    lines = printed(log)
    heard = decisions(lines)
    check(f"{sdk} fake stream: the events on the stream reach the callback and the next "
          "decision, in order", answered and told(lines) == keys([e1, e2]) and len(heard) == 1
          and [key(e) for e in heard[0]["events"]] == keys([e1, e2])
          and all(e["view"] and e["seat"] == 0 for e in heard[0]["events"]), lines)
    with open(log + ".err") as err:
        logged = "the callback fails on purpose" in err.read()
    e3 = action("s1", 3, 1, "draw", to_seat=0)
    stream.send(event=e3)
    answered = ask(stream, "s1", 2)
    lines = printed(log)
    check(f"{sdk} fake stream: a callback that raises is logged, and the play goes on",
          logged and answered and told(lines) == keys([e1, e2, e3]), real.tail(log + ".err"))

    fake.end_match(stream, "s1", arena_pb2.MATCH_STATUS_FINISHED)
    fake.seat(stream, "s1")
    since = len(lines)
    answered = ask(stream, "s1", 1)
    lines = printed(log)
    heard = decisions(lines[since:])
    check(f"{sdk} fake stream: once the match ended, the same match id seated again starts "
          "with no events", answered and heard and heard[-1]["events"] == []
          and [e[1] for e in told(lines, since)] == ["finished"], lines[since:])


def in_requests(sdk, stream, arena, log):
    events = [action("r1", step, 1 + step % 2, f"draw {step}") for step in range(1, 8)]
    fake.welcome(stream, "r1")
    answered = ask(stream, "r1", 1, events[:2])
    lines = printed(log)
    check(f"{sdk} fake in_requests: a request's events reach the callback, then the decision",
          answered and [line["type"] for line in lines] == ["event", "event", "decision"]
          and told(lines) == keys(events[:2])
          and [key(e) for e in lines[-1]["events"]] == keys(events[:2]), lines)

    stream.end(grpc.StatusCode.UNAVAILABLE)
    stream, hello, _ = fake.accept(arena, 10)
    fake.welcome(stream, "r1")
    again = ask(stream, "r1", 1, events[:3], resent=True)
    fresh = ask(stream, "r1", 2, events[3:4])
    never = ask(stream, "r1", 3, events[4:6], resent=True)
    twice = ask(stream, "r1", 3, events[4:7], resent=True)
    last = ask(stream, "r1", 4)
    lines = printed(log)
    heard = decisions(lines)
    check(f"{sdk} fake in_requests: a resent request's events taken before are not taken "
          "again, twice over; a resent request never seen has all of its taken",
          hello is not None and again and fresh and never and twice and last
          and told(lines) == keys(events) and len(heard) == 4
          and [key(e) for e in heard[-1]["events"]] == keys(events[-KEPT:])
          and heard[-1]["dropped"] == len(events) - KEPT,
          f"{[line['type'] for line in lines]}\nheard {told(lines)}\n"
          f"last decision {heard[-1] if heard else None}")
    check(f"{sdk} fake in_requests: at most {KEPT} events are kept, the oldest dropped and "
          "counted", heard and len(heard[-1]["events"]) == KEPT
          and heard[-1]["dropped"] == len(events) - KEPT,
          heard[-1] if heard else None)

    fake.end_match(stream, "r1", arena_pb2.MATCH_STATUS_ABORTED)
    fake.seat(stream, "r1")
    since = len(lines)
    answered = ask(stream, "r1", 1, events[:1])
    lines = printed(log)
    heard = decisions(lines[since:])
    check(f"{sdk} fake in_requests: once the match was aborted, the same match id seated "
          "again starts with only its new events", answered and heard
          and [key(e) for e in heard[-1]["events"]] == keys(events[:1])
          and heard[-1]["dropped"] == 0, lines[since:])


def against_fake(sdk, command):
    for mode in ("stream", "in_requests", "none"):
        arena = fake.FakeArena()
        server, port = fake.serve(arena)
        log = os.path.join(WORK, f"fake-{sdk}-{mode}.out")
        bot = None
        try:
            bot, stream = started(sdk, command, mode, arena, port, log)
            if stream is None:
                continue
            if mode == "stream":
                on_stream(sdk, stream, log)
            elif mode == "in_requests":
                in_requests(sdk, stream, arena, log)
        except Exception:  # a broken scenario fails, and the others still run
            check(f"{sdk} fake {mode}: the scenario runs to its end", False,
                  traceback.format_exc())
        finally:
            if bot is not None and bot.poll() is None:
                bot.kill()
                bot.wait()
            server.stop(0)


# ---- against a real server -----------------------------------------------------------

def play(server, sdk, command, mode):
    """A match of the bot in seat 0: (GetMatchResponse once over, the bot's lines)."""
    created = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game=GAME, seed=SEED, time_control=TIME_CONTROL,
        seats=[arena_pb2.SeatSpec(open=True), arena_pb2.SeatSpec(builtin="random"),
               arena_pb2.SeatSpec(builtin="random")]), metadata=real.ADMIN, timeout=30)
    out = os.path.join(WORK, f"{sdk}-{mode}.out")
    with open(out, "w") as f:
        bot = subprocess.Popen(command + [mode, "0", "--server", server.address, "--match",
                                          created.match_id, "--token",
                                          created.seat_tokens[0].token],
                               stdout=f, stderr=open(out + ".err", "w"))
    try:
        bot.wait(timeout=MATCH_TIMEOUT_S)  # a bot on a seat token stops at its match's end
    except subprocess.TimeoutExpired:
        bot.kill()
        bot.wait()
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id),
                                metadata=real.ADMIN, timeout=30)
    check(f"{sdk} {mode}: the match finished, without faults",
          got.match.status == arena_pb2.MATCH_STATUS_FINISHED
          and not any(s.timeouts or s.illegal_answers or s.forfeited for s in got.match.seats),
          f"{got.match}\n{real.tail(out + '.err')}")
    return got, printed(out)


def others(events):
    """The revealed actions of the seats other than 0, as (seat, text)."""
    return [(e["who"], e["text"]) for e in events
            if e["kind"] == "action_taken" and e["who"] != 0 and not e["sealed"]]


def recorded_others(got):
    return [(a.seat, a.text) for a in got.record.actions if a.seat != 0]


def revealed(event):
    return event["kind"] == "action_taken" and not event["sealed"]


def sealed_then_revealed(sdk, mode, events, open_at_end=False):
    """Every sealed answer of another seat is revealed later, at the same step;
    with open_at_end, but for those after the last revealed action (a sealed
    decision still open when the events end)."""
    sealed = [i for i, e in enumerate(events) if e["kind"] == "action_taken" and e["sealed"]
              and e["who"] != 0]
    last_revealed = max((i for i, e in enumerate(events) if revealed(e)), default=-1)
    unrevealed = [events[i] for i in sealed
                  if not (open_at_end and i > last_revealed)
                  and not any(revealed(e) and (e["who"], e["step"]) ==
                              (events[i]["who"], events[i]["step"]) for e in events[i + 1:])]
    check(f"{sdk} {mode}: each of the {len(sealed)} sealed claims of other seats is told "
          f"'{SEALED}', then revealed at its step",
          sealed and not unrevealed and all(events[i]["text"] == SEALED for i in sealed),
          unrevealed or "no sealed answer heard")


def grows(heard):
    """Whether each decision's events begin with the previous decision's."""
    return all(b["events"][:len(a["events"])] == a["events"] for a, b in zip(heard, heard[1:]))


def difference(heard, recorded):
    """Where the actions heard first differ from the record's, in words."""
    at = next((i for i, (a, b) in enumerate(zip(heard, recorded)) if a != b),
              min(len(heard), len(recorded)))
    return (f"heard {len(heard)} of the record's {len(recorded)}; from action {at}, heard "
            f"{heard[at:at + 3]}, recorded {recorded[at:at + 3]}")


def check_stream(sdk, got, lines):
    events = [line for line in lines if line["type"] == "event"]
    heard = decisions(lines)
    check(f"{sdk} stream: the callback hears every action of the other seats in the record's "
          "order, then the end", others(events) == recorded_others(got)
          and events and events[-1]["kind"] == "finished",
          difference(others(events), recorded_others(got)))
    # The callback may hear an event between a decision's request and the
    # line its decide function prints: each decision's events begin the
    # callback's.
    everything = told(lines)
    mismatched = [line["request"] for line in heard
                  if [key(e) for e in line["events"]] != everything[:len(line["events"])]]
    check(f"{sdk} stream: each of the {len(heard)} decisions carries the events the callback "
          "heard before it, in order", heard and heard[-1]["events"] and not mismatched
          and grows(heard),
          f"requests {mismatched}")
    played = [e for e in events if e["kind"] != "finished"]
    # Actions played before the bot joined are told first, without views.
    first_viewed = next((i for i, e in enumerate(played) if e["view"]), len(played))
    live = played[first_viewed:]
    check(f"{sdk} stream: every event names seat 0, and every event since it joined has "
          "the seat's view",
          live and all(e["seat"] == 0 for e in played) and all(e["view"] for e in live),
          [e for e in played if not (e["view"] and e["seat"] == 0)][:5] or "no events")
    sealed_then_revealed(sdk, "stream", events[:-1])
    check(f"{sdk}: each decision gives the deal commitment the seat was told when seated, "
          "which the record's seed and salt hash to",
          heard and got.record.seed_commitment == hashlib.sha256(
              f"{got.record.seed}:{got.record.seed_salt}".encode()).hexdigest()
          and all(line["commitment"] == got.record.seed_commitment for line in heard),
          f"{[line['commitment'] for line in heard[:2]]} vs {got.record.seed_commitment}")
    return heard[-1]["events"] if heard else []


def check_in_requests(sdk, got, lines, streamed):
    events = [line for line in lines if line["type"] == "event"]
    heard = decisions(lines)
    last = heard[-1]["events"] if heard else []
    check(f"{sdk} in_requests: the callback hears exactly the last decision's events, then "
          "the end", last and [key(e) for e in events[:-1]] == [key(e) for e in last]
          and events[-1]["kind"] == "finished" and grows(heard),
          f"{len(events)} heard, {len(last)} in the last decision")
    check(f"{sdk} in_requests: the events come without views",
          last and all(not e["view"] for e in last), [e for e in last if e["view"]][:5])
    mine = others(last)
    check(f"{sdk} in_requests: the last decision's events hold the other seats' actions in "
          f"the record's order ({len(mine)} of {len(recorded_others(got))} before it)",
          mine and mine == recorded_others(got)[:len(mine)],
          difference(mine, recorded_others(got)))
    check(f"{sdk} in_requests: ...the same actions as the stream's match of seed {SEED} up "
          "to its last decision", mine and sorted(mine) == sorted(others(streamed)),
          f"in_requests {len(mine)}, stream {len(others(streamed))}")
    sealed_then_revealed(sdk, "in_requests", last, open_at_end=True)


def check_none(sdk, lines):
    events = [line for line in lines if line["type"] == "event"]
    heard = decisions(lines)
    check(f"{sdk} none: no decision carries events, and the callback hears only the end",
          heard and all(not line["events"] for line in heard)
          and [e["kind"] for e in events] == ["finished"],
          f"{sum(len(line['events']) for line in heard)} events in {len(heard)} decisions; "
          f"callback: {[e['kind'] for e in events]}")


def against_server(commands):
    server = real.Server()
    try:
        for sdk, command in commands.items():
            try:
                got, lines = play(server, sdk, command, "stream")
                streamed = check_stream(sdk, got, lines)
                got, lines = play(server, sdk, command, "in_requests")
                check_in_requests(sdk, got, lines, streamed)
                _, lines = play(server, sdk, command, "none")
                check_none(sdk, lines)
            except Exception:  # a broken SDK fails, and the other still runs
                check(f"{sdk}: the matches run to their end", False, traceback.format_exc())
    finally:
        server.stop()


def main():
    try:
        commands = bot_commands()
        for sdk, command in commands.items():
            against_fake(sdk, command)
        against_server(commands)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
        shutil.rmtree(fake.WORK, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
