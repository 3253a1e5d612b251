#!/usr/bin/python3
"""The engine in Python (hoard_engine) and a bot's code played on it
(hoard_bot.local), checked against the server and `hoard play`.

    /usr/bin/python3 tests/python_engine_test.py build/hoard build/python

- For every game: a match played in Python from a record's seed, action by
  action, gives the record's texts, every step's fingerprint, the scores
  and the ranks (`hoard play --record` with that seed, built-in bots).
- For every game: a match on a real `hoard serve` with a Python bot in an
  open seat; each view, legal action and text the server sent the bot is
  byte for byte what the module gives at that step of the record.
- Bad input raises hoard_engine.HoardError (a ValueError) with the
  engine's message, and the process goes on: an unknown game, a bad option,
  a bad player count, a seat not at the table, a seat that may not act, an
  illegal action, a malformed message, results before the end.
- clone() is independent; sample() deals a match the seat cannot tell from
  its own; built-in bots choose legal actions; play() runs many matches in
  C++, the same for the same seed, and the heuristic beats random.
- hoard_bot.env: an AEC episode of each game with random masked actions;
  an action outside the mask is refused; encodings.json is current.
- hoard_bot.local plays a decide function with the SDK's Decision objects:
  the village example bot against random wins most, its events are the
  play as told, a refused answer is asked again with the reason, a typed
  action answer is accepted, self-play works.

Prints one line per check and a closing 'N passed, M failed'.
"""
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.join(REPO, "bots", "python", "examples"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 3:
    sys.exit("usage: python_engine_test.py PATH_TO_HOARD PATH_TO_BUILD_PYTHON")
HOARD = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.abspath(sys.argv[2]))

import grpc  # noqa: E402
import hoard_engine  # noqa: E402
from checks import check, finish, start_server  # noqa: E402
import hoard_bot  # noqa: E402
from hoard_bot import local  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
import village_bot  # noqa: E402

WORK = tempfile.mkdtemp(prefix="hoard-python-engine-")
GAMES = {"village": 4, "dragons_gold": 3, "frost_dragon": 3, "hedonia": 4}


def record_of_play(game, players, seed):
    path = os.path.join(WORK, f"{game}.json")
    subprocess.run([HOARD, "play", "--game", game, "--players", str(players), "--seed", str(seed),
                    "--bots", ",".join(["heuristic"] + ["random"] * (players - 1)), "--record", path, "--quiet"],
                   check=True, capture_output=True)
    with open(path) as f:
        return json.load(f)


def replay_record(record):
    """Plays the record's actions on a fresh Match: the first problem, or None."""
    match = hoard_engine.Match(record["game"], len(record["seats"]), int(record["seed"]),
                               record.get("options", {}))
    for step, action in enumerate(record["actions"], 1):
        seat, code = action.get("seat", 0), int(action["code"])
        if seat not in match.seats_to_act():
            return f"step {step}: seat {seat} is not to act ({match.seats_to_act()})"
        if match.action_text(seat, code) != action["text"]:
            return f"step {step}: text {match.action_text(seat, code)!r}, record {action['text']!r}"
        match.apply(seat, code)
        if match.fingerprint() != action["state_after"]:
            return f"step {step}: fingerprint {match.fingerprint()}, record {action['state_after']}"
    if not match.is_over():
        return "not over after the record's actions"
    if match.scores() != [float(s) for s in record["scores"]] or match.ranks() != record["ranks"]:
        return f"scores {match.scores()} ranks {match.ranks()}; record {record['scores']} {record['ranks']}"
    return None


def check_records():
    for game, players in GAMES.items():
        record = record_of_play(game, players, 11)
        problem = replay_record(record)
        check(f"{game}: a match played in Python from the seed of `hoard play --record` gives "
              f"its {len(record['actions'])} texts, fingerprints, scores and ranks",
              problem is None, problem)


