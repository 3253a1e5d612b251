#!/usr/bin/python3
"""The Python and Node SDKs let a bot think: a refused answer goes back to the
bot's code with the server's reason, and the typed-action helpers build
actions the server plays. Against a real `hoard serve` over real gRPC.

    /usr/bin/python3 tests/sdk_think_test.py build/hoard [NODE]

NODE is the node program (default: the one on PATH). Each SDK runs the think
bot of tests/bots (`sdk_bot.py think`, `sdk-bot.js think`), registered under
an account, in matches of every game against two built-in random bots (four
of Dragon's Gold). The bot answers with typed actions its SDK's helpers
build, each the mirror of a legal action (in village never the default when
there is a choice), and prints a line per call of its decide function. From
those lines, the seat's SeatInfo and the match record, it checks for each
SDK:

- village: the bot's first answers are illegal (legal_index 999, a bribe of
  60 crowns, or both one after the other); each refusal comes back to its
  decide function with the server's reason and the time left, and the action
  the record shows at that step is the bot's correction, not the default
  action; a bot that stays wrong is asked 3 times, then the default action is
  played; the seat counts exactly the refused answers, and no time-out;
- Dragon's Gold: each proposal of a division that is none of the examples
  is first sent with a token too many, refused with the rule it breaks, then
  corrected: the record shows the bot's own division;
- every game: every other answer, built by the helpers, is played as the
  legal action it mirrors (the record's text at the seat's step is that
  action's), with no refusal and no time-out; and every helper of the SDK
  builds at least one of them (the seeds of GAMES reach them all).

Prints one line per check and a closing 'N passed, M failed'; exits 1 if any
check failed.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: sdk_think_test.py PATH_TO_HOARD [NODE]")
NODE = sys.argv[2] if len(sys.argv) > 2 else shutil.which("node")
WORK = tempfile.mkdtemp(prefix="hoard-sdk-think-")
ADMIN = (("authorization", "Bearer think-test-admin"),)
# The matches, in this order: (game, seed, options). The Dragon's Gold seeds
# give the bot, between them, a use of every helper (HELPERS); in the Frost
# Dragon's Treasure match the bot is the first Fate, who names trump.
DRAGONS_GOLD_OPTIONS = {"invisible_hand": "on"}
GAMES = [("village", 3, {})] + [("dragons_gold", seed, DRAGONS_GOLD_OPTIONS)
                                for seed in (2, 3, 5, 9, 12, 19, 57)] + \
    [("frost_dragon", 7, {}), ("hedonia", 3, {})]
# Every helper, as the think bot names the answers it builds with them
# ('attack_second': an attack with a Second Strike; 'play_as': an ally
# joker played as a kingdom card).
HELPERS = {
    "village": "draw bribe buy",
    "dragons_gold": "attack attack_second dragon_swap recall retreat treasure_map "
                    "sleeping_potion silver_tongue invisible_hand propose propose_assignment "
                    "accept reject steal decoy_give decoy_keep market_pass market_offer "
                    "market_accept market_refuse",
    "frost_dragon": "choose_trump boast play play_as",
    "hedonia": "offer claim",
}
TIME_CONTROL = arena_pb2.TimeControl(decision_ms=10000, bank_ms=0, max_strikes=0)
MATCH_TIMEOUT_S = 120

# Dragon's Gold's tokens in kind order, as its action texts name one and several.
TOKEN_NAMES = [("silver", "silver", "silver"), ("gold", "gold", "gold"), ("red", "red", "red"),
               ("blue", "blue", "blue"), ("green", "green", "green"),
               ("purple", "purple", "purple"), ("yellow", "yellow", "yellow"),
               ("white", "white diamond", "white diamonds"),
               ("black", "black diamond", "black diamonds")]


def proposal_text(contributors, shares):
    """The text Dragon's Gold gives a proposal: 'propose: seat 0 2 gold; seat 2 nothing'."""
    parts = []
    for seat in contributors:
        share = shares.get(str(seat), {})
        counts = [f"{share[kind]} {one if share[kind] == 1 else many}"
                  for kind, one, many in TOKEN_NAMES if share.get(kind)]
        parts.append(f"seat {seat} {', '.join(counts) if counts else 'nothing'}")
    return "propose: " + "; ".join(parts)


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


