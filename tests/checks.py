"""The checks of the Python end-to-end tests: one line per check, and a
closing 'N passed, M failed' that CI reads.

    from checks import check, finish
    check("the server starts", ok, detail)
    finish()  # prints the count; exits 1 if any check failed
"""
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