def check_views_against_server():
    admin = "python-engine-admin"
    process, address, log = start_server(HOARD, WORK, admin)
    metadata = (("authorization", f"Bearer {admin}"),)
    try:
        channel = grpc.insecure_channel(address)
        arena = arena_pb2_grpc.ArenaStub(channel)
        for game, players in GAMES.items():
            created = arena.CreateMatch(arena_pb2.CreateMatchRequest(
                game=game, seed=23,
                seats=[arena_pb2.SeatSpec(open=True)] +
                      [arena_pb2.SeatSpec(builtin="random")] * (players - 1)),
                metadata=metadata, timeout=30)
            seen = []

            def decide(decision, seen=seen):
                seen.append((decision.request.view.SerializeToString(),
                             [legal.action.SerializeToString()
                              for legal in decision.request.legal_actions],
                             list(decision.texts), decision.complete))
                return 0

            client = hoard_bot.BotClient(decide, server=address, match_id=created.match_id,
                                         seat_token=created.seat_tokens[0].token, matches=1,
                                         describe_actions=True)
            client.run()
            got = arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id),
                                 metadata=metadata, timeout=30)
            record = got.record
            match = hoard_engine.Match(game, players, record.seed, dict(record.options))
            # Seat 0 is asked as its decision opens (in a sealed decision,
            # before the others' answers): what the module shows then.
            expected = []

            def opened(match=match, expected=expected):
                expected.append((match.view(0), match.legal_action_messages(0),
                                 match.legal_action_texts(0), match.legal_actions_complete(0)))

            waiting = 0 in match.seats_to_act()
            if waiting:
                opened()
            for action in record.actions:
                match.apply(action.seat, action.code)
                if action.seat == 0:
                    waiting = False
                if not waiting and 0 in match.seats_to_act():
                    opened()
                    waiting = True
            asked = len(expected)
            problems = [f"decision {i + 1}: the view differs" for i, (a, b) in
                        enumerate(zip(seen, expected)) if a[0] != b[0]]
            problems += [f"decision {i + 1}: the legal actions differ" for i, (a, b) in
                         enumerate(zip(seen, expected)) if a[1:] != b[1:]]
            check(f"{game}: the {asked} views, legal actions and texts the server sent are the "
                  "module's, byte for byte", asked == len(seen) and asked > 0 and not problems,
                  problems[:5] or f"asked {asked} of {len(seen)}")
        channel.close()
    finally:
        process.terminate()
        process.wait(timeout=60)


def raises(call, *fragments):
    """Whether `call` raises HoardError (a ValueError) whose message holds every fragment."""
    try:
        call()
    except hoard_engine.HoardError as error:
        return isinstance(error, ValueError) and all(f in str(error) for f in fragments)
    except Exception as error:  # noqa: BLE001 - any other kind is the failure
        print(f"     raised {type(error).__name__}: {error}")
        return False
    return False


def check_errors():
    match = hoard_engine.Match("village", 4, seed=3)
    check("an unknown game names the known ones",
          raises(lambda: hoard_engine.Match("chess", 2), "unknown game 'chess'", "village"))
    check("a bad player count is refused with the game's range",
          raises(lambda: hoard_engine.Match("village", 9), "9"))
    check("an unknown option is refused by name",
          raises(lambda: hoard_engine.Match("village", 3, options={"speed": "x"}), "speed"))
    check("a seat not at the table",
          raises(lambda: match.view(7), "seat 7 is not at this table") and
          raises(lambda: match.legal_actions(-1), "seat -1 is not at this table"))
    check("a seat that may not act now", raises(lambda: match.apply(2, 0), "seat 2"))
    legal = set(match.legal_actions(0))
    illegal = next(code for code in range(1, 1 << 20) if code not in legal)
    check("an illegal action names the broken rule, and the match is unchanged",
          raises(lambda: match.apply(0, illegal), "seat 0") and match.history == [] and
          raises(lambda: match.action_text(0, illegal), "seat 0"))
    check("a malformed message", raises(lambda: match.action_from_message(b"\xff\xff\xff"),
                                        "not a serialized hoard.v1.Action"))
    check("an action of another game", raises(
        lambda: match.action_from_message(arena_pb2.Action(hedonia={}).SerializeToString()),
        "village"))
    check("results before the end", raises(match.scores, "not over"))
    check("a bot of another game, a bot that does not exist",
          raises(lambda: hoard_engine.Bot("random", "hedonia").choose(match, 0), "plays hedonia") and
          raises(lambda: hoard_engine.Bot("genius", "village"), "genius"))
    check("a spectator cannot be sampled for",
          raises(lambda: match.sample(-1, 1), "seat -1"))
    check("the process goes on after every error",
          hoard_engine.Match("village", 4, seed=3).seats_to_act() == [0])


