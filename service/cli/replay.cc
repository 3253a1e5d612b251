// hoard replay verify FILE: re-simulates a match record and checks it.

#include <iostream>

#include "absl/strings/str_cat.h"
#include "engine/record.h"
#include "engine/record_json.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"

namespace hoard::cli {

int RunReplay(const std::vector<std::string>& args) {
  static const std::vector<FlagSpec> kFlags = {{"help", "", "show this help"}};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, kFlags);
  if (!parsed.ok()) return Fail(kExitUsage, std::string(parsed.status().message()));
  if (parsed->Has("help")) {
    std::cout << "usage: hoard replay verify FILE\n\n"
                 "Re-simulates the match record FILE (as written by 'hoard play "
                 "--record')\nfrom its seed and actions, and says whether it "
                 "matches or where it first\ndiffers. Exit status 0 when it "
                 "matches, 1 when it does not.\n";
    return kExitOk;
  }
  if (parsed->positionals.size() != 2 || parsed->positionals[0] != "verify") {
    return Fail(kExitUsage, SubcommandError("replay", *parsed, {"verify"},
                                            "usage: hoard replay verify FILE"));
  }
  const std::string& path = parsed->positionals[1];
  absl::StatusOr<engine::MatchRecord> record = engine::ReadRecordFile(path);
  if (!record.ok()) return Fail(kExitFailure, std::string(record.status().message()));
  if (absl::Status status = engine::VerifyRecord(*record); !status.ok()) {
    return Fail(kExitFailure,
                absl::StrCat(path, " does not match: ", status.message()));
  }
  std::cout << path << ": matches (" << record->game << " ruleset "
            << record->ruleset_version << ", seed " << record->seed << ", "
            << record->seats.size() << " seats, " << record->actions.size()
            << " actions)\n";
  return kExitOk;
}

}  // namespace hoard::cli
