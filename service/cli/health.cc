// hoard health: asks a server's standard gRPC health service whether it is
// serving (for container health checks and scripts).

#include <future>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/byte_buffer.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {
namespace {

// grpc.health.v1.HealthCheckRequest{service}, encoded by hand: field 1, a
// string. (Debian ships no health.proto; the message is this small.)
std::string EncodeRequest(const std::string& service) {
  std::string bytes;
  if (service.empty()) return bytes;
  bytes.push_back('\x0a');
  for (std::size_t n = service.size();; n >>= 7) {  // the length, a varint
    if (n < 0x80) {
      bytes.push_back(static_cast<char>(n));
      break;
    }
    bytes.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  return bytes + service;
}

// HealthCheckResponse.status (field 1, a varint): 1 SERVING, 2 NOT_SERVING.
int DecodeStatus(const std::string& bytes) {
  return bytes.size() >= 2 && bytes[0] == '\x08' ? static_cast<unsigned char>(bytes[1]) : 0;
}

}  // namespace

int RunHealth(const std::vector<std::string>& args) {
  std::string server;
  std::string service;
  int timeout_ms = 3000;
  CommandLine command("health",
                      "usage: hoard health [flags]\n\n"
                      "Asks a Hoard server's gRPC health service (grpc.health.v1.Health/Check)\n"
                      "whether it is serving: the whole server, or one service with --service\n"
                      "(hoard.v1.Tournaments serves on a server with a database). Exit status 0\n"
                      "when it is, 1 when it is not or cannot be reached.");
  CLI::App& app = command.app();
  app.add_option("--server", server, kServerHelp)->type_name("HOST:PORT");
  app.add_option("--service", service,
                 "a service to ask about: hoard.v1.Arena or hoard.v1.Tournaments (default: the "
                 "server)")
      ->type_name("NAME");
  app.add_option("--timeout-ms", timeout_ms, "give up after this long (default 3000)")
      ->type_name("MS")
      ->transform(InRange(1, 600000));
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  server = ServerAddress(server);

  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ServerChannel(server);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  grpc::GenericStub stub(*channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  const std::string request_bytes = EncodeRequest(service);
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(status); });
  const grpc::Status status = done.get_future().get();
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    return Fail(kExitFailure, absl::StrCat(server, " has no service '", service,
                                           "' (it serves hoard.v1.Arena, hoard.v1.Tournaments)"));
  }
  if (!status.ok()) return FailWith(status, server, **channel);
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (response.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices)
      bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  const int serving = DecodeStatus(bytes);
  const std::string what = service.empty() ? server : absl::StrCat(service, " on ", server);
  if (serving != 1) {
    return Fail(kExitFailure, absl::StrCat(what, " is not serving (status ", serving, ")"));
  }
  std::cout << what << " is serving" << std::endl;
  return kExitOk;
}

}  // namespace hoard::cli