def check_engine():
    match = hoard_engine.Match("frost_dragon", 3, seed=5)
    bot = hoard_engine.Bot("heuristic", "frost_dragon", 1)
    for _ in range(10):
        seat = match.seats_to_act()[0]
        match.apply(seat, bot.choose(match, seat))
    copy = match.clone()
    seat = copy.seats_to_act()[0]
    copy.apply(seat, copy.legal_actions(seat)[0])
    check("clone() is independent of its original",
          len(copy.history) == len(match.history) + 1 and copy.fingerprint() != match.fingerprint())
    seat = match.seats_to_act()[0]
    samples = [match.sample(seat, s) for s in range(5)]
    check("sample() deals matches the seat cannot tell from its own, not all alike",
          all(s.view(seat) == match.view(seat) for s in samples) and
          len({s.fingerprint() for s in samples}) > 1, [s.fingerprint() for s in samples])
    check("a spectator's view shows no hand the seat's does",
          match.view(hoard_engine.SPECTATOR) != match.view(seat))
    for game, players in GAMES.items():
        one = hoard_engine.play(game, ["heuristic"] + ["random"] * (players - 1), matches=40, seed=9)
        again = hoard_engine.play(game, ["heuristic"] + ["random"] * (players - 1), matches=40, seed=9)
        won = sum(1 for ranks in one["ranks"] if ranks[0] == 1)
        check(f"{game}: play() runs 40 matches in C++, the same again for the same seed, and the "
              f"heuristic wins most ({won} of 40)",
              one == again and len(one["scores"]) == 40 and won > 40 // players and
              all(n > 0 for n in one["actions"]), won)
    check("play() refuses an unknown bot and a bad count",
          raises(lambda: hoard_engine.play("village", ["random", "genius"]), "genius") and
          raises(lambda: hoard_engine.play("village", ["random"] * 9), "9"))
    names = [g["id"] for g in hoard_engine.games()]
    check("games() lists the four games with their options and bots",
          names == sorted(GAMES) and all("heuristic" in g["bots"] for g in hoard_engine.games()),
          names)


def check_local():
    results = local.play(village_bot.decide, game="village", players=2, opponents=["random"],
                         matches=30, seed=4)
    check(f"the village example bot against random, on the engine: {results.summary()}",
          len(results) == 30 and results.wins() > 20 and {r.seat for r in results} == {0, 1},
          results.summary())
    again = local.play(village_bot.decide, game="village", players=2, opponents=["random"],
                       matches=30, seed=4)
    check("the same seed plays the same matches", again == results)

    told, seen = [], []

    def picky(decision):
        seen.append((len(decision.refused), len(decision.events), decision.view is not None,
                     len(decision.texts) == len(decision.legal_actions)))
        if not decision.refused:
            return len(decision.legal_actions) + 5  # out of range: refused
        return hoard_bot.DEFAULT

    result = local.play_match(picky, game="hedonia", players=3, opponents=["random"], seed=2,
                              on_event=told.append, describe_actions=True)
    check("a refused answer is asked again with the reason, then played",
          seen and all(s[0] in (0, 1) for s in seen) and any(s[0] == 1 for s in seen) and
          all(s[2] and s[3] for s in seen), seen[:4])
    kinds = {e.action_taken.text for e in told}
    check("the callback hears the play as the server tells it, sealed answers included",
          len(told) >= result.actions and "answered (sealed)" in kinds, sorted(kinds)[:5])

    def typed(decision):
        return decision.legal_actions[-1]  # a hoard.v1.Action, not an index

    check("a typed action answer is played",
          local.play_match(typed, game="dragons_gold", players=3, opponents=["heuristic"],
                           seed=3).actions > 0)
    selfplay = local.play(village_bot.decide, game="village", players=3,
                          opponents=[village_bot.decide], matches=3, seed=1)
    check("self-play: the same function in every seat", len(selfplay) == 3)


