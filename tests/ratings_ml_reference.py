#!/usr/bin/python3
"""An independent computation of Hoard's maximum likelihood ratings.

Reads a results file (CSV: match_id,bot,place), fits Bradley-Terry with
BayesElo's prior (PRIOR virtual ties of every bot with a virtual player of
strength 1) by Hunter's MM algorithm, and finds each bot's 95% profile
interval of the penalized likelihood (bot against the mean weighted by
each bot's share of the meetings) by Newton's
method on the constrained problem and bisection. Plain Python: no numpy.

  ratings_ml_reference.py FILE [--prior C]            prints bot rating low high
  ratings_ml_reference.py FILE --hoard PATH [--prior C]
      runs `hoard ratings --input FILE --system ml --json --bootstrap 0` and
      exits 1 unless every rating and interval end agrees to 1e-6 points and
      every bot's chance of being the strongest (p_first) to 0.02.

Each bot's chance of being the strongest: the posterior in the Laplace
approximation (normal, centred on the estimate, with the inverse of the
information matrix as covariance), by 200,000 draws of Python's own
generator, Cholesky factor and triangular solve written here.

docs/ratings.md ("Test vectors") shows its output for tests/ratings_ml_vectors.csv.
"""

import json
import math
import random
import subprocess
import sys

POINTS = 400 / math.log(10)  # rating points per natural-log unit
DROP = 3.841458820694124 / 2  # chi-squared(1) 95% quantile over 2


def read_results(path):
    matches = {}
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]
    assert lines[0].replace(" ", "") == "match_id,bot,place", lines[0]
    for line in lines[1:]:
        match, bot, place = [v.strip() for v in line.split(",")]
        matches.setdefault(match, []).append((bot, int(place)))
    bots = sorted({bot for seats in matches.values() for bot, _ in seats})
    return bots, list(matches.values())


def pairwise(bots, matches):
    """points[i]: i's pairwise points; meetings[(i, j)], i < j."""
    index = {b: i for i, b in enumerate(bots)}
    points = [0.0] * len(bots)
    meetings = {}
    for seats in matches:
        for s in range(len(seats)):
            for t in range(s + 1, len(seats)):
                (a, pa), (b, pb) = seats[s], seats[t]
                i, j = index[a], index[b]
                points[i] += 1 if pa < pb else 0.5 if pa == pb else 0
                points[j] += 1 if pb < pa else 0.5 if pa == pb else 0
                key = (min(i, j), max(i, j))
                meetings[key] = meetings.get(key, 0) + 1
    return points, meetings


def log_likelihood(x, points, meetings, prior):
    f = 0.0
    for i, xi in enumerate(x):
        f += (points[i] + prior / 2) * xi - prior * math.log(1 + math.exp(xi))
    for (i, j), n in meetings.items():
        f -= n * math.log(math.exp(x[i]) + math.exp(x[j]))
    return f


def mm(n, points, meetings, prior):
    """Hunter's MM with the virtual player: gamma_i <- W_i / sum n_ij/(gamma_i + gamma_j)."""
    gamma = [1.0] * n
    for _ in range(100000):
        new = []
        for i in range(n):
            denominator = prior / (gamma[i] + 1)
            for (a, b), m in meetings.items():
                if i in (a, b):
                    denominator += m / (gamma[a] + gamma[b])
            new.append((points[i] + prior / 2) / denominator)
        change = max(abs(g1 - g0) / g0 for g0, g1 in zip(gamma, new))
        gamma = new
        if change < 1e-13:
            break
    return [math.log(g) for g in gamma]


def solve(m, rhs):
    """Gaussian elimination with partial pivoting."""
    k = len(rhs)
    m = [row[:] + [r] for row, r in zip(m, rhs)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, k):
            f = m[r][c] / m[c][c]
            for j in range(c, k + 1):
                m[r][j] -= f * m[c][j]
    z = [0.0] * k
    for c in reversed(range(k)):
        z[c] = (m[c][k] - sum(m[c][j] * z[j] for j in range(c + 1, k))) / m[c][c]
    return z


def constrained_max(x, a, t, points, meetings, prior):
    """The largest penalized log-likelihood with a.x = t, by Newton (KKT)."""
    n = len(x)
    shift = (t - sum(ai * xi for ai, xi in zip(a, x))) / sum(ai * ai for ai in a)
    x = [xi + shift * ai for xi, ai in zip(x, a)]
    for _ in range(200):
        g = [0.0] * n
        h = [[0.0] * n for _ in range(n)]
        for i in range(n):
            p = 1 / (1 + math.exp(-x[i]))
            g[i] = points[i] + prior / 2 - prior * p
            h[i][i] += prior * p * (1 - p)
        for (i, j), m in meetings.items():
            p = 1 / (1 + math.exp(x[j] - x[i]))
            g[i] -= m * p
            g[j] -= m * (1 - p)
            w = m * p * (1 - p)
            h[i][i] += w
            h[j][j] += w
            h[i][j] -= w
            h[j][i] -= w
        kkt = [row + [a[i]] for i, row in enumerate(h)] + [a + [0.0]]
        step = solve(kkt, g + [0.0])[:n]
        value = log_likelihood(x, points, meetings, prior)
        scale = 1.0  # halved until the step does not lower the likelihood
        while scale > 1e-9 and log_likelihood([xi + scale * d for xi, d in zip(x, step)],
                                               points, meetings, prior) < value:
            scale /= 2
        x = [xi + scale * d for xi, d in zip(x, step)]
        if max(abs(d) for d in step) < 1e-13:
            break
    return log_likelihood(x, points, meetings, prior), x


