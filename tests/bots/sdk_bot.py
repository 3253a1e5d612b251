#!/usr/bin/python3
"""A bot on the Python SDK whose decisions go wrong, or count, for the SDK's tests.

    sdk_bot.py illegal   decides an index past the end of the legal actions:
                         the SDK answers again with the default action
    sdk_bot.py slow      decides too slowly (sleeps 2 s): the SDK answers the
                         default action before the deadline
    sdk_bot.py crash     raises in every decision: the SDK logs it and answers
                         the default action
    sdk_bot.py count     answers 1, then 2, 3... (how many decisions it has
                         made), so a test tells a fresh decision from an
                         answer sent again
"""
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bots", "python"))
import hoard_bot  # noqa: E402

MODE = sys.argv.pop(1) if len(sys.argv) > 1 else ""
_decisions = itertools.count(1)


def decide(decision):
    if MODE == "illegal":
        return len(decision.legal_actions)
    if MODE == "slow":
        time.sleep(2)
        return 0
    if MODE == "count":
        return next(_decisions)
    raise RuntimeError("this bot fails on purpose")


if MODE not in ("illegal", "slow", "crash", "count"):
    sys.exit("usage: sdk_bot.py illegal|slow|crash|count [flags]")
hoard_bot.run(decide)
