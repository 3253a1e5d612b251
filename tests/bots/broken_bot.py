#!/usr/bin/python3
"""A deliberately broken bot, for the tests of `hoard check-bot`.

    broken_bot.py illegal   registers, then answers every request with an
                            index past the end of its legal actions and
                            ignores the refusals
    broken_bot.py silent    registers, then never answers

It speaks the protocol directly (no SDK, which would repair the answers) and
reads HOARD_SERVER, HOARD_BOT_NAME and HOARD_BOT_KEY like any launched bot.
"""
import os
import queue
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bots", "python"))
import grpc  # noqa: E402
from hoard_bot.stubs import arena_pb2, arena_pb2_grpc  # noqa: E402


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("illegal", "silent"):
        sys.exit("usage: broken_bot.py illegal|silent")
    mode = sys.argv[1]
    outgoing = queue.Queue()
    outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(register=arena_pb2.Register(
        name=os.environ["HOARD_BOT_NAME"], key=os.environ["HOARD_BOT_KEY"],
        max_matches=int(os.environ.get("HOARD_MAX_MATCHES", "1"))))))
    channel = grpc.insecure_channel(os.environ["HOARD_SERVER"])
    try:
        for message in arena_pb2_grpc.ArenaStub(channel).Play(iter(outgoing.get, None)):
            if message.WhichOneof("kind") == "decision" and mode == "illegal":
                request = message.decision
                outgoing.put(arena_pb2.BotMessage(answer=arena_pb2.Answer(
                    match_id=request.match_id, request_id=request.request_id,
                    legal_index=len(request.legal_actions))))
    except grpc.RpcError as error:
        sys.exit(f"broken_bot: {error.code().name}: {error.details()}")


if __name__ == "__main__":
    main()
