// hoard bots add|list|revoke: bot accounts on a server (admin).

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"
#include "service/auth.h"
#include "service/cli/channel.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {

int RunBots(const std::vector<std::string>& args) {
  std::vector<std::string> words;
  std::string server;
  std::string token_file;
  std::string key;
  std::string key_file;
  bool replace = false;
  CommandLine command("bots",
                      "usage: hoard bots add NAME [--key KEY | --key-file FILE] [--replace]\n"
                      "       hoard bots list\n"
                      "       hoard bots revoke NAME\n\n"
                      "Manages the bot accounts of a Hoard server (add and revoke need its admin\n"
                      "token). A bot registers with its account's name and key; add prints the\n"
                      "key, which the server keeps only as a salted hash. revoke deletes the\n"
                      "account and closes its streams.");
  CLI::App& app = command.app();
  app.add_option("--server", server, kServerHelp)->type_name("HOST:PORT");
  app.add_option("--token-file", token_file,
                 "the token to send (default $HOARD_TOKEN, else for add and revoke a local "
                 "server's admin token)")
      ->type_name("FILE");
  app.add_option("--key", key, "add: the account's key (default: the server makes one)")
      ->type_name("KEY");
  app.add_option("--key-file", key_file,
                 "add: read the account's key from FILE (its first line), kept off the command "
                 "line")
      ->type_name("FILE");
  app.add_flag("--replace", replace,
               "add: give an existing account a new key (its streams are closed)");
  command.Words(&words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  server = ServerAddress(server);
  // list is a read; add and revoke need the admin role.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = words.size() == 1 && words[0] == "list"
                                                               ? ReadChannel(server, token_file)
                                                               : AdminChannel(server, token_file);
  if (!channel.ok()) return Fail(kExitUsage, std::string(channel.status().message()));
  auto stub = hoard::v1::Arena::NewStub(*channel);
  grpc::ClientContext context;
  if (words.size() == 2 && words[0] == "add") {
    hoard::v1::AddBotRequest request;
    request.set_name(words[1]);
    request.set_key(key);
    if (!key_file.empty()) {
      if (!key.empty()) return Fail(kExitUsage, "give --key or --key-file, not both");
      absl::StatusOr<std::vector<std::string>> read = bots::ReadTokenFile(key_file);
      if (!read.ok()) return Fail(kExitUsage, std::string(read.status().message()));
      request.set_key(read->front());
    }
    request.set_replace(replace);
    hoard::v1::AddBotResponse response;
    const grpc::Status status = stub->AddBot(&context, request, &response);
    if (!status.ok()) return FailWith(status, server, **channel);
    std::cout << "bot " << response.name() << " key " << response.key() << "\n";
    return kExitOk;
  }
  if (words.size() == 1 && words[0] == "list") {
    hoard::v1::ListBotsResponse response;
    const grpc::Status status = stub->ListBots(&context, {}, &response);
    if (!status.ok()) return FailWith(status, server, **channel);
    for (const hoard::v1::BotInfo& bot : response.bots()) {
      std::cout << absl::StrFormat("%-24s %-12s %d running, at most %d\n", bot.name(),
                                   bot.connected() ? "connected" : "disconnected",
                                   bot.running_matches(), bot.max_matches());
    }
    return kExitOk;
  }
  if (words.size() == 2 && words[0] == "revoke") {
    hoard::v1::RevokeBotRequest request;
    request.set_name(words[1]);
    hoard::v1::RevokeBotResponse response;
    const grpc::Status status = stub->RevokeBot(&context, request, &response);
    if (!status.ok()) return FailWith(status, server, **channel);
    std::cout << "bot " << response.name() << " revoked (" << response.streams_closed() << " stream"
              << (response.streams_closed() == 1 ? "" : "s") << " closed)\n";
    return kExitOk;
  }
  return Fail(kExitUsage,
              SubcommandError("bots", words, {"add", "list", "revoke"},
                              "usage: hoard bots add NAME|list|revoke NAME [flags] (see --help)"));
}

}  // namespace hoard::cli