class Server:
    def __init__(self):
        tokens = os.path.join(WORK, "admin-tokens")
        with open(tokens, "w") as f:
            f.write(ADMIN[0][1].split()[1] + "\n")
        self.log = os.path.join(WORK, "serve.log")
        with open(self.log, "w") as err:
            self.process = subprocess.Popen(
                [HOARD, "serve", "--listen", "127.0.0.1:0", "--db", os.path.join(WORK, "hoard.db"),
                 "--admin-token-file", tokens, "--state-dir", os.path.join(WORK, "state")],
                stdout=subprocess.PIPE, stderr=err, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("hoard: serving on "):
            self.process.kill()
            sys.exit(f"the server did not start: {line}{tail(self.log)}")
        self.address = line.split()[-1]
        self.channel = grpc.insecure_channel(self.address)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.channel.close()


def connected(server, name, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bots = server.arena.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN, timeout=30)
        if any(bot.name == name and bot.connected for bot in bots.bots):
            return True
        time.sleep(0.05)
    return False


def play(server, name, game, seed, options):
    """Plays a match of `game` with the bot in seat 0: the GetMatchResponse once
    it is over (or as it stands when MATCH_TIMEOUT_S ran out)."""
    request = arena_pb2.CreateMatchRequest(
        game=game, seed=seed, options=options, time_control=TIME_CONTROL,
        seats=[arena_pb2.SeatSpec(bot=name), arena_pb2.SeatSpec(builtin="random"),
               arena_pb2.SeatSpec(builtin="random")])
    deadline = time.monotonic() + 10
    while True:
        try:
            created = server.arena.CreateMatch(request, metadata=ADMIN, timeout=30)
            break
        except grpc.RpcError as error:
            # The bot's last match may count against its limit of one a
            # moment after GetMatch shows it finished.
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or \
                    time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    deadline = time.monotonic() + MATCH_TIMEOUT_S
    while True:
        got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id),
                                    metadata=ADMIN, timeout=30)
        if got.match.status != arena_pb2.MATCH_STATUS_RUNNING or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def requests_of(lines, match_id):
    """The bot's calls of decide in a match, by request id in order: a list of
    (request id, [line of each attempt, in order])."""
    by_request = collections.defaultdict(list)
    for line in lines:
        if line["match"] == match_id:
            by_request[int(line["request"])].append(line)
    return [(rid, sorted(attempts, key=lambda a: a["attempt"]))
            for rid, attempts in sorted(by_request.items())]


def seat_actions(record, seat=0):
    return [action.text for action in record.actions if action.seat == seat]


def common(sdk, game, got, requests):
    """What every match must show; returns the seat and its record texts."""
    seat = got.match.seats[0]
    check(f"{sdk} {game}: the match finished", got.match.status == arena_pb2.MATCH_STATUS_FINISHED,
          got.match)
    check(f"{sdk} {game}: no time-out, no forfeit", seat.timeouts == 0 and not seat.forfeited,
          seat)
    texts = seat_actions(got.record)
    check(f"{sdk} {game}: the bot decided each of its seat's {len(texts)} actions",
          len(requests) == len(texts) and len(texts) > 0,
          f"{len(requests)} requests decided, {len(texts)} actions of seat 0 in the record")
    answers = sorted({line["answer"] for _, attempts in requests for line in attempts})
    print(f"     answers: {', '.join(answers)}")
    return seat, texts


