"""The checks of the Python end-to-end tests: one line per check, and a
closing 'N passed, M failed' that CI reads.

    from checks import check, finish
    check("the server starts", ok, detail)
    finish()  # prints the count; exits 1 if any check failed
"""
import os
import subprocess
import sys

_counts = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    """Records one check; on failure prints up to 20 lines of `detail`.
    Returns whether it passed."""
    if ok:
        _counts["passed"] += 1
        print(f"ok   {name}")
        return True
    _counts["failed"] += 1
    print(f"FAIL {name}")
    for line in str(detail).splitlines()[:20] if detail else ():
        print(f"     {line}")
    return False


def finish():
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 0)


def start_server(hoard, work, admin_token, *flags):
    """`hoard serve` on a free loopback port, with `admin_token` its admin
    token and its state and log in `work`: (process, address, log file).
    Exits the test, with the server's log, if it does not start."""
    tokens = os.path.join(work, "admin-tokens")
    with open(tokens, "w") as f:
        f.write(f"{admin_token}\n")
    log = open(os.path.join(work, "serve.log"), "w+")
    server = subprocess.Popen(
        [hoard, "serve", "--listen", "127.0.0.1:0", "--state-dir", os.path.join(work, "state"),
         "--admin-token-file", tokens, *flags],
        stdout=subprocess.PIPE, stderr=log, text=True)
    line = server.stdout.readline()
    if not line.startswith("hoard: serving on "):
        log.seek(0)
        sys.exit(f"the server did not start: {line}{log.read()}")
    return server, line.split()[-1], log