def meeting_shares(n, meetings):
    """Each bot's share of all meetings: the weights of the mean."""
    share = [0.0] * n
    for (i, j), m in meetings.items():
        share[i] += m
        share[j] += m
    total = sum(share)
    return [s / total for s in share]


def profile_interval(x_hat, bot, points, meetings, prior):
    n = len(x_hat)
    share = meeting_shares(n, meetings)
    a = [(1.0 if i == bot else 0.0) - share[i] for i in range(n)]
    t_hat = sum(ai * xi for ai, xi in zip(a, x_hat))
    best = log_likelihood(x_hat, points, meetings, prior)
    ends = []
    for direction in (-1, 1):
        inside, outside = 0.0, 0.5
        while constrained_max(x_hat, a, t_hat + direction * outside, points, meetings,
                              prior)[0] > best - DROP:
            inside, outside = outside, 2 * outside
        for _ in range(80):
            middle = (inside + outside) / 2
            if constrained_max(x_hat, a, t_hat + direction * middle, points, meetings,
                               prior)[0] > best - DROP:
                inside = middle
            else:
                outside = middle
        ends.append((t_hat + direction * (inside + outside) / 2) * POINTS)
    return ends


def information(x, meetings, prior):
    """The penalized log-likelihood's Hessian at x, negated."""
    n = len(x)
    h = [[0.0] * n for _ in range(n)]
    for i in range(n):
        p = 1 / (1 + math.exp(-x[i]))
        h[i][i] += prior * p * (1 - p)
    for (i, j), m in meetings.items():
        p = 1 / (1 + math.exp(x[j] - x[i]))
        w = m * p * (1 - p)
        h[i][i] += w
        h[j][j] += w
        h[i][j] -= w
        h[j][i] -= w
    return h


def first_probabilities(x, meetings, prior, draws=200000):
    """P(bot i has the highest strength) under N(x, information^-1)."""
    n = len(x)
    h = information(x, meetings, prior)
    # h = L L^T; y = L^-T z has covariance h^-1.
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            total = h[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            low[i][j] = math.sqrt(total) if i == j else total / low[j][j]
    rng = random.Random(7)
    first = [0] * n
    for _ in range(draws):
        y = [rng.gauss(0, 1) for _ in range(n)]
        for i in reversed(range(n)):
            y[i] = (y[i] - sum(low[j][i] * y[j] for j in range(i + 1, n))) / low[i][i]
        strengths = [xi + yi for xi, yi in zip(x, y)]
        first[max(range(n), key=lambda i: strengths[i])] += 1
    return [f / draws for f in first]


def reference(path, prior):
    bots, matches = read_results(path)
    points, meetings = pairwise(bots, matches)
    x = mm(len(bots), points, meetings, prior)
    share = meeting_shares(len(bots), meetings)
    mean = sum(w * xi for w, xi in zip(share, x))
    firsts = first_probabilities(x, meetings, prior)
    out = {}
    for i, bot in enumerate(bots):
        low, high = profile_interval(x, i, points, meetings, prior)
        out[bot] = ((x[i] - mean) * POINTS, low, high, firsts[i])
    return out


def main(argv):
    path = argv[1]
    prior = float(argv[argv.index("--prior") + 1]) if "--prior" in argv else 2.0
    expected = reference(path, prior)
    if "--hoard" not in argv:
        for bot, (rating, low, high, first) in sorted(expected.items(), key=lambda kv: -kv[1][0]):
            print(f"{bot:8} {rating:8.2f}  [{low:8.2f}, {high:8.2f}]  P(first) {first:.3f}")
        return 0
    command = [argv[argv.index("--hoard") + 1], "ratings", "--input", path, "--system", "ml",
               "--json", "--bootstrap", "0"]
    if "--prior" in argv:
        command += ["--prior", argv[argv.index("--prior") + 1]]
    printed = json.loads(subprocess.run(command, check=True, capture_output=True,
                                        text=True).stdout)
    failures = 0
    for row in printed["ratings"]:
        want = expected[row["bot"]]
        got = (row["rating"], row["low"], row["high"], row.get("p_first"))
        tolerances = (1e-6, 1e-6, 1e-6, 0.02)
        if any(g is None or abs(g - w) > t for g, w, t in zip(got, want, tolerances)):
            print(f"{row['bot']}: hoard {got}, reference {want}")
            failures += 1
    if len(printed["ratings"]) != len(expected):
        print("hoard rated other bots than the reference")
        failures += 1
    print("agree" if failures == 0 else f"{failures} bots disagree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