def played_as_meant(sdk, game, requests, texts, expected):
    """Each request's action in the record is what the bot's last answer meant."""
    wrong = [f"request {rid}: meant '{expected(attempts[-1])}', played '{text}'"
             for (rid, attempts), text in zip(requests, texts)
             if expected(attempts[-1]) is not None and expected(attempts[-1]) != text]
    check(f"{sdk} {game}: every answer the helpers built was played as the action it meant",
          not wrong, "\n".join(wrong))


def check_village(sdk, got, lines):
    requests = requests_of(lines, got.match.match_id)
    seat, texts = common(sdk, "village", got, requests)
    illegal = sum(1 for line in lines if line["match"] == got.match.match_id and line["illegal"])
    stubborn = [(rid, attempts) for rid, attempts in requests if attempts[0]["plan"] == "stubborn"]
    check(f"{sdk} village: the seat counts the {illegal} refused answers",
          seat.illegal_answers == illegal and illegal > 0,
          f"illegal_answers {seat.illegal_answers}, the bot gave {illegal} illegal answers")

    corrected, problems, reasons = collections.Counter(), [], {}
    for (rid, attempts), text in zip(requests, texts):
        for k, attempt in enumerate(attempts):
            refused = attempt["refused"]
            if len(refused) != k:
                problems.append(f"request {rid} attempt {k + 1}: {len(refused)} refusals given")
                continue
            if not 0 < attempt["time_left"] <= attempts[0]["time_left"]:
                problems.append(f"request {rid} attempt {k + 1}: {attempt['time_left']} ms "
                                f"left, {attempts[0]['time_left']} ms when first asked")
            for earlier, refusal in zip(attempts, refused):
                if earlier["answer"] == "index 999":
                    good = refusal["reason"].startswith("legal_index 999 is out of range")
                else:
                    good = refusal["code"] == 3 and "crown" in refusal["reason"]
                reasons.setdefault(earlier["answer"], refusal["reason"])
                if not good:
                    problems.append(f"request {rid}: refusal of '{earlier['answer']}': {refusal}")
        last = attempts[-1]
        if last["plan"] not in ("", "stubborn") and not last["illegal"]:
            if text == last["expect"] and text != last["default"]:
                corrected[last["plan"]] += 1
            else:
                problems.append(f"request {rid}: corrected to '{last['expect']}' (the default "
                                f"is '{last['default']}'), played '{text}'")
    for answer, reason in sorted(reasons.items()):
        print(f"     {answer} refused: {reason}")
    plans = ("index", "typed", "index typed")
    check(f"{sdk} village: each refusal reached the bot with the server's reason, and the "
          "record shows the bot's correction, not the default action (corrected after "
          + ", ".join(f"{plan}: {corrected[plan]}" for plan in plans) + ")",
          not problems and all(corrected[plan] for plan in plans),
          "\n".join(problems) or f"corrected: {dict(corrected)}")
    if stubborn:
        rid, attempts = stubborn[0]
        index = [r for r, _ in requests].index(rid)
        check(f"{sdk} village: a bot that stays wrong is asked 3 times, then the default action "
              "is played", len(attempts) == 3 and texts[index] == attempts[0]["default"],
              f"asked {len(attempts)} times; played '{texts[index]}', the default is "
              f"'{attempts[0]['default']}'")
    else:
        check(f"{sdk} village: the bot had a request to stay wrong on", False,
              f"{len(requests)} requests")
    played_as_meant(sdk, "village", requests, texts,
                    lambda line: None if line["illegal"] or line["plan"] == "stubborn"
                    else line["expect"])