def check_newcomer():
    example = os.path.join(REPO, "bots", "python", "examples", "random_bot.py")
    shown = subprocess.run(["/usr/bin/python3", example, "--help"], capture_output=True,
                           text=True)
    flags = [line.split()[0] for line in shown.stdout.splitlines()
             if line.startswith("  --")]
    described = all(len(line.split(None, 2)) == 3 or line.strip().startswith("--")
                    for line in shown.stdout.splitlines() if line.startswith("  --"))
    check("a bot's --help describes each flag",
          shown.returncode == 0 and len(flags) >= 9 and described and
          "--name NAME" in shown.stdout, shown.stdout)
    # -S: a Python without the site packages, so without grpc and protobuf.
    bare = subprocess.run(["/usr/bin/python3", "-S", example, "--help"], capture_output=True,
                          text=True)
    check("run by a Python without grpc, a bot says what to install or run instead",
          bare.returncode != 0 and "Traceback" not in bare.stderr and
          "needs Python's grpc and protobuf" in bare.stderr and "python3-grpcio" in bare.stderr,
          bare.stderr)


def check_env():
    from hoard_bot import env as aec
    stored = json.load(open(os.path.join(REPO, "bots", "python", "hoard_bot", "encodings.json")))
    for game, players in GAMES.items():
        environment = aec.HoardEnv(game, players)
        environment.reset(seed=5)
        size = environment.observation_space("seat_0").shape[0]
        actions = environment.action_space("seat_0").n
        steps, shapes, masks_ok, rng = 0, set(), True, __import__("random").Random(1)
        for agent in environment.agent_iter():
            observation, reward, termination, truncation, info = environment.last()
            shapes.add(len(observation["observation"]))
            mask = observation["action_mask"]
            if termination or truncation:
                environment.step(None)
                continue
            legal = info["legal_actions"]
            masks_ok &= len(mask) == actions and sum(mask) == min(len(legal), actions)
            environment.step(rng.choice([i for i, ok in enumerate(mask) if ok]))
            steps += 1
        check(f"{game}: an AEC episode of random masked actions ({steps} steps) ends with every "
              f"agent terminated and rewarded by its place; observations of {size} values",
              shapes == {size} and masks_ok and environment.agents == [] and
              all(environment.terminations.values()) and
              sorted(environment.rewards.values()) == sorted(
                  (players - r) / (players - 1) for r in environment.match.ranks()) and
              steps == len(environment.match.history),
              {"shapes": shapes, "masks": masks_ok, "rewards": environment.rewards})
        environment.reset(seed=5)
        agent = environment.agent_selection
        mask = environment.observe(agent)["action_mask"]
        check(f"{game}: an action outside the mask is refused with the reason",
              raises_value(lambda: environment.step(sum(mask) + 1), "is not one of its"))
        check(f"{game}: the stored encoding is what the rules give now (measured again)",
              aec.measure(game) == stored[game])


def raises_value(call, fragment):
    try:
        call()
    except ValueError as error:
        return fragment in str(error)
    return False


def main():
    check_env()
    check_newcomer()
    check_records()
    check_errors()
    check_engine()
    check_local()
    check_views_against_server()
    finish()


if __name__ == "__main__":
    main()
