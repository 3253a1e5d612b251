#!/usr/bin/python3
"""The monitoring in deploy/ against promtool and a real server's /metrics.

    /usr/bin/python3 tests/monitoring_test.py build/hoard

deploy/prometheus: the scrape configuration and the alert rules pass
`promtool check config` and `promtool check rules`, and `promtool test rules`
makes each alert fire (alerts_test.yml). deploy/grafana/hoard.json is a
dashboard whose every query parses as PromQL (promtool, as rules of a file of
the test's own). Then a real `hoard serve --db --http` plays a tournament,
and every metric the alerts, their tests and the dashboard name is one its
/metrics exports, which `promtool check metrics` finds well formed; there,
every finished match is stored, so the store's backlog the alert and the
dashboard compute is 0. Prints one line per check and a closing
'N passed, M failed'.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, start_server  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: monitoring_test.py PATH_TO_HOARD")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMETHEUS = os.path.join(REPO, "deploy", "prometheus")
DASHBOARD = os.path.join(REPO, "deploy", "grafana", "hoard.json")
ADMIN = "monitoring-test-admin"
# What PromQL names that is not a metric: functions, keywords, and
# Prometheus's own series.
NOT_METRICS = {"sum", "rate", "delta", "histogram_quantile", "and", "count", "max", "up"}


def promtool(*args):
    done = subprocess.run(["promtool", *args], capture_output=True, text=True)
    return done.returncode == 0, done.stdout + done.stderr


def metric_names(expr):
    """The metric names of a PromQL expression: its identifiers outside
    label matchers, strings, ranges and groupings."""
    bare = re.sub(r'\{[^}]*\}|\[[^\]]*\]|"[^"]*"|\b(?:by|without|on|ignoring)\s*\([^)]*\)', " ",
                  expr)
    return {name for name in re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", bare)
            if name not in NOT_METRICS and not re.fullmatch(r"[0-9.e]+", name)}


def dashboard_exprs(dashboard):
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def main():
    ok, out = promtool("check", "config", os.path.join(PROMETHEUS, "prometheus.yml"))
    check("promtool check config: the scrape configuration and its rule file", ok, out)
    ok, out = promtool("check", "rules", os.path.join(PROMETHEUS, "alerts.yml"))
    check("promtool check rules: the alerts", ok and "SUCCESS" in out, out)
    ok, out = promtool("test", "rules", os.path.join(PROMETHEUS, "alerts_test.yml"))
    check("promtool test rules: each alert fires on its series", ok and "SUCCESS" in out, out)

    with open(os.path.join(PROMETHEUS, "alerts.yml")) as f:
        rules = [rule for group in yaml.safe_load(f)["groups"] for rule in group["rules"]]
    with open(os.path.join(PROMETHEUS, "alerts_test.yml")) as f:
        tests = yaml.safe_load(f)["tests"]
    alerts = {rule["alert"] for rule in rules}
    fired = {case["alertname"] for test in tests for case in test["alert_rule_test"]
             if case["exp_alerts"]}
    check("every alert has a test in which it fires", alerts and alerts == fired,
          (sorted(alerts), sorted(fired)))
    alert_exprs = [rule["expr"] for rule in rules]
    series = [s["series"] for test in tests for s in test["input_series"]]

    with open(DASHBOARD) as f:
        dashboard = json.load(f)
    ids = [panel["id"] for panel in dashboard["panels"]]
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    check("the dashboard is Grafana JSON: a uid, panels with distinct ids, each on the "
          "Prometheus data source chosen",
          dashboard.get("uid") and len(ids) == len(set(ids)) > 10 and "datasource" in variables and
          all(p["datasource"]["uid"] == "${datasource}" and p["targets"] and p["gridPos"]
              for p in dashboard["panels"]), ids)
    # Each query as a recording rule: promtool parses it. Grafana's
    # variables stand for what they are replaced with.
    exprs = dashboard_exprs(dashboard)
    work = tempfile.mkdtemp(prefix="hoard-monitoring-")
    try:
        rules = os.path.join(work, "dashboard.yml")
        with open(rules, "w") as f:
            f.write("groups:\n  - name: dashboard\n    rules:\n")
            for i, expr in enumerate(exprs):
                expr = expr.replace("$__rate_interval", "5m").replace("$instance", ".*")
                f.write(f"      - record: dashboard:query_{i}\n        expr: {json.dumps(expr)}\n")
        ok, out = promtool("check", "rules", rules)
        check(f"every dashboard query ({len(exprs)}) parses as PromQL", ok, out)
        live(work, alert_exprs, series, exprs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    finish()


def live(work, alert_exprs, series, dashboard_queries):
    server, grpc_address, _ = start_server(HOARD, work, ADMIN, "--db",
                                           os.path.join(work, "hoard.db"), "--http", "127.0.0.1:0")
    try:
        web = server.stdout.readline().split()[-1]
        made = subprocess.run(
            [HOARD, "tournament", "create", "--server", grpc_address,
             "--token-file", os.path.join(work, "admin-tokens"), "--game", "village", "--players", "3",
             "--format", "duplicate", "--rounds", "2", "--seed", "4",
             "--participant", "h=builtin:heuristic", "--participant", "r=builtin:random",
             "--participant", "f=builtin:first", "--watch", "--quiet"],
            capture_output=True, text=True, timeout=120)
        check("a tournament is played", made.returncode == 0, made.stderr)
        with urllib.request.urlopen(f"{web}/metrics", timeout=30) as response:
            text = response.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=60)

    families = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    exported = set(families)
    for name, kind in families.items():
        if kind == "histogram":
            exported |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    for what, names in [
            ("the alerts", set().union(*map(metric_names, alert_exprs))),
            ("the alerts' tests", {s.split("{")[0] for s in series} - {"up"}),
            ("the dashboard", set().union(*map(metric_names, dashboard_queries)))]:
        check(f"every metric {what} name is exported at /metrics", names and names <= exported,
              sorted(names - exported))
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                          text=True)
    check("promtool check metrics finds the exported metrics well formed",
          lint.returncode == 0 and not lint.stdout.strip(), lint.stdout + lint.stderr)

    def total(name, labels=""):
        return sum(float(v) for v in re.findall(
            rf"^{name}(?:{{[^}}]*{labels}[^}}]*}})? (\S+)$", text, re.M))
    finished = total("hoard_matches_ended_total", 'status="finished"')
    written = total("hoard_store_matches_written_total")
    check("with a database every finished match is stored: the store's backlog is 0",
          finished == 6 and written == finished, (finished, written))


if __name__ == "__main__":
    main()