def check_dragons_gold(sdk, got, lines):
    """Returns the number of the bot's own divisions played."""
    requests = requests_of(lines, got.match.match_id)
    seat, texts = common(sdk, "dragons_gold", got, requests)
    illegal = sum(1 for line in lines if line["match"] == got.match.match_id and line["illegal"])
    own, problems = 0, []
    for (rid, attempts), text in zip(requests, texts):
        last = attempts[-1]
        if last["shares"] is None:
            continue
        own += 1
        refused = last["refused"]
        if len(attempts) != 2 or len(refused) != 1 or \
                "every token must go to exactly one contributor" not in refused[0]["reason"]:
            problems.append(f"request {rid}: {len(attempts)} attempts, refusals {refused}")
        meant = proposal_text(last["contributors"], last["shares"])
        if text != meant or text == last["default"]:
            problems.append(f"request {rid}: proposed '{meant}', played '{text}'")
    check(f"{sdk} dragons_gold: the seat counts the {illegal} refused proposals, and each of the "
          f"{own} own divisions was refused with its rule, corrected and played",
          seat.illegal_answers == illegal == own and not problems,
          "\n".join(problems) or f"illegal_answers {seat.illegal_answers}")
    played_as_meant(sdk, "dragons_gold", requests, texts,
                    lambda line: None if line["illegal"]
                    else proposal_text(line["contributors"], line["shares"])
                    if line["shares"] is not None else line["expect"])
    return own


def check_helpers_only(sdk, game, got, lines):
    requests = requests_of(lines, got.match.match_id)
    seat, texts = common(sdk, game, got, requests)
    check(f"{sdk} {game}: no answer refused", seat.illegal_answers == 0,
          f"illegal_answers {seat.illegal_answers}")
    played_as_meant(sdk, game, requests, texts, lambda line: line["expect"])


def run_sdk(server, sdk, command):
    name = f"think-{sdk}"
    key = server.arena.AddBot(arena_pb2.AddBotRequest(name=name), metadata=ADMIN,
                              timeout=30).key
    out_path = os.path.join(WORK, f"{sdk}.out")
    log_path = os.path.join(WORK, f"{sdk}.log")
    with open(out_path, "w") as out, open(log_path, "w") as err:
        bot = subprocess.Popen(command + ["think", "--server", server.address, "--name", name,
                                          "--key", key, "--matches", str(len(GAMES))],
                               stdout=out, stderr=err)
    try:
        if not connected(server, name):
            check(f"{sdk}: the think bot registers", False, tail(log_path))
            return
        results = [(game, play(server, name, game, seed, options))
                   for game, seed, options in GAMES]
        try:
            bot.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        with open(out_path) as f:
            lines = [json.loads(line) for line in f if line.startswith("{")]
        own = 0
        for game, got in results:
            if game == "village":
                check_village(sdk, got, lines)
            elif game == "dragons_gold":
                own += check_dragons_gold(sdk, got, lines)
            else:
                check_helpers_only(sdk, game, got, lines)
        check(f"{sdk} dragons_gold: the bot proposed divisions of its own", own > 0,
              "none in any match")
        used = {line["answer"] for line in lines}
        unused = [f"{game}.{helper}" for game, helpers in HELPERS.items()
                  for helper in helpers.split() if f"{game}.{helper}" not in used]
        total = sum(len(helpers.split()) for helpers in HELPERS.values())
        check(f"{sdk}: every helper ({total}) built an answer the server played",
              not unused, f"never used: {', '.join(unused)} (the matches of GAMES no longer "
              "reach them: pick other seeds)")
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


def main():
    server = Server()
    try:
        run_sdk(server, "python", ["/usr/bin/python3", os.path.join(REPO, "tests", "bots",
                                                                   "sdk_bot.py")])
        packages = os.path.join(REPO, "bots", "node", "node_modules", "@grpc", "grpc-js")
        if NODE is None or shutil.which(NODE) is None or not os.path.isdir(packages):
            check("node and the Node SDK's packages are installed (bash scripts/setup.sh)", False)
        else:
            run_sdk(server, "node", [NODE, os.path.join(REPO, "tests", "bots", "sdk-bot.js")])
    finally:
        server.stop()
    shutil.rmtree(WORK, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
