#!/usr/bin/python3
"""A Hoard bot that plays a random legal action, in every game.

    /usr/bin/python3 bots/python/examples/random_bot.py --name pyrandom --key secret
"""
import os, random, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hoard_bot

def decide(decision):
    return random.randrange(len(decision.legal_actions))

hoard_bot.run(decide, description=__doc__)
