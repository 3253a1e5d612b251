#!/usr/bin/python3
"""What a gRPC tool learns of a real `hoard serve` by server reflection.

    /usr/bin/python3 tests/grpc_reflection_test.py build/hoard

A reflection client, as grpcurl and grpc_cli are: it asks the server's
grpc.reflection.v1alpha.ServerReflection (its messages compiled from Debian's
grpc-proto with protoc) for the services, then for the file that defines
each, and builds the services from those descriptors alone. Every service
listed must be described, grpc.health.v1.Health among them, and a health
check made with only the described messages must say SERVING. Prints one
line per check and a closing 'N passed, M failed'.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grpc  # noqa: E402
from checks import check, finish, start_server  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

HOARD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(
    "usage: grpc_reflection_test.py PATH_TO_HOARD")
GRPC_PROTO = "/usr/share/grpc-proto"
REFLECTION = "grpc/reflection/v1alpha/reflection.proto"


def reflection_messages(work):
    """reflection_pb2, compiled from Debian's grpc-proto with protoc. It is
    written to grpc/reflection/v1alpha/ under work, which the installed grpc
    package would shadow as a module path: it is loaded from its file."""
    subprocess.run(["protoc", f"--proto_path={GRPC_PROTO}", f"--python_out={work}",
                    os.path.join(GRPC_PROTO, REFLECTION)], check=True)
    spec = importlib.util.spec_from_file_location(
        "reflection_pb2", os.path.join(work, REFLECTION.replace(".proto", "_pb2.py")))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Reflection:
    """One ServerReflectionInfo stream: a request, its answer."""

    def __init__(self, channel, pb):
        self.pb = pb
        self.info = channel.stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            request_serializer=pb.ServerReflectionRequest.SerializeToString,
            response_deserializer=pb.ServerReflectionResponse.FromString)

    def ask(self, **request):
        answers = list(self.info(iter([self.pb.ServerReflectionRequest(**request)]), timeout=30))
        return answers[0]

    def services(self):
        return [s.name for s in self.ask(list_services="").list_services_response.service]

    def describe(self, symbol):
        """A pool of the files that define `symbol` and what they import,
        as the server sends them; None if it cannot."""
        answer = self.ask(file_containing_symbol=symbol)
        if answer.WhichOneof("message_response") != "file_descriptor_response":
            return None
        files = {}
        pending = list(answer.file_descriptor_response.file_descriptor_proto)
        while pending:
            proto = descriptor_pb2.FileDescriptorProto.FromString(pending.pop())
            files[proto.name] = proto
            for dependency in proto.dependency:
                if dependency not in files:
                    more = self.ask(file_by_filename=dependency)
                    pending.extend(more.file_descriptor_response.file_descriptor_proto)
        pool = descriptor_pool.DescriptorPool()
        added = set()

        def add(name):
            if name in added:
                return
            for dependency in files[name].dependency:
                add(dependency)
            pool.Add(files[name])
            added.add(name)
        for name in files:
            add(name)
        return pool


def message_class(descriptor):
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(descriptor.file.pool).GetPrototype(descriptor)


def main():
    work = tempfile.mkdtemp(prefix="hoard-reflection-")
    server = None
    try:
        pb = reflection_messages(work)
        server, address, _ = start_server(HOARD, work, "reflection-test-admin")
        channel = grpc.insecure_channel(address)
        reflection = Reflection(channel, pb)
        services = reflection.services()
        check("reflection lists the arena, the tournaments and the health service",
              {"hoard.v1.Arena", "hoard.v1.Tournaments", "grpc.health.v1.Health"} <= set(services),
              services)
        described = {name: reflection.describe(name) for name in services}
        check("reflection describes every service it lists",
              all(pool is not None for pool in described.values()),
              [name for name, pool in described.items() if pool is None])
        pool = described.get("grpc.health.v1.Health")
        health = pool.FindServiceByName("grpc.health.v1.Health") if pool else None
        methods = {m.name: (m.input_type.full_name, m.output_type.full_name)
                   for m in (health.methods if health else [])}
        check("grpc.health.v1.Health, described: Check and Watch, with their messages",
              methods.get("Check") == ("grpc.health.v1.HealthCheckRequest",
                                       "grpc.health.v1.HealthCheckResponse") and "Watch" in methods,
              methods)
        if health:
            check_method = health.FindMethodByName("Check")
            request_class = message_class(check_method.input_type)
            response_class = message_class(check_method.output_type)
            call = channel.unary_unary(
                "/grpc.health.v1.Health/Check",
                request_serializer=request_class.SerializeToString,
                response_deserializer=response_class.FromString)
            answer = call(request_class(service="hoard.v1.Arena"), timeout=30)
            status = check_method.output_type.enum_types_by_name["ServingStatus"]
            check("a health check made from the described messages alone: the arena is SERVING",
                  status.values_by_number[answer.status].name == "SERVING", answer)
        arena = described.get("hoard.v1.Arena")
        arena_service = arena.FindServiceByName("hoard.v1.Arena") if arena else None
        check("hoard.v1.Arena, described: its methods, such as Play and ListGames",
              arena_service is not None and
              {"Play", "ListGames"} <= {m.name for m in arena_service.methods})
        channel.close()
    finally:
        if server:
            server.terminate()
            server.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
