#!/usr/bin/python3
"""The web API of `hoard serve --http`, end to end with the real server.

    /usr/bin/python3 tests/web_api_test.py build/hoard

Plays a tournament of built-in bots and a match with an open seat nobody
takes (it times out, forfeits and ends), then reads them over HTTP: the
JSON API against what gRPC says, a match and a tournament live as
Server-Sent Events, /metrics through the Prometheus client library's own
parser, /openapi.json, the errors, and a private server's roles. Prints one
line per check and a closing 'N passed, M failed'.
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402
from hoard_bot.stubs import tournament_pb2, tournament_pb2_grpc  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: web_api_test.py PATH_TO_HOARD")
ADMIN_TOKEN = "web-test-admin"
ADMIN = (("authorization", f"Bearer {ADMIN_TOKEN}"),)


class Server:
    """A `hoard serve --http` of its own, on free ports."""

    def __init__(self, work, *flags, http="127.0.0.1:0"):
        tokens = os.path.join(work, "admin-tokens")
        with open(tokens, "w") as f:
            f.write(ADMIN_TOKEN + "\n")
        self.process = subprocess.Popen(
            [HOARD, "serve", "--listen", "127.0.0.1:0", "--http", http,
             "--db", os.path.join(work, "hoard.db"), "--admin-token-file", tokens,
             "--state-dir", os.path.join(work, "state"), *flags],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.grpc = self.process.stdout.readline().split()[-1]
        self.web = self.process.stdout.readline().split()[-1]
        self.channel = grpc.insecure_channel(self.grpc)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)
        self.tournaments = tournament_pb2_grpc.TournamentsStub(self.channel)

    def stop(self):
        self.channel.close()
        self.process.terminate()
        self.process.wait(timeout=60)


def get(server, path, headers=None):
    """(status, parsed JSON or text) of GET path."""
    request = urllib.request.Request(server.web + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body, status, kind = response.read().decode(), response.status, response.headers
    except urllib.error.HTTPError as error:
        body, status, kind = error.read().decode(), error.code, error.headers
    if kind.get("Content-Type", "").startswith("application/json"):
        return status, json.loads(body)
    return status, body


def events(server, path, limit_s=60):
    """The (event, data) pairs of a Server-Sent Events stream, to its end."""
    got = []
    with urllib.request.urlopen(server.web + path, timeout=limit_s) as response:
        kind = None
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[len("event: "):]
            elif line.startswith("data: "):
                got.append((kind, json.loads(line[len("data: "):])))
                if kind in ("end", "error"):
                    break
    return got


def main():
    work = tempfile.mkdtemp(prefix="hoard-web-")
    server = Server(work)
    try:
        api(server)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    work = tempfile.mkdtemp(prefix="hoard-web-private-")
    with open(os.path.join(work, "read-tokens"), "w") as f:
        f.write("web-test-reader\n")
    server = Server(work, "--private", "--read-token-file", os.path.join(work, "read-tokens"))
    try:
        private(server)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    finish()


def api(server):
    spec = tournament_pb2.TournamentSpec(
        game="village", players_per_match=3, rounds=2, seed=5, format=tournament_pb2.FORMAT_DUPLICATE,
        participants=[tournament_pb2.Participant(name="h", builtin="heuristic"),
                      tournament_pb2.Participant(name="r", builtin="random"),
                      tournament_pb2.Participant(name="f", builtin="first")])
    created = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN, timeout=60)
    # Its progress, live, to the end.
    streamed = events(server, f"/api/v1/tournaments/{created.id}/events")
    kinds = [kind for kind, _ in streamed]
    check("a tournament's events stream its progress to the end",
          kinds and set(kinds[:-1]) == {"tournament"} and kinds[-1] == "end"
          and streamed[-2][1]["status"] == "TOURNAMENT_STATUS_FINISHED"
          and streamed[-2][1]["progress"]["finished"] == 6, kinds)

    status, games = get(server, "/api/v1/games")
    check("games: every game, as ListGames says", status == 200 and
          sorted(g["id"] for g in games["games"]) ==
          sorted(g.id for g in server.arena.ListGames(arena_pb2.ListGamesRequest()).games),
          games)
    status, t = get(server, f"/api/v1/tournaments/{created.id}")
    check("a tournament: finished, its standings", status == 200 and
          t["status"] == "TOURNAMENT_STATUS_FINISHED" and
          sorted(s["bot"] for s in t["progress"]["standings"]) == ["f", "h", "r"], t)
    status, listed = get(server, "/api/v1/tournaments")
    check("tournaments: the one made", status == 200 and
          [x["id"] for x in listed["tournaments"]] == [str(created.id)], listed)
    status, board = get(server, f"/api/v1/leaderboard?game=village&tournament_id={created.id}")
    check("a tournament's leaderboard: its bots with intervals", status == 200 and
          sorted(r["bot"] for r in board["rows"]) == ["f", "h", "r"] and
          all("ml_low" in r and "ml_high" in r for r in board["rows"]), board)
    check("each row says whether its rating is provisional (fewer than 15 matches and an "
          "interval wider than 400 points)", status == 200 and all(
              r["provisional"] is (r["matches"] < 15 and r["ml_high"] - r["ml_low"] > 400)
              for r in board["rows"]), board)
    status, everyone = get(server, "/api/v1/leaderboard?game=village&all=true")
    ratings = [r["rating"] for r in everyone.get("rows", [])]
    check("all=true ranks every bot together, by rating alone", status == 200 and
          ratings == sorted(ratings, reverse=True) and
          [r["rank"] for r in everyone["rows"]] == list(range(1, len(ratings) + 1)), everyone)
    status, elo = get(server, "/api/v1/leaderboard?game=village&system=RATING_SYSTEM_ELO")
    check("a leaderboard by another system, named as the enum", status == 200 and
          elo["system"] == "RATING_SYSTEM_ELO", elo)
    status, h2h = get(server, "/api/v1/head-to-head?game=village")
    check("head-to-head: every pair of the three", status == 200 and len(h2h["pairs"]) == 3, h2h)
    status, results = get(server, f"/api/v1/results?tournament_id={created.id}&page_size=4")
    check("results, a page at a time", status == 200 and len(results["matches"]) == 4 and
          results["next_page_token"], results)

    status, page = get(server, "/api/v1/matches?game=village&page_size=4")
    status2, page2 = get(server, "/api/v1/matches?game=village&page_size=4&page_token="
                         + page.get("next_page_token", ""))
    ids = [m["match_id"] for m in page["matches"]] + [m["match_id"] for m in page2["matches"]]
    check("matches: pages of the game's matches, none twice", status == 200 and
          status2 == 200 and len(ids) == 6 and len(set(ids)) == 6, ids)
    sequences = [int(i[1:]) for i in ids]
    check("matches: newest first, page after page",
          sequences == sorted(sequences, reverse=True) and ids[0] == "m6", ids)
    check("the newest page links to older matches only, the oldest to newer only",
          page["next_page_token"] and not page["newer_page_token"] and
          not page2["next_page_token"] and page2["newer_page_token"], (page, page2))
    status3, back = get(server, "/api/v1/matches?game=village&page_size=4&page_token="
                        + page2.get("newer_page_token", ""))
    check("the newer page of the oldest is the newest again",
          status3 == 200 and [m["match_id"] for m in back["matches"]] == ids[:4] and
          not back["newer_page_token"] and back["next_page_token"],
          [m["match_id"] for m in back.get("matches", [])])
    listed = server.arena.ListMatches(arena_pb2.ListMatchesRequest(game="village", page_size=4))
    check("matches over HTTP are ListMatches' own, tokens too",
          [m.match_id for m in listed.matches] == ids[:4] and
          listed.next_page_token == page["next_page_token"], listed.next_page_token)
    status, error = get(server, "/api/v1/matches?page_token=m3")
    check("a page token the server did not give: 400", status == 400 and
          "is not one this server gave" in error["message"], (status, error))
    status, match = get(server, f"/api/v1/matches/{ids[0]}")
    check("a finished match of a finished tournament: its record", status == 200 and
          match["match"]["status"] == "MATCH_STATUS_FINISHED" and
          match["record"]["game"] == "village" and match["record"]["actions"], match.keys())

    status, replay = get(server, f"/api/v1/matches/{ids[0]}/replay?seat=1")
    check("a finished match's replay: every step as seat 1 saw it", status == 200 and
          replay["observer"] == 1 and len(replay["steps"]) == len(match["record"]["actions"]) + 1
          and replay["steps"][0]["view"]["village"]["observer"] == 1 and
          replay["scores"] == match["record"]["scores"], (status, list(replay)[:6]))
    status, error = get(server, f"/api/v1/matches/{ids[0]}/replay?seat=7")
    check("a replay as a seat the match does not have: 400", status == 400 and
          "seat 7 is no seat of this 3-player match" in error["message"], (status, error))

    # A match whose open seat nobody takes: it times out twice, forfeits,
    # and the match ends; a spectator sees it happen.
    made = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(builtin="random"), arena_pb2.SeatSpec(open=True)],
        time_control=arena_pb2.TimeControl(decision_ms=200, bank_ms=0, max_strikes=2)),
        metadata=ADMIN, timeout=30)
    streamed = events(server, f"/api/v1/matches/{made.match_id}/events")
    kinds = [kind for kind, _ in streamed]
    text = json.dumps([data for _, data in streamed])
    check("a live match's events: the match, then end", kinds and kinds[-1] == "end" and
          set(kinds[:-1]) == {"match"} and len(kinds) > 5, kinds[:5])
    check("its events say the open seat timed out and forfeited",
          "KIND_TIMEOUT" in text and "KIND_FORFEIT" in text, text[:400])
    # Watched once it is over (this one just ended; the tournament's is in
    # the database only): what the spectators of its end were told, then end.
    for over in (made.match_id, ids[0]):
        streamed = events(server, f"/api/v1/matches/{over}/events")
        kinds = [kind for kind, _ in streamed]
        told = [data for _, data in streamed]
        _, got = get(server, f"/api/v1/matches/{over}")
        ranks = [seat["rank"] for seat in got["match"]["seats"]]
        check(f"a finished match's events ({over}): its snapshot and its end, then end",
              kinds == ["match", "match", "end"] and
              told[0]["snapshot"]["match"]["status"] == "MATCH_STATUS_FINISHED" and
              [seat["rank"] for seat in told[1]["finished"]["match"]["seats"]] == ranks and
              all(rank > 0 for rank in ranks) and
              all(t["step"] == got["match"]["actions"] and "village" in t["view"]
                  for t in told[:2]), (kinds, ranks, json.dumps(told)[:400]))
    check("the tournament's stored match: the spectator's view of its final table",
          told[1]["view"]["village"]["over"] is True, told[1]["view"]["village"].get("over"))

    status, body = get(server, "/metrics")
    families = {f.name: f for f in text_string_to_metric_families(body)}
    def sample(family, suffix="", **labels):
        for s in families[family].samples:
            if s.name == family + suffix and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
        return None
    check("metrics: the Prometheus parser reads them", status == 200 and
          "hoard_matches_started" in families, sorted(families))
    check("metrics: matches started and ended by game",
          sample("hoard_matches_started", "_total", game="village") == 7 and
          sample("hoard_matches_ended", "_total", game="village", status="finished") == 7 and
          sample("hoard_matches_running", game="village") == 0, body[:600])
    check("metrics: decisions by who chose them, time-outs",
          sample("hoard_decisions", "_total", game="village", by="builtin") > 100 and
          sample("hoard_decisions", "_total", game="village", by="default") > 0 and
          sample("hoard_timeouts", "_total", game="village") == 2, body[:1200])
    check("metrics: the decision latency histogram and store writes",
          families["hoard_decision_seconds"].type == "histogram" and
          sample("hoard_store_write_seconds", "_count") >= 1 and
          sample("hoard_store_matches_written", "_total") == 7, body[-800:])

    # A running match opened after its start: the play so far first.
    made = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(builtin="random"), arena_pb2.SeatSpec(open=True)],
        time_control=arena_pb2.TimeControl(decision_ms=1500, bank_ms=0, max_strikes=3)),
        metadata=ADMIN, timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=made.match_id)).match
        if now.actions >= 3:
            break
        time.sleep(0.05)
    told, kind = [], None
    with urllib.request.urlopen(f"{server.web}/api/v1/matches/{made.match_id}/events"
                                "?from_start=true", timeout=30) as response:
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[len("event: "):]
            elif line.startswith("data: "):
                told.append((kind, json.loads(line[len("data: "):])))
                snapshot = told[0][1].get("snapshot", {}).get("match", {})
                if kind != "match" or len(told) > snapshot.get("actions", 0):
                    break
    first = told[0][1]
    history = [data for _, data in told[1:first["step"] + 1]]
    check("a running match's events from its start: the table as it stands, then every "
          "action so far, from the first, without a view",
          first.get("snapshot", {}).get("match", {}).get("status") == "MATCH_STATUS_RUNNING"
          and first["step"] >= 3 and "village" in first["view"] and
          [h["step"] for h in history] == list(range(1, first["step"] + 1)) and
          all("action_taken" in h and not h.get("view") for h in history),
          (first.get("step"), json.dumps(history)[:600]))
    check("from its start, a spectator learns no seed",
          first["snapshot"]["match"]["seed"] == "0" and not first["snapshot"]["match"]["seed_salt"],
          first["snapshot"]["match"].get("seed"))
    record = None
    deadline = time.monotonic() + 30
    while record is None and time.monotonic() < deadline:
        _, got = get(server, f"/api/v1/matches/{made.match_id}")
        record = got.get("record")
        time.sleep(0.1)
    check("the play so far is what the record says",
          record is not None and [h["action_taken"]["text"] for h in history] ==
          [a["text"] for a in record["actions"][:len(history)]], json.dumps(history)[:300])
    streamed = events(server, f"/api/v1/matches/{made.match_id}/events?from_start=true")
    check("from its start, a match that is over is told as before: its final table, then end",
          [kind for kind, _ in streamed] == ["match", "match", "end"] and
          "finished" in streamed[1][1], [kind for kind, _ in streamed])
    status, error = get(server, f"/api/v1/matches/{made.match_id}/events?from_start=maybe")
    check("a bad from_start: 400", status == 400 and "from_start" in error["message"],
          (status, error))

    # A tournament running now shows in the metrics, then is cancelled.
    long_spec = tournament_pb2.TournamentSpec()
    long_spec.CopyFrom(spec)
    long_spec.rounds = 5000
    long_spec.concurrency = 1
    running = server.tournaments.CreateTournament(
        tournament_pb2.CreateTournamentRequest(spec=long_spec), metadata=ADMIN, timeout=60)
    time.sleep(0.5)
    _, body = get(server, "/metrics")
    families = {f.name: f for f in text_string_to_metric_families(body)}
    check("metrics: a running tournament's progress",
          sample("hoard_tournament_matches", tournament=str(running.id), state="scheduled")
          == running.progress.scheduled == 15000
          and sample("hoard_tournament_matches", tournament=str(running.id),
                     state="finished") >= 1, body[-900:])
    # One address may hold sixteen event streams at once; a seventeenth is
    # refused, saying why.
    streams = [urllib.request.urlopen(f"{server.web}/api/v1/tournaments/{running.id}/events",
                                      timeout=30) for _ in range(16)]
    status, error = get(server, f"/api/v1/tournaments/{running.id}/events")
    check("a seventeenth event stream from one address: 503, saying why", status == 503 and
          "too many event streams from your address 127.0.0.1 (at most 16)" in error["message"],
          (status, error))
    for stream in streams:
        stream.close()
    # The server sees them gone as they close.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{server.web}/api/v1/tournaments/{running.id}/events",
                                   timeout=30).close()
            status = 200
            break
        except urllib.error.HTTPError as e:
            status = e.code
            time.sleep(0.1)
    check("closed streams make room for new ones", status == 200, status)
    server.tournaments.CancelTournament(tournament_pb2.CancelTournamentRequest(id=running.id),
                                        metadata=ADMIN, timeout=60)

    status, document = get(server, "/openapi.json")
    check("the OpenAPI document", status == 200 and document["openapi"].startswith("3.") and
          "/api/v1/matches/{match_id}/events" in document["paths"], status)
    answered = []
    for path, methods in document["paths"].items():
        # The play routes take POST only (tests/web_play_test.py).
        if "{" in path or path.endswith("/events") or "get" not in methods:
            continue
        query = "?game=village" if path.endswith(("leaderboard", "head-to-head")) else ""
        answered.append((path, get(server, path + query)[0]))
    check("every path it lists for GET answers",
          len(answered) > 5 and all(code == 200 for _, code in answered), answered)

    status, error = get(server, "/api/v1/matches/m999999")
    check("an unknown match: 404 with the gRPC code and why", status == 404 and
          error == {"code": "NOT_FOUND", "message": "no match 'm999999'"}, (status, error))
    status, error = get(server, "/api/v1/matches?colour=blue")
    check("an unknown query parameter: 400 naming it", status == 400 and
          error["code"] == "INVALID_ARGUMENT" and "colour" in error["message"], (status, error))
    status, error = get(server, "/api/v1/matches?status=MATCH_STATUS_SOMETIMES")
    check("a bad enum value: 400", status == 400 and "status" in error["message"], (status, error))
    status, error = get(server, "/api/v1/matches/m999999/events")
    check("the events of an unknown match: 404 before any event", status == 404 and
          error == {"code": "NOT_FOUND", "message": "no match 'm999999'"}, (status, error))
    status, error = get(server, "/api/v1/tournaments/99")
    check("an unknown tournament: 404", status == 404 and error["code"] == "NOT_FOUND", error)
    status, page = get(server, "/")
    icons = {}
    for path in ("/favicon.svg", "/favicon.ico"):
        with urllib.request.urlopen(server.web + path, timeout=30) as response:
            icons[path] = (response.status, response.headers.get("Content-Type"),
                           response.read().decode())
    check("the app links its icon, and both /favicon.svg and the /favicon.ico browsers ask "
          "for answer it", status == 200 and
          '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in page and
          all(code == 200 and kind == "image/svg+xml" and body.startswith("<svg ")
              for code, kind, body in icons.values()), icons)
    status, error = get(server, "/no/such/page")
    check("an unknown page: 404 pointing at the API", status == 404 and
          "/openapi.json" in error["message"], error)
    request = urllib.request.Request(server.web + "/api/v1/games", data=b"{}", method="POST")
    try:
        urllib.request.urlopen(request, timeout=30)
        code = 200
    except urllib.error.HTTPError as e:
        code, error = e.code, json.loads(e.read().decode())
    check("POST: 405, the API is read-only", code == 405 and "read-only" in error["message"],
          code)
    methods = {}
    for method in ("OPTIONS", "TRACE", "PUT", "PATCH", "DELETE", "BREW"):
        connection = http.client.HTTPConnection("127.0.0.1", int(server.web.rsplit(":", 1)[1]),
                                                timeout=30)
        connection.request(method, "/api/v1/games")
        response = connection.getresponse()
        methods[method] = (response.status, response.getheader("Allow"))
        connection.close()
    check("every method but GET and HEAD: 405 with Allow: GET, HEAD",
          all(answer == (405, "GET, HEAD") for answer in methods.values()), methods)
    for path in ("/", "/api/v1/games"):
        connection = http.client.HTTPConnection("127.0.0.1", int(server.web.rsplit(":", 1)[1]),
                                                timeout=30)
        connection.request("GET", path)
        got = connection.getresponse()
        body = got.read()
        connection.request("HEAD", path)
        head = connection.getresponse()
        head_body = head.read()
        connection.close()
        check(f"HEAD {path}: GET's status and headers, no body",
              head.status == got.status == 200 and head_body == b"" and
              head.getheader("Content-Length") == str(len(body)) and
              head.getheader("Content-Type") == got.getheader("Content-Type"),
              (head.status, head.getheader("Content-Length"), len(body)))
        policy = got.getheader("Content-Security-Policy") or ""
        check(f"{path}: a content security policy and no framing, sniffing or referrer",
              "default-src 'none'" in policy and "script-src 'self'" in policy and
              "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy and
              got.getheader("X-Frame-Options") == "DENY" and
              got.getheader("X-Content-Type-Options") == "nosniff" and
              got.getheader("Referrer-Policy") == "no-referrer", dict(got.getheaders()))
    live = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game="village", seats=[arena_pb2.SeatSpec(builtin="random"), arena_pb2.SeatSpec(open=True)],
        time_control=arena_pb2.TimeControl(decision_ms=5000)), metadata=ADMIN, timeout=30)
    status, error = get(server, f"/api/v1/matches/{live.match_id}/replay")
    check("a running match has no replay yet: 400 saying so", status == 400 and
          error["code"] == "FAILED_PRECONDITION" and "still running" in error["message"],
          (status, error))
    check("the server still serves gRPC after all that",
          len(server.arena.ListGames(arena_pb2.ListGamesRequest(), timeout=10).games) == 4, "")


def private(server):
    status, error = get(server, "/api/v1/games")
    check("a private server: no token, 401 as over gRPC", status == 401 and
          error["code"] == "UNAUTHENTICATED", (status, error))
    status, games = get(server, "/api/v1/games", {"Authorization": "Bearer web-test-reader"})
    check("a read token passed on: 200", status == 200 and len(games["games"]) == 4, status)
    status, _ = get(server, "/api/v1/games", {"Authorization": "Bearer wrong"})
    check("a wrong token: 401", status == 401, status)
    status, _ = get(server, "/metrics")
    status_with, body = get(server, "/metrics", {"Authorization": "Bearer web-test-reader"})
    check("its metrics need a read token too", status == 401 and status_with == 200 and
          "hoard_bots_connected 0" in body, (status, status_with))


if __name__ == "__main__":
    main()
