#!/usr/bin/python3
"""A deliberately broken bot, for the tests of `hoard check-bot`.

    broken_bot.py illegal   registers, then answers every request with an
                            index past the end of its legal actions and
                            ignores the refusals
    broken_bot.py silent    registers, then never answers
    broken_bot.py slow      registers, then takes 1.5 s over each decision
                            (the first legal action)
    broken_bot.py crash     registers, plays the first legal action until its
                            first match ends, then says so on stderr and dies
                            (exit status 3)

It speaks the protocol directly (no SDK, which would repair the answers) and
reads HOARD_SERVER, HOARD_BOT_NAME and HOARD_BOT_KEY like any launched bot.
"""
import os
import queue
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bots", "python"))
import grpc  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402

MODES = ("illegal", "silent", "slow", "crash")


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: broken_bot.py {'|'.join(MODES)}")
    mode = sys.argv[1]
    outgoing = queue.Queue()
    outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(register=arena_pb2.Register(
        name=os.environ["HOARD_BOT_NAME"], key=os.environ["HOARD_BOT_KEY"],
        max_matches=int(os.environ.get("HOARD_MAX_MATCHES", "1"))))))
    channel = grpc.insecure_channel(os.environ["HOARD_SERVER"])
    try:
        for message in arena_pb2_grpc.ArenaStub(channel).Play(iter(outgoing.get, None)):
            kind = message.WhichOneof("kind")
            if kind == "event" and message.event.WhichOneof("kind") == "finished" \
                    and mode == "crash":
                print(f"broken_bot: crashing on purpose after match {message.event.match_id}",
                      file=sys.stderr, flush=True)
                os._exit(3)
            if kind != "decision" or mode == "silent":
                continue
            request = message.decision
            if mode == "slow":
                time.sleep(1.5)
            outgoing.put(arena_pb2.BotMessage(answer=arena_pb2.Answer(
                match_id=request.match_id, request_id=request.request_id,
                legal_index=len(request.legal_actions) if mode == "illegal" else 0)))
    except grpc.RpcError as error:
        sys.exit(f"broken_bot: {error.code().name}: {error.details()}")


if __name__ == "__main__":
    main()
